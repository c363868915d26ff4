// `calibrate scan`: the analytic model it fits, parameter recovery from noisy analytic data and
// from scans the simulator itself produced (both sides of the knee), the coverage of its 95%
// intervals, space mapping, parameters the data cannot separate, and the mapping of the fitted
// values back onto a scenario.
//
// Stated tolerances: noisy analytic data (0.5% noise, 7 points), t_GPU and p within 3% and
// t_latency within 20% of the truth, the 95% intervals covering the truth in at least 34 of 40
// replicates (38 expected); the simulator's deterministic scan, t_GPU within 0.5% and t_latency
// within 2%; its noisy (exponential) scan, t_GPU within 3% and t_latency within 20%, both inside
// the 95% interval.
#include "support.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/calibration/scan.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/scenario/writer.hpp>

using namespace sonicsim;
using namespace sonicsim::calibration;
using test::json;

namespace {

namespace fs = std::filesystem;

struct TempDir : test::ScratchDir {
  TempDir() : test::ScratchDir("scan") {}
};

// formula-knee.json's system: t_CPU 100 ms, p 0.5, one 10 ms request, 2 x 1 ms of latency.
// `dist` "constant" makes it deterministic; "exponential" gives CPU and GPU exponential times.
json knee(const std::string& dist = "constant", double duration = 120.0) {
  json doc = {{"name", "scan-test"},
              {"seed", 1},
              {"duration", duration},
              {"warmup", 10.0},
              {"workload",
               {{"jobs", 4},
                {"threads_per_job", 1},
                {"cpu_time_per_event", 0.1},
                {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.5}}})}}},
              {"models",
               {{"m",
                 {{"input_bytes_per_item", "1kB"},
                  {"output_bytes_per_item", "1kB"},
                  {"service_time", {{"batch", {1}}, {"seconds", {0.01}}}}}}}},
              {"servers",
               json::array({{{"name", "gpu"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}})},
              {"network",
               {{"site_uplink", {{"bandwidth", "10Gbps"}, {"latency", "1ms"}}},
                {"flow_model", "analytic"}}}};
  if (dist == "exponential") {
    doc["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 0.1}};
    doc["models"]["m"]["service_time"]["dist"] = "exponential";
  }
  return doc;
}

const std::vector<double> kJobs = {1, 2, 4, 6, 8, 12, 16};

Measurements measurements_of(const std::vector<double>& x, const std::vector<double>& y,
                             Metric metric = Metric::PerJobThroughput,
                             const std::vector<double>& stddev = {}) {
  Measurements m;
  m.file = "scan.csv";
  m.x_column = "jobs";
  m.metric = metric;
  m.has_stddev = !stddev.empty();
  for (std::size_t i = 0; i < x.size(); ++i)
    m.rows.push_back({x[i], y[i], stddev.empty() ? 0.0 : stddev[i], static_cast<int>(i) + 2});
  return m;
}

std::vector<ScanPoint> points_of(const json& doc, const std::vector<double>& jobs) {
  std::vector<ScanPoint> out;
  for (double j : jobs) {
    json d = doc;
    d["workload"]["jobs"] = static_cast<int>(j);
    out.push_back(scan_point(test::scenario_of(d), j));
  }
  return out;
}

const ParamEstimate& estimate(const ScanResult& r, ScanParam k) {
  for (const auto& e : r.fit.params)
    if (e.param == k) return e;
  FAIL("no estimate");
  return r.fit.params.front();
}

bool covers(const ParamEstimate& e, double truth) {
  return e.ci_low <= truth && truth <= e.ci_high;
}

// The scenario with the truth, as the simulator's `--set` values: t_GPU 12 ms and a 3 ms server
// overhead per request (t_latency 2.0016 ms -> 5.0016 ms).
std::vector<scenario::Override> truth_overrides(const std::string& dist) {
  json st = {{"batch", {1}}, {"seconds", {0.012}}};
  if (dist == "exponential") st["dist"] = "exponential";
  return {{"models.m.service_time", st.dump()},
          {"models.m.request_overhead", R"({"server": 0.003})"}};
}
constexpr double kTrueTGpu = 0.012, kTrueTLatency = 0.0050016;

}  // namespace

