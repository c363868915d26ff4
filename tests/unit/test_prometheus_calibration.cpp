// calibrate prometheus: a service-time curve recovered from a measured history whose windows
// were built from a known curve (tests/data/prometheus/curve.json: t(b) = 2 ms + 0.5 ms x b per
// execution, 90% inference, 6% input and 4% output copies, batch sizes 1 to 32), and the
// refusals when the history cannot support a curve.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <sonicsim/calibration/prometheus_calibration.hpp>
#include <sonicsim/telemetry/measurements.hpp>
#include <sonicsim/telemetry/prometheus_import.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>

#include "support.hpp"

using namespace sonicsim;

namespace {

std::string measurements_of_curve(const test::ScratchDir& dir) {
  const auto r = telemetry::import_prometheus(
      {std::string(SONICSIM_TEST_DATA_DIR) + "/prometheus/curve.json"}, {});
  const auto path = (dir.path / "curve-measurements.json").string();
  std::ofstream(path) << telemetry::to_json(r.measurements).dump();
  return path;
}

double known(double b) {
  return 0.002 + 0.0005 * b;
}

std::string calibration_refusal(const calibration::PrometheusCalibrationInput& in) {
  try {
    calibration::calibrate_prometheus(in);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A measurements file of one pool serving `pn`, a window a minute each: (batch size, executions
// per second, compute time per execution); the other series left unmeasured.
std::string windows_file(const test::ScratchDir& dir, const std::string& name,
                         const std::vector<std::array<double, 3>>& windows) {
  telemetry::Measurements m;
  m.step_s = 60.0;
  telemetry::PoolSeries pool;
  pool.name = "p";
  telemetry::ModelSeries mo;
  mo.name = "pn";
  mo.version = "1";
  for (const auto& [b, e, t] : windows) {
    m.t.push_back(60.0 * static_cast<double>(m.t.size() + 1));
    mo.batch_size.push_back(b);
    mo.executions_per_s.push_back(e);
    mo.inferences_per_s.push_back(e * b);
    mo.requests_per_s.push_back(e);
    mo.failures_per_s.push_back(0.0);
    mo.compute_infer_time_s.push_back(t);
    for (auto* s : {&mo.queue_time_s, &mo.request_time_s, &mo.compute_input_time_s,
                    &mo.compute_output_time_s, &pool.gpu_utilization, &pool.autoscaler_metric_ms,
                    &m.clients.connected, &m.clients.requests_per_s, &m.clients.request_time_s})
      s->push_back(std::nullopt);
    pool.replicas.push_back(1.0);
  }
  pool.models.push_back(mo);
  m.pools.push_back(pool);
  const auto path = (dir.path / name).string();
  std::ofstream(path) << telemetry::to_json(m).dump();
  return path;
}

}  // namespace

TEST_CASE("calibrate prometheus recovers the curve the windows were built from", "[prometheus]") {
  test::ScratchDir dir("prom-cal");
  calibration::PrometheusCalibrationInput in;
  in.measurements_path = measurements_of_curve(dir);
  in.model = "pn";
  const auto c = calibration::calibrate_prometheus(in);
  CHECK(c.windows_used == 24);
  CHECK(c.windows_total == 24);
  CHECK(c.batch_min == Approx(1.0));
  CHECK(c.batch_max == Approx(32.0));
  // The copies count: the inference alone would be 10% short.
  for (double b : {1.0, 2.0, 5.0, 11.0, 24.0, 32.0})
    CHECK(c.curve.at(b) == Approx(known(b)).epsilon(0.01));
  CHECK(c.curve.rms_rel_error < 0.01);
  // The table covers the measured range only, in the format the scenario loader reads.
  const auto& batch = c.doc["service_time"]["batch"];
  CHECK(batch.front() == Approx(1.0));
  CHECK(batch.back() == Approx(32.0));
  CHECK(c.doc["sonicsim_calibration"] == 1);
  CHECK(c.doc["sources"][0]["windows_used"] == 24);
  CHECK(c.doc["sources"][0]["sha256"].get<std::string>().size() == 64);
  CHECK(c.doc["supported_batch_range"]["max"] == Approx(32.0));
  CHECK_THAT(c.report, Catch::Contains("batch sizes 1 to 32 only"));

  // Forced curves are honoured.
  in.curve = calibration::CurveKind::Piecewise;
  CHECK(calibration::calibrate_prometheus(in).curve.kind == calibration::CurveKind::Piecewise);
}

TEST_CASE("calibrate prometheus fits a bent curve from the inference time alone", "[prometheus]") {
  // t(n) = 1 ms (1 + (n/16)^2)^(1/2): flat, then 1/16 ms per item. 40 windows of 30 s, 600
  // executions each, at batch sizes that repeat (several windows per bin), exported without the
  // input and output copies.
  auto t_of = [](double b) { return 1e-3 * std::sqrt(1.0 + (b / 16.0) * (b / 16.0)); };
  const std::vector<double> sizes = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64};
  nlohmann::json success = nlohmann::json::array(), count = success, exec = success,
                 infer = success;
  double cs = 0, cc = 0, ce = 0, ci = 0;
  const double t0 = 1732700000;
  for (std::size_t i = 0; i <= 40; ++i) {
    if (i > 0) {
      const double b = sizes[(i - 1) % sizes.size()] * (i > 20 ? 1.05 : 1.0);
      const double executions = 600, requests = executions * b;
      cs += requests;
      cc += requests;
      ce += executions;
      ci += requests * t_of(b) * 1e6;
    }
    const double t = t0 + 30.0 * static_cast<double>(i);
    success.push_back({t, util::exact_number(cs)});
    count.push_back({t, util::exact_number(cc)});
    exec.push_back({t, util::exact_number(ce)});
    infer.push_back({t, util::exact_number(ci)});
  }
  nlohmann::json responses = nlohmann::json::array();
  for (const auto& [name, values] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"nv_inference_request_success", success},
           {"nv_inference_count", count},
           {"nv_inference_exec_count", exec},
           {"nv_inference_compute_infer_duration_us", infer}}) {
    nlohmann::json series;
    series["metric"] = {{"__name__", name}, {"model", "bent"}, {"version", "2"}, {"pod", "p"}};
    series["values"] = values;
    nlohmann::json r;
    r["status"] = "success";
    r["data"] = {{"resultType", "matrix"}, {"result", nlohmann::json::array({series})}};
    responses.push_back(r);
  }
  test::ScratchDir dir("prom-cal-bent");
  const auto exported = dir.write("bent.json", responses);
  const auto m = telemetry::import_prometheus({exported}, {});
  const auto path = (dir.path / "m.json").string();
  std::ofstream(path) << telemetry::to_json(m.measurements).dump();
  calibration::PrometheusCalibrationInput in;
  in.measurements_path = path;
  in.model = "bent";
  const auto c = calibration::calibrate_prometheus(in);
  CHECK(c.windows_used == 40);
  CHECK(c.batch_min == Approx(1.0));
  CHECK(c.batch_max == Approx(64 * 1.05));
  for (double b : {1.0, 3.0, 10.0, 16.0, 20.0, 40.0, 60.0})
    CHECK(c.curve.at(b) == Approx(t_of(b)).epsilon(0.03));
  CHECK(c.doc["fit"]["compute_per_execution"] ==
        "compute_infer duration increase / request_success increase");
}

