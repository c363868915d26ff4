// Envoy in front of the servers (envoy/configmaps.yaml of chart 0.3.1): the cluster's lb_policy,
// the listener's token bucket and the Lua filter that asks Prometheus before a job gets its
// model index (load_balancer.admission), and the route's timeout (the client's per-try timeout).
#include <sstream>

#include <sonicsim/balancing/policies.hpp>

#include "mapping.hpp"

namespace sonicsim::deployment {
namespace {

// Every mapped key below envoy: with envoy.enabled false none of them renders.
constexpr const char* envoy_keys[] = {"envoy.loadBalancerPolicy",
                                      "envoy.grpc_route_timeout",
                                      "envoy.replicas",
                                      "envoy.rate_limiter.listener_level.enabled",
                                      "envoy.rate_limiter.listener_level.max_tokens",
                                      "envoy.rate_limiter.listener_level.tokens_per_fill",
                                      "envoy.rate_limiter.listener_level.fill_interval",
                                      "envoy.rate_limiter.prometheus_based.enabled",
                                      "prometheus.server.global.scrape_interval",
                                      "prometheus.external.enabled"};

}  // namespace

void Mapper::map_load_balancer() {
  if (!boolean("envoy.enabled").value_or(true)) {
    not_mapped("envoy.enabled",
               "false: no Envoy, clients reach the Triton Service directly and Kubernetes "
               "balances connections, not requests");
    for (const char* k : envoy_keys)
      if (set_by_user(k))
        not_relevant(k, shown(k), at(k), "envoy.enabled is false: the chart renders no Envoy");
    put_default("load_balancer.policy", std::string(balancing::RingHash::name),
                "no Envoy (envoy.enabled false): a client's gRPC connection stays on one Triton "
                "pod behind the Kubernetes Service, as ring_hash keeps a job on one server");
    return;
  }
  shaped("load_balancer", "envoy.enabled");
  const auto policy = text("envoy.loadBalancerPolicy");
  const std::string p = policy.value_or("LEAST_REQUEST");
  // Each policy names the lbPolicy values it stands for (include/sonicsim/balancing/), the
  // hashing ones included: without a hash_policy on the chart's route they balance at random
  // (balancing/random.hpp).
  const auto match = balancing::for_envoy(p);
  if (!match) {
    std::vector<std::string> options;
    std::string listed;
    for (std::string_view name : balancing::envoy_names()) {
      listed += (listed.empty() ? "" : ", ") + std::string(name);
      options.emplace_back(name);
    }
    const std::string hint = did_you_mean(p, options);
    bad("envoy.loadBalancerPolicy", "\"" + p + "\"",
        "one of " + listed + (hint.empty() ? "" : " (" + hint + ")"));
    return;
  }
  const std::string mapped(match->policy);
  put("load_balancer.policy", mapped, "envoy.loadBalancerPolicy");
  map_envoy_replicas(mapped);
  if (!match->note.empty()) note("envoy.loadBalancerPolicy " + p + std::string(match->note));
  if (mapped == balancing::LeastRequest::name)
    sonicsim_default("load_balancer." + std::string(balancing::LeastRequest::keys[0].name),
                     "2 (Envoy's default choice_count)");
}

// Both limiters gate what a CMSSW job does once, when it starts: TritonService asks each server
// for its model index (HeterogeneousCore/SonicTriton/src/TritonService.cc: "if this query fails,
// it indicates that the server is nonresponsive or saturated in which case it should just be
// skipped"), and a skipped server's models go to the job's fallback for the rest of the job.
// Envoy pods (templates/envoy/deployment.yaml: replicas) behind the Envoy Service: each keeps
// its own view of the requests it has in flight and its own listener bucket.
void Mapper::map_envoy_replicas(const std::string& policy) {
  const auto n = whole("envoy.replicas", 0, 1000000);
  if (!n || *n <= 1) {
    shaped("load_balancer (one Envoy)", "envoy.replicas");
    return;
  }
  std::vector<std::string> why;
  if (policy == balancing::LeastRequest::name)
    why.push_back(
        "least_request: each Envoy counts only the requests it sent itself, sonicsim's balancer "
        "counts all of them");
  if (boolean("envoy.rate_limiter.listener_level.enabled").value_or(false))
    why.push_back("the listener bucket: each Envoy pod has its own, sonicsim has one");
  if (why.empty()) {
    shaped("load_balancer (" + std::to_string(*n) +
               " Envoys balancing alike: one balancer in sonicsim)",
           "envoy.replicas");
    return;
  }
  std::string reason;
  for (const auto& w : why) reason += (reason.empty() ? "" : "; ") + w;
  not_mapped("envoy.replicas", reason);
}

void Mapper::map_admission() {
  if (!boolean("envoy.enabled").value_or(true)) return;
  const std::string ll = "envoy.rate_limiter.listener_level.";
  const std::string pb = "envoy.rate_limiter.prometheus_based.";
  const bool listener = boolean(ll + "enabled").value_or(false);
  const bool prometheus = boolean(pb + "enabled").value_or(false);
  const std::string adm = "load_balancer.admission.";
  shaped(listener ? "load_balancer.admission" : "load_balancer.admission (no token bucket)",
         ll + "enabled");
  if (!prometheus) shaped("load_balancer.admission (no Prometheus query)", pb + "enabled");
  bool admission = false;
  if (listener) {
    // templates/envoy/configmaps.yaml:18-30 (0.3.1): a listener filter
    // envoy.filters.listener.local_ratelimit with token_bucket {max_tokens, tokens_per_fill,
    // fill_interval}. Envoy 1.30 closes a connection accepted without a token
    // (source/extensions/filters/listener/local_ratelimit/local_ratelimit.cc, onAccept), starts
    // the bucket full and adds tokens_per_fill at each fill_interval on a timer, which must be at
    // least 50 ms (local_ratelimit_impl.cc: "fill timer must be >= 50ms").
    const auto tokens = whole(ll + "max_tokens", 1, 4294967295);
    const auto per_fill = whole(ll + "tokens_per_fill", 1, 4294967295);
    const auto interval = envoy_duration(ll + "fill_interval");
    if (interval && *interval < 0.05)
      bad(ll + "fill_interval", "\"" + shown(ll + "fill_interval") + "\"",
          "at least 0.05s (Envoy refuses a local rate limit fill timer under 50 ms)");
    if (tokens && per_fill && interval && *interval >= 0.05) {
      put(adm + "burst", *tokens, ll + "max_tokens");
      put(adm + "tokens_per_fill", *per_fill, ll + "tokens_per_fill");
      put(adm + "fill_interval", format_seconds(*interval), ll + "fill_interval");
      if (const json* rate = overlay_at(adm + "rate")) {
        // Envoy refills on its timer: the overlay's continuous rate is another bucket.
        report().conflicts.push_back({adm + "rate", ll + "fill_interval",
                                      shown(ll + "fill_interval"), "",
                                      "the overlay had a continuous rate " + rate->dump() +
                                          "; removed: Envoy adds tokens_per_fill every "
                                          "fill_interval",
                                      ""});
        erase(adm + "rate");
      }
      admission = true;
    }
  } else {
    for (const char* k : {"max_tokens", "tokens_per_fill", "fill_interval"})
      if (set_by_user(ll + k))
        not_relevant(ll + k, shown(ll + k), at(ll + k),
                     "listener_level.enabled is false: the chart renders no listener filter");
  }
  if (prometheus) {
    // templates/envoy/configmaps.yaml:65-73 and :263-285, cfg/envoy-filter.lua (0.3.1): a Lua
    // HTTP filter that, for the RepositoryIndex call only, asks Prometheus the load query
    // (supersonic.defaultMetric) and answers grpc-status 1 when the value is above
    // serverLoadThreshold or when there is no value; inference calls pass untouched.
    const auto metric = text("serverLoadMetric");
    if (metric && !metric->empty()) {
      not_mapped(pb + "enabled",
                 "the filter asks Prometheus serverLoadMetric, a query of its own that sonicsim "
                 "cannot evaluate; no refusal is modelled");
    } else {
      const auto threshold = number("serverLoadThreshold", 0);
      std::ostringstream ms;
      ms << threshold.value_or(100) << "ms";
      put_node(adm + "refuse_above.threshold", ms.str(), "serverLoadThreshold",
               shown("serverLoadThreshold"), at("serverLoadThreshold"), "");
      map_metric_window(adm + "refuse_above.window");
      map_scrape_interval(adm + "refuse_above.scrape_interval");
      shaped(adm + "refuse_above", pb + "enabled");
      admission = true;
    }
  }
  if (!prometheus || (text("serverLoadMetric") && !text("serverLoadMetric")->empty()))
    for (const char* k :
         {"prometheus.server.global.scrape_interval", "prometheus.external.enabled"})
      if (set_by_user(k))
        not_relevant(k, shown(k), at(k),
                     "read here only for the prometheus_based rate limiter, which is off: "
                     "Prometheus watches the servers, it does not serve requests");
  if (admission) {
    put_default(adm + "reconnect", false,
                "CMSSW's TritonService asks a server for its model index once per job and "
                "skips it for the job when refused");
  } else if (const json* given = overlay_at("load_balancer.admission");
             given && !given->is_null()) {
    report().conflicts.push_back({"load_balancer.admission", "envoy.rate_limiter", "(none enabled)",
                                  "",
                                  "the overlay had an admission; removed: the values enable "
                                  "no rate limiter",
                                  ""});
    erase("load_balancer.admission");
  }
}

// How often the chart's own Prometheus scrapes (templates/monitoring/prometheus-configmap.yaml:
// global.scrape_interval); an external Prometheus keeps its own, which the values do not say.
void Mapper::map_scrape_interval(const std::string& scenario_key) {
  const std::string key = "prometheus.server.global.scrape_interval";
  if (boolean("prometheus.external.enabled").value_or(false)) {
    put_default(scenario_key, "5s",
                "assumed: prometheus.external.enabled, the site's Prometheus scrapes at its own "
                "interval (set it in the overlay when it is not 5s)");
    return;
  }
  const auto t = text(key);
  const auto seconds = t ? go_duration(*t) : std::nullopt;
  if (t && !seconds) {
    bad(key, "\"" + *t + "\"", "a Prometheus duration such as \"5s\", \"30s\" or \"1m\"");
    return;
  }
  put_node(scenario_key, format_seconds(seconds.value_or(5.0)), key, shown(key), at(key),
           chart() + " default (prometheus.server.global.scrape_interval: 5s)");
}

void Mapper::map_client_timeout() {
  if (!boolean("envoy.enabled").value_or(true)) return;
  // 0.1.0's route has no timeout (envoy-configmaps.yaml), so Envoy's own applies: RouteAction's
  // `timeout` "If not specified, the default is 15s" (api/envoy/config/route/v3/
  // route_components.proto).
  const auto t = traits().route_timeout ? envoy_duration("envoy.grpc_route_timeout")
                                        : std::optional<double>(15.0);
  if (!t) return;
  const json value = *t == 0 ? json(0) : json(format_seconds(*t));
  if (!traits().route_timeout && set_by_user("envoy.grpc_route_timeout")) {
    const ValueNode* n = at("envoy.grpc_route_timeout");
    report().unknown.push_back({"", "envoy.grpc_route_timeout", n->text, n->where(),
                                "not a key of " + chart() + " (it came in 0.1.1)",
                                "envoy.grpc_route_timeout"});
  }
  if (!traits().route_timeout) {
    const std::string key =
        scenario.contains("workloads") ? "workloads[*].client.timeout" : "workload.client.timeout";
    note(chart() + "'s route has no timeout: Envoy's default of 15 s fails a try at the client (" +
         key + ")");
  }
  // The route's timeout answers the client with an error: a failed try, as a client timeout.
  if (scenario.contains("workloads") && scenario["workloads"].is_array()) {
    for (std::size_t i = 0; i < scenario["workloads"].size(); ++i)
      put("workloads[" + std::to_string(i) + "].client.timeout", value, "envoy.grpc_route_timeout");
  } else if (scenario.contains("workload") && scenario["workload"].is_object()) {
    if (scenario["workload"].contains("client") && scenario["workload"]["client"].is_null())
      scenario["workload"]["client"] = json::object();
    put("workload.client.timeout", value, "envoy.grpc_route_timeout");
  } else {
    note("envoy.grpc_route_timeout has no workload to go to yet (give one in the overlay)");
  }
}

}  // namespace sonicsim::deployment
