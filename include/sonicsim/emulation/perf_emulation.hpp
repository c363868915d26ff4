// perf_analyzer inside the simulator (the experiment and its columns:
// calibration/perf_emulation.hpp, which holds the types). A layer of its own above the runner,
// because it simulates in process.
#pragma once

#include <sonicsim/calibration/perf_emulation.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::emulation {

using calibration::EmulatedPoint;
using calibration::EmulationOptions;

// Throws scenario::InputError when the scenario does not serve the model or B exceeds its
// max_batch_size. Runs in-process with the analytic transport (no SimGrid engine is started):
// perf_analyzer's single client node rarely loads a link; see docs/calibration.md.
EmulatedPoint emulate_concurrency(const scenario::Scenario& s, const EmulationOptions& o,
                                  int concurrency);
// The same for `rate` requests per second (> 0, fractional allowed), open loop. Throws
// scenario::InputError as above, or for a rate that is not a finite number in (0, 1e9].
EmulatedPoint emulate_request_rate(const scenario::Scenario& s, const EmulationOptions& o,
                                   double rate);

// The compute split recorded in a calibration file next to a model's curve, if any.
void load_compute_split(const scenario::Scenario& s, EmulationOptions& o);

// Both, as calibrate perf-analyzer takes them (PerfCalibrationInput::emulate).
calibration::Emulator emulator();

}  // namespace sonicsim::emulation
