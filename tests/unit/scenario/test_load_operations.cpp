// The load_balancer section (src/scenario/load_operations.cpp): its policy and the policy's keys,
// capacity and admission, read with their units, and bad settings refused with the JSON path,
// what was found and what is expected.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <sonicsim/balancing/policies.hpp>

#include "operations_support.hpp"
#include "schema_support.hpp"
#include "support.hpp"

using namespace test;
using namespace sonicsim::scenario;

TEST_CASE("load_balancer.admission is parsed and refused where it cannot apply", "[loader]") {
  json d = ops_with_autoscaler({{"threshold", "20ms"}})();
  d["load_balancer"] = {
      {"admission",
       {{"rate", 2}, {"burst", 10}, {"refuse_above_threshold", true}, {"retry_after", "1min"}}}};
  const auto s = load_json(d, "<test>");
  REQUIRE(s.load_balancer.admission);
  CHECK(s.load_balancer.admission->rate == 2.0);
  CHECK(s.load_balancer.admission->burst == 10.0);
  CHECK(s.load_balancer.admission->above_threshold);
  CHECK(s.load_balancer.admission->retry_after == 60.0);

  json none = ops_base();
  none["load_balancer"] = {{"admission", json::object()}};
  auto problems = ops_problems_of(none);
  CHECK(has_problem(problems, "load_balancer.admission",
                    {"found neither a token bucket", "expected at least one"}));

  json no_scaler = ops_base();
  no_scaler["load_balancer"] = {{"admission", {{"refuse_above_threshold", true}}}};
  problems = ops_problems_of(no_scaler);
  CHECK(has_problem(problems, "load_balancer.admission.refuse_above_threshold",
                    {"found true with no autoscaled pool"}));

  json small = ops_base();
  small["load_balancer"] = {{"admission", {{"rate", 1}, {"burst", 0.5}}}};
  problems = ops_problems_of(small);
  CHECK(has_problem(problems, "load_balancer.admission.burst", {"found 0.5", "a number >= 1"}));

  // Envoy's timer bucket and the Lua filter's query (SuperSONIC's two limiters).
  json timer = ops_base();
  timer["load_balancer"] = {{"admission",
                             {{"fill_interval", "12s"},
                              {"tokens_per_fill", 3},
                              {"burst", 5},
                              {"refuse_above", {{"threshold", "100ms"}}},
                              {"reconnect", false}}}};
  const auto t = load_json(timer, "<test>");
  CHECK(t.load_balancer.admission->fill_interval == 12.0);
  CHECK(t.load_balancer.admission->tokens_per_fill == 3.0);
  CHECK(!t.load_balancer.admission->reconnect);
  REQUIRE(t.load_balancer.admission->refuse_above);
  CHECK(t.load_balancer.admission->refuse_above->threshold == Approx(0.1));
  CHECK(t.load_balancer.admission->refuse_above->window == 30.0);
  CHECK(t.load_balancer.admission->refuse_above->scrape_interval == 5.0);

  json both = ops_base();
  both["load_balancer"] = {{"admission", {{"rate", 1}, {"fill_interval", "12s"}}}};
  CHECK(has_problem(ops_problems_of(both), "load_balancer.admission.fill_interval",
                    {"found both rate and fill_interval"}));
  json lone = ops_base();
  lone["load_balancer"] = {{"admission", {{"rate", 1}, {"tokens_per_fill", 2}}}};
  CHECK(has_problem(ops_problems_of(lone), "load_balancer.admission.tokens_per_fill",
                    {"without fill_interval"}));
  json gate = ops_base();
  gate["load_balancer"] = {
      {"admission", {{"refuse_above", {{"window", "30s"}, {"scrape_interval", "0.1ms"}}}}}};
  problems = ops_problems_of(gate);
  CHECK(has_problem(problems, "load_balancer.admission.refuse_above.threshold", {"missing"}));
  CHECK(has_problem(problems, "load_balancer.admission.refuse_above.scrape_interval",
                    {"found \"0.1ms\""}));

  json typo = ops_base();
  typo["load_balancer"] = {{"admission", {{"rate", 1}, {"retry", "1min"}}}};
  problems = ops_problems_of(typo);
  CHECK(has_problem(problems, "load_balancer.admission.retry", {"unknown key `retry`"}));
}

TEST_CASE("load_balancer.capacity is parsed and needs a cost", "[loader]") {
  json d = ops_base();
  d["load_balancer"] = {
      {"capacity", {{"per_message", "20us"}, {"workers", 4}, {"bandwidth", "25Gbps"}}}};
  const auto s = load_json(d, "<test>");
  REQUIRE(s.load_balancer.capacity);
  CHECK(s.load_balancer.capacity->per_message == Approx(20e-6));
  CHECK(s.load_balancer.capacity->workers == 4);
  CHECK(s.load_balancer.capacity->bandwidth == Approx(25e9 / 8));

  json none = ops_base();
  none["load_balancer"] = {{"capacity", {{"workers", 2}}}};
  auto problems = ops_problems_of(none);
  CHECK(has_problem(problems, "load_balancer.capacity",
                    {"found neither per_message nor bandwidth", "expected at least one"}));

  json zero = ops_base();
  zero["load_balancer"] = {{"capacity", {{"per_message", "1ms"}, {"workers", 0}}}};
  problems = ops_problems_of(zero);
  CHECK(has_problem(problems, "load_balancer.capacity.workers", {"found 0"}));
}

TEST_CASE("load_balancer: bad settings name the key, what was found and what is expected",
          "[loader][balancer]") {
  auto doc = ops_base();
  doc["load_balancer"] = {{"policy", "least_request"}, {"choice_count", 1}};
  CHECK_THAT(load_error(doc),
             Catch::Contains("load_balancer.choice_count") && Catch::Contains("found 1"));
  doc["load_balancer"] = {{"policy", "round_robin"}, {"choice_count", 2}};
  CHECK_THAT(load_error(doc),
             Catch::Contains("expected it only with \"policy\": \"least_request\""));
  doc["load_balancer"] = {{"policy", "ring_hash"}, {"ring_entries_per_host", 0}};
  CHECK_THAT(load_error(doc), Catch::Contains("load_balancer.ring_entries_per_host"));
  doc["load_balancer"] = {{"policy", "maglev"}};
  CHECK_THAT(load_error(doc), Catch::Contains("least_request") && Catch::Contains("ring_hash"));
}

// A policy is registered once (include/sonicsim/balancing/policies.hpp); the hand-written schema
// editors use must list the same names and keys, with the loader's ranges and defaults.
TEST_CASE("load_balancer: the schema lists every policy of the table with its keys",
          "[loader][balancer]") {
  const json schema = scenario_schema();
  const json* lb = schema_object_with(schema, {"policy", "admission"});
  REQUIRE(lb != nullptr);
  check_table_in_schema<sonicsim::balancing::List>((*lb)["properties"], "policy");
}
