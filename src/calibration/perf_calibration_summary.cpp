// What `calibrate perf-analyzer` writes: the calibration file (provenance, the curve as a table,
// the overheads, every fit considered and the round trip) and the report a person reads.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

#include "perf_calibration_steps.hpp"

namespace sonicsim::calibration::perf_fit {
namespace {

ojson phase_json(const PhaseFit& f) {
  ojson j{{"fixed", f.fixed}, {"per_item", f.per_item}};
  if (!f.batch.empty()) {
    j["batch"] = f.batch;
    j["seconds"] = f.seconds;
  }
  return j;
}

double min_factor(const std::vector<Correction::Anchor>& a) {
  double m = a.empty() ? 1.0 : a.front().factor;
  for (const auto& x : a) m = std::min(m, x.factor);
  return m;
}
double max_factor(const std::vector<Correction::Anchor>& a) {
  double m = a.empty() ? 1.0 : a.front().factor;
  for (const auto& x : a) m = std::max(m, x.factor);
  return m;
}

ojson sources_json(const PerfCalibrationInput& in) {
  ojson sources = ojson::array();
  for (const auto& s : in.scans)
    sources.push_back({{"file", std::filesystem::path(s.file).filename().string()},
                       {"path", s.file},
                       {"sha256", s.sha256},
                       {"batch_size", s.batch_size},
                       {"batch_size_from", s.batch_source},
                       {"mode", s.mode == LoadMode::Concurrency ? "concurrency" : "request_rate"},
                       {"rows", s.rows.size()}});
  return sources;
}

// The jitter candidates and the refinement of the chosen one.
void add_refinement_json(ojson& fit, const CalibrationOutcome& c) {
  const PerfCalibrationInput& in = c.in;
  const Refinement& best = c.jitter.best;
  ojson jitter = ojson::array();
  for (const auto& j : c.jitter.scores)
    jitter.push_back({{"cv", j.cv},
                      {"rms_error", j.rms_error},
                      {"max_error", j.max_error},
                      {"max_p50_error", j.max_p50_error},
                      {"score", j.score}});
  fit["overhead_jitter"] = {
      {"cv", best.cv},
      {"method", in.refine ? "lognormal jitter of the request overheads chosen by the simulator: "
                             "each candidate's curve refined, then the smallest rms over rows of "
                             "max(|throughput error| / 5%, |p50 error| / 10%)"
                           : "none (--no-refine)"},
      {"candidates", jitter}};
  ojson anchors = ojson::array();
  for (const auto& a : best.kept.merged())
    anchors.push_back({{"items", a.items}, {"factor", a.factor}});
  ojson history = ojson::array();
  for (const auto& h : best.history)
    history.push_back({{"iteration", h.iteration},
                       {"rms_error", h.rms_error},
                       {"max_error", h.max_error},
                       {"score", h.score}});
  fit["refinement"] = {
      {"method", in.refine ? "the chosen curve times a factor, piecewise linear in log(items) "
                             "through anchors at each fitted row's simulated items per "
                             "execution (request-weighted), constant beyond them; factors moved "
                             "by secant steps until the replayed throughputs match"
                           : "none (--no-refine)"},
      {"anchors", anchors},
      {"chosen_iteration", best.chosen_iteration},
      {"iterations", history}};
}

// Each row's point against the final curve and its correction.
ojson fit_points_json(const CalibrationOutcome& c) {
  ojson points = ojson::array();
  for (const auto& r : c.rows) {
    ojson p{{"file", std::filesystem::path(r.scan->file).filename().string()},
            {"line", r.row->line},
            {"batch_size", r.batch},
            {"load", r.row->load},
            {"items_per_execution", r.point.items},
            {"compute_s", r.row->compute_us() * kUs},
            {"curve_s", c.curve.at(r.point.items)},
            {"residual", c.curve.at(r.point.items) / (r.row->compute_us() * kUs) - 1.0},
            {"correction", c.jitter.best.kept.at(r.point.items)},
            {"little_law_error", r.little_error},
            {"used", r.consistent}};
    points.push_back(p);
  }
  return points;
}

// The input and output shares of the server's compute time, by items per execution.
ojson compute_split_json(const std::vector<Row>& rows) {
  std::vector<std::pair<double, std::pair<double, double>>> split;
  for (const auto& r : rows)
    if (r.row->compute_us() > 0.0)
      split.push_back({r.point.items,
                       {r.row->compute_input_us / r.row->compute_us(),
                        r.row->compute_output_us / r.row->compute_us()}});
  std::sort(split.begin(), split.end());
  ojson sx = ojson::array(), si = ojson::array(), so = ojson::array();
  for (const auto& [items, shares] : split) {
    sx.push_back(items);
    si.push_back(shares.first);
    so.push_back(shares.second);
  }
  return {{"items", sx}, {"input_share", si}, {"output_share", so}};
}

ojson round_trip_json(const std::vector<PerfCalibration::RoundTrip>& round_trip) {
  ojson rt = ojson::array();
  for (const auto& t : round_trip)
    rt.push_back({{"file", std::filesystem::path(t.file).filename().string()},
                  {"line", t.line},
                  {"batch_size", t.batch_size},
                  {t.mode == LoadMode::Concurrency ? "concurrency" : "request_rate", t.load},
                  {"consistent", t.consistent},
                  {"measured_inferences_per_s", t.measured_ips},
                  {"simulated_inferences_per_s", t.simulated_ips},
                  {"inferences_per_s_error", t.ips_error},
                  {"measured_p50_us", t.measured_p50_us},
                  {"simulated_p50_us", t.simulated_p50_us},
                  {"p50_error", t.p50_error},
                  {"measured_compute_us", t.measured_compute_us},
                  {"simulated_compute_us", t.simulated_compute_us},
                  {"measured_queue_us", t.measured_queue_us},
                  {"simulated_queue_us", t.simulated_queue_us},
                  {"simulated_requests_per_execution", t.requests_per_execution}});
  return rt;
}

// ---- the report ------------------------------------------------------------------------------

// The fitted curves, the chosen one, the overheads and the refinement.
std::string fit_report(const CalibrationOutcome& c) {
  const PerfCalibrationInput& in = c.in;
  const CurveFit& curve = c.curve;
  const Overheads& ov = c.ov;
  std::string s;
  char buf[512];
  std::snprintf(buf, sizeof buf, "calibration of %s on %s from %zu file(s), %zu row(s)\n",
                in.model.c_str(), in.device.c_str(), in.scans.size(), c.rows.size());
  s += buf;
  s += "server     " + in.server.source + "\n";
  for (const auto& k : c.choice.candidates) {
    if (!k.ok) {
      std::snprintf(buf, sizeof buf, "curve      %-10s  not fitted: %s\n", to_string(k.kind),
                    k.note.c_str());
    } else {
      std::snprintf(
          buf, sizeof buf,
          "curve      %-10s  in-sample rms %5.1f%%  max %5.1f%%  held-out rms %5.1f%%%s\n",
          to_string(k.kind), 100 * k.rms_rel_error, 100 * k.max_rel_error,
          100 * k.loo_rms_rel_error, &k == &curve ? "  <- chosen" : "");
    }
    s += buf;
  }
  s += "           " + c.choice.why + "\n";
  if (curve.kind == CurveKind::Saturating) {
    std::snprintf(buf, sizeof buf,
                  "           t(n) = t0 (1 + (n/n_s)^k)^(1/k): t0 = %.3g s, r_max = %.4g items/s, "
                  "k = %.2f\n",
                  curve.params[0], curve.params[1], curve.params[2]);
    s += buf;
  } else if (curve.kind == CurveKind::Linear) {
    std::snprintf(buf, sizeof buf, "           t(n) = %.3g s + n x %.3g s\n", curve.params[0],
                  curve.params[1]);
    s += buf;
  }
  std::snprintf(buf, sizeof buf,
                "overhead   client send %.0f us + %.3g us/item, server %.0f us + %.3g us/item, "
                "client recv %.0f us + %.3g us/item\n",
                ov.client_send.fixed / kUs, ov.client_send.per_item / kUs, ov.server.fixed / kUs,
                ov.server.per_item / kUs, ov.client_recv.fixed / kUs,
                ov.client_recv.per_item / kUs);
  s += buf;
  if (in.refine) {
    const Refinement& best = c.jitter.best;
    const auto& h = best.history;
    std::snprintf(
        buf, sizeof buf,
        "refined    overhead jitter cv %.2f; curve corrected by the simulator in %d "
        "pass(es): rms error of the replayed rows %.1f%% -> %.1f%%, correction factors %.2f to "
        "%.2f\n",
        best.cv, best.chosen_iteration, 100 * h.front().rms_error,
        100 * h[static_cast<std::size_t>(best.chosen_iteration)].rms_error,
        min_factor(best.kept.merged()), max_factor(best.kept.merged()));
    s += buf;
  }
  return s;
}

// The round trip's table, then a warning for each row left out of the fit.
std::string round_trip_report(const CalibrationOutcome& c) {
  std::string s;
  char buf[512];
  s += "round trip (perf_analyzer emulated with this calibration)\n";
  s += "  batch       load   measured inf/s  simulated   error   p50 measured  simulated   error\n";
  for (const auto& t : c.round_trip) {
    char load[32];
    if (t.mode == LoadMode::Concurrency)
      std::snprintf(load, sizeof load, "C %.0f", t.load);
    else
      std::snprintf(load, sizeof load, "%.6g/s", t.load);
    std::snprintf(buf, sizeof buf, "  %5d  %9s  %15.1f  %9.1f  %6s  %10.0f us  %9.0f  %6s%s\n",
                  t.batch_size, load, t.measured_ips, t.simulated_ips, pct(t.ips_error).c_str(),
                  t.measured_p50_us, t.simulated_p50_us, pct(t.p50_error).c_str(),
                  t.consistent ? "" : "  (not fitted: see the warning below)");
    s += buf;
  }
  for (const auto& r : c.rows)
    if (!r.consistent) {
      if (r.row->compute_us() <= 0.0)
        std::snprintf(buf, sizeof buf,
                      "warning    %s line %d: no server compute time; the row was left out of "
                      "the curve fit\n",
                      r.scan->file.c_str(), r.row->line);
      else
        std::snprintf(buf, sizeof buf,
                      "warning    %s line %d: throughput is %s off C x B / mean latency; the "
                      "row contradicts itself and was left out of the curve fit\n",
                      r.scan->file.c_str(), r.row->line, pct(r.little_error).c_str());
      s += buf;
    }
  return s;
}

}  // namespace

ojson curve_candidates_json(const CurveChoice& choice) {
  ojson candidates = ojson::array();
  for (const auto& c : choice.candidates) {
    ojson j{{"kind", to_string(c.kind)}, {"ok", c.ok}};
    if (!c.note.empty()) j["note"] = c.note;
    if (c.ok) {
      ojson params, ci;
      for (std::size_t i = 0; i < c.params.size(); ++i) {
        params[c.param_names[i]] = c.params[i];
        ci[c.param_names[i]] = std::isfinite(c.ci95[i]) ? ojson(c.ci95[i]) : ojson(nullptr);
      }
      if (!c.params.empty()) {
        j["params"] = params;
        j["ci95_halfwidth"] = ci;
        // What issue 38's `uncertainty` block draws the curve from: N(params, covariance), the
        // parameters moving together.
        j["param_order"] = c.param_names;
        j["covariance"] = covariance_json(c.covariance, c.params.size());
      }
      j["rms_rel_error"] = c.rms_rel_error;
      j["max_rel_error"] = c.max_rel_error;
      j["loo_rms_rel_error"] =
          std::isfinite(c.loo_rms_rel_error) ? ojson(c.loo_rms_rel_error) : ojson(nullptr);
    }
    candidates.push_back(j);
  }
  return candidates;
}

ojson covariance_json(const std::vector<double>& covariance, std::size_t k) {
  ojson rows = ojson::array();
  for (std::size_t i = 0; i < k; ++i) {
    ojson row = ojson::array();
    for (std::size_t j = 0; j < k; ++j) {
      const double v = i * k + j < covariance.size() ? covariance[i * k + j] : kNaN;
      row.push_back(std::isfinite(v) ? ojson(v) : ojson(nullptr));
    }
    rows.push_back(row);
  }
  return rows;
}

ojson overhead_json(const Overheads& o) {
  ojson j{{"client_send", phase_json(o.client_send)},
          {"server", phase_json(o.server)},
          {"client_recv", phase_json(o.client_recv)}};
  if (o.cv > 0.0) {
    j["dist"] = "lognormal";
    j["cv"] = o.cv;
  }
  return j;
}

ojson batching_json(const ServerSettings& s) {
  if (!s.dynamic_batching) return nullptr;
  ojson b;
  if (!s.preferred_batch_size.empty()) b["preferred_batch_size"] = s.preferred_batch_size;
  b["max_queue_delay"] = s.max_queue_delay;
  return b;
}

std::string pct(double x) {
  return util::percent(x, "%+.1f");
}

ojson calibration_file(const CalibrationOutcome& c) {
  const PerfCalibrationInput& in = c.in;
  ojson d;
  d["sonicsim_calibration"] = 1;
  d["model"] = in.model;
  d["device"] = in.device;
  if (!in.hardware.empty()) d["hardware"] = in.hardware;
  d["created_by"] = std::string("sonicsim ") + SONICSIM_VERSION;
  if (!in.command_line.empty()) d["command"] = in.command_line;
  if (!in.notes.empty()) d["notes"] = in.notes;
  d["sources"] = sources_json(in);
  if (!in.tool_version.empty()) d["tool_version"] = in.tool_version;
  d["server"] = {{"max_batch_size", in.server.max_batch_size},
                 {"dynamic_batching", batching_json(in.server)},
                 {"instances", in.server.instances},
                 {"from", in.server.source}};
  d["service_time"] = c.jitter.best.table;
  d["request_overhead"] = overhead_json(c.ov);
  if (c.ov.host) d["host_cost"] = host_cost_json(c);

  ojson fit;
  fit["chosen"] = to_string(c.curve.kind);
  fit["why"] = c.choice.why;
  add_refinement_json(fit, c);
  fit["candidates"] = curve_candidates_json(c.choice);
  fit["points"] = fit_points_json(c);
  d["fit"] = fit;
  d["overhead_fit"] = {{"client_send_rms_rel_error", c.ov.client_send.rms_rel_error},
                       {"server_rms_rel_error", c.ov.server.rms_rel_error},
                       {"client_recv_rms_rel_error", c.ov.client_recv.rms_rel_error}};
  for (const auto& [name, phase] :
       {std::pair{"client_send", &c.ov.client_send}, std::pair{"server", &c.ov.server},
        std::pair{"client_recv", &c.ov.client_recv}})
    d["overhead_fit"][name] = {{"param_order", ojson::array({"fixed", "per_item"})},
                               {"covariance", covariance_json(phase->covariance, 2)}};
  d["compute_split"] = compute_split_json(c.rows);
  d["round_trip"] = round_trip_json(c.round_trip);
  return d;
}

std::string calibration_report(const CalibrationOutcome& c) {
  return fit_report(c) + host_cost_report(c) + round_trip_report(c);
}

}  // namespace sonicsim::calibration::perf_fit
