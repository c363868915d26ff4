// The results reader against the writer: what the writer spells, the reader finds, and every
// sweep column the report reads is one that a sweep writes.
#include <algorithm>
#include <cmath>

#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/report/sweep_summary.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/sweep/sweep.hpp>

using namespace test;
using namespace sonicsim;
using results::Quantile;

TEST_CASE("results reader: reads back every figure the writer wrote", "[results][reader]") {
  json doc = deterministic(8, 2);
  doc["duration"] = 60.0;
  doc["warmup"] = 10.0;
  doc["timeseries"] = true;
  const auto s = scenario_of(doc);
  const auto out = runner::simulate(s, runner::TransportChoice{});
  const auto written = results::to_json(s, out, analytic::to_json(analytic::predict(s)));
  const json j = json::parse(written.dump());
  const auto& m = out.metrics;

  const results::Document r(j);
  CHECK(r.scenario() == "deterministic");
  CHECK(r.seed() == s.seed);
  CHECK(r.warmup_s() == 10.0);
  CHECK(r.events().throughput_per_s() == m.throughput());
  CHECK(r.events().per_job_throughput_per_s() == m.throughput() / 8.0);
  CHECK(r.events().thread_time_per_event_s() > 0.0);
  for (Quantile q : {Quantile::Mean, Quantile::P50, Quantile::P90, Quantile::P99, Quantile::Max})
    CHECK(r.events().time_per_event_s().at(q) > 0.0);
  CHECK(r.requests().sent() == static_cast<double>(m.sent));
  CHECK(r.requests().failed() == 0.0);
  CHECK(r.requests().fallback() == 0.0);
  CHECK(r.requests().latency_s().has(Quantile::P95));
  const auto histogram = r.requests().latency_histogram();
  REQUIRE(histogram);
  CHECK(histogram->edges_s.size() == histogram->counts.size() + 1);

  const auto a = r.analytic();
  CHECK(a.n_cpu() == 8.0);
  CHECK(a.n_gpu() == 2.0);
  CHECK(a.t_sonic_s() > 0.0);
  CHECK(a.t_ideal_s() > 0.0);
  CHECK(std::isfinite(a.saturation_n_cpu_per_gpu()));
  CHECK(a.mode() == "sync");
  CHECK(a.t_cpu_s() == 0.1);
  CHECK(a.p() == 0.1);
  CHECK(a.t_gpu_s() > 0.0);
  CHECK(a.t_latency_s() > 0.0);
  CHECK(a.requests_per_event("m") == 1.0);

  const auto models = r.models();
  REQUIRE(models.size() == 1);
  CHECK(models[0].name() == "m");
  CHECK(models[0].mean_batch_size() >= 1.0);
  CHECK(models[0].latency_s().at(Quantile::P99) > 0.0);
  CHECK(models[0].queue_time_s().at(Quantile::Mean) >= 0.0);
  CHECK(models[0].compute_time_s().at(Quantile::Mean) > 0.0);
  const auto pools = r.servers();
  REQUIRE(pools.size() == 1);
  CHECK(pools[0].name() == "gpu");
  CHECK(pools[0].count() == 2.0);
  CHECK(pools[0].utilization() > 0.0);
  const auto links = r.links();
  REQUIRE(links.size() == m.links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    CHECK(links[i].name() == m.links[i].name);
    CHECK(links[i].peak_utilization() >= links[i].mean_utilization());
  }

  CHECK_FALSE(r.has_workloads());
  REQUIRE(r.has_timeseries());
  const auto ts = r.timeseries();
  CHECK_FALSE(ts.t_s.empty());
  CHECK(ts.events_per_s.size() == ts.t_s.size());
  CHECK(ts.devices.size() == 2);
  CHECK(ts.models.count("m") == 1);
  CHECK(ts.links.size() == m.links.size());
  CHECK_NOTHROW(r.check());

  // Every sweep column the report reads is one a sweep of these results has.
  std::vector<std::string> columns;
  for (const auto& [name, v] : sweep::flatten_metrics(written)) columns.push_back(name);
  const auto has = [&](const std::string& c) {
    return std::find(columns.begin(), columns.end(), c) != columns.end();
  };
  namespace c = report::column;
  for (const auto* name :
       {&c::n_cpu, &c::n_gpu, &c::t_ideal_s, &c::t_sonic_s, &c::knee_per_device,
        &c::formula_throughput, &c::mva_throughput, &c::mva_time_per_event, &c::throughput,
        &c::thread_time_per_event, &c::latency_p50, &c::latency_p99}) {
    INFO(*name);
    CHECK(has(*name));
  }
  CHECK(has(c::servers + "0" + c::pool_utilization));
  CHECK(has(c::links + "0" + c::link_peak_utilization));
  CHECK(has(c::links + "0" + c::link_mean_utilization));
  CHECK(has(c::models + "m" + c::model_mean_batch_size));
}

