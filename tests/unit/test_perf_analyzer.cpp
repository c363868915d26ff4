// perf_analyzer CSVs in, fits, and the emulation out: what `sonicsim calibrate perf-analyzer`
// and `sonicsim perf-analyzer` rely on.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/calibration/perf_analyzer.hpp>
#include <sonicsim/calibration/perf_calibration.hpp>
#include <sonicsim/calibration/perf_emulation.hpp>
#include <sonicsim/calibration/service_fit.hpp>
#include <sonicsim/emulation/perf_emulation.hpp>

using namespace test;
using namespace sonicsim::calibration;
using namespace sonicsim::emulation;
using sonicsim::scenario::InputError;

namespace {

std::string fixture(const std::string& name) {
  return std::string(SONICSIM_TEST_DATA_DIR) + "/perf_analyzer/" + name;
}

// The message of the InputError a read throws, or "" if none.
std::string read_error(const std::string& name, std::optional<int> batch = std::nullopt) {
  try {
    read_perf_analyzer_csv(fixture(name), batch);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// perf_analyzer's setting: requests of model "m" with no CPU work between them, one device.
json closed_loop(const std::string& name, json model) {
  return {{"name", name},
          {"duration", 10.0},
          {"workload",
           {{"jobs", 1},
            {"threads_per_job", 1},
            {"cpu_time_per_event", 0},
            {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0}}})}}},
          {"models", {{"m", std::move(model)}}},
          {"servers", json::array({{{"name", "s"}, {"device", "GPU"}, {"models", {"m"}}}})}};
}

// perf_analyzer's scans of model "m" of `truth`, one file per batch size, one row per
// concurrency: what a user would measure on that server.
std::vector<PerfAnalyzerScan> emulated_scans(const sonicsim::scenario::Scenario& truth,
                                             const std::vector<int>& batches,
                                             const std::vector<int>& concurrencies) {
  std::vector<PerfAnalyzerScan> scans;
  for (int b : batches) {
    EmulationOptions o;
    o.model = "m";
    o.batch_size = b;
    PerfAnalyzerScan scan;
    scan.file = "m_batch" + std::to_string(b) + ".csv";
    scan.batch_size = b;
    for (int c : concurrencies) {
      auto row = emulate_concurrency(truth, o, c).row;
      row.line = static_cast<int>(scan.rows.size()) + 2;
      scan.rows.push_back(row);
    }
    scans.push_back(scan);
  }
  return scans;
}

}  // namespace

TEST_CASE("native perf_analyzer CSV: columns by name, rows sorted by load", "[perf_analyzer]") {
  const auto scan = read_perf_analyzer_csv(fixture("native_batch4.csv"));
  CHECK(scan.batch_size == 4);
  CHECK(scan.batch_source == "file name");
  CHECK(scan.mode == LoadMode::Concurrency);
  REQUIRE(scan.rows.size() == 2);
  CHECK(scan.rows[0].load == 1);  // written after the concurrency-2 row
  CHECK(scan.rows[0].inferences_per_s == Approx(300.25));
  CHECK(scan.rows[1].server_queue_us == 200);
  CHECK(scan.rows[1].compute_us() == 2028);
  CHECK(scan.rows[1].mean_latency_us() == 10 + 600 + 200 + 2028 + 2);
  CHECK(scan.rows[1].line == 2);
  CHECK(scan.sha256.size() == 64);
}

TEST_CASE("optional columns, any column order, per-GPU metrics", "[perf_analyzer]") {
  const auto scan = read_perf_analyzer_csv(fixture("extra-columns-b8.csv"));
  CHECK(scan.batch_size == 8);
  REQUIRE(scan.rows.size() == 1);
  const auto& r = scan.rows[0];
  CHECK(r.load == 4);
  CHECK(r.inferences_per_s == Approx(1000.5));
  REQUIRE(r.avg_latency_us);
  CHECK(*r.avg_latency_us == 4465);
  CHECK(r.extra.at("request/response") == 3);
  CHECK(r.extra.at("response wait") == 314);
  CHECK(r.extra.at("Avg GPU Utilization") == Approx(0.85));  // mean over the GPUs
  CHECK(r.extra.at("Avg GPU Power Usage") == Approx(75));
}

