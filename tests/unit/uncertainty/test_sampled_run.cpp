// run --samples without simulating (uncertainty/sampled_run.hpp): the spread of a metric, the
// metrics read from a results document, the limits on a request, and the summary of runs whose
// results are made up here (their Sobol indices known), down to the samples document.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <sonicsim/uncertainty/sampled_run.hpp>
#include <sonicsim/util/errors.hpp>

using namespace sonicsim::uncertainty;

namespace {

// A results document with the figures sample_metrics reads (SPEC section 6).
nlohmann::json sampled_results(double throughput, bool with_latency = true) {
  nlohmann::json r = {{"events",
                       {{"throughput_per_s", throughput},
                        {"per_job_throughput_per_s", throughput / 4},
                        {"thread_time_per_event_s", 8 / throughput}}},
                      {"requests", {{"latency_s", nlohmann::json::object()}}},
                      {"servers",
                       {{{"name", "a"}, {"utilization", 0.5}, {"utilization_max", 0.6}},
                        {{"name", "b"}, {"utilization", 0.7}, {"utilization_max", 0.9}}}},
                      {"links", {{{"name", "site_uplink"}, {"mean_utilization", 0.25}}}}};
  if (with_latency) r["requests"]["latency_s"] = {{"p50", 0.002}, {"p99", 0.01}};
  return r;
}

SampledRequest sampled_request(int n, bool sobol) {
  SampledRequest q;
  q.scenario_path = "s.json";
  q.spec.inputs.resize(2);
  q.spec.inputs[0].name = "x1";
  q.spec.inputs[1].name = "x2";
  q.samples = n;
  q.sobol = sobol;
  q.seed = 5;
  return q;
}

double value_of(const MetricValues& m, const std::string& name) {
  for (const auto& [n, v] : m)
    if (n == name) return v;
  FAIL("no metric " << name);
  return 0.0;
}

}  // namespace

TEST_CASE("sampled run: the spread of a metric over the samples", "[samples]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto s = spread_of({5, 1, nan, 4, 2, 3});
  CHECK(s.n == 5);
  CHECK(s.mean == 3.0);
  CHECK(s.stddev == Approx(std::sqrt(2.5)));
  CHECK(s.min == 1.0);
  CHECK(s.max == 5.0);
  CHECK(s.p05 == 1.0);
  CHECK(s.p50 == 3.0);
  CHECK(s.p95 == 5.0);
  CHECK(spread_of({7}).stddev == 0.0);
  const auto none = spread_of({nan});
  CHECK(none.n == 0);
  CHECK(std::isnan(none.mean));
  CHECK(std::isnan(none.p50));
}

TEST_CASE("sampled run: the metrics of a results document", "[samples]") {
  const auto m = sample_metrics(sampled_results(100.0));
  REQUIRE(m.size() == 7);
  CHECK(m[0].first == "events.throughput_per_s");
  CHECK(value_of(m, "events.throughput_per_s") == 100.0);
  CHECK(value_of(m, "events.thread_time_per_event_s") == 0.08);
  CHECK(value_of(m, "events.per_job_throughput_per_s") == 25.0);
  CHECK(value_of(m, "requests.latency_s.p50") == 0.002);
  CHECK(value_of(m, "requests.latency_s.p99") == 0.01);
  // The busiest device of any pool, not a pool's mean.
  CHECK(value_of(m, "servers.utilization_max") == 0.9);
  CHECK(value_of(m, "links.site_uplink.mean_utilization") == 0.25);
  // No latency (no request finished): NaN, not 0.
  CHECK(
      std::isnan(value_of(sample_metrics(sampled_results(1.0, false)), "requests.latency_s.p99")));
}

TEST_CASE("sampled run: a request is refused outside its limits, naming the flag", "[samples]") {
  auto q = sampled_request(4, false);
  CHECK(q.runs() == 4);
  CHECK_NOTHROW(check_request(q));
  q.samples = 0;
  CHECK_THROWS_WITH(check_request(q), Catch::Contains("--samples") && Catch::Contains("found 0"));
  q.samples = kMaxSamples + 1;
  CHECK_THROWS_AS(check_request(q), sonicsim::InputError);
  q = sampled_request(kMaxSamples / 4, true);
  CHECK(q.runs() == kMaxSamples);
  CHECK_NOTHROW(check_request(q));
  q.samples += 1;
  CHECK_THROWS_WITH(check_request(q), Catch::Contains("expected at most"));
  q.samples = 1;
  CHECK_THROWS_WITH(check_request(q), Catch::Contains("from 2"));
}

// Made-up runs whose throughput is 1 + x1 + 3 x2 at each row: indices 0.1 and 0.9 (within 0.05:
// this checks the plumbing from results to indices; test_sensitivity.cpp holds the estimator to
// 0.02). The latency missing in one run leaves that metric's indices undefined (null), never 0.
TEST_CASE("sampled run: the summary of sobol runs and its document", "[samples]") {
  const auto q = sampled_request(2048, true);
  std::optional<SobolDesign> d;
  std::vector<std::string> kinds;
  const auto rows = sample_rows(q, d, kinds);
  REQUIRE(d);
  REQUIRE(rows.size() == 2048u * 4u);
  REQUIRE(kinds.size() == rows.size());
  CHECK(kinds.front() == "A");
  CHECK(kinds[2048] == "B");
  CHECK(kinds.back() == "AB:x2");
  std::vector<nlohmann::json> results;
  std::vector<Sample> samples(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    results.push_back(sampled_results(1.0 + rows[k][0] + 3.0 * rows[k][1], k != 5));
    samples[k].summary = rows[k];
  }
  const auto run = summarise(q, d, samples, kinds, results);
  REQUIRE(run.metrics.size() == 7);
  const auto& t = run.metrics[0];
  REQUIRE(t.indices.size() == 2);
  CHECK(std::abs(t.indices[0].total - 0.1) < 0.05);
  CHECK(std::abs(t.indices[1].first - 0.9) < 0.05);
  // The spread is over rows A and B only (4096 independent samples).
  CHECK(t.spread.n == 4096);
  const auto j = to_json(run);
  CHECK(j["runs"].size() == rows.size());
  CHECK(j["runs"][5]["metrics"]["requests.latency_s.p50"].is_null());
  CHECK(j["metrics"]["requests.latency_s.p50"]["sobol"][0]["first"].is_null());
  CHECK(j["metrics"]["events.throughput_per_s"]["sobol"][1]["input"] == "x2");
  const auto text = to_text(run);
  // Ranked by total index: x2 before x1.
  const auto block = text.find("events.throughput_per_s\n");
  REQUIRE(block != std::string::npos);
  CHECK(text.find("x2", block) < text.find("x1", block));
}