TEST_CASE("the scan model is analytic::predict at the scenario's own parameters", "[scan]") {
  const std::string examples = std::string(SONICSIM_SOURCE_DIR) + "/scenarios/examples/";
  for (const std::string name : {"formula-knee.json", "heterogeneous-devices.json",
                                 "random-routing-mva.json", "cpu-fallback.json"}) {
    INFO(name);
    for (const std::string jobs : {"1", "3", "40"}) {
      const auto s = scenario::load_file(examples + name, {{"workload.jobs", jobs}});
      const auto pr = analytic::predict(s);
      const ScanPoint pt = scan_point(s);
      const double threads = static_cast<double>(s.workload().n_threads());
      CHECK(predict_metric(pt, pt.values, pt.values, Metric::Throughput, AnalyticModel::Formula) ==
            Approx(pr.throughput_per_s).epsilon(1e-12));
      CHECK(predict_metric(pt, pt.values, pt.values, Metric::ThreadTimePerEvent,
                           AnalyticModel::Formula) == Approx(pr.t_sonic_s).epsilon(1e-12));
      CHECK(
          predict_metric(pt, pt.values, pt.values, Metric::PerJobThroughput, AnalyticModel::Mva) ==
          Approx(pr.mva->throughput_per_s / static_cast<double>(s.workload().jobs)).epsilon(1e-12));
      CHECK(threads == pt.n_cpu);
    }
  }
}

TEST_CASE("moved parameters predict what the scenario they map to predicts", "[scan][mapping]") {
  // Two models, one of them on two device types, a fallback request, a lognormal t_CPU and an
  // existing overhead: every mapping rule at work.
  json doc = knee();
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", "100ms"}, {"cv", 0.4}};
  doc["workload"]["requests"] =
      json::array({{{"model", "m"}, {"offload_fraction", 0.3}, {"per_event", 2}, {"items", 4}},
                   {{"model", "n"}, {"offload_fraction", 0.1}},
                   {{"model", "cpu_only"}, {"offload_fraction", 0.05}}});
  doc["models"]["m"]["service_time"] = {{"T4", {{"batch", {1, 8}}, {"seconds", {0.002, 0.008}}}},
                                        {"A100", {{"batch", {1}}, {"seconds", {0.001}}}},
                                        {"dist", "lognormal"},
                                        {"cv", 0.2}};
  doc["models"]["m"]["request_overhead"] = {{"server", {{"fixed", "1ms"}, {"per_item", "10us"}}},
                                            {"client_send", "200us"}};
  doc["models"]["n"] = {{"input_bytes_per_item", 100},
                        {"output_bytes_per_item", 10},
                        {"service_time", {{"batch", {1}}, {"seconds", {0.004}}}}};
  doc["models"]["cpu_only"] = doc["models"]["n"];
  doc["servers"] =
      json::array({{{"name", "t4"}, {"count", 2}, {"device", "T4"}, {"models", {"m", "n"}}},
                   {{"name", "a100"}, {"count", 1}, {"device", "A100"}, {"models", {"m"}}}});
  const auto s = test::scenario_of(doc);
  const ScanPoint pt = scan_point(s);
  const ScanValues base = pt.values;
  CHECK(pt.requests_per_event == 3.0);
  // 2 requests x (1 ms + 4 x 10 us + 200 us) of overhead on top of the network.
  scenario::Scenario bare = s;
  for (auto& model : bare.models) model.overhead = {};
  CHECK(base.t_latency - analytic::predict(bare).t_latency_s ==
        Approx(2 * (0.001 + 4 * 10e-6 + 200e-6)).epsilon(1e-9));
  CHECK(base.t_latency == Approx(analytic::predict(s).t_latency_s).epsilon(1e-12));

  const std::vector<ScanParam> all = all_scan_params();
  for (const ScanValues v :
       {ScanValues{base.t_gpu * 1.3, base.p * 0.8, base.t_latency + 0.004, base.t_cpu * 1.1},
        ScanValues{base.t_gpu * 0.7, base.p * 1.2, base.t_latency - 0.0015, base.t_cpu * 0.9}}) {
    const auto moved = scenario::load_json(
        scenario::write_scenario(s, apply_values(s, base, v, all, "fitted.json")), "fitted.json");
    const ScanPoint after = scan_point(moved);
    CHECK(after.values.t_gpu == Approx(v.t_gpu).epsilon(1e-12));
    CHECK(after.values.p == Approx(v.p).epsilon(1e-12));
    CHECK(after.values.t_cpu == Approx(v.t_cpu).epsilon(1e-12));
    // The per-event sum of the overheads moves by exactly the fitted change.
    CHECK(after.values.t_latency == Approx(v.t_latency).epsilon(1e-12));
    for (const auto model : {AnalyticModel::Formula, AnalyticModel::Mva})
      CHECK(predict_metric(pt, base, v, Metric::Throughput, model) ==
            Approx(predict_metric(after, after.values, after.values, Metric::Throughput, model))
                .epsilon(1e-9));
    // The spread of t_CPU and of the executions is kept; the fallback request is untouched.
    CHECK(moved.workload().cpu_time_per_event.cv == Approx(0.4));
    CHECK(moved.find_model("m")->spread.cv == Approx(0.2));
    CHECK(moved.workload().requests[2].offload_fraction == 0.05);
    CHECK(moved.find_model("m")->curve_for("T4").seconds[1] ==
          Approx(0.008 * v.t_gpu / base.t_gpu));
    CHECK(moved.find_model("m")->overhead.client_send.fixed == Approx(200e-6));
    CHECK(moved.find_model("m")->overhead.server.per_item == Approx(10e-6));
  }
}

