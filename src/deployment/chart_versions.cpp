// SuperSONIC's releases 0.1.0 to 0.3.1 (github.com/fastmachinelearning/SuperSONIC, tags
// supersonic-X.Y.Z, helm/supersonic): the keys they renamed, what tells which release a values
// file was written for, and what their templates render differently. Written from each tag's
// values.yaml and templates; the tests name the template and line each fact follows.
#include "chart_versions.hpp"

#include <algorithm>

namespace sonicsim::deployment {
namespace {

const std::vector<std::string> versions = {"0.1.0", "0.1.1", "0.1.2", "0.2.0",
                                           "0.2.1", "0.3.0", "0.3.1"};

int index_of(const std::string& v) {
  const auto it = std::find(versions.begin(), versions.end(), v);
  return it == versions.end() ? -1 : static_cast<int>(it - versions.begin());
}

// One rename as the release that made it wrote it, applied in this order to a file of an
// earlier release: the inner renames of 0.2.0 happen under `autoscaler` before 0.3.0 moves
// the whole map to `keda`.
struct Rename {
  const char* from;
  const char* to;
  const char* since;
};
constexpr Rename renames[] = {
    // 0.2.0: values.yaml's autoscaler block takes HPA's names; the threshold and the metric
    // leave `prometheus`; the ingress moves under envoy.
    {"autoscaler.minReplicas", "autoscaler.minReplicaCount", "0.2.0"},
    {"autoscaler.maxReplicas", "autoscaler.maxReplicaCount", "0.2.0"},
    {"autoscaler.scaleUp.window", "autoscaler.scaleUp.stabilizationWindowSeconds", "0.2.0"},
    {"autoscaler.scaleUp.period", "autoscaler.scaleUp.periodSeconds", "0.2.0"},
    {"autoscaler.scaleDown.window", "autoscaler.scaleDown.stabilizationWindowSeconds", "0.2.0"},
    {"autoscaler.scaleDown.period", "autoscaler.scaleDown.periodSeconds", "0.2.0"},
    {"prometheus.serverLoadThreshold", "serverLoadThreshold", "0.2.0"},
    {"prometheus.serverLoadMetric", "serverLoadMetric", "0.2.0"},
    {"ingress", "envoy.ingress", "0.2.0"},
    // 0.2.1: the probes become blocks of their own.
    {"triton.resetReadinessProbe", "triton.readinessProbe.reset", "0.2.1"},
    // 0.3.0: templates/keda/so.yaml reads `keda`; scheduling keys move under each component.
    {"autoscaler", "keda", "0.3.0"},
    {"tracing_sampling_rate", "envoy.tracing_sampling_rate", "0.3.0"},
    {"nodeSelector", "triton.nodeSelector", "0.3.0"},
    {"tolerations", "triton.tolerations", "0.3.0"},
};

// A key's presence bounds the release: [first, last] it exists in ("" = to the newest).
struct Evidence {
  const char* key;
  const char* first;
  const char* last;
};
constexpr Evidence evidence[] = {
    {"envoy.external_config", "0.3.1", ""},
    {"keda", "0.3.0", ""},
    {"triton.nodeSelector", "0.3.0", ""},
    {"triton.tolerations", "0.3.0", ""},
    {"triton.annotations", "0.3.0", ""},
    {"envoy.nodeSelector", "0.3.0", ""},
    {"envoy.tolerations", "0.3.0", ""},
    {"envoy.annotations", "0.3.0", ""},
    {"envoy.tracing_sampling_rate", "0.3.0", ""},
    {"triton.readinessProbe", "0.2.1", ""},
    {"triton.startupProbe", "0.2.1", ""},
    {"metricsCollector", "0.2.1", ""},
    {"tempo", "0.2.1", ""},
    {"opentelemetry-collector", "0.2.1", ""},
    {"tracing_sampling_rate", "0.2.1", "0.2.1"},
    {"autoscaler.minReplicaCount", "0.2.0", "0.2.1"},
    {"autoscaler.maxReplicaCount", "0.2.0", "0.2.1"},
    {"autoscaler.scaleUp.stabilizationWindowSeconds", "0.2.0", "0.2.1"},
    {"autoscaler.scaleDown.stabilizationWindowSeconds", "0.2.0", "0.2.1"},
    {"serverLoadThreshold", "0.2.0", ""},
    {"serverLoadMetric", "0.2.0", ""},
    {"envoy.ingress", "0.2.0", ""},
    {"grafana", "0.1.2", ""},
    {"envoy.grpc_route_timeout", "0.1.1", ""},
    {"triton.resetReadinessProbe", "0.1.0", "0.2.0"},
    {"autoscaler", "0.1.0", "0.2.1"},
    {"nodeSelector", "0.1.0", "0.2.1"},
    {"tolerations", "0.1.0", "0.2.1"},
    {"autoscaler.minReplicas", "0.1.0", "0.1.2"},
    {"autoscaler.maxReplicas", "0.1.0", "0.1.2"},
    {"autoscaler.scaleUp.window", "0.1.0", "0.1.2"},
    {"autoscaler.scaleDown.window", "0.1.0", "0.1.2"},
    {"prometheus.serverLoadThreshold", "0.1.0", "0.1.2"},
    {"prometheus.serverLoadMetric", "0.1.0", "0.1.2"},
    {"ingress", "0.1.0", "0.1.2"},
};

const ValueNode* find_path(const ValueNode& root, const std::string& dotted) {
  const ValueNode* n = &root;
  for (const auto& part : split_key(dotted)) {
    if (!n->is_map()) return nullptr;
    n = n->find(part);
    if (!n) return nullptr;
  }
  return n;
}

// Detaches the node at `dotted` (nullopt if absent); a map it leaves empty stays, as in Helm.
std::optional<ValueNode> take(ValueNode& root, const std::string& dotted) {
  const auto parts = split_key(dotted);
  ValueNode* n = &root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!n->is_map()) return std::nullopt;
    n = n->find(parts[i]);
    if (!n) return std::nullopt;
  }
  if (!n->is_map()) return std::nullopt;
  auto& m = n->map;
  const auto it =
      std::find_if(m.begin(), m.end(), [&](const auto& e) { return e.first == parts.back(); });
  if (it == m.end()) return std::nullopt;
  ValueNode out = std::move(it->second);
  m.erase(it);
  return out;
}