TEST_CASE("calibrate prometheus refuses too few windows, and a model it cannot find",
          "[prometheus]") {
  test::ScratchDir dir("prom-cal-refused");
  calibration::PrometheusCalibrationInput in;
  in.measurements_path = measurements_of_curve(dir);
  in.model = "pn";
  in.min_windows = 30;
  CHECK_THAT(calibration_refusal(in),
             Catch::Contains("curve-measurements.json: pools[0].models[0]: found 24 "
                             "of 24 windows with at least 100 executions") &&
                 Catch::Contains("expected at least 30"));
  in.min_windows = 10;
  in.min_executions = 5000;  // each window holds 1200
  CHECK_THAT(calibration_refusal(in), Catch::Contains("found 0 of 24 windows"));
  in.min_executions = 100;
  in.model = "deepmet";
  CHECK_THAT(calibration_refusal(in),
             Catch::Contains("found no model `deepmet`, expected one of pn "
                             "(version 1) in supersonic"));
  in.model = "pn";
  in.pool = "elsewhere";
  CHECK_THAT(calibration_refusal(in), Catch::Contains("found no pool `elsewhere` (--pool)"));
}

TEST_CASE("calibrate prometheus refuses a forced curve the batch sizes cannot support",
          "[prometheus]") {
  // Found by fuzzing (tests/fuzz/corpus/calibrate_prometheus/crash-saturating-two-sizes): with
  // --curve saturating and windows at two batch sizes the fit had no parameters, and tabulating
  // it read past an empty vector.
  test::ScratchDir dir("prom-cal-forced");
  std::vector<std::array<double, 3>> windows;
  for (int w = 0; w < 8; ++w) {
    const double b = w % 2 ? 4.0 : 1.0;
    windows.push_back({b, 10.0, known(b)});
  }
  calibration::PrometheusCalibrationInput in;
  in.measurements_path = windows_file(dir, "two-sizes.json", windows);
  in.model = "pn";
  in.min_executions = 10.0;
  in.min_windows = 4;
  // Two batch sizes hold a line.
  CHECK(calibration::calibrate_prometheus(in).curve.ok);
  in.curve = calibration::CurveKind::Saturating;
  const std::string why = calibration_refusal(in);
  CHECK_THAT(why, Catch::Contains("two-sizes.json") && Catch::Contains("pools[0].models[0]") &&
                      Catch::Contains("found windows at 2 batch sizes, too few for the saturating "
                                      "curve") &&
                      Catch::Contains("or another --curve"));
}

TEST_CASE("calibrate prometheus skips windows without executions, even at --min-executions 0",
          "[prometheus]") {
  // Found by fuzzing (tests/fuzz/corpus/calibrate_prometheus/crash-zero-execution-window): a
  // window with no executions but a compute time made a 0/0 point, and the curve's search for
  // its segment read before the first one.
  test::ScratchDir dir("prom-cal-zero");
  std::vector<std::array<double, 3>> windows = {{1.0, 0.0, 1.0}};
  for (double b : {1.0, 2.0, 4.0, 8.0}) windows.push_back({b, 10.0, known(b)});
  calibration::PrometheusCalibrationInput in;
  in.measurements_path = windows_file(dir, "zero.json", windows);
  in.model = "pn";
  in.min_executions = 0.0;
  in.min_windows = 2;
  const auto c = calibration::calibrate_prometheus(in);
  CHECK(c.windows_used == 4);
  CHECK(c.windows_total == 5);
  CHECK(c.batch_min == Approx(1.0));
  for (double b : {1.0, 3.0, 8.0}) CHECK(c.curve.at(b) == Approx(known(b)).epsilon(0.01));
}