TEST_CASE("the mapping refuses what a scenario cannot carry", "[scan][mapping]") {
  const auto s = test::scenario_of(knee());
  const ScanValues base = scan_point(s).values;
  ScanValues v = base;
  v.p = 0.9999999999;
  CHECK_THROWS_WITH(apply_values(s, base, v, {ScanParam::P}, "fitted.json"),
                    Catch::Contains("fitted.json: workload.requests: p = ") &&
                        Catch::Contains("expected less than 1"));
  // No overhead to take away: a shorter round trip than the links allow is refused.
  v = base;
  v.t_latency = base.t_latency - 0.0005;
  CHECK_THROWS_WITH(apply_values(s, base, v, {ScanParam::TLatency}, "fitted.json"),
                    Catch::Contains("negative overhead"));
  // With 1 ms of server overhead per request, 0.5 ms can go.
  json with = knee();
  with["models"]["m"]["request_overhead"] = {{"server", "1ms"}};
  const auto s2 = test::scenario_of(with);
  const ScanValues base2 = scan_point(s2).values;
  v = base2;
  v.t_latency = base2.t_latency - 0.0005;
  const auto moved = scenario::load_json(
      scenario::write_scenario(s2, apply_values(s2, base2, v, {ScanParam::TLatency}, "f")), "f");
  CHECK(moved.find_model("m")->overhead.server.fixed == Approx(0.0005));
  v.t_latency = base2.t_latency - 0.0011;
  CHECK_THROWS(apply_values(s2, base2, v, {ScanParam::TLatency}, "f"));
}

TEST_CASE("overheads from a calibration file become explicit, jitter kept", "[scan][mapping]") {
  TempDir dir;
  dir.write("overheads.json",
            {{"request_overhead",
              {{"client_send", "100us"}, {"server", "1ms"}, {"dist", "lognormal"}, {"cv", 0.3}}}});
  json doc = knee();
  doc["models"]["m"]["request_overhead"] = {{"calibration", "overheads.json"}};
  const auto s = scenario::load_file(dir.write("scenario.json", doc));
  const ScanValues base = scan_point(s).values;
  ScanValues v = base;
  v.t_latency += 0.001;
  const json moved =
      scenario::write_scenario(s, apply_values(s, base, v, {ScanParam::TLatency}, "fitted.json"));
  const json& o = moved["models"]["m"]["request_overhead"];
  CHECK_FALSE(o.contains("calibration"));
  CHECK(o["server"].get<double>() == Approx(0.002));
  CHECK(o["client_send"].get<double>() == Approx(0.0001));
  const auto loaded = scenario::load_json(moved, "fitted.json", dir.path.string());
  CHECK(loaded.find_model("m")->overhead.spread.kind == scenario::Distribution::Kind::Lognormal);
  CHECK(loaded.find_model("m")->overhead.spread.cv == Approx(0.3));
  CHECK(scan_point(loaded).values.t_latency == Approx(v.t_latency).epsilon(1e-12));
}

