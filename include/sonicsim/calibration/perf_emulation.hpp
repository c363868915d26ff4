// perf_analyzer inside the simulator: the experiment perf_analyzer runs, on a simulated server.
//
// Concurrency mode keeps C requests of B items outstanding from one client node with no think
// time (perf_analyzer --concurrency-range, --async or sync: the same closed loop). Request-rate
// mode sends requests of B items at a fixed rate whatever the responses (--request-rate-range, an
// open loop: the scenario's workload.arrivals), at constant intervals or Poisson. The scenario
// supplies the model (curve, batching, instances, request overheads), the device (the first
// pool hosting the model, with `devices` of its devices) and the network (the links present);
// its workload is replaced. Columns mean what perf_analyzer's mean: times per request in
// microseconds, `Inferences/Second` in batch items, compute charged per request (a request is
// charged its whole execution), and `Network+Server Send/Recv` is the rest of the latency: the
// links plus the server-side request overhead.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <sonicsim/calibration/perf_analyzer.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::calibration {

struct EmulationOptions {
  std::string model;
  int batch_size = 1;
  int devices = 1;
  // Requests each point measures after its warm-up (perf_analyzer's windows hold a few
  // thousand; more gives stable percentiles at a cost of milliseconds). Concurrency mode runs
  // until about this many have finished; request-rate mode sends this many.
  std::uint64_t requests = 20000;
  // Request-rate mode: perf_analyzer's --request-distribution.
  scenario::Arrivals::Distribution distribution = scenario::Arrivals::Distribution::Constant;
  // Shares of compute spent in input and output copies, by items per execution (from a
  // calibration); empty puts all compute under `Server Compute Infer`.
  std::vector<double> split_items, input_share, output_share;
};

struct EmulatedPoint {
  PerfAnalyzerRow row;
  double items_per_execution = 0.0;  // request-weighted, as the calibration's deconvolution uses
  double requests_per_execution = 0.0;
  std::uint64_t requests = 0;  // completed after warm-up
  std::uint64_t failed = 0;    // rejected by the queue policy (or too large), after warm-up
  double device_utilization = 0.0;
  // Request-rate mode past saturation: the servers finish fewer requests than are sent, so the
  // queue (and the latency columns) grow with the length of the measurement.
  bool backlog_growing = false;
};

// The emulation itself runs a simulation, which this layer cannot link (the engine sits above
// calibration; compare stands on calibration and needs no engine): the commands hand in
// emulation::emulator() (emulation/perf_emulation.hpp), which answers as described there.
struct Emulator {
  std::function<EmulatedPoint(const scenario::Scenario&, const EmulationOptions&, int concurrency)>
      concurrency;
  std::function<EmulatedPoint(const scenario::Scenario&, const EmulationOptions&, double rate)>
      request_rate;
};

}  // namespace sonicsim::calibration
