// Fuzz target: a calibration file (`sonicsim calibrate` output) as a scenario reads it, for a
// model's service time and for its request overheads.
#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(calibration) {
  using namespace sonicsim;
  using nlohmann::json;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  fuzz::scratch_file("calibration.json", input);
  const json model = {{"input_bytes_per_item", "1kB"},
                      {"output_bytes_per_item", "16B"},
                      {"service_time", {{"T4", {{"calibration", "calibration.json"}}}}},
                      {"request_overhead", {{"calibration", "calibration.json"}}}};
  const json doc = {
      {"duration", "10min"},
      {"workload",
       {{"jobs", 2},
        {"threads_per_job", 2},
        {"cpu_time_per_event", "1s"},
        {"requests", {{{"model", "m"}, {"offload_fraction", 0.5}, {"items", 4}}}}}},
      {"models", {{"m", model}}},
      {"servers", {{{"name", "t4"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}}}};
  fuzz::expect_contract("calibration", fuzz::Where::Located, [&] {
    scenario::load_json(doc, "calibrated.json", fuzz::scratch_folder());
  });
  return 0;
}