TEST_CASE("noisy analytic scans give back their parameters within the 95% intervals",
          "[scan][fit]") {
  const json doc = knee();
  const auto points = points_of(doc, kJobs);
  const ScanValues base = scan_point(test::scenario_of(doc)).values;
  struct Case {
    AnalyticModel model;
    std::vector<ScanParam> free;
    ScanValues truth;
    bool stddev;
  };
  // Far from the scenario's values on purpose: the fit has to travel.
  const std::vector<Case> cases = {
      {AnalyticModel::Formula,
       {ScanParam::TGpu, ScanParam::TLatency},
       {0.025, 0.5, 0.008, 0.1},
       false},
      {AnalyticModel::Mva, {ScanParam::TGpu, ScanParam::TLatency}, {0.012, 0.5, 0.005, 0.1}, true},
      {AnalyticModel::Mva,
       {ScanParam::TGpu, ScanParam::P},
       {0.007, 0.35, base.t_latency, 0.1},
       false}};
  std::mt19937_64 rng(20240611);
  std::normal_distribution<double> noise(0.0, 0.005);
  for (const Case& c : cases) {
    int covered[4] = {0, 0, 0, 0};
    const int replicates = 40;
    for (int k = 0; k < replicates; ++k) {
      std::vector<double> y, sd;
      for (const auto& pt : points) {
        const double exact = predict_metric(pt, base, c.truth, Metric::PerJobThroughput, c.model);
        y.push_back(exact * (1.0 + noise(rng)));
        sd.push_back(0.005 * exact);
      }
      ScanOptions o;
      o.model = c.model;
      o.free = c.free;
      o.free_given = true;
      const auto r = fit_scan(points, base,
                              measurements_of(kJobs, y, Metric::PerJobThroughput,
                                              c.stddev ? sd : std::vector<double>{}),
                              o, nullptr);
      REQUIRE(r.free == c.free);
      for (ScanParam p : c.free) {
        const auto& e = estimate(r, p);
        const double truth = c.truth.get(p);
        const double tolerance = p == ScanParam::TLatency ? 0.2 : 0.03;
        INFO(param_name(p) << " fitted " << e.value << " truth " << truth << " interval ["
                           << e.ci_low << ", " << e.ci_high << "]");
        CHECK(e.value == Approx(truth).epsilon(tolerance));
        covered[static_cast<int>(p)] += covers(e, truth);
      }
    }
    for (ScanParam p : c.free) {
      INFO(param_name(p) << " covered in " << covered[static_cast<int>(p)] << " of " << replicates);
      CHECK(covered[static_cast<int>(p)] >= 34);
    }
  }
}

TEST_CASE("space mapping corrects what the analytic model gets wrong", "[scan][refine]") {
  const json doc = knee();
  const auto points = points_of(doc, kJobs);
  const ScanValues base = scan_point(test::scenario_of(doc)).values;
  // A "simulator" that queues near the knee where the formula does not: up to 10% below it.
  const Simulator dip = [&](const ScanValues& v) {
    std::vector<double> out;
    for (const auto& pt : points) {
      const double x = predict_metric(pt, base, v, Metric::Throughput, AnalyticModel::Formula);
      const double u = std::min(1.0, x * v.t_gpu / pt.n_gpu);
      out.push_back(x * (1.0 - 0.4 * u * (1.0 - u)) / pt.jobs);
    }
    return out;
  };
  const ScanValues truth{0.012, 0.5, 0.005, 0.1};
  const auto m = measurements_of(kJobs, dip(truth));
  ScanOptions o;
  o.free = {ScanParam::TGpu, ScanParam::TLatency};
  const auto analytic_only = fit_scan(points, base, m, o, nullptr);
  const auto refined = fit_scan(points, base, m, o, &dip);
  INFO("analytic t_gpu " << analytic_only.fit.values.t_gpu << " refined "
                         << refined.fit.values.t_gpu);
  CHECK(std::abs(analytic_only.fit.values.t_latency / truth.t_latency - 1) > 0.05);
  CHECK(refined.converged);
  CHECK(refined.rounds.size() <= 5);
  CHECK(refined.fit.values.t_gpu == Approx(truth.t_gpu).epsilon(0.005));
  CHECK(refined.fit.values.t_latency == Approx(truth.t_latency).epsilon(0.005));
  CHECK(refined.mape_percent < 0.1);
}

