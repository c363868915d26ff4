// Fuzz target: the host and device blocks of a scenario (docs/scenario.md#devices-extension,
// docs/servers.md): `devices` (kind, MIG `slice`, `overlap`, memory, power, catalogue) replaced
// by the input's, and its `servers` (a pool's `device`, `count`, `host` with cores, devices per
// host and power, `model_control`, `autoscaler`) and `models` (device maps of service times,
// `host_cost`, memory, instances) merged into a valid base of a MIG slice beside a full GPU, then
// loaded as `sonicsim run` loads a file. A refusal must say where (a JSON path); an accepted
// scenario must pass the admission estimates with finite, non-negative figures, and a small one
// runs for 50 ms of simulated time.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "admission.hpp"
#include "support.hpp"

namespace {

// A 1g slice of an A100 (its service time derived from the A100's) and a host of two A100s with
// CPU work per request on its cores, both serving the one model.
const char* const kHostsBase = R"({
  "name": "fuzz-hosts", "seed": 1, "duration": "50ms", "warmup": "0s",
  "workload": {"jobs": 4, "threads_per_job": 1, "mode": "sync", "cpu_time_per_event": "10ms",
               "requests": [{"model": "m", "offload_fraction": 0.5, "items": 2}]},
  "devices": {"A100": {"memory": "40GB", "power": {"idle": "50W", "busy": "250W"},
                       "overlap": {"executions": [1, 2], "throughput": [1, 1.5]}},
              "A100-1g": {"slice": {"of": "A100", "fraction": 0.142857}, "memory": "5GB"}},
  "models": {"m": {"input_bytes_per_item": "10kB", "output_bytes_per_item": "100B",
                   "instances": 2, "max_batch_size": 8, "memory": {"weights": "1GB", "per_item": "1MB"},
                   "host_cost": {"per_request": "50us", "per_byte_in": "0.4ns"},
                   "service_time": {"A100": {"batch": [1, 8], "seconds": ["1ms", "4ms"]}}}},
  "servers": [{"name": "slice", "count": 1, "device": "A100-1g", "models": ["m"]},
              {"name": "full", "count": 2, "device": "A100", "models": ["m"],
               "host": {"cores": 4, "devices": 2, "power": {"idle": "100W", "busy": "300W"}}}]
})";

}  // namespace

SONICSIM_FUZZ_JSON_OBJECT_MUTATOR

SONICSIM_FUZZ_TARGET(hosts) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto doc = nlohmann::json::parse(kHostsBase);
  if (!fuzz::splice(doc, input, {"devices"}, {"servers", "models", "workload"})) return 0;
  std::optional<scenario::Scenario> s;
  fuzz::expect_contract("hosts", fuzz::Where::Located,
                        [&] { s = scenario::load_json(doc, "fuzz-hosts.json"); });
  if (s) fuzz::check_admission("hosts", *s, false);
  return 0;
}
