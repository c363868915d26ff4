// Sites in the engine (engine/sites.cpp, network_sites.cpp): sites that do not interact run as
// they would alone, a long WAN adds exactly its round trip, local-first spills over only past its
// threshold, and every request is accounted for.
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>

using namespace test;

namespace {

// One site's links within it, as a single-site `network` and as a site's `network`.
json sx_links() {
  return {{"client_nic", {{"bandwidth", "10Gbps"}, {"latency", "100us"}}},
          {"server_nic", {{"bandwidth", "25Gbps"}, {"latency", "100us"}}}};
}

// A workload of `threads` threads sending one request per event (p = `p`), constant times.
json sx_workload(const std::string& name, int threads, double t_cpu, double p) {
  return {{"name", name},
          {"jobs", threads},
          {"threads_per_job", 1},
          {"cpu_time_per_event", t_cpu},
          {"requests", json::array({{{"model", "m"}, {"offload_fraction", p}}})}};
}

json sx_models(double t_gpu) {
  return {{"m",
           {{"input_bytes_per_item", 10000},
            {"output_bytes_per_item", 100},
            {"service_time", {{"batch", {1}}, {"seconds", {t_gpu}}}}}}};
}

json sx_pool(const std::string& name, int count) {
  return {{"name", name}, {"count", count}, {"device", "T4"}, {"models", {"m"}}};
}

// Two sites, each with its own jobs and GPUs, joined by a WAN nobody needs to cross.
json sx_two_sites(const json& wa, const json& wb) {
  json a = wa, b = wb;
  a["site"] = "x";
  b["site"] = "y";
  json pa = sx_pool("gx", 2), pb = sx_pool("gy", 3);
  pa["site"] = "x";
  pb["site"] = "y";
  return {
      {"duration", 300.0},
      {"warmup", 30.0},
      {"workloads", {a, b}},
      {"models", sx_models(0.01)},
      {"servers", {pa, pb}},
      {"sites",
       {{{"name", "x"}, {"network", sx_links()}}, {{"name", "y"}, {"network", sx_links()}}}},
      {"wan",
       {{"links",
         json::array({{{"between", {"x", "y"}}, {"bandwidth", "10Gbps"}, {"latency", "20ms"}}})}}}};
}

// The same workload alone on one site with its own pool.
json sx_alone(const json& w, int gpus) {
  json one = w;
  one.erase("name");
  return {{"duration", 300.0},
          {"warmup", 30.0},
          {"workload", one},
          {"models", sx_models(0.01)},
          {"servers", json::array({sx_pool("g", gpus)})},
          {"network",
           {{"flow_model", "analytic"},
            {"client_nic", sx_links()["client_nic"]},
            {"server_nic", sx_links()["server_nic"]}}}};
}

void sx_check_same(const sonicsim::engine::RunMetrics::Workload& w,
                   const sonicsim::engine::RunMetrics& one) {
  CHECK(w.events_completed == one.events_completed);
  CHECK(w.sent == one.sent);
  CHECK(w.completed == one.completed);
  CHECK(w.time_per_event.mean() == one.time_per_event.mean());
  CHECK(w.time_per_event.quantile(0.99) == one.time_per_event.quantile(0.99));
  CHECK(w.latency.mean() == one.latency.mean());
}

}  // namespace

