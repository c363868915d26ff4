// The capacity planner: its searches on known functions, and its answers against brute force over
// the same simulations (run_points directly) on deterministic scenarios where the formula is exact.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/plan.hpp>
#include <sonicsim/points/points.hpp>

using namespace sonicsim;

namespace {

const std::string kKnee = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";
const std::string kUplink = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_narrow_uplink.json";
constexpr double kTIdeal = 0.0530016;  // 50 ms CPU + 1 ms GPU + 2 ms latency + 1.6 us transfer

// Counts the simulations plan() asks for, and runs them the ordinary way.
struct Counting {
  std::string file;
  std::vector<scenario::Override> common;
  int count = 0;
  plan::Simulate simulate() {
    return [this](const std::vector<std::vector<scenario::Override>>& sets) {
      count += static_cast<int>(sets.size());
      return points::run_points(pipeline::simulator(), file, common, sets, 2);
    };
  }
};

// The metric at every value of [lo, hi], one replication, through run_points as a sweep would.
std::vector<double> brute_force(const std::string& file,
                                const std::vector<scenario::Override>& common,
                                const plan::Options& o, int lo, int hi) {
  std::vector<std::vector<scenario::Override>> sets;
  for (int v = lo; v <= hi; ++v) sets.push_back(plan::point_overrides(o, v, 1));
  const auto results = points::run_points(pipeline::simulator(), file, common, sets, 2);
  std::vector<double> metric;
  for (const auto& r : results) {
    REQUIRE(r.ok);
    metric.push_back(plan::metric_of(o, r.results));
  }
  return metric;
}

// The brute-force answers over values 1..metric.size(): the largest value meeting the threshold
// (max-cpu) and the smallest (min-*); 0 when none does.
int largest_meeting(const std::vector<double>& metric, double threshold) {
  int best = 0;
  for (int v = 1; v <= static_cast<int>(metric.size()); ++v)
    if (metric[v - 1] <= threshold) best = v;
  return best;
}
int smallest_meeting(const std::vector<double>& metric, double threshold) {
  int best = 0;
  for (int v = static_cast<int>(metric.size()); v >= 1; --v)
    if (metric[v - 1] <= threshold) best = v;
  return best;
}

}  // namespace

TEST_CASE("student t quantiles and the confidence interval of replications", "[plan][stats]") {
  CHECK(plan::student_t975(1) == Approx(12.706));
  CHECK(plan::student_t975(10) == Approx(2.228));
  CHECK(plan::student_t975(1000) == Approx(1.96).epsilon(0.01));
  const auto s = plan::statistics({1.0, 2.0, 3.0});
  CHECK(s.mean == Approx(2.0));
  CHECK(s.stddev == Approx(1.0));
  CHECK(s.ci95 == Approx(4.303 / std::sqrt(3.0)));
  CHECK(plan::statistics({5.0}).ci95 == 0.0);
  CHECK(std::isinf(plan::statistics({1.0, INFINITY}).mean));
}

TEST_CASE("bisection finds a step's edge from any bracket, in both directions", "[plan][search]") {
  plan::Domain d;
  d.min = 1;
  d.max = 1000;
  for (double edge : {1.0, 2.0, 37.0, 999.0}) {
    for (auto [ga, gb] : {std::pair{1.0, 2.0}, std::pair{500.0, 501.0}, std::pair{30.0, 40.0}}) {
      int calls = 0;
      const auto b = plan::find_boundary(d, true, ga, gb, [&](const std::vector<double>& vs) {
        std::vector<bool> out;
        for (double v : vs) out.push_back(v <= edge);
        calls += static_cast<int>(vs.size());
        return out;
      });
      REQUIRE(b.ok);
      CHECK(*b.ok == edge);
      CHECK(calls <= 30);
      const auto up = plan::find_boundary(d, false, ga, gb, [&](const std::vector<double>& vs) {
        std::vector<bool> out;
        for (double v : vs) out.push_back(v >= edge);
        return out;
      });
      REQUIRE(up.ok);
      CHECK(*up.ok == edge);
    }
  }
  // Nowhere met / met everywhere: the missing side stays empty.
  const auto never = plan::find_boundary(
      d, true, 10, 20, [](const std::vector<double>& vs) { return std::vector<bool>(vs.size()); });
  CHECK(!never.ok);
  CHECK(never.fail == 1.0);
  const auto always = plan::find_boundary(d, false, 10, 20, [](const std::vector<double>& vs) {
    return std::vector<bool>(vs.size(), true);
  });
  CHECK(always.ok == 1.0);
  CHECK(!always.fail);
}

