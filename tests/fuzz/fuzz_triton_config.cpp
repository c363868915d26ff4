// Fuzz target: a Triton config.pbtxt, read as a tool reads it (triton::read_config and the
// instance count) and as a scenario's `triton_config` (the loader maps it onto a model).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/triton/config_file.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(triton_config) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string path = fuzz::scratch_file("config.pbtxt", input);
  fuzz::expect_contract("triton_config", fuzz::Where::Anywhere, [&] {
    std::vector<Problem> problems;
    const triton::Advice advice{"use one model", "no sequences", "one group"};
    auto config = triton::read_config(path, path, "--triton-config", advice, 4096, problems);
    if (config) {
      // Without instance groups Triton runs one instance per device: callers ask only then.
      if (!config->config.instance_groups.empty())
        triton::instances_per_device(*config, "--triton-config", advice, 1000, problems);
      triton::instance_kinds(config->config);
      triton::batch_limit_of(config->config);
    } else if (problems.empty()) {
      fuzz::finding("triton_config", "a config refused without a problem");
    }
    if (!problems.empty()) throw InputError(path, problems);
  });
  const nlohmann::json doc = {
      {"duration", "10min"},
      {"workload",
       {{"jobs", 2},
        {"threads_per_job", 2},
        {"cpu_time_per_event", "1s"},
        {"requests", {{{"model", "m"}, {"offload_fraction", 0.5}}}}}},
      {"models",
       {{"m",
         {{"triton_config", "config.pbtxt"},
          {"input_bytes_per_item", "1kB"},
          {"output_bytes_per_item", "16B"},
          {"service_time", {{"T4", {{"batch", {1, 8}}, {"seconds", {0.001, 0.004}}}}}}}}}},
      {"servers", {{{"name", "t4"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}}}};
  fuzz::expect_contract("triton_config", fuzz::Where::Located,
                        [&] { scenario::load_json(doc, "triton.json", fuzz::scratch_folder()); });
  return 0;
}
