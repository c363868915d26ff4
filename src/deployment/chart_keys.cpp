// SuperSONIC chart 0.3.1 (github.com/fastmachinelearning/SuperSONIC, helm/supersonic), whose
// names every release's values are read under (chart_versions.cpp): a class for every key
// family of its documented values
// table (docs/.values-table.md) and of the keys its templates read besides
// (triton.modelRepository.storageType, envoy.ingress.hosts, ...). A key no family covers is
// unknown: most often a typo, which Helm would ignore without a word.
#include <algorithm>

#include "chart_keys.hpp"
#include "chart_versions.hpp"

namespace sonicsim::deployment {
namespace {

struct Entry {
  const char* path;
  KeyClass kind;
  const char* reason;
};

constexpr const char* placement = "where pods run (Kubernetes scheduling), not how fast they serve";
constexpr const char* plumbing = "Kubernetes plumbing (images, ports, labels, annotations)";

// Longest prefix wins: `triton.readinessProbe` covers the probe's fields that are not listed.
const Entry entries[] = {
    {"nameOverride", KeyClass::mapped, ""},
    {"serverLoadMetric", KeyClass::mapped, ""},
    {"serverLoadThreshold", KeyClass::mapped, ""},
    {"global", KeyClass::not_relevant, "Helm's values shared with the subcharts"},

    {"triton.replicas", KeyClass::mapped, ""},
    {"triton.args", KeyClass::mapped, ""},
    {"triton.resources", KeyClass::mapped, ""},
    {"triton.nodeSelector", KeyClass::mapped, ""},
    {"triton.affinity", KeyClass::mapped, ""},
    {"triton.readinessProbe", KeyClass::not_relevant,
     "health checks of a running server: sonicsim's servers are up until a fault says otherwise"},
    {"triton.readinessProbe.initialDelaySeconds", KeyClass::mapped, ""},
    {"triton.readinessProbe.reset", KeyClass::mapped, ""},
    {"triton.startupProbe", KeyClass::not_relevant,
     "how often a starting server is checked; only its first check bounds the start"},
    {"triton.startupProbe.initialDelaySeconds", KeyClass::mapped, ""},
    {"triton.startupProbe.reset", KeyClass::mapped, ""},
    {"triton.command", KeyClass::not_relevant, "the shell that runs triton.args"},
    {"triton.image", KeyClass::not_relevant, plumbing},
    {"triton.annotations", KeyClass::not_relevant, plumbing},
    {"triton.service", KeyClass::not_relevant, plumbing},
    {"triton.tolerations", KeyClass::not_relevant, placement},
    {"triton.modelRepository", KeyClass::not_relevant,
     "where models are stored; their load time is models.M.load_time (the overlay)"},

    {"envoy.enabled", KeyClass::mapped, ""},
    {"envoy.loadBalancerPolicy", KeyClass::mapped, ""},
    {"envoy.grpc_route_timeout", KeyClass::mapped, ""},
    {"envoy.rate_limiter.listener_level.enabled", KeyClass::mapped, ""},
    {"envoy.rate_limiter.listener_level.max_tokens", KeyClass::mapped, ""},
    {"envoy.rate_limiter.listener_level.tokens_per_fill", KeyClass::mapped, ""},
    {"envoy.rate_limiter.listener_level.fill_interval", KeyClass::mapped, ""},
    {"envoy.rate_limiter.prometheus_based.enabled", KeyClass::mapped, ""},
    {"envoy.rate_limiter.prometheus_based.luaConfig", KeyClass::not_relevant,
     "the filter's source file; its rule (refuse above the threshold) is what is mapped"},
    {"envoy.replicas", KeyClass::mapped, ""},
    {"envoy.resources", KeyClass::not_relevant,
     "Envoy's CPU and memory quota: the time Envoy adds to a message is "
     "load_balancer.capacity (workers, per_message), measured, not derivable from a quota; "
     "without it the balancer adds no time"},
    {"envoy.image", KeyClass::not_relevant, plumbing},
    {"envoy.args", KeyClass::not_relevant, "Envoy's config path and logging"},
    {"envoy.external_config", KeyClass::not_relevant,
     "an Envoy configuration outside the chart: sonicsim cannot read it; the chart's keys are "
     "mapped as if it were generated"},
    {"envoy.annotations", KeyClass::not_relevant, plumbing},
    {"envoy.nodeSelector", KeyClass::not_relevant, placement},
    {"envoy.tolerations", KeyClass::not_relevant, placement},
    {"envoy.service", KeyClass::not_relevant, plumbing},
    {"envoy.ingress", KeyClass::not_relevant,
     "the client-facing entry; its latency belongs to network (the overlay)"},
    {"envoy.auth", KeyClass::not_relevant, "token checks; their cost is not in the values"},
    {"envoy.tracing_sampling_rate", KeyClass::not_relevant, "tracing, which adds no modelled time"},

    {"keda.enabled", KeyClass::mapped, ""},
    {"keda.minReplicaCount", KeyClass::mapped, ""},
    {"keda.maxReplicaCount", KeyClass::mapped, ""},
    {"keda.zeroIdleReplicas", KeyClass::mapped, ""},
    {"keda.scaleUp.stabilizationWindowSeconds", KeyClass::mapped, ""},
    {"keda.scaleUp.periodSeconds", KeyClass::mapped, ""},
    {"keda.scaleUp.stepsize", KeyClass::mapped, ""},
    {"keda.scaleDown.stabilizationWindowSeconds", KeyClass::mapped, ""},
    {"keda.scaleDown.periodSeconds", KeyClass::mapped, ""},
    {"keda.scaleDown.stepsize", KeyClass::mapped, ""},

    {"prometheus.server.global.scrape_interval", KeyClass::mapped, ""},
    {"prometheus.external.enabled", KeyClass::mapped, ""},
    {"prometheus", KeyClass::not_relevant,
     "the monitoring stack's own settings: it watches the servers, it does not serve requests"},
    {"grafana", KeyClass::not_relevant, "dashboards"},
    {"tempo", KeyClass::not_relevant, "the tracing backend"},
    {"opentelemetry-collector", KeyClass::not_relevant, "the tracing pipeline"},
    {"metricsCollector", KeyClass::not_relevant, "a side service that collects metrics"},
};

// Every entry's path in segments, split once: the report classifies each key of a file.
const std::vector<std::vector<std::string>>& entry_parts() {
  static const std::vector<std::vector<std::string>> parts = [] {
    std::vector<std::vector<std::string>> out;
    for (const auto& e : entries) out.push_back(split_key(e.path));
    return out;
  }();
  return parts;
}

bool starts_with(const std::vector<std::string>& whole, const std::vector<std::string>& prefix) {
  return prefix.size() <= whole.size() && std::equal(prefix.begin(), prefix.end(), whole.begin());
}

std::string joined(const std::vector<std::string>& segments, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n && i < segments.size(); ++i) out = join_key(out, segments[i]);
  return out;
}

}  // namespace