TEST_CASE("a k-section finds the same edge in fewer rounds", "[plan][search]") {
  plan::Domain d;
  d.min = 1;
  d.max = 1000;
  for (bool below : {true, false}) {
    for (int probes : {1, 2, 3, 5}) {
      int rounds = 0;
      const auto b = plan::find_boundary(
          d, below, 10, 11,
          [&](const std::vector<double>& vs) {
            ++rounds;
            std::vector<bool> out;
            for (double v : vs) out.push_back(below ? v <= 637 : v >= 637);
            return out;
          },
          probes);
      REQUIRE(b.ok);
      CHECK(*b.ok == 637.0);
      CHECK(std::abs(*b.fail - 637.0) == 1.0);
      if (probes == 5) CHECK(rounds <= 12);
    }
  }
}

TEST_CASE("geometric bisection stops within the tolerance", "[plan][search]") {
  plan::Domain d;
  d.geometric = true;
  d.min = 1e3;
  d.max = 1e12;
  d.tolerance = 0.02;
  const double edge = 3.777e8;
  const auto b = plan::find_boundary(d, false, 1e6, 1.1e6, [&](const std::vector<double>& vs) {
    std::vector<bool> out;
    for (double v : vs) out.push_back(v >= edge);
    return out;
  });
  REQUIRE(b.ok);
  REQUIRE(b.fail);
  CHECK(*b.ok >= edge);
  CHECK(*b.fail < edge);
  CHECK(*b.ok / *b.fail <= 1.02 * 1.001);  // rounding to 4 digits
}

TEST_CASE("pattern search finds the minimum of a convex integer function", "[plan][search]") {
  plan::Domain d;
  d.min = 1;
  d.max = 10000;
  for (double guess : {1.0, 53.0, 400.0, 9000.0}) {
    const auto best = plan::find_minimum(d, guess, 7, [](const std::vector<double>& vs) {
      std::vector<double> out;
      for (double v : vs) out.push_back(std::abs(v - 123.0) + 0.001 * v);
      return out;
    });
    CHECK(best == 123.0);
  }
}

TEST_CASE("max-cpu finds the formula's knee and the brute-force answer with fewer simulations",
          "[plan][simulation]") {
  plan::Options o;
  o.question = plan::Question::MaxCpu;
  o.slowdown_percent = 0.5;
  o.replications = 1;
  Counting c{kKnee, {}};
  const auto r = plan::plan(kKnee, {}, o, c.simulate());
  REQUIRE(r.answer.status == "found");
  REQUIRE(r.answer.value);
  // The knee t_ideal / t_GPU = 53.0016 threads per device (one thread per job here).
  CHECK(std::abs(*r.answer.value - kTIdeal / 0.001) / (kTIdeal / 0.001) < 0.02);
  CHECK(r.formula_answer == 53.0);

  const int hi = 80;
  const auto metric = brute_force(kKnee, {}, r.options, 1, hi);
  CHECK(*r.answer.value == largest_meeting(metric, *r.threshold));
  CHECK(c.count == r.simulations);
  CHECK(r.simulations < hi);
  WARN("max-cpu: " << r.simulations << " simulations against " << hi << " brute force");
}

TEST_CASE("min-devices agrees with brute force, with fewer simulations", "[plan][simulation]") {
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.slowdown_percent = 0.5;
  o.replications = 2;  // identical replications: a CI of zero, a certain answer
  const std::vector<scenario::Override> common{{"workload.jobs", "200"}};
  Counting c{kKnee, common};
  const auto r = plan::plan(kKnee, common, o, c.simulate());
  REQUIRE(r.answer.status == "found");
  // 200 threads at 53.27 per device within 0.5%: 4 devices.
  CHECK(r.answer.value == 4.0);
  CHECK(r.answer.interval_low == 4.0);
  CHECK(r.answer.interval_high == 4.0);
  const int hi = 16;
  const auto metric = brute_force(kKnee, common, r.options, 1, hi);
  CHECK(*r.answer.value == smallest_meeting(metric, *r.threshold));
  CHECK(r.points.size() < static_cast<std::size_t>(hi));
  CHECK(r.simulations == static_cast<int>(r.points.size()) * 2);
  WARN("min-devices: " << r.points.size() << " values against " << hi << " brute force");
}

