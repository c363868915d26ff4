// Helm's check of values against the chart's values.schema.json, for the part of JSON Schema the
// chart uses: a `type` per key. The built-in table holds the types of every release's schema
// (tags supersonic-0.1.0 to 0.3.1), with the releases each key exists in; a chart checkout
// (--chart DIR) gives its own schema instead. A value's JSON type is what Helm's YAML reader
// (sigs.k8s.io/yaml over go-yaml v2, YAML 1.1) makes of it.
#include "chart_schema.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>

#include "chart_versions.hpp"

namespace sonicsim::deployment {
namespace {

struct Typed {
  const char* path;
  const char* type;
  const char* first;
  const char* last;
};

// Generated from each tag's helm/supersonic/values.schema.json (grafana, tempo,
// opentelemetry-collector and metricsCollector left out: subcharts with schemas of their own).
constexpr Typed table[] = {
    {"autoscaler.enabled", "boolean", "0.1.0", "0.2.1"},
    {"autoscaler.maxReplicaCount", "integer", "0.2.0", "0.2.1"},
    {"autoscaler.maxReplicas", "integer", "0.1.0", "0.1.2"},
    {"autoscaler.minReplicaCount", "integer", "0.2.0", "0.2.1"},
    {"autoscaler.minReplicas", "integer", "0.1.0", "0.1.2"},
    {"autoscaler.scaleDown.period", "integer", "0.1.0", "0.1.2"},
    {"autoscaler.scaleDown.periodSeconds", "integer", "0.2.0", "0.2.1"},
    {"autoscaler.scaleDown.stabilizationWindowSeconds", "integer", "0.2.0", "0.2.1"},
    {"autoscaler.scaleDown.stepsize", "integer", "0.1.0", "0.2.1"},
    {"autoscaler.scaleDown.window", "integer", "0.1.0", "0.1.2"},
    {"autoscaler.scaleUp.period", "integer", "0.1.0", "0.1.2"},
    {"autoscaler.scaleUp.periodSeconds", "integer", "0.2.0", "0.2.1"},
    {"autoscaler.scaleUp.stabilizationWindowSeconds", "integer", "0.2.0", "0.2.1"},
    {"autoscaler.scaleUp.stepsize", "integer", "0.1.0", "0.2.1"},
    {"autoscaler.scaleUp.window", "integer", "0.1.0", "0.1.2"},
    {"autoscaler.zeroIdleReplicas", "boolean", "0.1.0", "0.2.1"},
    {"envoy.args", "array", "0.1.0", "0.3.1"},
    {"envoy.auth.audiences", "array", "0.1.0", "0.3.1"},
    {"envoy.auth.enabled", "boolean", "0.1.0", "0.3.1"},
    {"envoy.auth.jwt_issuer", "string", "0.1.0", "0.3.1"},
    {"envoy.auth.jwt_remote_jwks_uri", "string", "0.1.0", "0.3.1"},
    {"envoy.auth.port", "integer", "0.1.0", "0.3.1"},
    {"envoy.auth.url", "string", "0.1.0", "0.3.1"},
    {"envoy.enabled", "boolean", "0.1.0", "0.3.1"},
    {"envoy.external_config.configmap_key", "string", "0.3.1", "0.3.1"},
    {"envoy.external_config.configmap_name", "string", "0.3.1", "0.3.1"},
    {"envoy.external_config.load_from_configmap", "boolean", "0.3.1", "0.3.1"},
    {"envoy.grpc_route_timeout", "string", "0.1.1", "0.3.1"},
    {"envoy.image", "string", "0.1.0", "0.3.1"},
    {"envoy.ingress.enabled", "boolean", "0.2.0", "0.3.1"},
    {"envoy.ingress.hostName", "string", "0.2.0", "0.3.1"},
    {"envoy.ingress.ingressClassName", "string", "0.2.0", "0.3.1"},
    {"envoy.loadBalancerPolicy", "string", "0.1.0", "0.3.1"},
    {"envoy.rate_limiter.listener_level.enabled", "boolean", "0.1.0", "0.3.1"},
    {"envoy.rate_limiter.listener_level.fill_interval", "string", "0.1.0", "0.3.1"},
    {"envoy.rate_limiter.listener_level.max_tokens", "integer", "0.1.0", "0.3.1"},
    {"envoy.rate_limiter.listener_level.tokens_per_fill", "integer", "0.1.0", "0.3.1"},
    {"envoy.rate_limiter.prometheus_based.enabled", "boolean", "0.1.0", "0.3.1"},
    {"envoy.rate_limiter.prometheus_based.luaConfig", "string", "0.1.0", "0.3.1"},
    {"envoy.replicas", "integer", "0.1.0", "0.3.1"},
    {"envoy.resources.limits.cpu", "integer", "0.1.0", "0.2.0"},
    {"envoy.resources.limits.cpu", "number", "0.2.1", "0.3.1"},
    {"envoy.resources.limits.memory", "string", "0.1.0", "0.3.1"},
    {"envoy.resources.requests.cpu", "integer", "0.1.0", "0.2.0"},
    {"envoy.resources.requests.cpu", "number", "0.2.1", "0.3.1"},
    {"envoy.resources.requests.memory", "string", "0.1.0", "0.3.1"},
    {"envoy.service.ports", "array", "0.1.0", "0.3.1"},
    {"envoy.service.type", "string", "0.1.0", "0.3.1"},
    {"envoy.tolerations", "array", "0.3.0", "0.3.1"},
    {"envoy.tracing_sampling_rate", "number", "0.3.0", "0.3.1"},
    {"ingress.enabled", "boolean", "0.1.0", "0.1.2"},
    {"ingress.hostName", "string", "0.1.0", "0.1.2"},
    {"ingress.ingressClassName", "string", "0.1.1", "0.1.2"},
    {"keda.enabled", "boolean", "0.3.0", "0.3.1"},
    {"keda.maxReplicaCount", "integer", "0.3.0", "0.3.1"},
    {"keda.minReplicaCount", "integer", "0.3.0", "0.3.1"},
    {"keda.scaleDown.periodSeconds", "integer", "0.3.0", "0.3.1"},
    {"keda.scaleDown.stabilizationWindowSeconds", "integer", "0.3.0", "0.3.1"},
    {"keda.scaleDown.stepsize", "integer", "0.3.0", "0.3.1"},
    {"keda.scaleUp.periodSeconds", "integer", "0.3.0", "0.3.1"},
    {"keda.scaleUp.stabilizationWindowSeconds", "integer", "0.3.0", "0.3.1"},
    {"keda.scaleUp.stepsize", "integer", "0.3.0", "0.3.1"},
    {"keda.zeroIdleReplicas", "boolean", "0.3.0", "0.3.1"},
    {"nameOverride", "string", "0.1.0", "0.3.1"},
    {"prometheus.alertmanager.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.configmapReload.prometheus.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.external", "boolean", "0.1.2", "0.1.2"},
    {"prometheus.external.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.external.port", "integer", "0.2.0", "0.3.1"},
    {"prometheus.external.scheme", "string", "0.2.0", "0.3.1"},
    {"prometheus.external.url", "string", "0.2.0", "0.3.1"},
    {"prometheus.ingress.enabled", "boolean", "0.1.2", "0.1.2"},
    {"prometheus.ingress.hostName", "string", "0.1.2", "0.1.2"},
    {"prometheus.ingress.ingressClassName", "string", "0.1.2", "0.1.2"},
    {"prometheus.kube-state-metrics.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.port", "integer", "0.1.0", "0.1.2"},
    {"prometheus.prometheus-node-exporter.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.prometheus-pushgateway.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.pushgateway.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.rbac.create", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.scheme", "string", "0.1.0", "0.1.2"},
    {"prometheus.server.configMapOverrideName", "string", "0.2.0", "0.3.1"},
    {"prometheus.server.extraFlags", "array", "0.2.1", "0.3.1"},
    {"prometheus.server.global.evaluation_interval", "string", "0.2.0", "0.3.1"},
    {"prometheus.server.global.scrape_interval", "string", "0.2.0", "0.3.1"},
    {"prometheus.server.ingress.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.server.ingress.hostName", "string", "0.2.1", "0.3.1"},
    {"prometheus.server.ingress.hosts", "array", "0.2.0", "0.3.1"},
    {"prometheus.server.ingress.ingressClassName", "string", "0.2.0", "0.3.1"},
    {"prometheus.server.ingress.tls", "array", "0.2.0", "0.3.1"},
    {"prometheus.server.persistentVolume.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.server.releaseNamespace", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.server.resources.limits.cpu", "integer", "0.2.0", "0.3.1"},
    {"prometheus.server.resources.limits.memory", "string", "0.2.0", "0.3.1"},
    {"prometheus.server.resources.requests.cpu", "string", "0.2.0", "0.3.1"},
    {"prometheus.server.resources.requests.memory", "string", "0.2.0", "0.3.1"},
    {"prometheus.server.retention", "string", "0.2.0", "0.3.1"},
    {"prometheus.server.service.enabled", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.server.service.servicePort", "integer", "0.2.0", "0.3.1"},
    {"prometheus.server.useExistingClusterRoleName", "string", "0.2.0", "0.3.1"},
    {"prometheus.serverLoadMetric", "string", "0.1.0", "0.1.2"},
    {"prometheus.serverLoadThreshold", "integer", "0.1.0", "0.1.2"},
    {"prometheus.serviceAccounts.server.create", "boolean", "0.2.0", "0.3.1"},
    {"prometheus.serviceAccounts.server.name", "string", "0.2.0", "0.3.1"},
    {"prometheus.url", "string", "0.1.0", "0.1.2"},
    {"serverLoadMetric", "string", "0.2.0", "0.3.1"},
    {"serverLoadThreshold", "integer", "0.2.0", "0.3.1"},
    {"tolerations", "array", "0.1.0", "0.2.1"},
    {"tracing_sampling_rate", "number", "0.2.1", "0.2.1"},
    {"triton.args", "array", "0.1.0", "0.3.1"},
    {"triton.command", "array", "0.1.0", "0.3.1"},
    {"triton.image", "string", "0.1.0", "0.3.1"},
    {"triton.modelRepository.enabled", "boolean", "0.1.0", "0.3.1"},
    {"triton.modelRepository.mountPath", "string", "0.1.0", "0.3.1"},
    {"triton.readinessProbe.command", "array", "0.2.1", "0.3.1"},
    {"triton.readinessProbe.failureThreshold", "integer", "0.2.1", "0.3.1"},
    {"triton.readinessProbe.initialDelaySeconds", "integer", "0.2.1", "0.3.1"},
    {"triton.readinessProbe.periodSeconds", "integer", "0.2.1", "0.3.1"},
    {"triton.readinessProbe.reset", "boolean", "0.2.1", "0.3.1"},
    {"triton.readinessProbe.successThreshold", "integer", "0.2.1", "0.3.1"},
    {"triton.readinessProbe.timeoutSeconds", "integer", "0.2.1", "0.3.1"},
    {"triton.replicas", "integer", "0.1.0", "0.3.1"},
    {"triton.resetReadinessProbe", "boolean", "0.1.0", "0.2.0"},
    {"triton.resources.limits.cpu", "integer", "0.1.0", "0.3.1"},
    {"triton.resources.limits.memory", "string", "0.1.0", "0.3.1"},
    {"triton.resources.requests.cpu", "integer", "0.1.0", "0.3.1"},
    {"triton.resources.requests.memory", "string", "0.1.0", "0.3.1"},
    {"triton.service.ports", "array", "0.1.0", "0.3.1"},
    {"triton.startupProbe.failureThreshold", "integer", "0.2.1", "0.3.1"},
    {"triton.startupProbe.httpGet.path", "string", "0.2.1", "0.3.1"},
    {"triton.startupProbe.httpGet.port", "string", "0.2.1", "0.3.1"},
    {"triton.startupProbe.initialDelaySeconds", "integer", "0.2.1", "0.3.1"},
    {"triton.startupProbe.periodSeconds", "integer", "0.2.1", "0.3.1"},
    {"triton.startupProbe.reset", "boolean", "0.2.1", "0.3.1"},
    {"triton.tolerations", "array", "0.3.0", "0.3.1"},
};

// The JSON type Helm gives a YAML scalar: go-yaml v2 resolves plain scalars by YAML 1.1.
std::string json_type(const ValueNode& n, bool& integral) {
  integral = false;
  switch (n.kind) {
    case ValueNode::Kind::map:
      return "object";
    case ValueNode::Kind::list:
      return "array";
    case ValueNode::Kind::null:
      return "null";
    case ValueNode::Kind::scalar:
      break;
  }
  if (n.quoted) return "string";
  std::string t;
  for (char c : n.text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "true" || t == "false" || t == "yes" || t == "no" || t == "on" || t == "off" ||
      t == "y" || t == "n")
    return "boolean";
  if (t.empty() || t == "~" || t == "null") return "null";
  char* end = nullptr;
  const double v = std::strtod(n.text.c_str(), &end);
  if (end == n.text.c_str() + n.text.size() && std::isfinite(v) &&
      n.text.find_first_of("xX") == std::string::npos) {
    integral = v == std::floor(v);
    return "number";
  }
  return "string";
}

bool accepts(const std::string& expected, const std::string& found, bool integral) {
  if (expected == found) return true;
  if (found == "null") return true;  // Helm drops a null before it validates
  if (expected == "integer") return found == "number" && integral;
  return false;
}

std::string article(const std::string& type) {
  return (type == "integer" || type == "object" || type == "array") ? "an " + type : "a " + type;
}

void walk(const ValueNode& n, const std::string& path,
          const std::map<std::string, std::string>& types, const std::string& where_schema,
          std::vector<SchemaProblem>& out) {
  if (const auto it = types.find(path); it != types.end()) {
    bool integral = false;
    const std::string found = json_type(n, integral);
    bool ok = false;
    std::string expected;
    // A type may be a list ("string|null").
    std::size_t from = 0;
    while (from <= it->second.size()) {
      const std::size_t bar = it->second.find('|', from);
      const std::string one = it->second.substr(from, bar - from);
      ok = ok || accepts(one, found, integral);
      expected += (expected.empty() ? "" : " or ") + article(one);
      if (bar == std::string::npos) break;
      from = bar + 1;
    }
    if (!ok) {
      // gojsonschema names an integral number "integer".
      const std::string given = found == "number" && integral ? "integer" : found;
      const std::string shown = n.kind != ValueNode::Kind::scalar ? article(given)
                                : n.quoted                        ? "\"" + n.text + "\""
                                                                  : n.text;
      out.push_back({n.file, path,
                     "line " + std::to_string(n.line) + ", column " + std::to_string(n.column) +
                         ": found " + shown + " (" + given + "), expected " + expected + " (" +
                         where_schema + "; Helm refuses the install: \"Invalid type. Expected: " +
                         it->second + ", given: " + given + "\")"});
      return;
    }
  }
  if (n.is_map())
    for (const auto& [k, v] : n.map) walk(v, join_key(path, k), types, where_schema, out);
}

// A schema's `properties`, flattened to dotted paths with their types.
void flatten(const nlohmann::json& node, const std::string& path,
             std::map<std::string, std::string>& out) {
  if (!node.is_object()) return;
  if (const auto p = node.find("properties"); p != node.end() && p->is_object() && !p->empty()) {
    for (const auto& [k, v] : p->items()) flatten(v, path.empty() ? k : path + "." + k, out);
    return;
  }
  const auto t = node.find("type");
  if (t == node.end() || path.empty()) return;
  std::string type;
  if (t->is_string()) type = t->get<std::string>();
  if (t->is_array())
    for (const auto& x : *t)
      if (x.is_string()) type += (type.empty() ? "" : "|") + x.get<std::string>();
  if (!type.empty() && type != "object") out[path] = type;
}

}  // namespace

std::vector<SchemaProblem> check_schema_types(const ValueNode& file, const std::string& version,
                                              const std::string& schema_json) {
  std::map<std::string, std::string> types;
  std::string where;
  if (!schema_json.empty()) {
    const auto doc = nlohmann::json::parse(schema_json, nullptr, false);
    if (!doc.is_discarded()) flatten(doc, "", types);
    where = "the chart's values.schema.json";
  } else {
    for (const auto& t : table)
      if (compare_versions(version, t.first) >= 0 && compare_versions(version, t.last) <= 0)
        types[t.path] = t.type;
    where = "chart " + version + "'s values.schema.json";
  }
  std::vector<SchemaProblem> out;
  for (const auto& [k, v] : file.map) walk(v, k, types, where, out);
  return out;
}

}  // namespace sonicsim::deployment
