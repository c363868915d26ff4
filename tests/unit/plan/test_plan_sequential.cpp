// Sequential stopping of replications (docs/plan.md, "Searches that simulate less"): plan() on
// known noisy stand-ins gives the exhaustive search's answer with fewer simulations, stops a
// value early only when its verdict is certain, and gives a value near the threshold every
// replication.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <sonicsim/plan/plan.hpp>

using namespace sonicsim;

namespace {

const std::string kSequentialKnee = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";

// Seed k's noise, in units of the stand-in's spread: mean 0 over seeds 1..4.
double seed_offset(std::int64_t seed) {
  static const std::map<std::int64_t, double> offsets{{1, -1.0}, {2, 1.0}, {3, -0.5}, {4, 0.5}};
  return offsets.at(seed);
}

// A known noisy system: thread time per event `truth(value)` plus the seed's offset x `spread`.
// Counts the simulations asked for.
struct NoisyStandIn {
  std::string vary;
  std::function<double(double)> truth;
  double spread = 0.0;
  // A shortened run (a `duration` override): its metric is off by `short_bias` and twice as
  // noisy, as a shorter measured span would be.
  double short_bias = 0.0;
  int count = 0, short_count = 0;
  plan::Simulate simulate() {
    return [this](const std::vector<std::vector<scenario::Override>>& sets) {
      std::vector<points::PointResult> out;
      for (const auto& set : sets) {
        REQUIRE((set.size() == 2 || set.size() == 3));
        REQUIRE(set[0].path == vary);
        REQUIRE(set[1].path == "seed");
        const bool shortened = set.size() == 3;
        if (shortened) {
          REQUIRE(set[2].path == "duration");
          CHECK(std::stod(set[2].value) == Approx(1.0 + 0.25 * 5.0));  // warm-up 1 s + 25% of 5 s
          ++short_count;
        }
        const double v = std::stod(set[0].value);
        const double t = truth(v) + (shortened ? short_bias : 0.0) +
                         spread * seed_offset(std::stoll(set[1].value)) * (shortened ? 2.0 : 1.0);
        points::PointResult r;
        r.ok = true;
        r.results = {{"events",
                      {{"thread_time_per_event_s", t},
                       {"throughput_per_s", 1.0 / t},
                       {"per_job_throughput_per_s", 1.0 / t}}},
                     {"analytic", {{"n_cpu", 1.0}, {"n_gpu", 1}}}};
        out.push_back(r);
        ++count;
      }
      return out;
    };
  }
};

// Both ends of the answer's interval as the reference search found them.
void check_same_interval(const plan::Answer& got, const plan::Answer& want) {
  CHECK(got.interval_low == want.interval_low);
  CHECK(got.interval_high == want.interval_high);
}

// The same min-devices question (R = 3, warm start at 8 and 7) with the answer's interval
// searched back from the range's ends (`old`) and from the bisection's edge (`edge`), and the
// simulations each took.
struct EdgeComparison {
  plan::Report old, edge;
  int old_runs = 0, edge_runs = 0;
};
EdgeComparison compare_interval_searches(NoisyStandIn& s) {
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.slowdown_percent = 0.5;
  o.replications = 3;
  o.warm_start = std::make_pair(8.0, 7.0);
  EdgeComparison c;
  o.interval_from_edge = false;
  s.count = 0;
  c.old = plan::plan(kSequentialKnee, {}, o, s.simulate());
  c.old_runs = s.count;
  o.interval_from_edge = true;
  s.count = 0;
  c.edge = plan::plan(kSequentialKnee, {}, o, s.simulate());
  c.edge_runs = s.count;
  return c;
}

// Whether the first `n` seeds' 95% interval of `value` straddles the threshold: a verdict that
// sequential stopping must not take from them.
bool open_after(const NoisyStandIn& s, double value, int n, double threshold) {
  std::vector<double> v;
  for (int k = 1; k <= n; ++k) v.push_back(s.truth(value) + s.spread * seed_offset(k));
  const auto st = plan::statistics(v);
  return st.mean - st.ci95 <= threshold && threshold <= st.mean + st.ci95;
}

// The same question answered both ways, with the report of each.
struct BothWays {
  plan::Report exhaustive, sequential;
  int exhaustive_runs = 0, sequential_runs = 0;
};
BothWays both_ways(plan::Options o, NoisyStandIn s) {
  BothWays b;
  o.sequential = false;
  b.exhaustive = plan::plan(kSequentialKnee, {}, o, s.simulate());
  b.exhaustive_runs = s.count;
  s.count = 0;
  o.sequential = true;
  o.min_replications = 2;
  b.sequential = plan::plan(kSequentialKnee, {}, o, s.simulate());
  b.sequential_runs = s.count;
  return b;
}

void check_stopping(const plan::Report& r, const NoisyStandIn& s, int replications) {
  for (const auto& p : r.points) {
    INFO("value " << p.value);
    REQUIRE(p.seeds.size() >= 2);
    // Seeds are always the first ones, base_seed + 0.. (common random numbers).
    for (std::size_t k = 0; k < p.seeds.size(); ++k)
      CHECK(p.seeds[k] == r.base_seed + static_cast<std::int64_t>(k));
    const bool early = static_cast<int>(p.seeds.size()) < replications;
    CHECK(early == (p.stopped == "certain"));
    if (early) CHECK(p.certain);
    // One more seed while the verdict is open, and no more once it is certain: open after each
    // count below the one it stopped at, and certain at that one unless it got every seed.
    const int got = static_cast<int>(p.seeds.size());
    for (int n = 2; n < got; ++n) CHECK(open_after(s, p.value, n, *r.threshold));
    if (got < replications) CHECK_FALSE(open_after(s, p.value, got, *r.threshold));
  }
}

}  // namespace

