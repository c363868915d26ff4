// Mapping merged values onto a scenario (private to src/deployment): typed reads of the values
// that collect every problem with its file, key path and line, and writes into the scenario that
// record where each value came from and where the overlay said otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/deployment/supersonic.hpp>

#include "chart_versions.hpp"
#include "values.hpp"

namespace sonicsim::deployment {

using json = nlohmann::json;

// A problem found in a values file: which file, and the problem (path = the key path).
struct ValuesProblem {
  std::string file;
  Problem problem;
};

class Mapper {
 public:
  Mapper(const ValueNode& values, const SupersonicOptions& options, const json& overlay,
         SupersonicReport& report, ChartTraits traits);

  // Everything (mapping.cpp: servers; mapping_envoy.cpp: the load balancer and the client).
  void run();

  json scenario;  // the overlay with the values written over it
  // Found while reading; `at` finds some from const lookups (a map where a value was expected).
  mutable std::vector<ValuesProblem> problems;

  // --- typed reads: nullopt (and a problem) when the value has the wrong type ---
  const ValueNode* at(const std::string& dotted) const;  // "keda.scaleUp.periodSeconds"
  std::optional<std::int64_t> whole(const std::string& key, std::int64_t lo, std::int64_t hi);
  std::optional<double> number(const std::string& key, double lo_exclusive);
  std::optional<bool> boolean(const std::string& key);
  std::optional<std::string> text(const std::string& key);
  // A duration the chart hands to Envoy ("12s", "0.5s"), in seconds; Envoy's refusals are ours.
  std::optional<double> envoy_duration(const std::string& key);
  void bad(const std::string& key, const std::string& found, const std::string& expected) const;

  // --- writes ---
  // Sets `scenario_key` (servers[0].count) to `value`, reported as filled from values key `key`
  // when a values file set it, else as a chart default; a different overlay value is a conflict.
  void put(const std::string& scenario_key, const json& value, const std::string& key);
  // Same with the source of the value named in words (a template constant, Triton's default).
  // The same for a value found another way than by its dotted key (an element of a list, a flag
  // inside triton.args): `node` is where it was written, `default_source` names a chart default.
  void put_node(const std::string& scenario_key, const json& value, const std::string& key,
                const std::string& shown_value, const ValueNode* node,
                const std::string& default_source);
  void put_default(const std::string& scenario_key, const json& value, const std::string& source);
  // A key the scenario leaves to its own default (or to the overlay when it gives one).
  void sonicsim_default(const std::string& scenario_key, const std::string& value);
  void write(const std::string& scenario_key, const json& value, const std::string& key,
             const std::string& shown_value);
  const json* overlay_at(const std::string& scenario_key) const;
  void erase(const std::string& scenario_key);

  void not_mapped(const std::string& key, const std::string& reason);
  // A switch or a setting that shapes a part of the scenario rather than filling one key
  // (keda.enabled, envoy.enabled, a probe's reset): listed as filled when a values file set it.
  void shaped(const std::string& scenario_part, const std::string& key);
  void note(std::string text) { report_.notes.push_back(std::move(text)); }
  void not_relevant(const std::string& key, const std::string& value, const ValueNode* node,
                    const std::string& reason) {
    report_.not_relevant.push_back({"", key, value, node ? node->where() : "", reason, key});
  }
  SupersonicReport& report() { return report_; }
  bool set_by_user(const std::string& key) const;   // not a chart default
  std::string shown(const std::string& key) const;  // the value as written, for the report

  const SupersonicOptions& options() const { return options_; }
  const ChartTraits& traits() const { return traits_; }
  // "chart 0.3.1": the release whose values and templates the import follows, for the report.
  std::string chart() const { return "chart " + traits_.version; }
  bool keda() const { return keda_; }

 private:
  void map_pool();
  void map_autoscaler();
  void map_metric_window(const std::string& scenario_key);
  void map_device();
  // map_device's two readings: the GPUs a server asks for (the larger of limit and request, as
  // the scheduler reserves them; a MIG resource is kept in mig_*), and the GPU product the pods
  // are pinned to (node selector, else the affinity's `In` values, the first; the others are
  // alternatives).
  struct GpuRequest {
    std::int64_t gpus = 0;
    std::string key;
    const ValueNode* node = nullptr;
  };
  struct GpuProduct {
    std::string name, key;
    const ValueNode* node = nullptr;
    std::vector<std::string> alternatives;
  };
  GpuRequest gpu_request();
  GpuProduct gpu_product();
  // A MIG slice (mapping_mig.cpp): nvidia.com/mig-<g>g.<m>gb, or a product label "...-MIG-...".
  void map_mig(const std::string& product, const std::string& product_key,
               const ValueNode* product_node);
  void map_triton_args();
  void map_startup();
  void map_load_balancer();  // mapping_envoy.cpp
  void map_envoy_replicas(const std::string& policy);
  void map_admission();
  void map_scrape_interval(const std::string& scenario_key);
  void map_client_timeout();

  const ValueNode& values_;
  const SupersonicOptions& options_;
  const json& overlay_;
  SupersonicReport& report_;
  ChartTraits traits_;
  bool keda_ = false;
  // A MIG resource the pod asks for: its name (nvidia.com/mig-1g.5gb) and first key.
  std::string mig_name_, mig_key_;
  const ValueNode* mig_node_ = nullptr;
};

// "servers[0].autoscaler.threshold" -> "/servers/0/autoscaler/threshold"
json::json_pointer pointer_of(const std::string& scenario_key);

std::string format_seconds(double seconds);  // "30s", "1.5s", "250ms"
// Prometheus' and Go's durations ("5s", "1m30s", "500ms"), in seconds; nullopt if malformed.
std::optional<double> go_duration(const std::string& text);

}  // namespace sonicsim::deployment
