// Fuzz target: `sonicsim calibrate overlap` (src/cli/cmd_calibrate_overlap.cpp): perf_analyzer
// CSV files, separated in the input by lines `---` (at most 8), read as the command reads them
// (batch size from the file name), the overlap curve fitted, and the curve it writes pasted into
// a scenario's `devices.D.overlap` as the command's own read-back does (src/cli/read_back.cpp,
// overlap_read_back). Contract: the command refuses with InputError naming a file, or writes a
// curve that the scenario loader accepts, from finite measured points.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/overlap_fit.hpp>
#include <sonicsim/calibration/perf_analyzer.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/errors.hpp>

#include "support.hpp"

namespace {

constexpr std::size_t kOverlapMaxFiles = 8;

// read_back.cpp's host_scenario with the curve as its device's overlap.
nlohmann::json overlap_host_scenario(const nlohmann::json& overlap) {
  auto s = sonicsim::fuzz::read_back_scenario("T4");
  s["devices"] = {{"T4", {{"overlap", overlap}}}};
  return s;
}

}  // namespace

SONICSIM_FUZZ_TARGET(calibrate_overlap) {
  using namespace sonicsim;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> paths;
  while (paths.size() < kOverlapMaxFiles) {
    auto [file, after] = fuzz::split_at_marker(rest, "---");
    paths.push_back(fuzz::scratch_file("m" + std::to_string(paths.size()) + "_batch1.csv", file));
    if (after.empty() && file.size() == rest.size()) break;
    rest = after;
  }
  std::string curve;
  fuzz::expect_contract("calibrate_overlap", fuzz::Where::Anywhere, [&] {
    std::vector<calibration::PerfAnalyzerScan> scans;
    for (const auto& p : paths) scans.push_back(calibration::read_perf_analyzer_csv(p));
    const auto fit = calibration::fit_overlap(scans);
    if (!std::isfinite(fit.alone_s) || fit.alone_s <= 0.0)
      fuzz::finding("calibrate_overlap", "alone_s " + std::to_string(fit.alone_s));
    for (const auto& m : fit.measured)
      if (!std::isfinite(m.executions) || !std::isfinite(m.throughput))
        fuzz::finding("calibrate_overlap",
                      "a measured point that is not finite, line " + std::to_string(m.line));
    calibration::to_text(fit, "T4");
    curve = calibration::to_json(fit, "T4", scans).dump(2);
  });
  if (curve.empty()) return 0;
  // What the command wrote is JSON it reads back (nlohmann writes a NaN as null).
  const auto doc = nlohmann::json::parse(curve);
  try {
    scenario::load_json(overlap_host_scenario(doc.value("overlap", nlohmann::json())),
                        "curve.json");
  } catch (const InputError& e) {
    fuzz::finding("calibrate_overlap",
                  std::string("the written curve is refused by the scenario loader: ") + e.what());
  }
  return 0;
}
