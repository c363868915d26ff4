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
    const auto r = telemetry::import_prometheus({path}, {});
    // What the import writes, the reader takes back unchanged.
    const auto doc = telemetry::to_json(r.measurements).dump();
    if (!(telemetry::parse_measurements(doc, "m.json") == r.measurements))
      fuzz::finding("prometheus", "the measurements file does not round-trip");
  });
  fuzz::expect_contract("prometheus", fuzz::Where::Anywhere,
                        [&] { telemetry::parse_measurements(text, "m.json"); });
  return 0;
}
