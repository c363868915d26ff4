// Power and prices in a scenario (src/scenario/load_power.cpp): `devices.D.power`,
// `servers[i].host.power` and `workload.core_power`, as an {idle, busy} pair or a curve, in watts
// with their units; `prices`, per device, host, core and kWh. Bad values are refused with the
// JSON path, what was found and what is expected.
#include "support.hpp"

using namespace test;


TEST_CASE("power: every component's power and the prices are read with their units",
          "[energy][loader]") {
  const auto s = scenario_of(powered());
  const auto& device = *s.find_device("T4")->power;
  CHECK(device.idle() == 36.0);
  CHECK(device.busy() == 70.0);
  REQUIRE(s.servers[0].host);
  REQUIRE(s.servers[0].host->power);
  CHECK(s.servers[0].host->power->idle() == 100.0);  // a bare number is watts
  CHECK(s.servers[0].host->power->busy() == 300.0);  // "0.3kW"
  REQUIRE(s.workload().core_power);
  CHECK(s.workload().core_power->idle() == 4.0);
  CHECK(s.workload().core_power->busy() == 10.0);
  REQUIRE(s.prices);
  CHECK(s.prices->device_hour_of("T4") == 0.35);
  CHECK(s.prices->device_hour_of("A100") == 0.0);  // no price of its own, none for every device
  CHECK(s.prices->host_hour == 0.1);
  CHECK(s.prices->core_hour == 0.02);
  CHECK(s.prices->kwh == 0.25);

  // One price for every device; without `prices` the scenario has none.
  json one = powered();
  one["prices"]["device_hour"] = 0.5;
  CHECK(scenario_of(one).prices->device_hour_of("T4") == 0.5);
  json none = powered();
  none.erase("prices");
  CHECK_FALSE(scenario_of(none).prices);
}

TEST_CASE("energy: a power curve is read between its points", "[energy]") {
  json doc = powered();
  doc["devices"]["T4"]["power"] = {{"utilization", {0, 0.5, 1}}, {"watts", {36, "55W", 70}}};
  const auto s = scenario_of(doc);
  const auto& p = *s.find_device("T4")->power;
  CHECK_FALSE(p.linear());
  CHECK(p.at(0.0) == 36.0);
  CHECK(p.at(0.25) == Approx(45.5));
  CHECK(p.at(0.75) == Approx(62.5));
  CHECK(p.at(1.0) == 70.0);
  CHECK(p.at(2.0) == 70.0);  // never beyond busy
  // {idle, busy} is the straight line: energy from the mean utilization alone.
  const auto pair = *scenario_of(powered()).find_device("T4")->power;
  CHECK(pair.linear());
  CHECK(pair.at(0.3) == Approx(36.0 + 0.3 * 34.0));
}

TEST_CASE("energy: bad power and prices are refused with their paths", "[energy][loader]") {
  const auto refused = [](json doc, const std::string& want) {
    const std::string error = load_error(doc);
    INFO(error);
    CHECK(error.find(want) != std::string::npos);
  };
  json doc = powered();
  doc["devices"]["T4"]["power"]["idle"] = "-5W";
  refused(doc, "devices.T4.power.idle");
  doc = powered();
  doc["devices"]["T4"]["power"]["busy"] = "30W";
  refused(doc, "expected busy >= idle");
  doc = powered();
  doc["devices"]["T4"]["power"] = {{"utilization", {0, 0.7, 0.5, 1}}, {"watts", {1, 2, 3, 4}}};
  refused(doc, "devices.T4.power.utilization[2]");
  doc["devices"]["T4"]["power"] = {{"utilization", {0.1, 1}}, {"watts", {1, 2}}};
  refused(doc, "expected utilizations from 0 (idle) to 1");
  doc["devices"]["T4"]["power"] = {{"utilization", {0, 1}}, {"watts", {1, 2, 3}}};
  refused(doc, "expected as many");
  doc["devices"]["T4"]["power"] = {{"idle", 1}, {"busy", 2}, {"watts", {1, 2}}};
  refused(doc, "expected one of them");
  doc = powered();
  doc["servers"][0]["host"]["power"] = {{"idle", "10 parsecs"}, {"busy", 1}};
  refused(doc, "servers[0].host.power.idle");
  doc = powered();
  doc["prices"]["device_hour"] = {{"T4", 0.35}, {"A100", 1.0}};
  refused(doc, "prices.device_hour.A100");
  doc["prices"]["device_hour"] = json::object();
  refused(doc, "found no price for device \"T4\"");
  doc = powered();
  doc["prices"]["kwh"] = -1;
  refused(doc, "prices.kwh");
  doc = powered();
  doc["prices"]["watts"] = 1;
  refused(doc, "prices.watts");
  doc = powered();
  doc["workload"]["arrivals"] = {{"rate", "10/s"}};
  doc["workload"].erase("jobs");
  doc["workload"].erase("threads_per_job");
  doc["workload"].erase("jobs_per_node");
  doc["workload"].erase("cpu_time_per_event");
  refused(doc, "workload.core_power");
}
