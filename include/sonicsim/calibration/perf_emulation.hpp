// perf_analyzer inside the simulator: the experiment perf_analyzer runs, on a simulated server.
//
// Concurrency mode keeps C requests of B items outstanding from one client node with no think
// time (perf_analyzer --concurrency-range, --async or sync: the same closed loop). The scenario
// supplies the model (curve, batching, instances, request overheads), the device (the first
// pool hosting the model, with `devices` of its devices) and the network (the links present);
// its workload is replaced. Columns mean what perf_analyzer's mean: times per request in
// microseconds, `Inferences/Second` in batch items, compute charged per request (a request is
// charged its whole execution), and `Network+Server Send/Recv` is the rest of the latency: the
// links plus the server-side request overhead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <sonicsim/calibration/perf_analyzer.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::calibration {

struct EmulationOptions {
  std::string model;
  int batch_size = 1;
  int devices = 1;
  // Requests each point simulates after its warm-up (perf_analyzer's windows hold a few
  // thousand; more gives stable percentiles at a cost of milliseconds).
  std::uint64_t requests = 20000;
  // Shares of compute spent in input and output copies, by items per execution (from a
  // calibration); empty puts all compute under `Server Compute Infer`.
  std::vector<double> split_items, input_share, output_share;
};

struct EmulatedPoint {
  PerfAnalyzerRow row;
  double items_per_execution = 0.0;  // request-weighted, as the calibration's deconvolution uses
  double requests_per_execution = 0.0;
  std::uint64_t requests = 0;
  double device_utilization = 0.0;
};

// Throws scenario::InputError when the scenario does not serve the model or B exceeds its
// max_batch_size. Runs in-process with the analytic transport (no SimGrid engine is started):
// perf_analyzer's single client node rarely loads a link; see docs/calibration.md.
EmulatedPoint emulate_concurrency(const scenario::Scenario& s, const EmulationOptions& o,
                                  int concurrency);

// The compute split recorded in a calibration file next to a model's curve, if any.
void load_compute_split(const scenario::Scenario& s, EmulationOptions& o);

}  // namespace sonicsim::calibration
