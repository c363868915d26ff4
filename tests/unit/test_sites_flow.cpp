// Sites on the flow transport (flows/topology.cpp, the platform SimGrid's platform_build.cpp
// builds) and link faults between sites:
// a saturated WAN link caps throughput at its bandwidth over the bytes per event, the flows agree
// with the analytic path where links are idle, and every request is accounted for when a WAN link
// or a site's uplink fails.
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>

using namespace test;

namespace {

// Jobs at site x, GPUs at site y, one WAN link between them.
json sf_far_gpus(int threads, double input_bytes, const std::string& wan_bandwidth) {
  json nic = {{"bandwidth", "10Gbps"}, {"latency", "100us"}};
  return {
      {"duration", 200.0},
      {"warmup", 20.0},
      {"workload",
       {{"site", "x"},
        {"jobs", threads},
        {"threads_per_job", 1},
        {"cpu_time_per_event", 0.01},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.5}}})}}},
      {"models",
       {{"m",
         {{"input_bytes_per_item", input_bytes},
          {"output_bytes_per_item", 100},
          {"service_time", {{"batch", {1}}, {"seconds", {0.001}}}}}}}},
      {"servers",
       json::array(
           {{{"name", "g"}, {"site", "y"}, {"count", 8}, {"device", "T4"}, {"models", {"m"}}}})},
      {"sites",
       {{{"name", "x"},
         {"network",
          {{"client_nic", nic}, {"site_uplink", {{"bandwidth", "100Gbps"}, {"latency", "1ms"}}}}}},
        {{"name", "y"}, {"network", {{"server_nic", nic}}}}}},
      {"wan",
       {{"links", json::array({{{"name", "esnet"},
                                {"between", {"x", "y"}},
                                {"bandwidth", wan_bandwidth},
                                {"latency", "5ms"}}})}}}};
}

const sonicsim::engine::RunMetrics::Link* sf_link(const sonicsim::engine::RunMetrics& m,
                                                  const std::string& name) {
  for (const auto& l : m.links)
    if (l.name == name) return &l;
  return nullptr;
}

}  // namespace

TEST_CASE("a saturated WAN link caps throughput at its bandwidth over the bytes per event",
          "[sites][flow]") {
  // 200 threads each want an event every ~10 ms: 20,000 events/s, but each event sends 1 MB
  // over a 1 Gbps WAN link, which carries 125 of them a second. The answers (100 B) go the other
  // way on the full-duplex link.
  const json doc = sf_far_gpus(200, 1e6, "1Gbps");
  const auto m = run(doc, true);
  const double cap = 1e9 / 8 / 1e6;
  CHECK(throughput(m) == Approx(cap).epsilon(0.02));
  CHECK(throughput(m) <= cap * 1.001);
  check_conservation(m);
  const auto* wan = sf_link(m, "wan/esnet");
  REQUIRE(wan != nullptr);
  CHECK(wan->payload[0] / (m.duration - m.warmup) == Approx(1e9 / 8).epsilon(0.02));
  // The automatic choice sees it coming and puts the traffic to the servers on flows.
  const auto s = scenario_of(doc);
  const auto choice = sonicsim::runner::choose_transport(s, sonicsim::analytic::predict(s));
  CHECK(choice.flow_to_servers);
  CHECK(choice.reason.find("wan/esnet (x to y)") != std::string::npos);
}

TEST_CASE("flows between sites agree with the analytic path on idle links", "[sites][flow]") {
  // Few threads, small messages: the flows see no contention, and each event takes the same
  // round trip (NICs, uplink and WAN) on either transport.
  const json doc = sf_far_gpus(4, 1e4, "10Gbps");
  const auto flow = run(doc, true);
  const auto analytic = run(doc, false);
  CHECK(flow.time_per_event.mean() == Approx(analytic.time_per_event.mean()).epsilon(1e-3));
  CHECK(flow.latency.mean() == Approx(analytic.latency.mean()).epsilon(1e-3));
  CHECK(flow.events_completed == Approx(analytic.events_completed).epsilon(1e-3));
  check_conservation(flow);
}