// Puts `node` at `dotted`, making the maps on the way; false if something else is there.
bool put(ValueNode& root, const std::string& dotted, ValueNode node) {
  const auto parts = split_key(dotted);
  ValueNode* n = &root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    ValueNode* next = n->find(parts[i]);
    if (!next) {
      ValueNode m;
      m.kind = ValueNode::Kind::map;
      m.file = node.file;
      m.line = node.line;
      m.column = node.column;
      n->map.emplace_back(parts[i], std::move(m));
      next = &n->map.back().second;
    }
    if (!next->is_map()) return false;
    n = next;
  }
  if (n->find(parts.back())) return false;
  n->map.emplace_back(parts.back(), std::move(node));
  return true;
}

constexpr const char* defaults_03 = R"(
nameOverride: ""
serverLoadMetric: ""
serverLoadThreshold: 100
triton:
  replicas: 1
  args:
    - "/opt/tritonserver/bin/tritonserver --model-repository=/tmp/ --log-verbose=0 --exit-timeout-secs=60"
  resources:
    limits: {cpu: 1, memory: 2G}
    requests: {cpu: 1, memory: 2G}
  nodeSelector: {}
  affinity: {}
  readinessProbe: {reset: false, initialDelaySeconds: 10}
  startupProbe: {reset: false, initialDelaySeconds: 0}
envoy:
  enabled: true
  replicas: 1
  grpc_route_timeout: 0s
  loadBalancerPolicy: LEAST_REQUEST
  rate_limiter:
    listener_level: {enabled: false, max_tokens: 5, tokens_per_fill: 1, fill_interval: 12s}
    prometheus_based: {enabled: false}
prometheus:
  external: {enabled: false}
  server: {global: {scrape_interval: 5s}}
keda:
  enabled: false
  minReplicaCount: 1
  maxReplicaCount: 2
  zeroIdleReplicas: false
)";

std::string with_scaling(const char* up, const char* down) {
  return std::string(defaults_03) + "  scaleUp: " + up + "\n  scaleDown: " + down + "\n";
}

}  // namespace

const std::vector<std::string>& chart_versions() {
  return versions;
}

bool known_chart_version(const std::string& v) {
  return index_of(v) >= 0;
}

