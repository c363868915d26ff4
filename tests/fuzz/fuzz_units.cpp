// Fuzz target: quantities with units ("1ms", "10Gbps", "500/s") and distribution objects. The
// input is a JSON value (or, when it is not JSON, the text as a JSON string). It is parsed as
// each kind of quantity, then, as a distribution, loaded as a scenario's cpu_time_per_event; a
// distribution the loader accepts must sample finite, non-negative times.
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/rng.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(units) {
  using namespace sonicsim;
  using nlohmann::json;
  const std::string text(reinterpret_cast<const char*>(data), size);
  json value = json::parse(text, nullptr, false);
  if (value.is_discarded()) value = json(text);
  // A string that is not UTF-8 cannot be written back (the loader keeps the canonical dump);
  // the scenario parser refuses such text in a file, so it never reaches here from a user.
  try {
    (void)value.dump();
  } catch (const json::exception&) {
    value = json("not UTF-8");
  }
  for (auto kind : {scenario::Quantity::Time, scenario::Quantity::Size,
                    scenario::Quantity::Bandwidth, scenario::Quantity::Rate}) {
    fuzz::expect_contract("units", fuzz::Where::Anywhere, [&] {
      std::string error;
      const auto q = scenario::parse_quantity(value, kind, error);
      if (q && std::isnan(*q)) fuzz::finding("units", "parse_quantity returned NaN");
      if (!q && error.empty()) fuzz::finding("units", "parse_quantity refused without a reason");
    });
  }
  json doc = {{"duration", "10min"},
              {"workload", {{"jobs", 2}, {"threads_per_job", 2}, {"cpu_time_per_event", value}}}};
  fuzz::expect_contract("units", fuzz::Where::Located, [&] {
    const scenario::Scenario s = scenario::load_json(doc, "units.json");
    const scenario::Distribution& d = s.workloads.at(0).cpu_time_per_event;
    Rng rng(7);
    for (int i = 0; i < 64; ++i) {
      const double x = d.sample(rng);
      if (!std::isfinite(x) || x < 0.0)
        fuzz::finding("units", "an accepted distribution sampled " + std::to_string(x));
    }
    if (std::isnan(d.expected()) || std::isnan(d.second_moment()))
      fuzz::finding("units", "an accepted distribution has a NaN moment");
  });
  return 0;
}