namespace {

// An outage of the WAN link (or of x's uplink) from 60 s for 40 s; the clients time out after
// 1 s, try twice and fall back to their CPUs.
json sf_outage(const std::string& link) {
  json doc = sf_far_gpus(20, 1e4, "10Gbps");
  doc["workload"]["client"] = {
      {"timeout", "1s"}, {"allowed_tries", 2}, {"retry_delay", "100ms"}, {"fallback", "cpu"}};
  doc["faults"] = json::array({{{"kind", "link"},
                                {"link", link},
                                {"at", 60.0},
                                {"duration", 40.0},
                                {"bandwidth_factor", 0}}});
  return doc;
}

void sf_check_outage(const sonicsim::engine::RunMetrics& m) {
  check_conservation(m);
  CHECK(m.fallback > 0);  // requests held by the outage timed out and ran on the CPUs
  CHECK(m.failed == 0);
  // The jobs kept going on their CPUs: no event was lost, and events came out during it.
  CHECK(m.events_completed > 0);
  REQUIRE(m.sites.size() == 2);
  const auto& x = m.sites[0];
  CHECK(x.sent == x.completed + x.failed + x.fallback + x.in_flight_at_end);
  CHECK(x.fallback == m.fallback);
}

}  // namespace

TEST_CASE("a WAN outage: requests fall back and are all accounted for (analytic)",
          "[sites][faults]") {
  sf_check_outage(run(sf_outage("wan/esnet"), false));
}

TEST_CASE("a WAN outage: requests fall back and are all accounted for (flow)",
          "[sites][faults][flow]") {
  sf_check_outage(run(sf_outage("wan/esnet"), true));
}

TEST_CASE("an outage of a site's uplink stops what leaves it, like the WAN's", "[sites][faults]") {
  const auto uplink = run(sf_outage("x/site_uplink"), false);
  const auto wan = run(sf_outage("wan/esnet"), false);
  sf_check_outage(uplink);
  // Both links are on every request's path: the same outage has the same effect.
  CHECK(uplink.fallback == wan.fallback);
  CHECK(uplink.events_completed == wan.events_completed);
}

TEST_CASE("a degraded link slows only the routes that cross it", "[sites][faults]") {
  // A half-bandwidth WAN during [60 s, 100 s) makes 1 MB transfers slower; the same degradation
  // of a link no route crosses (a third site's uplink) changes nothing at all.
  json base = sf_far_gpus(4, 1e6, "10Gbps");
  base["sites"].push_back(
      {{"name", "z"}, {"network", {{"site_uplink", {{"bandwidth", "1Gbps"}, {"latency", 0}}}}}});
  base["wan"]["links"].push_back(
      {{"between", {"y", "z"}}, {"bandwidth", "1Gbps"}, {"latency", "1ms"}});
  const auto degraded = [&base](const std::string& link) {
    json doc = base;
    doc["faults"] = json::array({{{"kind", "link"},
                                  {"link", link},
                                  {"at", 60.0},
                                  {"duration", 40.0},
                                  {"bandwidth_factor", 0.5}}});
    return run(doc);
  };
  const auto a = run(base), wan = degraded("wan/esnet"), elsewhere = degraded("z/site_uplink");
  CHECK(wan.latency.mean() > a.latency.mean());
  check_conservation(wan);
  CHECK(elsewhere.latency.mean() == a.latency.mean());
  CHECK(elsewhere.events_completed == a.events_completed);
}

TEST_CASE("link faults with sites name the links as the results do", "[sites][faults][loader]") {
  json doc = sf_outage("wan/esnet");
  CHECK(load_error(doc).empty());
  doc["faults"][0]["link"] = "x/site_uplink";
  CHECK(load_error(doc).empty());
  const auto s = scenario_of(doc);
  REQUIRE(s.faults.links.size() == 1);
  CHECK(s.faults.links[0].site == 0);
  CHECK(s.faults.links[0].wan_link == -1);
  CHECK(s.faults.links[0].link == sonicsim::scenario::LinkClass::SiteUplink);
  SECTION("a class name alone is not a link of a scenario with sites") {
    doc["faults"][0]["link"] = "site_uplink";
    const std::string e = load_error(doc);
    CHECK(e.find("faults[0].link: found \"site_uplink\", expected a link of the scenario's sites "
                 "or WAN as the results name it: x/client_nic, x/site_uplink, y/server_nic, "
                 "wan/esnet") != std::string::npos);
  }
  SECTION("a link the site does not have") {
    doc["faults"][0]["link"] = "y/site_uplink";
    CHECK(load_error(doc).find("faults[0].link: found \"y/site_uplink\"") != std::string::npos);
  }
  SECTION("an unknown WAN link") {
    doc["faults"][0]["link"] = "wan/geant";
    CHECK(load_error(doc).find("faults[0].link: found \"wan/geant\"") != std::string::npos);
  }
  SECTION("no site may be called wan or hold a slash") {
    doc["sites"][0]["name"] = "wan";
    CHECK(load_error(doc).find("sites[0].name: found \"wan\", expected a name without \"/\" and "
                               "other than \"wan\"") != std::string::npos);
    doc["sites"][0]["name"] = "a/b";
    CHECK(load_error(doc).find("sites[0].name: found \"a/b\"") != std::string::npos);
  }
}