TEST_CASE("parameters the scan cannot tell apart are held, or refused when asked for",
          "[scan][identifiability]") {
  const json doc = knee();
  const auto points = points_of(doc, kJobs);
  const ScanValues base = scan_point(test::scenario_of(doc)).values;
  const ScanValues truth{0.012, 0.5, 0.005, 0.1};
  std::vector<double> y;
  for (const auto& pt : points)
    y.push_back(predict_metric(pt, base, truth, Metric::TimePerEvent, AnalyticModel::Formula));
  const auto m = measurements_of(kJobs, y, Metric::TimePerEvent);
  ScanOptions o;
  o.metric = Metric::TimePerEvent;
  // The default t_gpu,p,t_latency: p and t_latency only act through (1-p) t_CPU + t_latency.
  const auto r = fit_scan(points, base, m, o, nullptr);
  CHECK(r.free == std::vector<ScanParam>{ScanParam::TGpu, ScanParam::TLatency});
  REQUIRE(r.notes.size() >= 1);
  CHECK_THAT(r.notes[0], Catch::Contains("p and t_latency cannot be told apart") &&
                             Catch::Contains("p kept at the scenario's 0.5"));
  CHECK(r.fit.values.t_gpu == Approx(truth.t_gpu).epsilon(1e-6));
  CHECK(r.fit.values.t_latency == Approx(truth.t_latency).epsilon(1e-6));
  // Asked for explicitly, the same is an error that says what to do.
  o.free_given = true;
  CHECK_THROWS_WITH(fit_scan(points, base, m, o, nullptr),
                    Catch::Contains("--free: --free t_gpu,p,t_latency: p and t_latency cannot be "
                                    "told apart") &&
                        Catch::Contains("--free t_gpu,t_latency"));
  // Only saturated points: nothing but t_GPU shows.
  const std::vector<double> high = {12, 16, 20};
  const auto saturated = points_of(doc, high);
  std::vector<double> ys;
  for (const auto& pt : saturated)
    ys.push_back(predict_metric(pt, base, truth, Metric::TimePerEvent, AnalyticModel::Formula));
  o.free = {ScanParam::TGpu, ScanParam::TLatency};
  CHECK_THROWS_WITH(
      fit_scan(saturated, base, measurements_of(high, ys, Metric::TimePerEvent), o, nullptr),
      Catch::Contains("t_latency does not change the prediction"));
  // Too few rows for the free parameters.
  o.free = {ScanParam::TGpu, ScanParam::TLatency, ScanParam::TCpu};
  const std::vector<double> two = {1, 12};
  CHECK_THROWS_WITH(fit_scan(points_of(doc, two), base,
                             measurements_of(two, {0.06, 0.12}, Metric::TimePerEvent), o, nullptr),
                    Catch::Contains("scan.csv: found 2 data rows, expected at least 4"));
}

TEST_CASE("a deterministic scan simulated with known parameters is recovered",
          "[scan][simulated]") {
  TempDir dir;
  const json doc = knee("constant");
  const std::string file = dir.write("knee.json", doc);
  std::vector<std::vector<scenario::Override>> sets;
  for (double j : kJobs) sets.push_back({{"workload.jobs", format_x(j)}});
  const auto measured =
      points::run_points(pipeline::simulator(), file, truth_overrides("constant"), sets, 2);
  std::vector<double> y;
  for (const auto& r : measured) {
    REQUIRE(r.ok);
    y.push_back(metric_of_results(r.results, Metric::PerJobThroughput));
  }
  const auto m = measurements_of(kJobs, y);
  const auto s = scenario::load_file(file);
  const ScanValues base = scan_point(s).values;
  ScanOptions o;
  o.model = resolve_model(AnalyticModel::Auto, s);
  CHECK(o.model == AnalyticModel::Formula);
  const auto sim =
      point_simulator(pipeline::simulator(), file, {}, s, base, o.free, m, "workload.jobs", 2);
  const auto r = fit_scan(points_of(doc, kJobs), base, m, o, &sim);
  INFO(to_text(r, m));
  CHECK(r.converged);
  CHECK(r.fit.values.t_gpu == Approx(kTrueTGpu).epsilon(0.005));
  CHECK(r.fit.values.t_latency == Approx(kTrueTLatency).epsilon(0.02));
  CHECK(r.mape_percent < 0.1);
}

