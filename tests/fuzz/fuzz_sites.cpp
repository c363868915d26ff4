// Fuzz target: the sites and WAN blocks of a scenario (docs/sites.md): `sites`, `wan`, `routing`,
// `faults` and the top-level `network` replaced by the input's, and its `workloads` and `servers`
// merged into a valid two-site base (a workload's `site`/`sites`/`routing`, a pool's `site`,
// `attached`, `spill_over`), then loaded as `sonicsim run` loads a file. The fuzzer works on the
// blocks, not on the JSON around them (the scenario target's work). A refusal must say where
// (a JSON path); an accepted scenario must pass the admission estimates with finite,
// non-negative figures, and a small one runs for 50 ms of simulated time, on the analytic path
// and on flows (the WAN's routes and uplinks become flows there).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "admission.hpp"
#include "support.hpp"

namespace {

// Two sites joined through a router, a client workload split between them, a pool at each.
const char* const kSitesBase = R"({
  "name": "fuzz-sites", "seed": 1, "duration": "50ms", "warmup": "0s",
  "sites": [
    {"name": "a", "network": {"client_nic": {"bandwidth": "10Gbps", "latency": "50us"},
                              "site_uplink": {"bandwidth": "100Gbps", "latency": "1ms"}}},
    {"name": "b", "network": {"server_nic": {"bandwidth": "25Gbps", "latency": "50us"},
                              "site_uplink": {"bandwidth": "40Gbps", "latency": "1ms"}},
     "egress_price_per_gb": 0.05}
  ],
  "wan": {"routers": ["r"],
          "links": [{"between": ["a", "r"], "bandwidth": "100Gbps", "latency": "5ms"},
                    {"between": ["r", "b"], "bandwidth": "100Gbps", "latency": "2ms"}]},
  "routing": {"policy": "local_first", "spill_over": {"queue_time": "20ms"}},
  "workloads": [{"name": "w", "sites": {"a": 3, "b": 1}, "jobs": 4, "threads_per_job": 1,
                 "jobs_per_node": 1, "mode": "sync", "cpu_time_per_event": "10ms",
                 "requests": [{"model": "m", "offload_fraction": 0.5, "items": 2}]}],
  "models": {"m": {"input_bytes_per_item": "10kB", "output_bytes_per_item": "100B",
                   "service_time": {"batch": [1, 8], "seconds": ["1ms", "4ms"]}}},
  "servers": [{"name": "pa", "site": "a", "count": 1, "device": "T4", "models": ["m"]},
              {"name": "pb", "site": "b", "count": 2, "device": "T4", "models": ["m"]}]
})";

}  // namespace

SONICSIM_FUZZ_JSON_OBJECT_MUTATOR

SONICSIM_FUZZ_TARGET(sites) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto doc = nlohmann::json::parse(kSitesBase);
  if (!fuzz::splice(doc, input, {"sites", "wan", "routing", "faults", "network"},
                    {"workloads", "servers"}))
    return 0;
  std::optional<scenario::Scenario> s;
  fuzz::expect_contract("sites", fuzz::Where::Located,
                        [&] { s = scenario::load_json(doc, "fuzz-sites.json"); });
  if (s) fuzz::check_admission("sites", *s, true);
  return 0;
}
