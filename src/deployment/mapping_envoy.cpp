// Envoy in front of the servers (envoy/configmaps.yaml of chart 0.3.1): the cluster's lb_policy,
// the listener's token bucket and the Lua filter that refuses connections above the threshold
// (load_balancer.admission), and the route's timeout (the client's per-try timeout).
#include "mapping.hpp"

namespace sonicsim::deployment {
namespace {

constexpr const char* envoy_keys[] = {"envoy.loadBalancerPolicy", "envoy.grpc_route_timeout",
                                      "envoy.rate_limiter.listener_level.enabled",
                                      "envoy.rate_limiter.prometheus_based.enabled"};

}  // namespace

void Mapper::map_load_balancer() {
  if (!boolean("envoy.enabled").value_or(true)) {
    not_mapped("envoy.enabled",
               "false: no Envoy, clients reach the Triton Service directly and Kubernetes "
               "balances connections, not requests");
    for (const char* k : envoy_keys)
      if (set_by_user(k)) not_mapped(k, "envoy.enabled is false: the chart renders no Envoy");
    put_default("load_balancer.policy", "ring_hash",
                "no Envoy (envoy.enabled false): a client's gRPC connection stays on one Triton "
                "pod behind the Kubernetes Service, as ring_hash keeps a job on one server");
    return;
  }
  shaped("load_balancer", "envoy.enabled");
  const auto policy = text("envoy.loadBalancerPolicy");
  const std::string p = policy.value_or("LEAST_REQUEST");
  std::string mapped;
  if (p == "ROUND_ROBIN")
    mapped = "round_robin";
  else if (p == "LEAST_REQUEST")
    mapped = "least_request";
  else if (p == "RANDOM")
    mapped = "random";
  // The hashing policies balance at random here: the chart's route has no hash_policy
  // (templates/envoy/configmaps.yaml:58-63 at 0.3.1, :57-62 at 0.2.1; envoy-configmaps.yaml at
  // 0.1.0 likewise), and Envoy's hashing balancers then hash a random value per request
  // (source/extensions/load_balancing_policies/common/thread_aware_lb_impl.cc, chooseHost:
  // "this effectively becomes the random LB").
  else if (p == "RING_HASH" || p == "MAGLEV")
    mapped = "random";
  if (mapped.empty()) {
    const std::vector<std::string> options{"ROUND_ROBIN", "LEAST_REQUEST", "RANDOM", "RING_HASH",
                                           "MAGLEV"};
    const std::string hint = did_you_mean(p, options);
    bad("envoy.loadBalancerPolicy", "\"" + p + "\"",
        "one of ROUND_ROBIN, LEAST_REQUEST, RANDOM, RING_HASH, MAGLEV" +
            (hint.empty() ? "" : " (" + hint + ")"));
    return;
  }
  put("load_balancer.policy", mapped, "envoy.loadBalancerPolicy");
  if (p == "RING_HASH" || p == "MAGLEV")
    note("envoy.loadBalancerPolicy " + p +
         " -> random: the chart's route sets no hash_policy, so Envoy hashes a random value "
         "for every request and no client sticks to a server (set load_balancer.policy to "
         "ring_hash by hand to study sticky sessions, which need a hash_policy on the route)");
  if (mapped == "least_request")
    sonicsim_default("load_balancer.choice_count", "2 (Envoy's default choice_count)");
}

void Mapper::map_admission() {
  if (!boolean("envoy.enabled").value_or(true)) return;
  const std::string ll = "envoy.rate_limiter.listener_level.";
  const bool listener = boolean(ll + "enabled").value_or(false);
  const bool prometheus = boolean("envoy.rate_limiter.prometheus_based.enabled").value_or(false);
  const std::string adm = "load_balancer.admission.";
  shaped(listener ? "load_balancer.admission" : "load_balancer.admission (no token bucket)",
         ll + "enabled");
  if (!prometheus)
    shaped("load_balancer.admission (no refusal above the threshold)",
           "envoy.rate_limiter.prometheus_based.enabled");
  bool admission = false;
  if (listener) {
    const auto tokens = whole(ll + "max_tokens", 1, 1000000000);
    const auto per_fill = whole(ll + "tokens_per_fill", 1, 1000000000);
    const auto interval = duration(ll + "fill_interval");
    if (interval && *interval <= 0) bad(ll + "fill_interval", "0", "a duration > 0");
    if (tokens && per_fill && interval && *interval > 0) {
      put(adm + "burst", *tokens, ll + "max_tokens");
      const double rate = static_cast<double>(*per_fill) / *interval;
      const ValueNode* fill = at(ll + "tokens_per_fill");
      const ValueNode* every = at(ll + "fill_interval");
      // Filled when a values file set either half of the rate.
      const ValueNode* source = set_by_user(ll + "tokens_per_fill") ? fill
                                : set_by_user(ll + "fill_interval") ? every
                                                                    : fill;
      put_node(adm + "rate", rate, ll + "tokens_per_fill",
               shown(ll + "tokens_per_fill") + " per " + shown(ll + "fill_interval"), source, "");
      shaped(adm + "rate", ll + "fill_interval");
      admission = true;
    }
  } else {
    for (const char* k : {"max_tokens", "tokens_per_fill", "fill_interval"})
      if (set_by_user(ll + k)) not_mapped(ll + k, "listener_level.enabled is false");
  }
  if (prometheus) {
    if (keda()) {
      put(adm + "refuse_above_threshold", true, "envoy.rate_limiter.prometheus_based.enabled");
      admission = true;
    } else {
      not_mapped("envoy.rate_limiter.prometheus_based.enabled",
                 "refusing above serverLoadThreshold needs the autoscaled pool's metric "
                 "(sonicsim reads it at the autoscaler's polls), and keda.enabled is false");
    }
  }
  if (admission) {
    sonicsim_default(adm + "retry_after", "60s (a refused client connects again after)");
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

void Mapper::map_client_timeout() {
  if (!boolean("envoy.enabled").value_or(true)) return;
  const auto t = duration("envoy.grpc_route_timeout");
  if (!t) return;
  const json value = *t == 0 ? json(0) : json(format_seconds(*t));
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
