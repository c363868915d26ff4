// Fuzz target: `sonicsim calibrate prometheus` (src/cli/cmd_calibrate_prometheus.cpp). The input
// is a measurements file (it starts with `{`), or windows in short: a first line of options
// (`min_executions=X min_windows=N curve=linear|piecewise|saturating step=S`), then a line per
// window, `batch executions_per_s compute_infer_s [compute_input_s [compute_output_s]]` (`-` for
// a window without the value), from which the target writes the measurements file of one pool
// serving model `m`: the fuzzer moves the figures the fit reads, not the file's JSON around them.
// Contract: the command refuses with InputError naming the file, or writes a calibration file
// that a scenario's `service_time` (and `request_overhead`, `host_cost`) takes back, as the
// command's own read-back does (src/cli/read_back.cpp, calibration_read_back).
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/prometheus_calibration.hpp>
#include <sonicsim/calibration/service_fit.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/telemetry/measurements.hpp>
#include <sonicsim/util/errors.hpp>

#include "support.hpp"

namespace {

constexpr std::size_t kPromCalMaxWindows = 2000;

std::optional<double> promcal_number(const std::string& token) {
  if (token == "-") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(token.c_str(), &end);
  if (end == token.c_str()) return std::nullopt;
  return v;
}

// The measurements file of the windows in short; the options go to `in`.
std::string promcal_measurements(std::string_view text,
                                 sonicsim::calibration::PrometheusCalibrationInput& in) {
  using namespace sonicsim;
  auto [first, rest] = fuzz::split_first_line(text);
  telemetry::Measurements m;
  m.step_s = 60.0;
  std::istringstream options{std::string(first)};
  for (std::string kv; options >> kv;) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    const auto v = promcal_number(value);
    if (key == "min_executions" && v) in.min_executions = *v;
    if (key == "min_windows" && v && *v >= 0 && *v < 1e6) in.min_windows = std::size_t(*v);
    if (key == "step" && v) m.step_s = *v;
    calibration::CurveKind kind;
    if (key == "curve" && calibration::parse_curve_kind(value, kind)) in.curve = kind;
  }
  telemetry::PoolSeries pool;
  pool.name = "p";
  telemetry::ModelSeries model;
  model.name = "m";
  model.version = "1";
  std::istringstream lines{std::string(rest)};
  for (std::string line; std::getline(lines, line) && m.t.size() < kPromCalMaxWindows;) {
    std::istringstream fields(line);
    std::vector<std::optional<double>> x;
    for (std::string token; fields >> token && x.size() < 5;) x.push_back(promcal_number(token));
    if (x.size() < 3) continue;
    x.resize(5);
    m.t.push_back(m.step_s * double(m.t.size() + 1));
    model.batch_size.push_back(x[0]);
    model.executions_per_s.push_back(x[1]);
    model.compute_infer_time_s.push_back(x[2]);
    model.compute_input_time_s.push_back(x[3]);
    model.compute_output_time_s.push_back(x[4]);
    std::optional<double> inferences, requests;
    if (x[0] && x[1]) inferences = *x[0] * *x[1];
    if (x[1]) requests = *x[1];
    model.inferences_per_s.push_back(inferences);
    model.requests_per_s.push_back(requests);
    model.failures_per_s.push_back(0.0);
    model.queue_time_s.push_back(std::nullopt);
    model.request_time_s.push_back(std::nullopt);
    pool.replicas.push_back(1.0);
    pool.gpu_utilization.push_back(std::nullopt);
    pool.autoscaler_metric_ms.push_back(std::nullopt);
    m.clients.connected.push_back(std::nullopt);
    m.clients.requests_per_s.push_back(std::nullopt);
    m.clients.request_time_s.push_back(std::nullopt);
  }
  pool.models.push_back(std::move(model));
  m.pools.push_back(std::move(pool));
  return telemetry::to_json(m).dump();
}

// read_back.cpp's host_scenario with the model's figures taken from the calibration file.
nlohmann::json promcal_host_scenario(const nlohmann::json& cal, const std::string& file) {
  const auto d = cal.find("device");
  auto s = sonicsim::fuzz::read_back_scenario(
      d != cal.end() && d->is_string() && !d->get<std::string>().empty() ? d->get<std::string>()
                                                                         : "GPU");
  auto& model = s["models"]["m"];
  model["service_time"] = {{"calibration", file}};
  if (cal.contains("request_overhead")) model["request_overhead"] = {{"calibration", file}};
  if (cal.contains("host_cost")) model["host_cost"] = {{"calibration", file}};
  return s;
}

}  // namespace

SONICSIM_FUZZ_TARGET(calibrate_prometheus) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  calibration::PrometheusCalibrationInput in;
  in.model = "m";
  in.min_windows = 4;
  in.command_line = "sonicsim calibrate prometheus measurements.json --model m";
  const bool raw = !input.empty() && input.front() == '{';
  in.measurements_path = fuzz::scratch_file(
      "measurements.json", raw ? std::string(input) : promcal_measurements(input, in));
  std::string written;
  fuzz::expect_contract("calibrate_prometheus", fuzz::Where::Anywhere, [&] {
    const auto cal = calibration::calibrate_prometheus(in);
    if (!(cal.batch_min <= cal.batch_max) || !std::isfinite(cal.batch_min) ||
        !std::isfinite(cal.batch_max))
      fuzz::finding("calibrate_prometheus", "batch range [" + std::to_string(cal.batch_min) + ", " +
                                                std::to_string(cal.batch_max) + "]");
    if (cal.windows_used > cal.windows_total)
      fuzz::finding("calibrate_prometheus", "more windows used than there are");
    written = cal.doc.dump(2);
  });
  if (written.empty()) return 0;
  const std::string file = fuzz::scratch_file("calibration.json", written);
  try {
    scenario::load_json(promcal_host_scenario(nlohmann::json::parse(written), file),
                        "read-back.json", fuzz::scratch_folder());
  } catch (const InputError& e) {
    fuzz::finding(
        "calibrate_prometheus",
        std::string("the written calibration is refused by the scenario loader: ") + e.what());
  }
  return 0;
}
