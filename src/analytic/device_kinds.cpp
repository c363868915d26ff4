// What the SONIC formulas take from a device that overlaps executions or is a pipeline
// (docs/servers.md). t_GPU stays a request's time on the device (its latency: an execution
// alone, or latency + (n - 1) x interval through a pipeline); the pool's demand, which sets
// where the formula saturates, becomes the device time a request uses up: items x interval on a
// pipeline, t_GPU / throughput(k) on a device whose k instances overlap.
#include <sonicsim/analytic/analytic.hpp>

#include <sstream>

namespace sonicsim::analytic {

namespace {

// The most executions a pool's device runs at once: its models' instances.
int most_executions(const scenario::Scenario& sc, const scenario::ServerPool& pool) {
  int k = 0;
  for (const auto& name : pool.models)
    if (const scenario::Model* m = sc.find_model(name)) k += m->instances;
  return k > 0 ? k : 1;
}

std::string short_number(double x) {
  std::ostringstream s;
  s.precision(4);
  s << x;
  return s.str();
}

}  // namespace

double device_busy_time(const scenario::Scenario& sc, const scenario::ServerPool& pool,
                        const scenario::Model& model, double items, double time) {
  const scenario::DeviceSpec* d = sc.find_device(pool.device);
  if (!d) return time;
  if (d->kind == scenario::DeviceKind::Pipeline) {
    const auto it = model.pipeline_time.find(pool.device);
    return it == model.pipeline_time.end() ? time : items * it->second.interval;
  }
  if (d->overlap) return time / d->overlap->at(most_executions(sc, pool));
  return time;
}

void add_device_kind_notes(Prediction& pr, const scenario::Scenario& sc) {
  for (std::size_t j = 0; j < sc.servers.size() && j < pr.pools.size(); ++j) {
    if (!pr.pools[j].in_use) continue;
    const scenario::ServerPool& pool = sc.servers[j];
    const scenario::DeviceSpec* d = sc.find_device(pool.device);
    if (!d) continue;
    if (d->kind == scenario::DeviceKind::Pipeline) {
      pr.notes.push_back(
          "pool `" + pool.name + "` is a pipeline (" + pool.device +
          "): t_GPU is a request's latency through it (latency + (items - 1) x interval), its "
          "demand the entry time items x interval, so it saturates at 1 / interval items/s per "
          "device while t_GPU stays the same; MVA queues the entry time and adds the rest of "
          "the latency nowhere (it is low by latency - interval per request)");
    } else if (d->overlap) {
      const int k = most_executions(sc, pool);
      pr.notes.push_back(
          "pool `" + pool.name + "`'s device " + pool.device + " overlaps executions: with its " +
          std::to_string(k) + " instances busy it does " + short_number(d->overlap->at(k)) +
          "x the work of one, so its demand is t_GPU / " + short_number(d->overlap->at(k)) +
          "; t_GPU stays an execution alone, which under load runs slower (k / throughput(k) "
          "times longer): below saturation the formula's latency is optimistic");
    }
  }
}

}  // namespace sonicsim::analytic