TEST_CASE("sequential stopping: max-cpu gives the exhaustive answer with fewer simulations",
          "[plan][sequential]") {
  // 53 ms up to 40 jobs, then +1 ms a job; the seeds add -0.2, +0.2, -0.1, +0.1 ms. The threshold
  // 53.265 ms: 40 meets, 41 misses. Two seeds give a 95% half-width of 12.706 x 0.283 / sqrt(2)
  // = 2.54 ms: 40..42 stay open after two, the values far off are certain.
  NoisyStandIn s{"workload.jobs",
                 [](double jobs) { return 0.053 + 0.001 * std::max(0.0, jobs - 40.0); }, 0.0002};
  plan::Options o;
  o.question = plan::Question::MaxCpu;
  o.slowdown_percent = 0.5;
  o.replications = 4;
  const auto b = both_ways(o, s);
  REQUIRE(b.exhaustive.answer.value);
  REQUIRE(b.sequential.answer.value);
  CHECK(*b.exhaustive.answer.value == 40.0);
  CHECK(*b.sequential.answer.value == *b.exhaustive.answer.value);
  CHECK(b.sequential.answer.fail_value == b.exhaustive.answer.fail_value);
  check_same_interval(b.sequential.answer, b.exhaustive.answer);
  CHECK(b.exhaustive_runs == 4 * static_cast<int>(b.exhaustive.points.size()));
  CHECK(b.sequential.simulations == b.sequential_runs);
  CHECK(b.sequential_runs < b.exhaustive_runs);
  for (const auto& p : b.exhaustive.points) CHECK(p.stopped == "max");
  check_stopping(b.sequential, s, 4);
  // The answer (0.27 ms under the threshold, never certain here) gets every replication; its
  // miss (0.73 ms over) is open after two seeds and certain after three.
  for (const auto& p : b.sequential.points) {
    if (p.value == 40.0) CHECK(p.seeds.size() == 4);
    if (p.value == 41.0) CHECK(p.seeds.size() == 3);
  }
  // The same values were searched, in the same order.
  REQUIRE(b.sequential.points.size() == b.exhaustive.points.size());
  for (std::size_t i = 0; i < b.sequential.points.size(); ++i) {
    CHECK(b.sequential.points[i].value == b.exhaustive.points[i].value);
    CHECK(b.sequential.points[i].ok == b.exhaustive.points[i].ok);
  }
  const auto j = plan::to_json(b.sequential);
  CHECK(j["stopping"]["sequential"] == true);
  CHECK(j["stopping"]["min_replications"] == 2);
  CHECK(j["simulations"]["count"] == b.sequential_runs);
  CHECK(j["simulations"]["simulated_s"].get<double>() == Approx(6.0 * b.sequential_runs));
}