int compare_versions(const std::string& a, const std::string& b) {
  const int x = index_of(a), y = index_of(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

ChartTraits chart_traits(const std::string& version) {
  ChartTraits t;
  t.version = version;
  const int v = index_of(version);
  // values.yaml's scaleUp / scaleDown blocks (0.1.0's window/period under their 0.3.1 names).
  const char* later_up = "{stabilizationWindowSeconds: 60, periodSeconds: 60, stepsize: 1}";
  const char* later_down = "{stabilizationWindowSeconds: 600, periodSeconds: 120, stepsize: 1}";
  if (v == 0)
    t.defaults_yaml =
        with_scaling("{stabilizationWindowSeconds: 120, periodSeconds: 30, stepsize: 1}",
                     "{stabilizationWindowSeconds: 120, periodSeconds: 30, stepsize: 1}");
  else if (v == 1)
    t.defaults_yaml = with_scaling(
        "{stabilizationWindowSeconds: 5, periodSeconds: 120, stepsize: 1}", later_down);
  else
    t.defaults_yaml = with_scaling(later_up, later_down);
  // The load query (templates/_helpers.tpl to 0.1.2, _scaling-metric.tpl from 0.2.0).
  if (v == 0) {
    t.metric_window = 300.0;
    t.metric_query =
        "sum(sum by (pod) (rate(nv_inference_queue_duration_us{pod=~\"NAME-triton.*\"}[5m:1m])) / "
        "sum by (pod) ((rate(nv_inference_exec_count{pod=~\"NAME-triton.*\"}[5m:1m]) * 1000) + "
        "0.001))";
  } else if (v == 1) {
    t.metric_window = 0.0;
    t.metric_query =
        "sum by (instance) (nv_inference_queue_duration_us{instance=~\"NAME\"}) / sum by "
        "(instance) ((nv_inference_exec_count{instance=~\"NAME\"} * 1000) + 0.001)";
  } else {
    t.metric_window = v <= 4 ? 15.0 : 30.0;
    const std::string w = v <= 4 ? "15s" : "30s";
    t.metric_query = std::string("sum by (") + (v == 2 ? "job" : "release") +
                     ") (rate(nv_inference_queue_duration_us{...}[" + w + "])) / sum by (" +
                     (v == 2 ? "job" : "release") + ") ((rate(nv_inference_exec_count{...}[" + w +
                     "]) * 1000) + 0.001)";
  }
  t.so_file = v <= 1   ? "so.yaml"
              : v <= 3 ? "keda-so.yaml"
              : v == 4 ? "autoscaling/so.yaml"
                       : "keda/so.yaml";
  t.metric_file = v <= 2   ? "_helpers.tpl"
                  : v == 3 ? "_scaling-metric.tpl"
                           : "_helpers/_scaling-metric.tpl";
  t.deployment_file = v <= 3 ? "triton-deployment.yaml" : "triton/deployment.yaml";
  t.envoy_file = v <= 3 ? "envoy-configmaps.yaml" : "envoy/configmaps.yaml";
  t.route_timeout = v >= 1;  // 0.1.0's route has no timeout: Envoy's default 15 s
  return t;
}

std::optional<Detected> detect_chart_version(const ValueNode& file) {
  int lower = -1;
  std::string decisive;
  for (const auto& e : evidence) {
    const ValueNode* n = find_path(file, e.key);
    if (!n) continue;
    const int first = index_of(e.first);
    if (first > lower) {
      lower = first;
      decisive = std::string(e.key) + " (" + n->where() + ")";
    }
  }
  if (lower < 0) return std::nullopt;
  // The newest release the keys of that release or later still allow.
  int upper = static_cast<int>(versions.size()) - 1;
  for (const auto& e : evidence) {
    if (!*e.last || !find_path(file, e.key)) continue;
    const int last = index_of(e.last);
    if (last >= lower) upper = std::min(upper, last);
  }
  Detected d;
  d.version = versions[static_cast<std::size_t>(upper)];
  d.range = lower == upper ? versions[static_cast<std::size_t>(lower)]
                           : versions[static_cast<std::size_t>(lower)] + "-" + d.version;
  d.evidence = decisive;
  return d;
}

std::vector<Renamed> migrate_to_current(ValueNode& file, const std::string& from) {
  std::vector<Renamed> out;
  for (const auto& r : renames) {
    if (compare_versions(from, r.since) >= 0) continue;
    if (!find_path(file, r.from) || find_path(file, r.to)) continue;
    auto node = take(file, r.from);
    const std::string where = node->where();
    if (put(file, r.to, std::move(*node))) out.push_back({r.from, r.to, r.since, where});
  }
  return out;
}

namespace {

// Follows the renames from `dotted` as written to the name `in_version` reads; `since` gets the
// release of the last rename. "" when `dotted` is no older name.
std::string follow_renames(const std::string& dotted, const std::string& in_version,
                           std::string& since) {
  std::string now;
  for (const auto& r : renames) {
    const std::string from = r.from;
    const std::string& at = now.empty() ? dotted : now;
    if (at != from && at.rfind(from + ".", 0) != 0) continue;
    if (compare_versions(in_version, r.since) < 0) continue;
    now = r.to + at.substr(from.size());
    since = r.since;
  }
  return now;
}

}  // namespace

std::string renamed_to(const std::string& dotted, const std::string& in_version) {
  std::string since;
  return follow_renames(dotted, in_version, since);
}

std::string renamed_hint(const std::string& dotted, const std::string& in_version) {
  std::string since;
  const std::string now = follow_renames(dotted, in_version, since);
  if (now.empty()) return "";
  return "renamed `" + now + "` in chart " + since + "; chart " + in_version +
         " ignores the old name (give --chart-version for an older release)";
}

}  // namespace sonicsim::deployment
