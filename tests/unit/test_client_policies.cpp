// Client policies (`workload.client.fallback`): the last resort for a request whose tries are used
// up. Each is registered once (include/sonicsim/client_policies/policies.hpp); these tests hold
// the schema, the loader, the writer and the engine to that table: every policy loads, writes
// back and runs with every request accounted for, an open loop refuses those that need client
// CPU with the loader's message, and an unknown name is answered with the table's names.
#include <fstream>
#include <string>
#include <vector>

#include <sonicsim/client_policies/policies.hpp>
#include <sonicsim/scenario/writer.hpp>

#include "schema_support.hpp"
#include "support.hpp"

using namespace test;
namespace cp = sonicsim::client_policies;

namespace {

// `deterministic` with the pool down from 20 s to 30 s of a 60 s run: the requests of those ten
// seconds find no server, are tried twice and go to the client policy's last resort.
json crashing(const std::string& fallback) {
  auto doc = deterministic(8, 2, 0.1, 0.3, 0.010);
  doc["duration"] = 60.0;
  doc["warmup"] = 5.0;
  doc["workload"]["client"] = {
      {"allowed_tries", 2}, {"retry_delay", "10ms"}, {"fallback", fallback}};
  doc["faults"] = json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"at", 20}, {"for", 10}}});
  return doc;
}

// An open loop at 200 arrivals/s on one device (no network), the device down from 5 s to 10 s.
json open_loop_crashing(const std::string& fallback) {
  json doc{{"name", "open-loop"},
           {"duration", 20.0},
           {"warmup", 2.0},
           {"workload",
            {{"arrivals", {{"rate", 200}, {"distribution", "poisson"}}},
             {"requests", json::array({{{"model", "m"}}})},
             {"client", {{"timeout", "50ms"}, {"allowed_tries", 2}, {"fallback", fallback}}}}},
           {"models", {{"m", {{"service_time", {{"batch", {1}}, {"seconds", {0.001}}}}}}}},
           {"servers",
            json::array({{{"name", "gpu"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}})},
           {"faults", json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"at", 5}, {"for", 5}}})}};
  return doc;
}

std::string quoted_names(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  return out;
}

}  // namespace

// The hand-written schema editors use lists the table's names, the default first, each policy's
// meaning, and its keys with the loader's ranges and defaults.
TEST_CASE("client policies: the schema lists every policy of the table with its keys",
          "[loader][client_policies]") {
  const json schema = scenario_schema();
  const json* client = schema_object_with(schema, {"fallback", "allowed_tries"});
  REQUIRE(client != nullptr);
  const json& props = (*client)["properties"];
  check_table_in_schema<cp::List>(props, "fallback");
  const std::string description = props["fallback"]["description"].get<std::string>();
  cp::List::each([&]<class P>() {
    INFO(P::name);
    CHECK_THAT(description,
               Catch::Contains(std::string(P::name) + ": " + std::string(P::meaning) + "."));
    if (!P::open_loop)
      CHECK_THAT(description, Catch::Contains("Not " + std::string(P::name) + " with arrivals"));
  });
}

// Every name of the table loads as its policy and writes back as itself; the default policy is
// the table's first and a scenario without `client` holds it.
TEST_CASE("client policies: every policy of the table loads and writes back",
          "[loader][client_policies]") {
  const auto base = scenario_of(deterministic(2, 1));
  CHECK(cp::name_of(base.workload().client.fallback) == cp::names().front());
  for (std::string_view name : cp::names()) {
    INFO(name);
    auto doc = deterministic(2, 1);
    doc["workload"]["client"] = {{"fallback", std::string(name)}};
    const auto s = scenario_of(doc);
    CHECK(cp::name_of(s.workload().client.fallback) == name);
    CHECK(s.workload().client.fallback == *cp::settings_named(name));

    auto edited = base;
    edited.workloads[0].client.fallback = *cp::settings_named(name);
    edited.workloads[0].client.allowed_tries = 3;
    const json written = sonicsim::scenario::write_scenario(base, edited);
    CHECK(written["workload"]["client"]["fallback"] == std::string(name));
    CHECK(sonicsim::scenario::load_json(written, "<written>").workload().client ==
          edited.workload().client);
  }
  CHECK_FALSE(cp::settings_named("gpu").has_value());
}

