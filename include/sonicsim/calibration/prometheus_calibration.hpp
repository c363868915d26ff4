// `sonicsim calibrate prometheus`: a model's service-time curve from a measured history (a
// measurements file written by `import prometheus`) when no perf_analyzer scans exist.
//
// Each window with enough executions gives a point (batch size b = inferences / executions,
// compute time per execution). Triton charges every request of a batch the whole execution's
// compute time, so the compute duration increase over the successful requests' increase is the
// (request-weighted) time of one execution; input and output copies are added to the inference
// when measured, as `calibrate perf-analyzer`'s curve holds them. Windows are pooled into bins of
// 2^(1/8) in batch size (execution-weighted means), the curves of service_fit.hpp fitted, and the
// calibration file written in `calibrate perf-analyzer`'s format, tabulated only over the batch
// sizes measured.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/service_fit.hpp>

namespace sonicsim::calibration {

struct PrometheusCalibrationInput {
  std::string measurements_path;
  std::string model;
  std::string version;  // empty: the model's only version
  std::string pool;     // empty: the only pool serving the model
  std::string device = "GPU";
  double min_executions = 100.0;  // per window: fewer and the window's mean is noise
  std::size_t min_windows = 10;
  std::optional<CurveKind> curve;  // forced; none: chosen by held-out error
  std::string command_line;
};

struct PrometheusCalibration {
  nlohmann::ordered_json doc;  // the calibration file
  std::string report;          // for people
  CurveFit curve;
  double batch_min = 0.0, batch_max = 0.0;  // the measured range: the curve's support
  std::size_t windows_used = 0, windows_total = 0;
};

// Throws InputError (the measurements file and the JSON path) for an unreadable file, a model
// or pool that is not there or is ambiguous, and too few usable windows or batch sizes.
PrometheusCalibration calibrate_prometheus(const PrometheusCalibrationInput& in);

}  // namespace sonicsim::calibration