TEST_CASE("sites that do not interact run exactly as each would alone", "[engine][sites]") {
  // Threads and devices are numbered through the workloads and pools in order, so the first
  // site's random streams are those of its run alone; swapping the order checks the other.
  const json a = sx_workload("a", 12, 0.05, 0.4);
  const json b = sx_workload("b", 20, 0.08, 0.3);
  SECTION("first site") {
    const auto both = run(sx_two_sites(a, b));
    sx_check_same(both.workloads[0], run(sx_alone(a, 2)));
    check_conservation(both);
    // Each site's figures are its workload's here, and nothing crossed the WAN.
    REQUIRE(both.sites.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
      CHECK(both.sites[i].events_completed == both.workloads[i].events_completed);
      CHECK(both.sites[i].sent == both.workloads[i].sent);
      CHECK(both.sites[i].latency.mean() == both.workloads[i].latency.mean());
    }
    CHECK(both.egress_bytes[0][1] == 0.0);
    CHECK(both.egress_bytes[1][0] == 0.0);
  }
  SECTION("second site, listed first") {
    json doc = sx_two_sites(b, a);
    std::swap(doc["servers"][0]["count"], doc["servers"][1]["count"]);
    const auto both = run(doc);
    sx_check_same(both.workloads[0], run(sx_alone(b, 3)));
  }
}

TEST_CASE("a long WAN adds exactly its round trip to every event", "[engine][sites]") {
  // Latency-bound: one thread, one request per event, a lone GPU far away. Each event takes
  // (1 - p) t_CPU + t_GPU + the round trip: client NIC, uplinks, WAN and server NIC, both ways.
  json doc = sx_two_sites(sx_workload("a", 1, 0.1, 0.5), sx_workload("b", 1, 0.1, 0.5));
  doc["workloads"] = json::array({doc["workloads"][0]});
  doc["servers"] = json::array({doc["servers"][1]});
  doc["sites"][0]["network"]["site_uplink"] = {{"bandwidth", "100Gbps"}, {"latency", "1ms"}};
  doc["sites"][1]["network"]["site_uplink"] = {{"bandwidth", "100Gbps"}, {"latency", "2ms"}};
  doc["models"]["m"]["input_bytes_per_item"] = 0;
  doc["models"]["m"]["output_bytes_per_item"] = 0;
  const auto m = run(doc);
  const double rtt = 2 * (100e-6 + 1e-3 + 20e-3 + 2e-3 + 100e-6);
  CHECK(m.time_per_event.mean() == Approx(0.05 + 0.01 + rtt).epsilon(1e-9));
  CHECK(m.time_per_event.quantile(0.99) == Approx(0.05 + 0.01 + rtt).epsilon(0.02));
  // The formula's t_latency for the site is that round trip, and its t_SONIC the event time.
  const auto pr = sonicsim::analytic::predict(scenario_of(doc));
  REQUIRE(pr.sites.size() == 1);
  CHECK(pr.sites[0].name == "x");
  CHECK(pr.sites[0].t_latency_s == Approx(rtt).epsilon(1e-12));
  CHECK(pr.t_latency_s == Approx(rtt).epsilon(1e-12));
  CHECK(pr.sites[0].t_sonic_s == Approx(m.time_per_event.mean()).epsilon(1e-9));
  // Bytes: none here; the WAN link is listed with the sites' links.
  bool wan = false;
  for (const auto& l : m.links) wan = wan || l.name == "wan/x-y";
  CHECK(wan);
}