TEST_CASE("min-devices under a p99 latency constraint agrees with brute force",
          "[plan][simulation]") {
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.constraint = plan::Constraint::P99Latency;
  o.max_p99_latency_s = 0.004;
  o.replications = 1;
  const std::vector<scenario::Override> common{{"workload.jobs", "200"}};
  Counting c{kKnee, common};
  const auto r = plan::plan(kKnee, common, o, c.simulate());
  REQUIRE(r.answer.status == "found");
  // Below 200 / 53 = 3.8 devices the queue grows without bound; from 4 on, a request takes its
  // 1 ms of compute and 2 ms of round trip: p99 = 3.0016 ms.
  CHECK(r.answer.value == 4.0);
  const int hi = 16;
  const auto metric = brute_force(kKnee, common, r.options, 1, hi);
  CHECK(*r.answer.value == smallest_meeting(metric, *r.threshold));
  CHECK(metric[3] == Approx(0.0030016).epsilon(1e-6));
  CHECK(c.count == r.simulations);
  CHECK(r.simulations < hi);
  WARN("min-devices (p99): " << r.simulations << " simulations against " << hi << " brute force");
}

TEST_CASE("cost finds the brute-force optimum and its hand-computed price", "[plan][simulation]") {
  plan::Options o;
  o.question = plan::Question::Cost;
  o.prices = {1.0, 0.02, 70.0, 10.0, 0.25};  // $/GPU-h, $/core-h, W/GPU, W/core, $/kWh
  o.replications = 1;
  Counting c{kKnee, {}};
  const auto r = plan::plan(kKnee, {}, o, c.simulate());
  REQUIRE(r.answer.value);
  const int hi = 100;
  const auto metric = brute_force(kKnee, {}, r.options, 1, hi);
  int brute = 1;
  for (int v = 1; v <= hi; ++v)
    if (metric[v - 1] < metric[brute - 1]) brute = v;
  CHECK(*r.answer.value == brute);
  CHECK(brute == 53);
  // By hand at 53 threads on 1 GPU: $(1 + 53 x 0.02) + (70 + 53 x 10) W x $0.25/kWh an hour,
  // 53 / 53.0016 ms events per second.
  const double hourly = 1.0 + 53 * 0.02 + (70.0 + 530.0) / 1000.0 * 0.25;
  const double per_million = hourly / 3600.0 / (53.0 / kTIdeal) * 1e6;
  const auto j = plan::to_json(r);
  CHECK(j["answer"]["hourly_cost"].get<double>() == Approx(hourly));
  CHECK(j["answer"]["cost_per_million_events"].get<double>() == Approx(per_million).epsilon(1e-3));
  CHECK(j["answer"]["n_cpu_per_gpu"].get<double>() == 53.0);
  CHECK(r.simulations < hi);
  WARN("cost: " << r.simulations << " simulations against " << hi << " brute force");
}

TEST_CASE("min-bandwidth on a narrow uplink matches the hand computation", "[plan][simulation]") {
  plan::Options o;
  o.question = plan::Question::MinBandwidth;
  o.slowdown_percent = 5.0;
  o.replications = 1;
  Counting c{kUplink, {}};
  const auto r = plan::plan(kUplink, {}, o, c.simulate());
  REQUIRE(r.answer.status == "found");
  REQUIRE(r.answer.value);
  REQUIRE(r.answer.fail_value);
  CHECK(r.options.vary == "network.site_uplink.bandwidth");
  CHECK(*r.reference_s == Approx(0.053));
  const double hand = 1.001e6 / (0.05 * 0.053);  // bytes per second
  CHECK(*r.answer.value >= hand * 0.999);
  CHECK(*r.answer.value <= hand * 1.03);
  CHECK(*r.answer.fail_value < hand * 1.001);
  CHECK(*r.answer.value / *r.answer.fail_value <= 1.021);
  // Brute force on a 1% grid around the answer gives the same edge.
  std::vector<std::vector<scenario::Override>> sets;
  std::vector<double> grid;
  for (double b = hand * 0.95; b <= hand * 1.05; b *= 1.01) {
    grid.push_back(b);
    sets.push_back(plan::point_overrides(r.options, b, 1));
  }
  const auto results = points::run_points(pipeline::simulator(), kUplink, {}, sets, 2);
  double brute = 0.0;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    REQUIRE(results[i].ok);
    if (brute == 0.0 && plan::metric_of(r.options, results[i].results) <= *r.threshold)
      brute = grid[i];
  }
  CHECK(brute == Approx(*r.answer.value).epsilon(0.025));
  WARN("min-bandwidth: " << r.simulations << " simulations");
}

