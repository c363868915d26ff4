// Servers as machines (src/scenario/load_hosts.cpp): the `devices` section, a pool's `host` (its
// CPU cores, the devices behind one Triton server, its power) and a model's `host_cost`, read with
// their units; bad hosts refused with the JSON path, what was found and what is expected.
#include <nlohmann/json.hpp>

#include "problems.hpp"
#include "support.hpp"

using namespace test;

namespace {

// Eight T4s in hosts of four, 16 cores each, serving m with host CPU work.
json lh_hosted() {
  auto doc = deterministic(4, 8);
  doc["servers"][0]["host"] = {{"cores", 16}, {"devices", 4}};
  doc["models"]["m"]["host_cost"] = {{"per_request", "80us"},
                                     {"per_byte_in", "0.4ns"},
                                     {"per_byte_out", 1e-9},
                                     {"per_execution", "1ms"}};
  return doc;
}

}  // namespace

TEST_CASE("hosts: a pool's host and a model's host_cost are read with their units",
          "[loader][hosts]") {
  const auto s = scenario_of(lh_hosted());
  const auto& pool = s.servers[0];
  REQUIRE(pool.host);
  REQUIRE(pool.host->cores);
  CHECK(*pool.host->cores == 16);
  CHECK(pool.host->devices == 4);
  CHECK(pool.servers() == 2);  // 8 devices, 4 behind each Triton server
  const auto& m = *s.find_model("m");
  REQUIRE(m.host_cost);
  CHECK(m.host_cost->per_request == Approx(80e-6));
  CHECK(m.host_cost->per_byte_in == Approx(0.4e-9));
  CHECK(m.host_cost->per_byte_out == Approx(1e-9));  // a bare number is seconds
  CHECK(m.host_cost->per_execution == Approx(1e-3));
  CHECK_FALSE(m.host_cost->in_server_overhead);

  // Without `host`: one device per server, the host not modelled.
  const auto plain = scenario_of(deterministic(4, 8));
  CHECK_FALSE(plain.servers[0].host);
  CHECK(plain.servers[0].servers() == 8);
  CHECK_FALSE(plain.find_model("m")->host_cost);
}

TEST_CASE("hosts: bad hosts and host costs name the key, what was found and what is expected",
          "[loader][hosts]") {
  auto doc = lh_hosted();
  doc["servers"][0]["host"]["devices"] = 3;
  auto problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "servers[0].host.devices",
                    {"found 3 devices per host in a pool of 8, expected a divisor of the "
                     "pool's `count`"}));

  doc = lh_hosted();
  doc["servers"][0]["host"]["cores"] = 0;
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "servers[0].host.cores",
                    {"found 0, expected an integer in [1, ", "(CPU cores of the server host)"}));

  doc = lh_hosted();
  doc["servers"][0]["host"] = 16;
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "servers[0].host",
                    {"found 16", "expected a host object {\"cores\": 16, \"devices\": 4}"}));

  doc = lh_hosted();
  doc["models"]["m"]["host_cost"]["per_request"] = "-80us";
  doc["models"]["m"]["host_cost"]["in_server_overhead"] = "yes";
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "models.m.host_cost.per_request", {"found \"-80us\""}));
  CHECK(has_problem(problems, "models.m.host_cost.in_server_overhead",
                    {"found \"yes\"",
                     "expected true (the host work is part of "
                     "request_overhead.server) or false"}));
}