TEST_CASE("local first spills over only past its threshold", "[engine][sites]") {
  // Site x: 10 threads and one GPU whose 10 ms requests it can keep up with only at low load;
  // site y: idle GPUs 20 ms away. With a threshold of 1 request in flight per device, requests
  // beyond it go to y; with an unreachable threshold none do.
  json doc = sx_two_sites(sx_workload("a", 10, 0.05, 1.0), sx_workload("b", 1, 0.1, 0.0));
  doc["workloads"] = json::array({doc["workloads"][0]});
  doc["servers"][0]["count"] = 1;
  const auto bytes_over_wan = [](const sonicsim::engine::RunMetrics& m) {
    for (const auto& l : m.links)
      if (l.name == "wan/x-y") return l.payload[0];
    return -1.0;
  };
  SECTION("never") {
    doc["routing"] = {{"policy", "local_first"}, {"spill_over", {{"in_flight", 1e6}}}};
    const auto m = run(doc);
    CHECK(bytes_over_wan(m) == 0.0);
    check_conservation(m);
  }
  SECTION("past one request per device") {
    doc["routing"] = {{"policy", "local_first"}, {"spill_over", {{"in_flight", 1}}}};
    const auto m = run(doc);
    CHECK(bytes_over_wan(m) > 0.0);
    check_conservation(m);
    // What left x for y is what the WAN carried towards the servers.
    CHECK(m.egress_bytes[0][1] == bytes_over_wan(m));
    CHECK(m.egress_bytes[1][0] > 0.0);
    const auto& x = m.sites[0];
    CHECK(x.sent == x.completed + x.failed + x.fallback + x.in_flight_at_end);
    CHECK(x.sent == m.sent);
    // Without any local GPU every request crosses: what the local one takes, the WAN spares.
    json remote = doc;
    remote["servers"] = json::array({doc["servers"][1]});
    const auto r = run(remote);
    CHECK(bytes_over_wan(r) == Approx(static_cast<double>(r.sent) * 10000).epsilon(0.01));
    CHECK(bytes_over_wan(m) < bytes_over_wan(r));
  }
  SECTION("pinned sends everything to the far site") {
    doc["routing"] = {{"policy", "pinned"}, {"site", "y"}};
    const auto m = run(doc);
    CHECK(bytes_over_wan(m) > 0.0);
    for (const auto& l : m.links)
      if (l.name == "x/server_nic") CHECK(l.payload[0] == 0.0);
  }
}

TEST_CASE("each site's events take its own path, as the formula says per site", "[engine][sites]") {
  // One thread at each site, GPUs only at y: x's requests cross the WAN, y's stay home. With
  // four GPUs and round robin the two requests in flight never share one: latency-bound.
  json doc = sx_two_sites(sx_workload("a", 2, 0.1, 0.5), sx_workload("b", 1, 0.1, 0.5));
  doc["workloads"] = json::array({doc["workloads"][0]});
  doc["workloads"][0].erase("site");
  doc["workloads"][0]["sites"] = {{"x", 1}, {"y", 1}};
  doc["servers"] = json::array({doc["servers"][1]});
  doc["servers"][0]["count"] = 4;
  doc["models"]["m"]["input_bytes_per_item"] = 0;
  doc["models"]["m"]["output_bytes_per_item"] = 0;
  const auto m = run(doc);
  const auto pr = sonicsim::analytic::predict(scenario_of(doc));
  REQUIRE(m.sites.size() == 2);
  REQUIRE(pr.sites.size() == 2);
  const double home = 2 * 200e-6, away = 2 * (200e-6 + 20e-3);
  CHECK(pr.sites[0].t_latency_s == Approx(away).epsilon(1e-12));
  CHECK(pr.sites[1].t_latency_s == Approx(home).epsilon(1e-12));
  CHECK(pr.t_latency_s == Approx((away + home) / 2).epsilon(1e-12));
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("site " << i);
    CHECK(m.sites[i].time_per_event.mean() == Approx(pr.sites[i].t_sonic_s).epsilon(1e-9));
  }
}

TEST_CASE("each site with servers has its own load balancer", "[engine][sites]") {
  // A balancer whose one worker spends 1 ms per message: each site's alone carries its own
  // traffic, so the two sites still run exactly as each would alone with its own balancer.
  const json capacity = {{"workers", 1}, {"per_message", "1ms"}};
  const json a = sx_workload("a", 12, 0.05, 0.4);
  const json b = sx_workload("b", 20, 0.08, 0.3);
  json both = sx_two_sites(a, b);
  both["load_balancer"] = {{"capacity", capacity}};
  json alone = sx_alone(a, 2);
  alone["load_balancer"] = {{"capacity", capacity}};
  const auto m = run(both);
  const auto one = run(alone);
  sx_check_same(m.workloads[0], one);
  REQUIRE(m.balancer.has_value());
  REQUIRE(one.balancer.has_value());
  CHECK(m.balancer->cpu_utilization > one.balancer->cpu_utilization * 0.5);
  check_conservation(m);
}