TEST_CASE("request-rate mode and the batch size flag", "[perf_analyzer]") {
  const auto scan = read_perf_analyzer_csv(fixture("rate_bs2.csv"));
  CHECK(scan.mode == LoadMode::RequestRate);
  CHECK(scan.batch_size == 2);
  CHECK(scan.rows.at(0).load == 100);
  const auto flagged = read_perf_analyzer_csv(fixture("no_batch_in_name.csv"), 16);
  CHECK(flagged.batch_size == 16);
  CHECK(flagged.batch_source == "flag");
}

TEST_CASE("batch sizes in file names", "[perf_analyzer]") {
  CHECK(batch_size_from_name("/x/particlenet_AK4_batch256.csv") == 256);
  CHECK(batch_size_from_name("pn-b16.csv") == 16);
  CHECK(batch_size_from_name("deepmet_bs_8.csv") == 8);
  CHECK(!batch_size_from_name("results.csv"));
  CHECK(!batch_size_from_name("abc16.csv"));
  CHECK(!batch_size_from_name("pn_b99999999999999999999999.csv"));  // no throw, no wrap
}

TEST_CASE("perf_analyzer cells are read strictly, within the scenario's limits",
          "[perf_analyzer][cells]") {
  const std::string header =
      "Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server "
      "Compute Input,Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 "
      "latency,p95 latency,p99 latency\n";
  const auto error_of = [&](const std::string& head, const std::string& row) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sonicsim-pa-cells-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "cells_batch1.csv").string();
    std::ofstream(path) << head << row << "\n";
    std::string message;
    try {
      read_perf_analyzer_csv(path);
    } catch (const InputError& e) {
      message = e.what();
    }
    std::filesystem::remove_all(dir);
    return message;
  };
  const std::string tail = ",400,10,600,200,20,2000,8,2,2850,3000,3100,3500";
  CHECK(error_of(header, "2" + tail).empty());
  for (const char* load : {"1e18", "1.5", "0x9", "0", "-1", "2 jobs", "10000001"}) {
    const auto e = error_of(header, load + tail);
    INFO(e);
    CHECK(e.find("cells_batch1.csv: line 2, column 1 (`Concurrency`): found \"" +
                 std::string(load) +
                 "\", expected a whole number of concurrent requests from 1 "
                 "to 10000000") != std::string::npos);
  }
  const auto hex = error_of(header, "2,400,0x10,600,200,20,2000,8,2,2850,3000,3100,3500");
  CHECK(hex.find("line 2, column 3 (`Client Send`): found \"0x10\"") != std::string::npos);
  const auto huge = error_of(header, "2,400,1e300,600,200,20,2000,8,2,2850,3000,3100,3500");
  CHECK(huge.find("column 3 (`Client Send`): found \"1e300\"") != std::string::npos);
  std::string dup = header;
  dup.replace(dup.find("Client Recv"), 11, "Client Send");
  const auto twice = error_of(dup, "2" + tail);
  CHECK(twice.find("line 1, column 9 (`Client Send`): found the column a second time (first in "
                   "column 3)") != std::string::npos);
  std::string rate = header;
  rate.replace(0, 11, "Request Rate");
  CHECK(error_of(rate, "0.5" + tail).empty());
  CHECK(error_of(rate, "2e9" + tail)
            .find("column 1 (`Request Rate`): found \"2e9\", expected a "
                  "request rate") != std::string::npos);
}

TEST_CASE("malformed perf_analyzer files: the file, line and column are named", "[perf_analyzer]") {
  auto has = [](const std::string& text, const std::string& part) {
    INFO(text);
    CHECK(text.find(part) != std::string::npos);
  };
  const auto missing = read_error("missing_column_batch1.csv");
  has(missing, "missing_column_batch1.csv: line 1: missing column `Server Queue`");
  const auto bad = read_error("non_numeric_batch1.csv");
  has(bad,
      "line 2, column 7 (`Server Compute Infer`): found \"abc\", expected a time in "
      "microseconds from 0 to 1e15");
  has(read_error("empty_batch1.csv"), "found an empty file");
  has(read_error("semicolons_batch1.csv"), "separated by semicolons, expected commas");
  has(read_error("no_batch_in_name.csv"), "found no batch size in the file name");
  has(read_error("header_only_batch1.csv"), "no measurement row");
  has(read_error("short_row_batch1.csv"), "line 2: found 10 cells, expected 13");
  has(read_error("does_not_exist_batch1.csv"), "cannot read the file");
}