TEST_CASE("a noisy scan simulated with known parameters is recovered inside the 95% intervals",
          "[scan][simulated]") {
  TempDir dir;
  const json doc = knee("exponential", 600.0);
  const std::string file = dir.write("knee.json", doc);
  // Measurements with their own seeds, as independent runs on a test bed would be.
  std::vector<std::vector<scenario::Override>> sets;
  for (std::size_t i = 0; i < kJobs.size(); ++i)
    sets.push_back({{"workload.jobs", format_x(kJobs[i])}, {"seed", std::to_string(1001 + i)}});
  const auto measured =
      points::run_points(pipeline::simulator(), file, truth_overrides("exponential"), sets, 2);
  std::vector<double> y;
  for (const auto& r : measured) {
    REQUIRE(r.ok);
    y.push_back(metric_of_results(r.results, Metric::PerJobThroughput));
  }
  const auto m = measurements_of(kJobs, y);
  const auto s = scenario::load_file(file);
  const ScanValues base = scan_point(s).values;
  ScanOptions o;
  o.model = resolve_model(AnalyticModel::Auto, s);
  CHECK(o.model == AnalyticModel::Mva);
  const auto sim =
      point_simulator(pipeline::simulator(), file, {}, s, base, o.free, m, "workload.jobs", 2);
  const auto r = fit_scan(points_of(doc, kJobs), base, m, o, &sim);
  INFO(to_text(r, m));
  CHECK(r.converged);
  CHECK(r.rounds.size() <= 5);
  const auto& t_gpu = estimate(r, ScanParam::TGpu);
  const auto& t_latency = estimate(r, ScanParam::TLatency);
  CHECK(t_gpu.value == Approx(kTrueTGpu).epsilon(0.03));
  CHECK(t_latency.value == Approx(kTrueTLatency).epsilon(0.2));
  CHECK(covers(t_gpu, kTrueTGpu));
  CHECK(covers(t_latency, kTrueTLatency));
  CHECK(r.mape_percent < 2.0);
}

TEST_CASE("the fitted scenario loads from its new folder, in the user's key order",
          "[scan][output]") {
  TempDir dir;
  const std::string source = std::string(SONICSIM_TEST_DATA_DIR) + "/with_calibration.json";
  const auto s = scenario::load_file(source);
  ScanResult r;
  r.base = scan_point(s).values;
  r.free = {ScanParam::TGpu, ScanParam::TLatency};
  r.fit.values = r.base;
  r.fit.values.t_gpu *= 1.5;
  r.fit.values.t_latency += 0.002;
  const auto m = measurements_of({1, 2, 3}, {1, 2, 3});
  const std::string output = (dir.path / "out" / "fitted.json").string();
  fs::create_directories(dir.path / "out");
  const auto fitted = fitted_scenario(s, r, m, output);
  // The calibrated T4 curve became an explicit table, scaled like the CPU one.
  const auto& st = fitted["models"]["particlenet_ak4"]["service_time"];
  CHECK_FALSE(st["T4"].contains("calibration"));
  CHECK(st["T4"]["seconds"][0].get<double>() == Approx(0.0012 * 1.5));
  CHECK(st["CPU"]["seconds"][1].get<double>() == Approx(0.090 * 1.5));
  CHECK(st["dist"] == "lognormal");
  CHECK(fitted.begin().key() == "name");
  CHECK_THAT(fitted["description"].get<std::string>(),
             Catch::Contains("Calibrated by `sonicsim calibrate scan` against scan.csv"));
  const auto loaded =
      scenario::load_json(json::parse(fitted.dump()), output, (dir.path / "out").string());
  CHECK(scan_point(loaded).values.t_gpu == Approx(r.fit.values.t_gpu).epsilon(1e-9));
  CHECK(scan_point(loaded).values.t_latency == Approx(r.fit.values.t_latency).epsilon(1e-9));
}

TEST_CASE("relative file references still point at their files from the output folder",
          "[scan][output]") {
  TempDir dir;
  const std::string source = std::string(SONICSIM_TEST_DATA_DIR) + "/with_calibration.json";
  const auto s = scenario::load_file(source);
  ScanResult r;
  r.base = r.fit.values = scan_point(s).values;
  r.free = {ScanParam::TLatency};  // the calibration file stays a reference
  const std::string output = (dir.path / "fitted.json").string();
  const auto fitted = fitted_scenario(s, r, measurements_of({1, 2}, {1, 2}), output);
  const std::string ref = fitted["models"]["particlenet_ak4"]["service_time"]["T4"]["calibration"];
  CHECK(fs::equivalent(dir.path / ref,
                       fs::path(SONICSIM_TEST_DATA_DIR) / "calibration" / "pn_t4.json"));
  CHECK_NOTHROW(scenario::load_json(json::parse(fitted.dump()), output, dir.path.string()));
}