// A name not in the table: the loader's message lists the table's names.
TEST_CASE("client policies: an unknown name is answered with the table's names",
          "[loader][client_policies]") {
  auto doc = deterministic(2, 1);
  doc["workload"]["client"] = {{"fallback", "gpu"}};
  const std::string error = load_error(doc);
  CHECK_THAT(error, Catch::Contains("workload.client.fallback: found \"gpu\", expected one of " +
                                    quoted_names(cp::names())));
}

// An open loop has no client jobs, threads or CPU: a policy that needs them is refused with its
// reason, and the policies it may use load.
TEST_CASE("client policies: an open loop refuses a policy that needs the client's CPU",
          "[loader][client_policies]") {
  CHECK_THAT(load_error(open_loop_crashing("cpu")),
             Catch::Contains("workload.client.fallback: found \"cpu\" next to "
                             "`workload.arrivals`, expected \"none\": an open loop has no client "
                             "CPU to fall back on (remove `arrivals` for client jobs that compute "
                             "a failed request themselves)"));
  std::string allowed;
  for (std::string_view n : cp::open_loop_names())
    allowed += (allowed.empty() ? "\"" : " or \"") + std::string(n) + "\"";
  cp::List::each([&]<class P>() {
    INFO(P::name);
    const std::string error = load_error(open_loop_crashing(std::string(P::name)));
    if (P::open_loop) {
      CHECK(error.empty());
    } else {
      CHECK_THAT(error, Catch::Contains("found \"" + std::string(P::name) +
                                        "\" next to `workload.arrivals`, expected " + allowed +
                                        ": " + std::string(P::open_loop_refusal)));
    }
  });
}

// Every policy of the table runs a workload whose requests fail while the pool is down: every
// request issued is completed, failed, computed by the fallback or still in flight, some reach
// the last resort, and the client CPU it took is what the policy says it takes.
TEST_CASE("client policies: every policy of the table accounts for every request",
          "[engine][client_policies]") {
  for (std::string_view name : cp::names()) {
    INFO(name);
    const auto doc = crashing(std::string(name));
    const auto m = run(doc);
    const auto& w = m.workloads[0];
    CHECK(m.sent > 0);
    CHECK(m.completed > 0);
    CHECK(m.failed + m.fallback > 0);
    CHECK(m.sent == m.completed + m.failed + m.fallback + m.in_flight_at_end);
    CHECK(w.sent == w.completed + w.failed + w.fallback + w.in_flight_at_end);
    CHECK(m.resilience.no_server > 0);
    const double per_request = cp::cpu_seconds(*cp::settings_named(name), 0.3 * 0.1);
    CHECK(m.resilience.fallback_cpu_seconds ==
          Approx(per_request * static_cast<double>(m.failed + m.fallback)));
  }
}

// The policies an open loop may use run one, every arrival's request accounted for.
TEST_CASE("client policies: every policy an open loop may use accounts for every request",
          "[engine][client_policies]") {
  for (std::string_view name : cp::open_loop_names()) {
    INFO(name);
    const auto m = run(open_loop_crashing(std::string(name)));
    CHECK(m.sent > 0);
    CHECK(m.failed + m.fallback > 0);
    CHECK(m.sent == m.completed + m.failed + m.fallback + m.in_flight_at_end);
  }
}

// What the two shipped policies do: none fails the request, cpu computes it on the client.
TEST_CASE("client policies: none fails the request, cpu computes it on the client",
          "[engine][client_policies]") {
  const auto none = run(crashing("none"));
  CHECK(none.failed > 0);
  CHECK(none.fallback == 0);
  const auto cpu = run(crashing("cpu"));
  CHECK(cpu.failed == 0);
  CHECK(cpu.fallback > 0);
  CHECK(cpu.resilience.fallback_after_failure == cpu.fallback);
}