TEST_CASE("emulated CSVs are in perf_analyzer's format, sorted by throughput", "[perf_analyzer]") {
  PerfAnalyzerRow a, b;
  a.load = 2;
  a.inferences_per_s = 900.1234;
  a.client_send_us = 10.4;
  b.load = 1;
  b.inferences_per_s = 450.5;
  const std::string csv = write_perf_analyzer_csv(LoadMode::Concurrency, {a, b});
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK(header ==
        "Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server "
        "Compute Input,Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 "
        "latency,p95 latency,p99 latency");
  CHECK(csv.find("\n1,450.5,") < csv.find("\n2,900.123,10,"));
}

TEST_CASE("a linear service time is recovered from noisy points", "[fit]") {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<CurvePoint> pts;
  for (double n : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0})
    pts.push_back({n, (0.002 + 0.0004 * n) * (1.0 + noise(rng))});
  const auto f = fit_curve(CurveKind::Linear, pts);
  REQUIRE(f.ok);
  CHECK(f.params[0] == Approx(0.002).epsilon(0.05));
  CHECK(f.params[1] == Approx(0.0004).epsilon(0.03));
  CHECK(f.ci95[1] > 0.0);
  CHECK(std::abs(f.params[1] - 0.0004) < 3 * f.ci95[1]);
  CHECK(f.rms_rel_error < 0.02);
}

TEST_CASE("a saturating curve is recovered and chosen on held-out error", "[fit]") {
  // Flat at 2 ms for small batches, 5000 items/s for large ones: linear misses the knee.
  const double t0 = 0.002, r = 5000.0, k = 3.0;
  std::vector<CurvePoint> pts;
  for (double n : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0})
    pts.push_back({n, t0 * std::pow(1.0 + std::pow(n / (t0 * r), k), 1.0 / k)});
  const auto choice = choose_curve(pts);
  REQUIRE(choice.chosen >= 0);
  const auto& f = choice.best();
  CHECK(f.kind == CurveKind::Saturating);
  CHECK(f.params[0] == Approx(t0).epsilon(0.01));
  CHECK(f.params[1] == Approx(r).epsilon(0.01));
  CHECK(f.params[2] == Approx(k).epsilon(0.05));
  CHECK(choice.candidates[0].loo_rms_rel_error > 5 * f.loo_rms_rel_error);
  CHECK(choice.why.find("held-out") != std::string::npos);
}

TEST_CASE("a simpler curve wins when it is as good on held-out points", "[fit]") {
  std::vector<CurvePoint> pts;
  for (double n : {1.0, 4.0, 16.0, 64.0, 256.0}) pts.push_back({n, 0.001 + 0.0001 * n});
  const auto choice = choose_curve(pts);
  CHECK(choice.best().kind == CurveKind::Linear);
  CHECK(choice.best().loo_rms_rel_error < 1e-6);
}

TEST_CASE("tabulated curves follow the fit within 0.3%", "[fit]") {
  CurveFit f;
  f.kind = CurveKind::Saturating;
  f.ok = true;
  f.params = {0.002, 5000.0, 8.0};
  sonicsim::scenario::ServiceCurve c;
  for (double x : tabulation_points(1000.0)) {
    c.batch.push_back(x);
    c.seconds.push_back(f.at(x));
  }
  for (double n = 1.0; n <= 1000.0; n *= 1.07) CHECK(c.at(n) == Approx(f.at(n)).epsilon(0.003));
}

TEST_CASE("request overheads add to every request's latency, per item too", "[engine]") {
  json doc = {
      {"name", "overhead"},
      {"duration", 100.0},
      {"warmup", 1.0},
      {"workload",
       {{"jobs", 1},
        {"threads_per_job", 1},
        {"cpu_time_per_event", 0},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0}, {"items", 4}}})}}},
      {"models",
       {{"m",
         {{"input_bytes_per_item", 0},
          {"output_bytes_per_item", 0},
          {"service_time", {{"batch", {1, 8}}, {"seconds", {0.001, 0.008}}}},
          {"request_overhead",
           {{"client_send", "100us"},
            {"server", {{"fixed", "300us"}, {"per_item", "50us"}}},
            {"client_recv", {{"per_item", "25us"}}}}}}}}},
      {"servers", json::array({{{"name", "s"}, {"device", "GPU"}, {"models", {"m"}}}})}};
  const auto m = run(doc);
  const double expected = 100e-6 + 300e-6 + 4 * 50e-6 + 4 * 25e-6 + 0.004;
  CHECK(m.latency.mean() == Approx(expected).epsilon(1e-6));
  CHECK(m.latency.quantile(0.99) == Approx(expected).epsilon(2e-3));
  check_conservation(m);
  // The formula's t_latency counts the same overheads.
  const auto p = sonicsim::analytic::predict(scenario_of(doc));
  CHECK(p.t_latency_s == Approx(expected - 0.004).epsilon(1e-9));
}

