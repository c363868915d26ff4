// Fuzz target: perf_analyzer's CSV export (`perf_analyzer -f out.csv`), read as
// `sonicsim calibrate perf-analyzer` reads it: batch size from the file name, and from a flag.
#include <sonicsim/calibration/perf_analyzer.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(perf_analyzer) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string path = fuzz::scratch_file("model_batch4.csv", input);
  fuzz::expect_contract("perf_analyzer", fuzz::Where::Anywhere, [&] {
    const auto scan = calibration::read_perf_analyzer_csv(path);
    // What `perf-analyzer` emulation writes back must be readable again.
    calibration::write_perf_analyzer_csv(scan.mode, scan.rows, true);
  });
  fuzz::expect_contract("perf_analyzer", fuzz::Where::Anywhere,
                        [&] { calibration::read_perf_analyzer_csv(path, 16); });
  return 0;
}