TEST_CASE("an unsatisfiable constraint is an answer, a bracket that cannot hold it is bad input",
          "[plan][simulation]") {
  plan::Options o;
  o.question = plan::Question::MaxCpu;
  o.constraint = plan::Constraint::PerJobThroughput;
  o.min_per_job_throughput = 100.0;  // one thread alone makes 1 / 53 ms = 18.9 events/s
  o.replications = 1;
  Counting c{kKnee, {}};
  const auto r = plan::plan(kKnee, {}, o, c.simulate());
  CHECK(r.answer.status == "unsatisfiable");
  CHECK(!r.answer.value);
  CHECK(plan::to_text(r).find("NONE") != std::string::npos);

  plan::Options m;
  m.question = plan::Question::MinDevices;
  m.slowdown_percent = 0.5;
  m.replications = 1;
  m.range_max = 2;
  Counting many{kKnee, {{"workload.jobs", "200"}}};
  CHECK_THROWS_WITH(plan::plan(kKnee, many.common, m, many.simulate()),
                    Catch::Contains("is not met anywhere in the range [1, 2]"));
  plan::Options w;
  w.question = plan::Question::MinBandwidth;
  w.link = "wan";
  CHECK_THROWS_WITH(plan::plan(kKnee, {}, w, c.simulate()), Catch::Contains("site_uplink"));
  plan::Options v;
  v.vary = "workload.jbos";
  CHECK_THROWS_WITH(plan::plan(kKnee, {}, v, c.simulate()), Catch::Contains("workload.jbos"));
}

TEST_CASE("replications give each verdict a confidence interval and the answer its uncertainty",
          "[plan][stats]") {
  // A known noisy system: thread time 53 ms up to 40 jobs, then +0.1 ms a job; the three seeds
  // add -0.1, 0, +0.1 ms, so every mean is exact and its 95% half-width 4.303 x 0.1 / sqrt(3) ms.
  const auto truth = [](double jobs) { return 0.053 + 0.0001 * std::max(0.0, jobs - 40.0); };
  int simulations = 0;
  const plan::Simulate fake = [&](const std::vector<std::vector<scenario::Override>>& sets) {
    std::vector<points::PointResult> out;
    for (const auto& set : sets) {
      REQUIRE(set.size() == 2);
      CHECK(set[0].path == "workload.jobs");
      CHECK(set[1].path == "seed");
      const double jobs = std::stod(set[0].value);
      const double t = truth(jobs) + 0.0001 * (std::stod(set[1].value) - 2.0);
      points::PointResult r;
      r.ok = true;
      r.results = {{"events",
                    {{"thread_time_per_event_s", t},
                     {"throughput_per_s", jobs / t},
                     {"per_job_throughput_per_s", 1.0 / t}}},
                   {"analytic", {{"n_cpu", jobs}, {"n_gpu", 1}}}};
      out.push_back(r);
      ++simulations;
    }
    return out;
  };
  plan::Options o;
  o.question = plan::Question::MaxCpu;
  o.slowdown_percent = 0.5;  // threshold 53.265 ms: 42 jobs (53.2 ms) meet it, 43 do not
  o.replications = 3;
  o.sequential = false;  // every value all three seeds: the exhaustive search this test checks
  const auto r = plan::plan(kKnee, {}, o, fake);
  REQUIRE(r.answer.value);
  CHECK(*r.answer.value == 42.0);
  CHECK(r.simulations == simulations);
  CHECK(r.simulations == 3 * static_cast<int>(r.points.size()));
  const double half = 4.303 * 0.0001 / std::sqrt(3.0);
  for (const auto& p : r.points) {
    CHECK(p.seeds == std::vector<std::int64_t>{1, 2, 3});
    CHECK(p.metric.mean == Approx(truth(p.value)));
    CHECK(p.metric.ci95 == Approx(half).epsilon(1e-3));
    CHECK(p.ok == (truth(p.value) <= *r.threshold));
    CHECK(p.certain == (std::abs(truth(p.value) - *r.threshold) > half));
  }
  // 41..45 are within a half-width of the threshold: the interval covers what was simulated
  // of them and stops at certain verdicts.
  REQUIRE(r.answer.interval_low);
  REQUIRE(r.answer.interval_high);
  CHECK(*r.answer.interval_low <= 42.0);
  CHECK(*r.answer.interval_high >= 42.0);
  CHECK(*r.answer.interval_high <= 45.0);
  CHECK(*r.answer.interval_low >= 12.0);  // no lower than the lowest value simulated
  const auto j = plan::to_json(r);
  CHECK(j["answer"]["metric"]["ci95"].get<double>() == Approx(half).epsilon(1e-3));
  CHECK(j["points"].size() == r.points.size());
}
