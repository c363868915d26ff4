// Fuzz target: `sonicsim calibrate nodes` (src/cli/cmd_calibrate_nodes.cpp): a first line of
// options, `CORES THREADS_PER_CORE MEMORY_BANDWIDTH` (whole numbers, taken into their ranges;
// absent or unreadable: 32 2 0), then the node measurements CSV, read from a file as the command
// reads it, fitted, written, and its `workload` fragment merged into a scenario's workload as the
// command's own read-back does (src/cli/read_back.cpp, node_read_back). Contract: the command
// refuses with InputError naming the file, or fits finite parameters in their ranges whose
// fragment the scenario loader accepts.
#include <cmath>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/node_fit.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/errors.hpp>

#include "support.hpp"

namespace {

sonicsim::calibration::NodeFitOptions node_options(std::string_view line) {
  std::istringstream in{std::string(line)};
  long cores = 32, threads = 2, cap = 0;
  if (!(in >> cores >> threads >> cap)) cores = 32, threads = 2, cap = 0;
  const auto within = [](long v, long lo, long hi) { return v < lo ? lo : v > hi ? hi : v; };
  return {static_cast<int>(within(cores, 1, 100'000)), static_cast<int>(within(threads, 1, 8)),
          cap != 0};
}

// read_back.cpp's host_scenario with the fragment merged into its workload.
nlohmann::json nodes_host_scenario(const nlohmann::json& workload) {
  auto s = sonicsim::fuzz::read_back_scenario("GPU");
  s["workload"].merge_patch(workload);
  return s;
}

bool finite_in(double v, double lo, double hi) {
  return std::isfinite(v) && v >= lo && v <= hi;
}

}  // namespace

SONICSIM_FUZZ_TARGET(calibrate_nodes) {
  using namespace sonicsim;
  const auto [first, rest] =
      fuzz::split_first_line(std::string_view(reinterpret_cast<const char*>(data), size));
  const auto options = node_options(first);
  const std::string path = fuzz::scratch_file("node.csv", rest);
  std::string written;
  fuzz::expect_contract("calibrate_nodes", fuzz::Where::Anywhere, [&] {
    const auto m = calibration::read_node_measurements(path);
    const auto fit = calibration::fit_node(m, options);
    if (!finite_in(fit.cpu_time_per_event.value, 1e-300, 1e300) ||
        !finite_in(fit.node.hyperthread, 1e-300, 1.0) ||
        (fit.node.memory_bandwidth_threads &&
         !finite_in(*fit.node.memory_bandwidth_threads, 1.0, 1e300)))
      fuzz::finding("calibrate_nodes", "a fitted parameter out of its range or not finite");
    for (const auto& r : fit.residuals)
      if (!std::isfinite(r.residual))
        fuzz::finding("calibrate_nodes", "a residual that is not finite");
    calibration::to_text(fit, m);
    written = calibration::to_json(fit, m, "").dump(2);
  });
  if (written.empty()) return 0;
  const auto doc = nlohmann::json::parse(written);
  try {
    scenario::load_json(nodes_host_scenario(doc.at("workload")), "node.json");
  } catch (const InputError& e) {
    fuzz::finding(
        "calibrate_nodes",
        std::string("the written fragment is refused by the scenario loader: ") + e.what());
  }
  return 0;
}
