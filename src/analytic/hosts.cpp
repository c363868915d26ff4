// Server hosts in the formula's view (docs/servers.md#hosts): the SONIC formula knows devices
// only, so a pool whose hosts' cores saturate first is a bottleneck it cannot see. This checks
// the host load at the formula's throughput and says so in the notes.
#include <algorithm>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::analytic {

std::string note_number(double x);  // analytic.cpp

void add_host_notes(Prediction& pr, const scenario::Scenario& sc) {
  if (!(pr.throughput_per_s > 0.0)) return;
  for (const scenario::ServerPool& pool : sc.servers) {
    if (!pool.host || !pool.host->cores || pool.count <= 0) continue;
    // Core-seconds per second the pool's hosts need at the formula's throughput, counting one
    // execution per request (no batching: the most backend work there can be).
    double busy = 0.0;
    for (const ModelTerm& m : pr.models) {
      if (!m.served || m.n_gpu <= 0 ||
          std::find(pool.models.begin(), pool.models.end(), m.name) == pool.models.end())
        continue;
      const scenario::Model* model = sc.find_model(m.name);
      if (!model || !model->host_cost) continue;
      const auto& c = *model->host_cost;
      const double work = c.before_queue(m.mean_items * model->input_bytes_per_item) +
                          c.per_execution +
                          c.after_execution(m.mean_items * model->output_bytes_per_item);
      const double share = static_cast<double>(pool.count) / m.n_gpu;
      busy += pr.throughput_per_s * m.per_event * share * work;
    }
    const double cores = static_cast<double>(pool.count / pool.host->devices) * *pool.host->cores;
    const double load = busy / cores;
    const double host_capacity = pr.throughput_per_s / load;  // events/s when the cores are full
    // With dynamic batching the devices reach far more than the formula's throughput: the hosts
    // may bind below that (the formula's own bound is then not the one that holds).
    const PoolTerm* term = nullptr;
    for (const PoolTerm& t : pr.pools)
      if (t.name == pool.name) term = &t;
    const double batched_capacity =
        term && term->demand_per_device_full_batch_s && *term->demand_per_device_full_batch_s > 0.0
            ? 1.0 / *term->demand_per_device_full_batch_s
            : 0.0;
    if (load < 1.0 && host_capacity < batched_capacity) {
      pr.notes.push_back("pool `" + pool.name + "`'s hosts can take about " +
                         note_number(host_capacity) + " events/s (" + note_number(cores) +
                         " cores, models' host_cost), below the " + note_number(batched_capacity) +
                         " events/s its devices reach at full batches: with dynamic batching the "
                         "hosts, not t_GPU, bind; the formula does not model them, the simulation "
                         "does");
    } else if (load >= 1.0) {
      pr.notes.push_back("pool `" + pool.name + "`'s hosts would need " + note_number(busy) +
                         " cores at the formula's throughput and have " + note_number(cores) +
                         " (models' host_cost): the hosts, not t_GPU, bind there, at about " +
                         note_number(pr.throughput_per_s / load) +
                         " events/s; the formula does not model them, the simulation does");
    } else if (load > 0.5) {
      pr.notes.push_back("pool `" + pool.name + "`'s hosts are " + util::percent(load, "%.3g") +
                         " busy at the formula's throughput (models' host_cost): their queueing "
                         "adds latency the formula leaves out");
    }
  }
}

}  // namespace sonicsim::analytic