TEST_CASE("measured overheads: interpolated between request sizes, the fit's slope beyond",
          "[engine]") {
  sonicsim::scenario::OverheadPhase p;
  p.fixed = 100e-6;
  p.per_item = 10e-6;
  p.batch = {2, 8};
  p.seconds = {300e-6, 240e-6};  // not linear: gRPC's cost is not
  CHECK(p.at(2) == Approx(300e-6));
  CHECK(p.at(5) == Approx(270e-6));
  CHECK(p.at(18) == Approx(340e-6));  // 240 us + 10 items x 10 us
  CHECK(p.at(1) == Approx(290e-6));
  const auto shifted = p.shifted(-250e-6);
  CHECK(shifted.fixed == 0.0);
  CHECK(shifted.at(2) == Approx(50e-6));
  CHECK(shifted.at(8) == 0.0);  // never negative

  // From a scenario, and into every request's latency.
  json doc = closed_loop("table", {{"input_bytes_per_item", 0},
                                   {"service_time", {{"batch", {1}}, {"seconds", {0.001}}}},
                                   {"request_overhead",
                                    {{"server",
                                      {{"fixed", "100us"},
                                       {"per_item", "10us"},
                                       {"batch", {2, 8}},
                                       {"seconds", {"300us", "240us"}}}}}}});
  doc["workload"]["requests"][0]["items"] = 5;
  const auto m = run(doc);
  CHECK(m.latency.mean() == Approx(0.001 + 270e-6).epsilon(1e-6));

  doc["models"]["m"]["request_overhead"]["server"]["seconds"] = {"300us"};
  try {
    scenario_of(doc);
    FAIL("a table with fewer times than sizes was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("models.m.request_overhead.server.seconds") &&
                             Catch::Contains("one time per batch size"));
  }
}

TEST_CASE("jittered overheads keep their mean", "[engine]") {
  json doc = {{"name", "jitter"},
              {"duration", 2000.0},
              {"workload",
               {{"jobs", 8},
                {"threads_per_job", 1},
                {"cpu_time_per_event", 0.01},
                {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0}}})}}},
              {"models",
               {{"m",
                 {{"input_bytes_per_item", 0},
                  {"service_time", {{"batch", {1}}, {"seconds", {1e-6}}}},
                  {"instances", 8},
                  {"request_overhead", {{"server", "1ms"}, {"dist", "lognormal"}, {"cv", 0.5}}}}}}},
              {"servers", json::array({{{"name", "s"}, {"device", "GPU"}, {"models", {"m"}}}})}};
  const auto m = run(doc);
  CHECK(m.latency.mean() == Approx(0.001).epsilon(0.02));
  CHECK(m.latency.quantile(0.99) > 0.002);  // a lognormal with cv 0.5 has a tail
}

TEST_CASE("perf_analyzer emulation: a closed loop of C requests obeys Little's law",
          "[perf_analyzer]") {
  const json doc =
      closed_loop("pa", {{"input_bytes_per_item", 0},
                         {"max_batch_size", 64},
                         {"dynamic_batching", json::object()},
                         {"request_overhead", {{"server", "500us"}}},
                         {"service_time", {{"batch", {1, 64}}, {"seconds", {0.001, 0.0073}}}}});
  const auto s = scenario_of(doc);
  EmulationOptions o;
  o.model = "m";
  o.batch_size = 4;
  o.requests = 5000;
  for (int c : {1, 4, 8}) {
    const auto p = emulate_concurrency(s, o, c);
    INFO("concurrency " << c);
    CHECK(p.requests >= 5000);
    const double little = c * 4 / (*p.row.avg_latency_us * 1e-6);
    CHECK(p.row.inferences_per_s == Approx(little).epsilon(0.01));
    CHECK(p.row.network_server_us == Approx(500).epsilon(0.01));
    if (c == 1) CHECK(p.row.server_queue_us < 1.0);
    if (c == 1) CHECK(p.row.compute_us() == Approx(1000 + 6300.0 * 3 / 63).epsilon(0.01));
    if (c == 8) CHECK(p.requests_per_execution > 2.0);  // the batcher merges queued requests
  }
  o.batch_size = 65;
  CHECK_THROWS_AS(emulate_concurrency(s, o, 1), InputError);
}