TEST_CASE("sequential stopping: min-devices on a noisy stand-in, both directions of noise",
          "[plan][sequential]") {
  // Thread time falls with devices: 53 ms + 20 ms per device short of 8. At 0.5% the answer is
  // 8 devices, 7 misses by 19.7 ms. Two seeds' 95% half-width is 12.7 x the spread: a spread of
  // 1 ms decides 7 after two seeds, one of 5 ms leaves 5..7 open; 8 and above stay open (their
  // mean sits 0.3 ms below the threshold) and get every seed either way.
  for (const double spread : {0.001, 0.005}) {
    INFO("spread " << spread);
    NoisyStandIn s{"servers.0.count",
                   [](double n) { return 0.053 + 0.020 * std::max(0.0, 8.0 - n); }, spread};
    plan::Options o;
    o.question = plan::Question::MinDevices;
    o.slowdown_percent = 0.5;
    o.replications = 3;
    const auto b = both_ways(o, s);
    REQUIRE(b.exhaustive.answer.value);
    REQUIRE(b.sequential.answer.value);
    CHECK(*b.sequential.answer.value == *b.exhaustive.answer.value);
    check_same_interval(b.sequential.answer, b.exhaustive.answer);
    CHECK(b.sequential_runs < b.exhaustive_runs);
    check_stopping(b.sequential, s, 3);
  }
}

TEST_CASE(
    "sequential stopping: --min-replications equal to --replications is the exhaustive "
    "search",
    "[plan][sequential]") {
  NoisyStandIn s{"workload.jobs",
                 [](double jobs) { return 0.053 + 0.001 * std::max(0.0, jobs - 40.0); }, 0.0002};
  plan::Options o;
  o.question = plan::Question::MaxCpu;
  o.slowdown_percent = 0.5;
  o.replications = 3;
  o.min_replications = 3;
  const auto r = plan::plan(kSequentialKnee, {}, o, s.simulate());
  CHECK(s.count == 3 * static_cast<int>(r.points.size()));
  for (const auto& p : r.points) CHECK(p.stopped == "max");
}

TEST_CASE("adaptive run length: shortened runs decide the far values, the answer stays",
          "[plan][sequential]") {
  // As the max-cpu case above; shortened runs read 1 ms high and twice as noisy. They decide the
  // values far from the threshold; 40 and 41 (the answer and its miss) and the values whose
  // shortened verdict lies within 5% of the threshold go to full length.
  NoisyStandIn s{"workload.jobs",
                 [](double jobs) { return 0.053 + 0.001 * std::max(0.0, jobs - 40.0); }, 0.0002};
  s.short_bias = 0.001;
  plan::Options o;
  o.question = plan::Question::MaxCpu;
  o.slowdown_percent = 0.5;
  o.replications = 3;
  o.sequential = false;
  const auto full = plan::plan(kSequentialKnee, {}, o, s.simulate());
  REQUIRE(s.short_count == 0);
  const int full_runs = s.count;
  s.count = 0;
  o.sequential = true;
  o.short_run = 0.25;
  const auto r = plan::plan(kSequentialKnee, {}, o, s.simulate());
  REQUIRE(full.answer.value);
  REQUIRE(r.answer.value);
  CHECK(*r.answer.value == *full.answer.value);
  CHECK(r.answer.fail_value == full.answer.fail_value);
  CHECK(r.short_run_s == Approx(2.25));
  CHECK(r.short_run_off.empty());
  CHECK(r.short_simulations == s.short_count);
  CHECK(s.short_count > 0);
  CHECK(r.simulations == s.count);
  // No saving asserted here: below 40 jobs every value sits at t_ideal, within the margin of a
  // 0.5% threshold, so the shortened runs of those values are spent on top of the full ones.
  CHECK(full_runs > 0);
  int decided = 0;
  for (const auto& p : r.points) {
    INFO("value " << p.value);
    if (p.stopped == "short") {
      ++decided;
      CHECK(p.run_s == Approx(2.25));
      // Decided only far off: 5% of the 53.265 ms threshold is 2.7 ms, 3 jobs at least.
      CHECK(std::abs(s.truth(p.value) - *r.threshold) > 0.002);
    } else {
      CHECK(p.run_s == Approx(6.0));
    }
    if (p.value == 40.0 || p.value == 41.0) CHECK(p.stopped != "short");
  }
  CHECK(decided > 0);
}

