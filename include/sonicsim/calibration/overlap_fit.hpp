// The overlap curve of a device (`devices.D.overlap`, docs/servers.md) from perf_analyzer runs at
// several concurrencies against a model with enough instances. perf_analyzer's "Server Compute
// Infer" is an execution's time on the device; with X requests/s and C per execution the device
// holds X C executions on average (Little) and does X t of work per second, t being an execution
// alone (C at concurrency 1). Those pairs (mean executions, relative throughput) are the curve,
// read at whole numbers of executions. Rows where the client, not the device, limits the load
// still give valid pairs: they just sit at fewer executions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/perf_analyzer.hpp>

namespace sonicsim::calibration {

struct OverlapMeasured {
  std::string file;
  int line = 0;
  double concurrency = 0.0;
  double requests_per_s = 0.0;
  double compute_infer_s = 0.0;
  double executions = 0.0;  // X C: executions on the device on average
  double throughput = 0.0;  // X t: work per second, relative to one execution alone
};

struct OverlapFit {
  int batch_size = 1;
  double alone_s = 0.0;                        // t: Server Compute Infer at concurrency 1
  std::vector<OverlapMeasured> measured;       // by concurrency
  std::vector<double> executions, throughput;  // the curve, valid for the scenario loader
  std::vector<std::string> notes;              // what was corrected or cannot be told
};

// Fits the curve from perf_analyzer files of one model at one batch size (concurrency mode).
// Throws scenario::InputError naming the file (and line) when the data cannot give a curve: no
// row at concurrency 1, a request-rate scan, several batch sizes, never two executions at once
// on average, or a row whose executions exceed its concurrency by more than noise. The curve
// holds at most the concurrency measured and at most scenario::Limits::max_instances points.
OverlapFit fit_overlap(const std::vector<PerfAnalyzerScan>& scans);

// {"device": D, "overlap": {"executions": [...], "throughput": [...]}, "measured": [...], ...}:
// `overlap` is what goes into the scenario's `devices.D.overlap`.
nlohmann::ordered_json to_json(const OverlapFit& fit, const std::string& device,
                               const std::vector<PerfAnalyzerScan>& scans);
std::string to_text(const OverlapFit& fit, const std::string& device);

}  // namespace sonicsim::calibration
