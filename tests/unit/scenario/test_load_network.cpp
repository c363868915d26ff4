// The network section (src/scenario/load_network.cpp): each link class's bandwidth and latency
// with their units (bits or bytes per second; a bare bandwidth is bytes per second), the flow
// model and its tolerance; bad links refused with the JSON path, what was found and what is
// expected.
#include <nlohmann/json.hpp>

#include "problems.hpp"
#include "support.hpp"

using namespace test;

TEST_CASE("network: every link class read in bytes per second and seconds", "[loader][network]") {
  auto doc = deterministic(2, 1);
  doc["network"] = {{"client_nic", {{"bandwidth", "10Gbps"}, {"latency", "50us"}}},
                    {"site_uplink", {{"bandwidth", "100Gbps"}, {"latency", "1ms"}}},
                    {"wan", {{"bandwidth", "1GB/s"}, {"latency", "20ms"}}},
                    {"server_nic", {{"bandwidth", 3.125e9}}},
                    {"flow_model", "analytic"},
                    {"auto_tolerance", 0.05}};
  const auto n = scenario_of(doc).network;
  using sonicsim::scenario::LinkClass;
  REQUIRE(n.client_nic);
  CHECK(n.client_nic->bandwidth == Approx(10e9 / 8));  // bits per second, stored as bytes
  CHECK(n.client_nic->latency == Approx(50e-6));
  CHECK(n.link(LinkClass::SiteUplink)->bandwidth == Approx(100e9 / 8));
  CHECK(n.link(LinkClass::SiteUplink)->latency == Approx(1e-3));
  CHECK(n.link(LinkClass::Wan)->bandwidth == Approx(1e9));  // bytes per second as given
  CHECK(n.link(LinkClass::Wan)->latency == Approx(0.02));
  CHECK(n.server_nic->bandwidth == 3.125e9);  // a bare number: bytes per second
  CHECK(n.server_nic->latency == 0.0);        // latency defaults to none
  CHECK(n.flow_model == sonicsim::scenario::FlowModel::Analytic);
  CHECK(n.auto_tolerance == 0.05);
  // The path a request crosses: every link's latency, the narrowest bandwidth.
  CHECK(n.path_latency() == Approx(50e-6 + 1e-3 + 0.02));
  CHECK(n.path_bandwidth() == Approx(1e9));

  // Absent links and keys: no link of that class, flows where they matter (auto).
  doc["network"] = {{"site_uplink", {{"bandwidth", "1Gbps"}}}};
  const auto one = scenario_of(doc).network;
  CHECK_FALSE(one.client_nic);
  CHECK_FALSE(one.server_nic);
  CHECK(one.site_uplink->bandwidth == Approx(1e9 / 8));
  CHECK(one.flow_model == sonicsim::scenario::FlowModel::Auto);
  CHECK(one.auto_tolerance == 0.01);
}

TEST_CASE("network: bad links name the key, what was found and what is expected",
          "[loader][network]") {
  auto doc = deterministic(2, 1);
  doc["network"]["site_uplink"] = {{"latency", "1ms"}};
  auto problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "network.site_uplink.bandwidth",
                    {"missing", "a bandwidth > 0 such as \"10Gbps\""}));

  doc = deterministic(2, 1);
  doc["network"]["client_nic"] = "10Gbps";
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "network.client_nic",
                    {"found \"10Gbps\"", "null or a link {\"bandwidth\": \"10Gbps\""}));

  doc = deterministic(2, 1);
  doc["network"]["server_nic"]["bandwidth"] = "25GHz";
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "network.server_nic.bandwidth", {"found \"25GHz\""}));

  doc = deterministic(2, 1);
  doc["network"]["flow_model"] = "fluid";
  doc["network"]["auto_tolerance"] = 1;
  doc["network"]["uplink"] = {{"bandwidth", "1Gbps"}};
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "network.flow_model",
                    {"found \"fluid\"", "\"auto\"", "\"flow\"", "\"analytic\"", "\"simgrid\""}));
  CHECK(has_problem(problems, "network.auto_tolerance", {"found 1"}));
  CHECK(has_problem(problems, "network.uplink", {"unknown key `uplink`"}));
}