TEST_CASE("results reader: what is missing or mistyped is named by its JSON pointer",
          "[results][reader]") {
  const json j = {{"events", {{"throughput_per_s", "fast"}, {"time_per_event_s", {{"p99", 2}}}}},
                  {"servers", json::array({{{"name", 7}, {"count", 2}}})},
                  {"models", {{"a/b", {{"latency_s", {{"p50", 0.1}}}}}}}};
  const results::Document r(j);
  CHECK(std::isnan(r.events().throughput_per_s()));
  CHECK(r.events().time_per_event_s().at(Quantile::P99) == 2.0);
  CHECK(std::isnan(r.events().thread_time_per_event_s()));
  CHECK(std::isnan(r.warmup_s(results::Presence::Optional)));  // optional: no problem
  CHECK_FALSE(r.servers()[0].name());
  CHECK(std::isnan(r.models()[0].latency_s().at(Quantile::P99)));
  CHECK(r.links().empty());
  try {
    r.check();
    FAIL("check() accepted missing figures");
  } catch (const scenario::InputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK_THAT(what, Catch::Contains("a sonicsim results file"));
    CHECK_THAT(what,
               Catch::Contains("/events/throughput_per_s: found \"fast\", expected a number"));
    CHECK_THAT(what,
               Catch::Contains("/events/thread_time_per_event_s: missing, expected a number"));
    CHECK_THAT(what, Catch::Contains("/servers/0/name: found 7, expected a string"));
    CHECK_THAT(what, Catch::Contains("/models/a~1b/latency_s/p99: missing"));
    CHECK_THAT(what, Catch::Contains("/links: missing, expected an object or array"));
    CHECK_THAT(what, !Catch::Contains("warmup_s"));
  }
}

TEST_CASE("results keys: flattened names as the sweep columns spell them", "[results][reader]") {
  namespace k = results::keys;
  CHECK(results::column({k::top::events, k::events::throughput_per_s}) ==
        "events.throughput_per_s");
  CHECK(results::column({k::top::servers, ""}) == "servers.");
  CHECK(results::column({"", k::server::utilization}) == ".utilization");
}

TEST_CASE("results reader: reads back the sites and the egress", "[results][reader][sites]") {
  // Two sites, GPUs at the second only, a price at the second: responses are priced.
  json doc = deterministic(4, 2);
  doc["duration"] = 60.0;
  doc["warmup"] = 10.0;
  doc.erase("network");
  doc["workload"]["sites"] = {{"x", 1}, {"y", 1}};
  doc["servers"][0]["site"] = "y";
  doc["sites"] = {{{"name", "x"}}, {{"name", "y"}, {"egress_price_per_gb", 0.09}}};
  doc["wan"] = {
      {"links",
       json::array({{{"between", {"x", "y"}}, {"bandwidth", "10Gbps"}, {"latency", "5ms"}}})}};
  const auto s = scenario_of(doc);
  const auto out = runner::simulate(s, runner::TransportChoice{});
  const auto written = results::to_json(s, out, analytic::to_json(analytic::predict(s)));
  const json j = json::parse(written.dump());
  const results::Document r(j);
  const auto& m = out.metrics;
  REQUIRE(r.has_sites());
  const auto sites = r.sites();
  REQUIRE(sites.size() == 2);
  CHECK(sites[0].name() == "x");
  CHECK(sites[0].threads() == 2.0);
  CHECK(sites[1].devices() == 2.0);
  CHECK(sites[0].requests().sent() == static_cast<double>(m.sites[0].sent));
  CHECK(sites[0].events().throughput_per_s() ==
        static_cast<double>(m.sites[0].events_completed) / m.span());
  CHECK(sites[0].bytes_out() == m.egress_bytes[0][1]);
  CHECK(sites[0].bytes_in() == m.egress_bytes[1][0]);
  CHECK_FALSE(sites[0].egress_cost());
  REQUIRE(sites[1].egress_cost());
  CHECK(*sites[1].egress_cost() == Approx(0.09 * m.egress_bytes[1][0] / 1e9));
  const auto egress = r.egress();
  REQUIRE(egress.size() == 2);
  CHECK(egress[0].from() == "x");
  CHECK(egress[0].to() == "y");
  CHECK(egress[0].bytes() == m.egress_bytes[0][1]);
  CHECK_FALSE(egress[0].cost());
  CHECK(egress[1].cost());
  CHECK_NOTHROW(r.check());
}