TEST_CASE("adaptive run length is off where the load changes over the run", "[plan][sequential]") {
  const std::string tier2 =
      std::string(SONICSIM_SOURCE_DIR) + "/scenarios/gallery/cms-run2-tier2/tier2-run2.json";
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.analytic_only = true;
  o.short_run = 0.25;
  // min-devices on its autoscaled pool needs the ceiling to follow the count (autoscaled_pool.hpp).
  const scenario::Override ceiling{"servers.0.autoscaler.max_replicas", "null"};
  const auto r = plan::plan(tier2, {ceiling}, o, {});
  CHECK(r.short_run_s == 0.0);
  CHECK(r.short_run_off.find("job flow") != std::string::npos);
  const auto a =
      plan::plan(tier2, {{"workload.flow", "null"}, {"workload.jobs", "20"}, ceiling}, o, {});
  CHECK(a.short_run_off.find("autoscaler") != std::string::npos);
  o.short_run = 0.0;
  CHECK(plan::plan(kSequentialKnee, {}, o, {}).short_run_off == "not asked");
}

TEST_CASE("the answer's interval searched from the bisection's edge: the same ends, fewer values",
          "[plan][sequential]") {
  // 2 ms per device either side of 8 devices (8: 53 ms, the threshold 53.265 ms; at least
  // 10 ms); seeds add -1, +1, -0.5 ms, a 95% half-width of 2.6 ms: 7 and 9 are uncertain, 6 and
  // 10 certain. The bisection starts at 8 and 7 (a warm start, as when the analytic answer is
  // right), so no certain value is known: from the range's ends (1 and 64) the old search
  // bisects back; from the edge it steps out.
  NoisyStandIn s{"servers.0.count",
                 [](double n) { return std::max(0.010, 0.053 + 0.002 * (8.0 - n)); }, 0.001};
  const EdgeComparison c = compare_interval_searches(s);
  const plan::Report& old = c.old;
  const plan::Report& r = c.edge;
  REQUIRE(old.answer.value);
  REQUIRE(r.answer.value);
  CHECK(*r.answer.value == 8.0);
  CHECK(*old.answer.value == 8.0);
  check_same_interval(r.answer, old.answer);
  CHECK(r.answer.interval_low == 7.0);    // 6 certainly misses
  CHECK(r.answer.interval_high == 10.0);  // 10 certainly meets, 9 does not
  CHECK(c.edge_runs < c.old_runs);
  CHECK(plan::to_json(r)["stopping"]["interval_from_edge"] == true);
}

TEST_CASE("the interval from the edge: a side with no certain value costs one value",
          "[plan][sequential]") {
  // Flat above 8 devices, 0.27 ms under the threshold: no value above is certain with a 2.6 ms
  // half-width, which the range's end (simulated first) shows; nothing else is simulated there.
  NoisyStandIn s{"servers.0.count", [](double n) { return 0.053 + 0.002 * std::max(0.0, 8.0 - n); },
                 0.001};
  const EdgeComparison c = compare_interval_searches(s);
  check_same_interval(c.edge.answer, c.old.answer);
  CHECK(*c.edge.answer.interval_high == c.edge.range_max);
  CHECK(c.edge_runs <= c.old_runs);
}

TEST_CASE("adaptive run length pays where the search visits values far from the threshold",
          "[plan][sequential]") {
  // 10 ms per device either side of 8 (floor 10 ms), from a bracket as wide as the range: the
  // bisection visits 64, 1, 32, 16, ... far off, which the shortened runs (0.5 ms high, twice as
  // noisy) decide; 8 and its neighbours go to full length. Same answer, fewer simulated seconds.
  NoisyStandIn s{"servers.0.count",
                 [](double n) { return std::max(0.010, 0.053 + 0.010 * (8.0 - n)); }, 0.0002};
  s.short_bias = 0.0005;
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.slowdown_percent = 0.5;
  o.replications = 3;
  o.warm_start = std::make_pair(64.0, 1.0);
  const auto plain = plan::plan(kSequentialKnee, {}, o, s.simulate());
  o.short_run = 0.25;
  const auto r = plan::plan(kSequentialKnee, {}, o, s.simulate());
  REQUIRE(plain.answer.value);
  REQUIRE(r.answer.value);
  CHECK(*plain.answer.value == 8.0);
  CHECK(*r.answer.value == 8.0);
  CHECK(r.answer.fail_value == plain.answer.fail_value);
  check_same_interval(r.answer, plain.answer);
  CHECK(r.simulated_s < plain.simulated_s);
  for (const auto& p : r.points)
    if (p.value == 8.0) CHECK(p.stopped != "short");
}