TEST_CASE("perf_analyzer request-rate emulation: an open loop at the offered rate",
          "[perf_analyzer][open_loop]") {
  // 2 ms per execution of 4 items and no batching: 500 requests/s of capacity, 2000 infer/s.
  json doc =
      closed_loop("pa", {{"input_bytes_per_item", 0},
                         {"max_batch_size", 16},
                         {"request_overhead",
                          {{"client_send", "20us"}, {"server", "300us"}, {"client_recv", "10us"}}},
                         {"service_time", {{"batch", {1, 7}}, {"seconds", {0.0015, 0.0025}}}}});
  EmulationOptions o;
  o.model = "m";
  o.batch_size = 4;
  o.requests = 5000;

  // At a low rate nothing queues: the latency is the unloaded one, column by column.
  const auto low = emulate_request_rate(scenario_of(doc), o, 10);
  CHECK(low.row.load == 10);
  CHECK(low.row.inferences_per_s == Approx(40).epsilon(0.002));
  CHECK(*low.row.avg_latency_us == Approx(20 + 300 + 2000 + 10).epsilon(0.001));
  CHECK(low.row.server_queue_us < 1.0);
  CHECK(low.row.compute_us() == Approx(2000).epsilon(0.001));
  CHECK(low.row.network_server_us == Approx(300).epsilon(0.01));
  CHECK(low.row.client_send_us == Approx(20));
  CHECK(low.row.client_recv_us == Approx(10));
  CHECK(low.requests_per_execution == Approx(1));

  // Below saturation the throughput is the offered rate x B, fractional rates too.
  for (double rate : {100.5, 250.0, 400.0}) {
    const auto p = emulate_request_rate(scenario_of(doc), o, rate);
    INFO("rate " << rate);
    CHECK(p.row.load == rate);
    CHECK(p.row.inferences_per_s == Approx(rate * 4).epsilon(0.002));
    CHECK(p.requests == Approx(5000).epsilon(0.002));
    CHECK_FALSE(p.backlog_growing);
  }

  // Poisson arrivals queue where constant ones do not: a longer tail at the same rate.
  const auto constant = emulate_request_rate(scenario_of(doc), o, 400);
  o.distribution = sonicsim::scenario::Arrivals::Distribution::Poisson;
  const auto poisson = emulate_request_rate(scenario_of(doc), o, 400);
  CHECK(poisson.row.inferences_per_s == Approx(1600).epsilon(0.06));  // 4 sigma of the count
  CHECK(constant.row.p99_us == Approx(2330).epsilon(0.01));
  CHECK(poisson.row.p99_us > 1.5 * constant.row.p99_us);
  CHECK(poisson.row.server_queue_us > 1000);

  // Past saturation: the backlog grows and throughput is the capacity; with Triton's
  // max_queue_size the excess is rejected instead.
  const auto over = emulate_request_rate(scenario_of(doc), o, 1000);
  CHECK(over.backlog_growing);
  CHECK(over.row.inferences_per_s == Approx(2000).epsilon(0.02));
  CHECK(over.failed == 0);
  doc["models"]["m"]["max_batch_size"] = 4;  // one request per execution, as without batching
  doc["models"]["m"]["dynamic_batching"] = {{"max_queue_size", 4}};
  const auto rejected = emulate_request_rate(scenario_of(doc), o, 1000);
  CHECK_FALSE(rejected.backlog_growing);
  CHECK(rejected.failed > 1000);
  CHECK(rejected.row.inferences_per_s == Approx(2000).epsilon(0.02));
  CHECK(rejected.row.server_queue_us < 5 * 2000);

  for (double bad : {0.0, -5.0, std::nan(""), 2e9})
    CHECK_THROWS_AS(emulate_request_rate(scenario_of(doc), o, bad), InputError);
  o.batch_size = 5;
  CHECK_THROWS_AS(emulate_request_rate(scenario_of(doc), o, 10), InputError);
}

