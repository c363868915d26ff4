// The `load_balancer` section: the policy, the balancer's own capacity and admission control.
#include <algorithm>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

// `load_balancer`: how the balancer spreads connections over the hosts, what it can carry and
// whom it admits.
void Loader::load_balancer(const json& v, const std::string& path, Scenario& s) {
  if (!expect_object(v, path, "an object {\"policy\": \"round_robin\"}")) return;
  std::vector<std::string_view> allowed{"policy"};
  for (std::string_view key : balancing::List::key_names()) allowed.push_back(key);
  allowed.insert(allowed.end(), {"admission", "capacity"});
  check_keys(v, path, allowed);
  if (const json* c = get(v, "capacity"); c && !c->is_null())
    balancer_capacity(*c, key_path(path, "capacity"), s.load_balancer);
  if (const json* a = get(v, "admission"); a && !a->is_null())
    admission(*a, key_path(path, "admission"), s);
  auto& lb = s.load_balancer;
  if (const json* p = get(v, "policy"))
    if (auto name = choice(*p, key_path(path, "policy"), balancing::names()))
      lb.policy = *balancing::settings_named(*name);
  // Each policy's own keys (balancing/<policy>.hpp): read into the chosen policy's settings, and
  // refused with any other policy.
  entry_keys<balancing::List>(v, path, "policy", lb.policy);
}

// `load_balancer.capacity`: the balancer's worker threads and NIC, so that it can saturate.
void Loader::balancer_capacity(const json& v, const std::string& path, LoadBalancer& lb) {
  if (!expect_object(v, path,
                     "an object {\"per_message\": \"20us\", \"workers\": 4, \"bandwidth\": "
                     "\"25Gbps\"}, or null"))
    return;
  check_keys(v, path, {"per_message", "workers", "bandwidth"});
  BalancerCapacity c;
  bool ok =
      optional_quantity(v, path, "per_message", Quantity::Time, Range::at_least(0), c.per_message);
  if (const json* x = get(v, "workers")) {
    if (auto n = integer(*x, key_path(path, "workers"), 1, 4096, "worker threads"))
      c.workers = static_cast<int>(*n);
    else
      ok = false;
  }
  ok = optional_quantity(v, path, "bandwidth", Quantity::Bandwidth, Range::positive(),
                         c.bandwidth) &&
       ok;
  if (ok && c.per_message <= 0.0 && c.bandwidth <= 0.0) {
    add(path,
        "found neither per_message nor bandwidth, expected at least one (or null: a balancer "
        "that never limits)");
    ok = false;
  }
  if (ok) lb.capacity = c;
}

