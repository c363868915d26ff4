// What the SONIC formulas take from a device that overlaps executions or is a pipeline
// (docs/servers.md). t_GPU stays a request's time on the device (its latency: an execution
// alone, or latency + (n - 1) x interval through a pipeline); the pool's demand, which sets
// where the formula saturates, becomes the device time a request uses up: items x interval on a
// pipeline, t_GPU / throughput(k) on a device whose k instances overlap.
#include <sonicsim/analytic/analytic.hpp>

namespace sonicsim::analytic {

double device_busy_time(const scenario::Scenario& sc, const scenario::ServerPool& pool,
                        const scenario::Model& model, double items, double time) {
  const scenario::DeviceSpec* d = sc.find_device(pool.device);
  if (!d) return time;
  const device_kinds::Execution ex = sc.execution_of(pool);
  if (ex.model == device_kinds::Execution::Model::Pipeline) {
    // The entry time of this model's items (the pool's first model is the only one).
    const auto it = model.pipeline_time.find(pool.device);
    return it == model.pipeline_time.end() ? time : items * it->second.interval;
  }
  return ex.throughput.empty() ? time : time / ex.throughput.back();
}

void add_device_kind_notes(Prediction& pr, const scenario::Scenario& sc) {
  for (std::size_t j = 0; j < sc.servers.size() && j < pr.pools.size(); ++j) {
    if (!pr.pools[j].in_use) continue;
    const scenario::ServerPool& pool = sc.servers[j];
    const scenario::DeviceSpec* d = sc.find_device(pool.device);
    if (!d) continue;
    std::string note = device_kinds::note(d->kind, pool.name, pool.device, sc.device_facts(pool));
    if (!note.empty()) pr.notes.push_back(std::move(note));
  }
}

}  // namespace sonicsim::analytic
