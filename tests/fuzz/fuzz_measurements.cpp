// Fuzz target: a measurements CSV as `sonicsim compare` and `calibrate scan` read it (--vary
// workload.jobs; the metric found in the file, then one named).
#include <sonicsim/calibration/measurements.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(measurements) {
  using namespace sonicsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  calibration::MeasurementOptions options;
  options.vary = "workload.jobs";
  // Anywhere: a file with no header at all is refused as a whole.
  fuzz::expect_contract("measurements", fuzz::Where::Anywhere,
                        [&] { calibration::parse_measurements(text, "scan.csv", options); });
  options.metric = "throughput_per_s";
  options.min_rows = 3;
  options.min_rows_reason = "3 free parameters";
  fuzz::expect_contract("measurements", fuzz::Where::Anywhere,
                        [&] { calibration::parse_measurements(text, "scan.csv", options); });
  return 0;
}