std::string chart_defaults_name() {
  return "chart default";
}

bool has_listed_children(const std::vector<std::string>& segments) {
  for (const auto& parts : entry_parts())
    if (parts.size() > segments.size() && starts_with(parts, segments)) return true;
  return false;
}

Classified classify(const std::vector<std::string>& segments, const std::string& version) {
  const Entry* best = nullptr;
  std::size_t best_size = 0;
  for (std::size_t i = 0; i < std::size(entries); ++i) {
    const auto& parts = entry_parts()[i];
    if (starts_with(segments, parts) && parts.size() > best_size) {
      best = &entries[i];
      best_size = parts.size();
    }
  }
  if (best) return {best->kind, best->path, best->reason};
  // Unknown: the hint is the closest name the chart has beside it.
  std::vector<std::string> siblings;
  const std::vector<std::string> parent(segments.begin(), segments.end() - 1);
  for (const auto& parts : entry_parts()) {
    if (parts.size() > parent.size() && starts_with(parts, parent) &&
        std::find(siblings.begin(), siblings.end(), parts[parent.size()]) == siblings.end())
      siblings.push_back(parts[parent.size()]);
  }
  const std::string path = joined(segments, segments.size());
  std::string hint = renamed_hint(path, version);
  if (const std::string now = renamed_to(path, version); !now.empty()) {
    // An older release's name: where the new name changes nothing here, neither does this one.
    const Classified c = classify(split_key(now), version);
    if (c.kind == KeyClass::not_relevant)
      return {KeyClass::not_relevant, c.family,
              "an older release's name (" + hint + "): " + c.reason};
  }
  if (hint.empty()) hint = did_you_mean(segments.back(), siblings);
  // The same name one level down ("rate_limiter.max_tokens" for "listener_level.max_tokens").
  for (const auto& parts : entry_parts()) {
    if (!hint.empty()) break;
    if (parts.size() == segments.size() + 1 && starts_with(parts, parent) &&
        parts.back() == segments.back())
      hint = "did you mean `" + joined(parts, parts.size()) + "`?";
  }
  // Names of the same setting elsewhere (HPA's, the Deployment's) that users carry over.
  static const std::pair<const char*, const char*> elsewhere[] = {
      {"maxReplicas", "maxReplicaCount"},
      {"minReplicas", "minReplicaCount"},
      {"replicaCount", "replicas"},
      {"pollingInterval", "(fixed at 30 s by the chart)"},
      {"cooldownPeriod", "(fixed at 120 s by the chart)"}};
  for (const auto& [other, ours] : elsewhere)
    if (hint.empty() && segments.back() == other)
      hint = ours[0] == '(' ? std::string("not a key of the chart ") + ours
                            : "did you mean `" + std::string(ours) + "`?";
  if (hint.empty() && !parent.empty())
    hint = "not a key of " + joined(segments, parent.size()) + " in chart " + version;
  else if (hint.empty())
    hint = "not a key of chart " + version;
  return {KeyClass::unknown, joined(segments, segments.size()), hint};
}

}  // namespace sonicsim::deployment
