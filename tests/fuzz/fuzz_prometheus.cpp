// Fuzz target: a Prometheus query_range export or one of Grafana's (corpus grafana_*.json) as
// `import prometheus` reads it, and the measurements file it writes as `calibrate prometheus`
// reads it back.
#include <sonicsim/telemetry/measurements.hpp>
#include <sonicsim/telemetry/prometheus_import.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(prometheus) {
  using namespace sonicsim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = fuzz::scratch_file("export.json", text);
  fuzz::expect_contract("prometheus", fuzz::Where::Anywhere, [&] {
    // Budgets of cells, spreading steps and memory for one input within the fuzzer's time and
    // memory limits (ASan, UBSan): the import refuses more, as it refuses more than
    // PrometheusLimits' caps and --memory-budget from a user.
    telemetry::ImportOptions options;
    options.max_cells = 50'000;
    options.max_spread_steps = 5e6;
    options.memory_budget = 256.0 * 1024 * 1024;
    const auto r = telemetry::import_prometheus({path}, options);
    // What the import writes, the reader takes back unchanged.
    const auto doc = telemetry::to_json(r.measurements).dump();
    if (!(telemetry::parse_measurements(doc, "m.json") == r.measurements))
      fuzz::finding("prometheus", "the measurements file does not round-trip");
  });
  fuzz::expect_contract("prometheus", fuzz::Where::Anywhere,
                        [&] { telemetry::parse_measurements(text, "m.json"); });
  return 0;
}
