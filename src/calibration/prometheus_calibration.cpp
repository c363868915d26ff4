// calibrate prometheus: the windows of a measured history as points of a service-time curve.
#include <sonicsim/calibration/prometheus_calibration.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/telemetry/measurements.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/sha256.hpp>

#include "perf_calibration_steps.hpp"

namespace sonicsim::calibration {

namespace {

using ojson = nlohmann::ordered_json;

std::string listed(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

struct Found {
  const telemetry::PoolSeries* pool = nullptr;
  const telemetry::ModelSeries* model = nullptr;
  std::string path;  // JSON path of the model in the file
};

Found find_model(const telemetry::Measurements& m, const PrometheusCalibrationInput& in) {
  const std::string& file = in.measurements_path;
  std::vector<Found> hits;
  std::vector<std::string> names, pools;
  for (std::size_t i = 0; i < m.pools.size(); ++i) {
    const auto& p = m.pools[i];
    pools.push_back(p.name);
    if (!in.pool.empty() && p.name != in.pool) continue;
    for (std::size_t k = 0; k < p.models.size(); ++k) {
      const auto& mo = p.models[k];
      names.push_back(mo.name + (mo.version.empty() ? "" : " (version " + mo.version + ")") +
                      " in " + p.name);
      if (mo.name == in.model && (in.version.empty() || mo.version == in.version))
        hits.push_back(
            {&p, &mo, "pools[" + std::to_string(i) + "].models[" + std::to_string(k) + "]"});
    }
  }
  if (!in.pool.empty() && std::find(pools.begin(), pools.end(), in.pool) == pools.end())
    throw InputError(file, {Problem{"pools", "found no pool `" + in.pool +
                                                 "` (--pool), expected one of " + listed(pools)}});
  if (hits.empty())
    throw InputError(file,
                     {Problem{"pools", "found no model `" + in.model + "`" +
                                           (in.version.empty() ? "" : " version " + in.version) +
                                           ", expected one of " + listed(names)}});
  if (hits.size() > 1) {
    std::vector<std::string> where;
    for (const auto& h : hits)
      where.push_back(h.path + " (" + h.pool->name + ", version " + h.model->version + ")");
    throw InputError(file,
                     {Problem{"pools", "found `" + in.model + "` " + std::to_string(hits.size()) +
                                           " times: " + listed(where) +
                                           ", expected one: give --pool or --model-version"}});
  }
  return hits.front();
}

bool any_value(const telemetry::Series& s) {
  return std::any_of(s.begin(), s.end(), [](const auto& v) { return v.has_value(); });
}

// A window that would be a point of the curve, checked against what a scenario accepts (a batch
// size of at least 1, times and rates in the scenario's ranges: scenario/limits.hpp) before it is
// pooled: a file whose counters disagree is refused by window, not written as a calibration
// the loader refuses.
void check_window(const std::string& file, const std::string& model_path, std::size_t k,
                  double t_end, double batch, double executions_per_s,
                  const std::vector<std::pair<const char*, double>>& times) {
  using scenario::Limits;
  const std::string window =
      "window " + std::to_string(k) + " (ending " + util::format_time(t_end) + " after the start)";
  const auto refuse = [&](const std::string& series, const std::string& message) {
    throw InputError(file, {Problem{model_path + "." + series + "[" + std::to_string(k) + "]",
                                    "in " + window + ": " + message +
                                        "; drop the window (--start/--end of import "
                                        "prometheus) or raise --min-executions"}});
  };
  if (batch < 1.0)
    refuse("batch_size", "found " + util::exact_number(batch) +
                             " inferences per execution, expected at least 1 (an execution "
                             "holds at least one inference: nv_inference_count and "
                             "nv_inference_exec_count disagree here)");
  if (batch > Limits::max_items)
    refuse("batch_size",
           "found " + util::exact_number(batch) + " inferences per execution, expected at most " +
               std::to_string(Limits::max_items) + " (the largest batch a scenario accepts)");
  if (executions_per_s > Limits::max_arrival_rate)
    refuse("executions_per_s", "found " + util::exact_number(executions_per_s) +
                                   " executions per second, expected at most 1e9 (the largest "
                                   "rate a scenario accepts)");
  double total = 0.0;
  for (const auto& [series, t] : times) {
    if (t > Limits::max_time_s)
      refuse(series, "found " + util::exact_number(t) +
                         " s per execution, expected at most 1e9 s (the longest time a "
                         "scenario accepts)");
    total += t;
  }
  if (total > Limits::max_time_s)
    refuse(times.front().first, "found " + util::exact_number(total) +
                                    " s per execution with the copies, expected at most 1e9 s "
                                    "(the longest time a scenario accepts)");
}

struct Bin {
  double executions = 0.0, items = 0.0, seconds = 0.0;  // sums weighted by executions
  std::size_t windows = 0;
};

// The fitted curve tabulated over the measured range only: the scenario's table is flat below its
// first batch size and continues its last segment above its last, which the report says.
void prom_tabulate(const PrometheusCalibration& out, const std::string& file,
                   const std::string& json_path, std::vector<double>& batch,
                   std::vector<double>& seconds) {
  char buf[512];
  std::vector<double> xs;
  for (double x : tabulation_points(out.batch_max))
    if (x > out.batch_min && x < out.batch_max) xs.push_back(x);
  xs.push_back(out.batch_min);
  xs.push_back(out.batch_max);
  if (out.curve.kind == CurveKind::Piecewise)
    for (const auto& k : out.curve.knots) xs.push_back(k.items);
  std::sort(xs.begin(), xs.end());
  for (double x : xs) {
    if (!batch.empty() && x <= batch.back() * (1.0 + 1e-9)) continue;
    batch.push_back(x);
    seconds.push_back(out.curve.at(x));
    // Every measured point is in range, but a fitted curve may still leave it (a linear fit's
    // negative intercept at the smallest batch): refused as the scenario would refuse it.
    const double t = seconds.back();
    if (!(t > 0.0) || t > scenario::Limits::max_time_s) {
      std::snprintf(buf, sizeof buf,
                    "the %s curve fitted to the windows gives %s s at a batch size of %s, "
                    "expected a time above 0 and at most 1e9 s: no usable calibration; try "
                    "another --curve",
                    to_string(out.curve.kind), util::exact_number(t).c_str(),
                    util::exact_number(x).c_str());
      throw InputError(file, {Problem{json_path, buf}});
    }
  }
}

// What `calibrate prometheus` prints: the windows used, each candidate curve's errors, the chosen
// one's formula, and the range the table is measured over.
std::string prom_report(const PrometheusCalibrationInput& in, const std::string& pool,
                        const PrometheusCalibration& out, const CurveChoice& choice,
                        const std::string& compute, std::size_t point_count) {
  std::string s;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "calibration of %s (pool %s) from %s: %zu of %zu windows with >= %g executions, "
                "%zu batch sizes\n",
                in.model.c_str(), pool.c_str(), in.measurements_path.c_str(), out.windows_used,
                out.windows_total, in.min_executions, point_count);
  s += buf;
  s += "compute    " + compute + " per request (Triton charges each request its execution)\n";
  for (const auto& k : choice.candidates) {
    if (!k.ok)
      std::snprintf(buf, sizeof buf, "curve      %-10s  not fitted: %s\n", to_string(k.kind),
                    k.note.c_str());
    else
      std::snprintf(
          buf, sizeof buf,
          "curve      %-10s  in-sample rms %5.1f%%  max %5.1f%%  held-out rms %5.1f%%%s\n",
          to_string(k.kind), 100 * k.rms_rel_error, 100 * k.max_rel_error,
          100 * k.loo_rms_rel_error, k.kind == out.curve.kind ? "  <- chosen" : "");
    s += buf;
  }
  s += "           " + choice.why + "\n";
  if (out.curve.kind == CurveKind::Linear)
    std::snprintf(buf, sizeof buf, "           t(n) = %.4g s + n x %.4g s\n", out.curve.params[0],
                  out.curve.params[1]);
  else if (out.curve.kind == CurveKind::Saturating)
    std::snprintf(buf, sizeof buf,
                  "           t(n) = t0 (1 + (n/n_s)^k)^(1/k): t0 = %.4g s, r_max = %.4g items/s, "
                  "k = %.2f\n",
                  out.curve.params[0], out.curve.params[1], out.curve.params[2]);
  else
    buf[0] = '\0';
  s += buf;
  std::snprintf(buf, sizeof buf,
                "supported  batch sizes %.3g to %.3g only (the measured range): below it the "
                "table is flat, above it its last segment is extrapolated, not measured\n",
                out.batch_min, out.batch_max);
  s += buf;
  return s;
}

}  // namespace

PrometheusCalibration calibrate_prometheus(const PrometheusCalibrationInput& in) {
  const telemetry::Measurements m = telemetry::read_measurements(in.measurements_path);
  const Found f = find_model(m, in);
  const telemetry::ModelSeries& mo = *f.model;
  // The copies are part of the execution, as in perf_analyzer's Server Compute; a file without
  // them gives the inference alone, and says so.
  const bool with_input = any_value(mo.compute_input_time_s);
  const bool with_output = any_value(mo.compute_output_time_s);
  std::map<long, Bin> bins;  // by round(8 log2 b)
  PrometheusCalibration out;
  out.windows_total = m.t.size();
  for (std::size_t k = 0; k < m.t.size(); ++k) {
    const auto& b = mo.batch_size[k];
    const auto& e = mo.executions_per_s[k];
    const auto& infer = mo.compute_infer_time_s[k];
    // A window with executions has a batch of at least 1: below it (0 too) the counters
    // disagree, and check_window refuses it by name instead of dropping it unsaid.
    if (!b || !e || !infer || *e <= 0.0) continue;
    const double executions = *e * m.step_s;
    // A window without executions has no time per execution (its bin's 0/0 made a NaN point),
    // however low --min-executions is set.
    if (!(executions > 0.0) || executions < in.min_executions) continue;
    if ((with_input && !mo.compute_input_time_s[k]) ||
        (with_output && !mo.compute_output_time_s[k]))
      continue;
    const double t = *infer + (with_input ? *mo.compute_input_time_s[k] : 0.0) +
                     (with_output ? *mo.compute_output_time_s[k] : 0.0);
    if (t <= 0.0) continue;
    std::vector<std::pair<const char*, double>> times = {{"compute_infer_time_s", *infer}};
    if (with_input) times.emplace_back("compute_input_time_s", *mo.compute_input_time_s[k]);
    if (with_output) times.emplace_back("compute_output_time_s", *mo.compute_output_time_s[k]);
    check_window(in.measurements_path, f.path, k, m.t[k], *b, *e, times);
    Bin& bin = bins[std::lround(8.0 * std::log2(*b))];
    bin.executions += executions;
    bin.items += executions * *b;
    bin.seconds += executions * t;
    ++bin.windows;
    ++out.windows_used;
  }
  char buf[512];
  if (out.windows_used < in.min_windows) {
    std::snprintf(buf, sizeof buf,
                  "found %zu of %zu windows with at least %g executions and measured compute "
                  "times, expected at least %zu to fit a curve: import a longer span, or lower "
                  "--min-executions or --min-windows",
                  out.windows_used, out.windows_total, in.min_executions, in.min_windows);
    throw InputError(in.measurements_path, {Problem{f.path, buf}});
  }
  std::vector<CurvePoint> points;
  std::vector<const Bin*> point_bins;
  for (const auto& [key, bin] : bins) {
    points.push_back({bin.items / bin.executions, bin.seconds / bin.executions});
    point_bins.push_back(&bin);
  }
  if (points.empty()) {  // --min-windows 0 lets a span without one usable window through
    std::snprintf(buf, sizeof buf,
                  "found none of %zu windows with at least %g executions and measured compute "
                  "times, expected windows at two batch sizes or more to fit a curve: import a "
                  "longer span, or lower --min-executions",
                  out.windows_total, in.min_executions);
    throw InputError(in.measurements_path, {Problem{f.path, buf}});
  }
  if (points.size() < 2) {
    std::snprintf(buf, sizeof buf,
                  "found every usable window at one batch size (%.3g), expected at least two "
                  "batch sizes: one point gives no curve (a scan with perf_analyzer would)",
                  points.front().items);
    throw InputError(in.measurements_path, {Problem{f.path, buf}});
  }
  const CurveKind* forced = in.curve ? &*in.curve : nullptr;
  const CurveChoice choice = choose_curve(points, forced);
  out.curve = choice.best();
  // A forced curve the points cannot support (a saturating one through two batch sizes), or batch
  // sizes too close to tell apart, leaves a fit without parameters: nothing to tabulate.
  if (!out.curve.ok) {
    std::snprintf(buf, sizeof buf,
                  "found windows at %zu batch sizes, too few for the %s curve (%s), expected "
                  "windows at more batch sizes%s",
                  points.size(), to_string(out.curve.kind),
                  out.curve.note.empty() ? "no fit" : out.curve.note.c_str(),
                  forced ? ", or another --curve" : "");
    throw InputError(in.measurements_path, {Problem{f.path, buf}});
  }
  out.batch_min = points.front().items;
  out.batch_max = points.back().items;

  std::vector<double> batch, seconds;
  prom_tabulate(out, in.measurements_path, f.path, batch, seconds);

  const std::string compute = std::string(with_input ? "compute_input + " : "") + "compute_infer" +
                              (with_output ? " + compute_output" : "");
  ojson d;
  d["sonicsim_calibration"] = 1;
  d["model"] = in.model;
  d["device"] = in.device;
  d["created_by"] = std::string("sonicsim ") + SONICSIM_VERSION;
  if (!in.command_line.empty()) d["command"] = in.command_line;
  ojson exports = ojson::array();
  for (const auto& s : m.source.files) exports.push_back({{"path", s.path}, {"sha256", s.sha256}});
  d["sources"] =
      ojson::array({{{"file", std::filesystem::path(in.measurements_path).filename().string()},
                     {"path", in.measurements_path},
                     {"sha256", sha256_of_file(in.measurements_path)},
                     {"kind", "measurements (sonicsim import prometheus)"},
                     {"pool", f.pool->name},
                     {"model_version", mo.version},
                     {"windows_used", out.windows_used},
                     {"windows_total", out.windows_total},
                     {"step_s", m.step_s},
                     {"min_executions", in.min_executions},
                     {"exports", exports}}});
  d["service_time"] = {{"batch", batch}, {"seconds", seconds}};
  d["supported_batch_range"] = {
      {"min", out.batch_min},
      {"max", out.batch_max},
      {"note",
       "measured over this range only: below it the table is flat, above it the last "
       "segment continues; neither is measured"}};
  ojson fit;
  fit["chosen"] = to_string(out.curve.kind);
  fit["why"] = choice.why;
  fit["compute_per_execution"] = compute + " duration increase / request_success increase";
  fit["candidates"] = perf_fit::curve_candidates_json(choice);
  ojson pts = ojson::array();
  for (std::size_t i = 0; i < points.size(); ++i)
    pts.push_back({{"items_per_execution", points[i].items},
                   {"compute_s", points[i].seconds},
                   {"windows", point_bins[i]->windows},
                   {"executions", point_bins[i]->executions},
                   {"curve_s", out.curve.at(points[i].items)},
                   {"residual", out.curve.at(points[i].items) / points[i].seconds - 1.0}});
  fit["points"] = pts;
  d["fit"] = fit;
  out.doc = d;

  out.report = prom_report(in, f.pool->name, out, choice, compute, points.size());
  return out;
}

}  // namespace sonicsim::calibration