TEST_CASE("calibration round trip on scans the simulator made itself", "[calibrate]") {
  // Scans of a known server emulated at several batch sizes, then calibrated: the curve and the
  // overheads come back, and replaying them reproduces the scans.
  const json doc = closed_loop(
      "truth", {{"input_bytes_per_item", 0},
                {"max_batch_size", 1000},
                {"dynamic_batching", json::object()},
                {"request_overhead",
                 {{"client_send", {{"fixed", "10us"}, {"per_item", "1us"}}},
                  {"server", {{"fixed", "400us"}, {"per_item", "20us"}}}}},
                {"service_time", {{"batch", {1, 1000}}, {"seconds", {0.0015, 0.2005}}}}});
  const auto truth = scenario_of(doc);
  PerfCalibrationInput in;
  in.emulate = emulator();
  in.model = "m";
  in.server.max_batch_size = 1000;
  in.scans = emulated_scans(truth, {1, 4, 16, 64, 128}, {1, 4});
  const auto cal = calibrate_perf_analyzer(in);
  CHECK(cal.doc["fit"]["chosen"] == "linear");
  const auto& ov = cal.doc["request_overhead"];
  CHECK(ov["server"]["fixed"].get<double>() == Approx(400e-6).epsilon(0.02));
  CHECK(ov["server"]["per_item"].get<double>() == Approx(20e-6).epsilon(0.02));
  CHECK(ov["client_send"]["per_item"].get<double>() == Approx(1e-6).epsilon(0.05));
  const auto& lin = cal.doc["fit"]["candidates"][0]["params"];
  // The intercept carries the deconvolution's bias (rows at concurrency 1 leave the device idle
  // during the overheads); the slope, which sets capacity, is tight.
  CHECK(lin["a_s"].get<double>() == Approx(0.0013).epsilon(0.05));
  CHECK(lin["b_s_per_item"].get<double>() == Approx(0.0002).epsilon(0.01));
  REQUIRE(cal.round_trip.size() == 10);
  for (const auto& t : cal.round_trip) {
    INFO("batch " << t.batch_size << " concurrency " << t.load);
    CHECK(std::abs(t.ips_error) < 0.02);
    CHECK(std::abs(t.p50_error) < 0.03);
  }
}

TEST_CASE("the simulator corrects a curve where executions mix sizes across a bend",
          "[calibrate]") {
  // A device that is flat up to 4 items and then steep: at B = 1 and 2 the four clients' requests
  // execute in mixed groups on both sides of the knee, which no smooth curve through mean-size
  // points reproduces. The refined calibration replays every row within 3%, closer than the
  // smooth curve alone, and records how.
  const json doc = closed_loop(
      "knee",
      {{"input_bytes_per_item", 0},
       {"max_batch_size", 256},
       {"dynamic_batching", json::object()},
       {"request_overhead",
        {{"server", {{"fixed", "300us"}, {"per_item", "5us"}}},
         {"dist", "lognormal"},
         {"cv", 0.25}}},
       {"service_time",
        {{"batch", {1, 4, 6, 16, 256}}, {"seconds", {0.001, 0.0011, 0.003, 0.004, 0.03}}}}});
  const auto truth = scenario_of(doc);
  PerfCalibrationInput in;
  in.emulate = emulator();
  in.model = "m";
  in.server.max_batch_size = 256;
  in.scans = emulated_scans(truth, {1, 2, 4, 8, 16, 32, 64}, {4});
  auto worst = [](const PerfCalibration& c) {
    double w = 0.0;
    for (const auto& t : c.round_trip) w = std::max(w, std::abs(t.ips_error));
    return w;
  };
  const auto refined = calibrate_perf_analyzer(in);
  in.refine = false;
  const auto smooth = calibrate_perf_analyzer(in);
  INFO(refined.report);
  CHECK(worst(smooth) > 0.1);  // the knee is out of the smooth curves' reach
  CHECK(worst(refined) < 0.03);
  for (const auto& t : refined.round_trip) CHECK(std::abs(t.p50_error) < 0.06);
  const auto& r = refined.doc["fit"]["refinement"];
  CHECK(r["anchors"].size() >= 5);
  CHECK(r["iterations"].size() >= 2);
  // The measured overheads are written per request size, next to the fit.
  CHECK(refined.doc["request_overhead"]["server"]["batch"].size() == 7);
}