// `load_balancer.admission`: a token bucket on new connections (refilled continuously or in
// lumps) and/or refusal while the servers are above a threshold (the autoscaler's last reading,
// or a Prometheus query at the moment the job connects).
void Loader::admission(const json& v, const std::string& path, Scenario& s) {
  if (!expect_object(v, path,
                     "an object {\"rate\": 1, \"burst\": 10, \"refuse_above_threshold\": "
                     "true, \"retry_after\": \"1min\"}, or null"))
    return;
  check_keys(v, path,
             {"rate", "burst", "fill_interval", "tokens_per_fill", "refuse_above_threshold",
              "refuse_above", "retry_after", "reconnect"});
  Admission a;
  bool ok = optional_quantity(v, path, "rate", Quantity::Rate, Range::at_least(0), a.rate);
  if (const json* x = get(v, "burst")) {
    if (auto b = number(*x, key_path(path, "burst"), Range::at_least(1), "a number"))
      a.burst = *b;
    else
      ok = false;
  }
  ok = optional_quantity(v, path, "fill_interval", Quantity::Time, Range::positive(),
                         a.fill_interval) &&
       ok;
  if (const json* x = get(v, "tokens_per_fill")) {
    const std::string tpath = key_path(path, "tokens_per_fill");
    if (!get(v, "fill_interval")) {
      add(tpath, "found tokens_per_fill without fill_interval, expected both (or rate alone)");
      ok = false;
    } else if (auto n = integer(*x, tpath, 1, 1000000000, "tokens")) {
      a.tokens_per_fill = static_cast<double>(*n);
    } else {
      ok = false;
    }
  }
  if (get(v, "fill_interval") && a.rate > 0.0) {
    add(key_path(path, "fill_interval"),
        "found both rate and fill_interval, expected one way to refill the bucket: rate "
        "(continuous) or fill_interval with tokens_per_fill (in lumps, as Envoy 1.30)");
    ok = false;
  }
  const auto flag = [&](const char* key, bool& out) {
    if (const json* x = get(v, key)) {
      const auto b = boolean(*x, key_path(path, key));
      if (b) out = *b;
      ok = b.has_value() && ok;
    }
  };
  flag("refuse_above_threshold", a.above_threshold);
  flag("reconnect", a.reconnect);
  if (const json* x = get(v, "refuse_above"); x && !x->is_null())
    ok = refuse_above(*x, key_path(path, "refuse_above"), s, a) && ok;
  ok =
      optional_quantity(v, path, "retry_after", Quantity::Time, Range::positive(), a.retry_after) &&
      ok;
  if (ok && a.rate <= 0.0 && a.fill_interval <= 0.0 && !a.above_threshold && !a.refuse_above) {
    add(path,
        "found neither a token bucket (rate, or fill_interval) nor a refusal "
        "(refuse_above_threshold, refuse_above), expected at least one (or null: every "
        "connection admitted)");
    ok = false;
  }
  if (a.above_threshold &&
      std::none_of(s.servers.begin(), s.servers.end(),
                   [](const ServerPool& p) { return p.autoscaler.has_value(); })) {
    add(key_path(path, "refuse_above_threshold"),
        "found true with no autoscaled pool, expected a pool with an `autoscaler` (its metric "
        "and threshold decide)");
    ok = false;
  }
  if (s.workload().open_loop()) {
    add(path,
        "found an admission policy with an open loop (`workload.arrivals`), expected none: "
        "an open loop has no client jobs to connect");
    ok = false;
  }
  if (ok) s.load_balancer.admission = a;
}

// `load_balancer.admission.refuse_above`: the query SuperSONIC's Lua filter sends Prometheus.
bool Loader::refuse_above(const json& v, const std::string& path, const Scenario& s, Admission& a) {
  if (!expect_object(v, path,
                     "an object {\"threshold\": \"100ms\", \"window\": \"30s\", "
                     "\"scrape_interval\": \"5s\"}, or null"))
    return false;
  check_keys(v, path, {"metric", "threshold", "window", "scrape_interval"});
  Admission::QueryGate g;
  bool ok = true;
  if (const json* m = get(v, "metric"))
    ok = choice(*m, key_path(path, "metric"), {"queue_time"}).has_value();
  if (!get(v, "threshold")) {
    add(key_path(path, "threshold"),
        "missing, expected the queue time per execution above which connections are refused "
        "(\"100ms\")");
    ok = false;
  }
  ok =
      optional_quantity(v, path, "threshold", Quantity::Time, Range::positive(), g.threshold) && ok;
  ok = optional_quantity(v, path, "window", Quantity::Time, Range::positive(), g.window) && ok;
  // A scrape is an event: below a millisecond, or more than 1e8 of them, is not a Prometheus.
  ok = optional_quantity(v, path, "scrape_interval", Quantity::Time, Range::at_least(1e-3),
                         g.scrape_interval) &&
       ok;
  if (ok && s.duration / g.scrape_interval > 1e8) {
    add(key_path(path, "scrape_interval"),
        "found " + std::to_string(s.duration / g.scrape_interval) +
            " scrapes in the run, expected at most 1e8 (a longer scrape_interval)");
    ok = false;
  }
  if (ok) a.refuse_above = g;
  return ok;
}

}  // namespace sonicsim::scenario::detail
