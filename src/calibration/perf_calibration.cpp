#include <sonicsim/calibration/perf_calibration.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>

#include <sonicsim/calibration/least_squares.hpp>
#include <sonicsim/calibration/perf_emulation.hpp>
#include <sonicsim/scenario/loader.hpp>

namespace sonicsim::calibration {

namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;
constexpr double kUs = 1e-6;

struct Row {
  const PerfAnalyzerScan* scan;
  const PerfAnalyzerRow* row;
  int batch;
  double little_error;  // measured throughput / (C B / mean latency) - 1; 0 in rate mode
  bool consistent;
  CurvePoint point;  // deconvolved: (items per execution, compute seconds)
};

struct PhaseFit {
  double fixed = 0.0, per_item = 0.0;  // seconds
  double rms_rel_error = 0.0;
  std::vector<double> batch, seconds;  // measured mean per request size
};

// fixed + per_item x B by least squares on relative errors (1 us floor, since perf_analyzer
// rounds to microseconds), neither term negative.
PhaseFit fit_phase(const std::vector<Row>& rows, double PerfAnalyzerRow::*field) {
  const int n = static_cast<int>(rows.size());
  Eigen::MatrixXd X(n, 2);
  Eigen::VectorXd y(n), w(n);
  for (int i = 0; i < n; ++i) {
    X(i, 0) = 1.0;
    X(i, 1) = rows[i].batch;
    y[i] = rows[i].row->*field * kUs;
    w[i] = 1.0 / std::pow(y[i] + kUs, 2);
  }
  PhaseFit f;
  bool distinct = false;
  for (int i = 1; i < n; ++i) distinct |= X(i, 1) != X(0, 1);
  if (distinct) {
    auto r = fit_linear(X, y, w);
    f.fixed = r.params[0];
    f.per_item = r.params[1];
  }
  if (!distinct || f.fixed < 0.0 || f.per_item < 0.0) {
    // One term alone: a constant when the batch sizes cannot separate them or the slope is
    // negative, otherwise a term proportional to the items.
    const int keep = distinct && f.fixed < 0.0 ? 1 : 0;
    auto r = fit_linear(X.col(keep), y, w);
    f.fixed = keep == 0 ? std::max(0.0, r.params[0]) : 0.0;
    f.per_item = keep == 1 ? std::max(0.0, r.params[0]) : 0.0;
  }
  double ss = 0.0;
  for (int i = 0; i < n; ++i) {
    const double e = (f.fixed + f.per_item * X(i, 1) - y[i]) / (y[i] + kUs);
    ss += e * e;
  }
  f.rms_rel_error = n ? std::sqrt(ss / n) : 0.0;
  // The measured values themselves, averaged over the rows of each request size: the line
  // above extrapolates, the table is what the server did at the sizes it was measured at.
  std::map<int, std::pair<double, int>> by_batch;
  for (int i = 0; i < n; ++i) {
    auto& [sum, count] = by_batch[rows[i].batch];
    sum += y[i];
    ++count;
  }
  for (const auto& [b, acc] : by_batch) {
    f.batch.push_back(b);
    f.seconds.push_back(acc.first / acc.second);
  }
  return f;
}

ojson phase_json(const PhaseFit& f) {
  ojson j{{"fixed", f.fixed}, {"per_item", f.per_item}};
  if (!f.batch.empty()) {
    j["batch"] = f.batch;
    j["seconds"] = f.seconds;
  }
  return j;
}

struct Overheads {
  PhaseFit client_send, server, client_recv;
  double cv = 0.0;  // lognormal jitter of each direction's overhead; 0: constant
};

// What the simulator's replay asks of the fitted curve: a factor at the batch each row's
// executions actually had, piecewise linear in log(items) between those anchors and constant
// beyond them, so the curve's shape is kept where no row speaks.
struct Correction {
  struct Anchor {
    double items = 1.0, factor = 1.0;
  };
  std::vector<Anchor> anchors;  // per fitted row, any order

  // Anchors within 1% of one another act as one, at their geometric mean.
  std::vector<Anchor> merged() const {
    std::vector<Anchor> a = anchors;
    std::sort(a.begin(), a.end(),
              [](const Anchor& x, const Anchor& y) { return x.items < y.items; });
    std::vector<Anchor> out;
    for (std::size_t i = 0; i < a.size();) {
      std::size_t j = i;
      double log_items = 0.0, log_factor = 0.0;
      while (j < a.size() && a[j].items <= a[i].items * 1.01) {
        log_items += std::log(a[j].items);
        log_factor += std::log(a[j].factor);
        ++j;
      }
      const double n = static_cast<double>(j - i);
      out.push_back({std::exp(log_items / n), std::exp(log_factor / n)});
      i = j;
    }
    return out;
  }

  double at(double items) const { return at(merged(), items); }

  // The factor at `items` through anchors already merged (sorted, distinct).
  static double at(const std::vector<Anchor>& a, double items) {
    if (a.empty()) return 1.0;
    if (items <= a.front().items) return a.front().factor;
    if (items >= a.back().items) return a.back().factor;
    std::size_t i = 1;
    while (a[i].items < items) ++i;
    const double f = std::log(items / a[i - 1].items) / std::log(a[i].items / a[i - 1].items);
    return std::exp((1.0 - f) * std::log(a[i - 1].factor) + f * std::log(a[i].factor));
  }
};

// The curve as the scenario's batch/seconds table: a dense log-spaced tabulation (up to twice
// the largest execution seen and the batch cap) plus the knots of a piecewise curve and the
// correction's anchors, so that interpolating the table loses nothing of either.
ojson curve_table(const CurveFit& c, double max_items, const Correction& corr) {
  std::vector<double> xs = tabulation_points(max_items);
  if (c.kind == CurveKind::Piecewise)
    for (const auto& k : c.knots) xs.push_back(k.items);
  const auto anchors = corr.merged();
  for (const auto& a : anchors) xs.push_back(a.items);
  std::sort(xs.begin(), xs.end());
  std::vector<double> batch, seconds;
  for (double x : xs) {
    if (x < 1.0 || (!batch.empty() && x <= batch.back() * (1.0 + 1e-9))) continue;
    batch.push_back(x);
    seconds.push_back(c.at(x) * Correction::at(anchors, x));
  }
  return ojson{{"batch", batch}, {"seconds", seconds}};
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

// A scenario holding just the calibrated model on one device: what the emulation replays.
scenario::Scenario emulation_scenario(const PerfCalibrationInput& in, const ojson& table,
                                      const Overheads& o) {
  json model = {{"input_bytes_per_item", 0},
                {"output_bytes_per_item", 0},
                {"service_time", json::parse(table.dump())},
                {"max_batch_size", in.server.max_batch_size},
                {"dynamic_batching", json::parse(batching_json(in.server).dump())},
                {"instances", in.server.instances},
                {"request_overhead", json::parse(overhead_json(o).dump())}};
  json doc = {{"name", "calibrate-" + in.model},
              {"duration", 1},
              {"workload",
               {{"jobs", 1},
                {"threads_per_job", 1},
                {"cpu_time_per_event", 0},
                {"requests", json::array({{{"model", in.model}, {"offload_fraction", 0}}})}}},
              {"models", {{in.model, model}}},
              {"servers", json::array({{{"name", "server"},
                                        {"count", 1},
                                        {"device", in.device},
                                        {"models", json::array({in.model})}}})}};
  return scenario::load_json(doc, "<calibration of " + in.model + ">");
}

double max_items_of(const std::vector<Row>& rows, const ServerSettings& s, const Correction& corr) {
  double most = 1.0;
  for (const auto& r : rows) most = std::max(most, r.point.items);
  for (const auto& a : corr.anchors) most = std::max(most, a.items);
  return std::max(2.0 * most, static_cast<double>(s.max_batch_size));
}

// Rows replayed in the simulator, and how far they landed from the measurements.
struct Replay {
  std::vector<EmulatedPoint> rows;
  std::vector<double> ips_error, p50_error;  // simulated / measured - 1
  // log(simulated / measured speed) of what the service time drives: the throughput of a
  // closed loop; in an open loop the throughput is the offered rate, so the mean latency.
  std::vector<double> drive;

  double rms_ips_error() const { return rms(ips_error); }
  double max_ips_error() const { return max_abs(ips_error); }
  double rms_drive() const { return rms(drive); }
  double max_drive() const { return max_abs(drive); }
  double max_p50_error() const { return max_abs(p50_error); }
  static double max_abs(const std::vector<double>& v) {
    double m = 0.0;
    for (double e : v) m = std::max(m, std::abs(e));
    return m;
  }
  // Distance in units of the round trip's tolerances (5% throughput, 10% p50), worse of the
  // two per row, rms over rows: what the jitter candidates are ranked by.
  double score() const {
    std::vector<double> worst;
    for (std::size_t i = 0; i < ips_error.size(); ++i)
      worst.push_back(std::max(std::abs(ips_error[i]) / 0.05, std::abs(p50_error[i]) / 0.10));
    return rms(worst);
  }
  static double rms(const std::vector<double>& v) {
    double ss = 0.0;
    for (double e : v) ss += e * e;
    return v.empty() ? 0.0 : std::sqrt(ss / static_cast<double>(v.size()));
  }
};

struct JitterScore {
  double cv, rms_error, max_error, max_p50_error, score;
};

// The simulator-driven correction of the curve for one overhead jitter.
struct Refinement {
  double cv = 0.0;
  Correction correction;  // as last updated
  Correction kept;        // of the kept iteration
  ojson table;            // the kept iteration's curve
  Replay replay;          // and its replay
  int chosen_iteration = 0;
  struct Step {
    int iteration;
    double rms_error, max_error, score;
  };
  std::vector<Step> history;
};

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

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * x);
  return buf;
}

}  // namespace

PerfCalibration calibrate_perf_analyzer(const PerfCalibrationInput& in) {
  std::vector<Row> rows;
  std::vector<scenario::Problem> problems;
  for (const auto& scan : in.scans) {
    if (in.server.max_batch_size > 0 && scan.batch_size > in.server.max_batch_size)
      problems.push_back(
          {scan.file, "batch size " + std::to_string(scan.batch_size) + " (from the " +
                          scan.batch_source + ") is above max_batch_size " +
                          std::to_string(in.server.max_batch_size) + " of " + in.server.source +
                          ": Triton would have rejected these requests, so the measured server "
                          "had a larger max_batch_size; give it with --max-batch-size (0 = no "
                          "limit)"});
    for (const auto& r : scan.rows) {
      Row row{&scan, &r, scan.batch_size, 0.0, true, {}};
      if (scan.mode == LoadMode::Concurrency && r.mean_latency_us() > 0.0) {
        const double little = r.load * scan.batch_size / (r.mean_latency_us() * kUs);
        row.little_error = r.inferences_per_s / little - 1.0;
        row.consistent = std::abs(row.little_error) <= in.consistency_tolerance;
      }
      if (r.compute_us() <= 0.0) row.consistent = false;
      // Items in execution = throughput x execution time, shared by the instances; an execution
      // holds whole requests, at most the concurrency's worth and what max_batch_size allows.
      double cap = scan.batch_size * (scan.mode == LoadMode::Concurrency ? r.load : 1.0);
      if (in.server.max_batch_size > 0)
        cap = std::min(cap, static_cast<double>(scan.batch_size) *
                                std::max(1, in.server.max_batch_size / scan.batch_size));
      if (!in.server.dynamic_batching) cap = scan.batch_size;
      const double n = r.inferences_per_s * r.compute_us() * kUs / in.server.instances;
      row.point = {std::clamp(n, static_cast<double>(scan.batch_size), std::max(cap, 1.0)),
                   r.compute_us() * kUs};
      rows.push_back(row);
    }
  }
  if (!problems.empty()) throw scenario::InputError("calibrate perf-analyzer", problems);
  std::vector<std::size_t> fit_rows;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].consistent) fit_rows.push_back(i);
  if (fit_rows.empty())
    throw scenario::InputError(
        "calibrate perf-analyzer",
        {{"", "no row is consistent with Little's law within " + pct(in.consistency_tolerance) +
                  "; expected at least one usable measurement"}});

  Overheads ov{fit_phase(rows, &PerfAnalyzerRow::client_send_us),
               fit_phase(rows, &PerfAnalyzerRow::network_server_us),
               fit_phase(rows, &PerfAnalyzerRow::client_recv_us)};

  auto points_of = [&] {
    std::vector<CurvePoint> pts;
    for (std::size_t i : fit_rows) pts.push_back(rows[i].point);
    return pts;
  };
  const CurveKind* forced = in.curve ? &*in.curve : nullptr;
  const CurveChoice choice = choose_curve(points_of(), forced);
  const CurveFit& curve = choice.best();
  if (!curve.ok) {
    std::vector<scenario::Problem> why;
    for (const auto& scan : in.scans)
      why.push_back({scan.file, "batch size " + std::to_string(scan.batch_size)});
    why.push_back(
        {"", std::string("the usable rows give executions of too few sizes for the ") +
                 to_string(curve.kind) + " curve (" + curve.note +
                 "); expected scans at more batch sizes (perf_analyzer -b), or at concurrencies "
                 "that let the batcher form batches of different sizes" +
                 (forced ? ", or another --curve" : "")});
    throw scenario::InputError("calibrate perf-analyzer", why);
  }
  const std::vector<std::size_t>& replayed = fit_rows;

  // Every row replayed in the simulator with a candidate calibration.
  auto replay = [&](const ojson& table, const Overheads& o, const std::vector<std::size_t>& which,
                    std::uint64_t requests) {
    const auto sc = emulation_scenario(in, table, o);
    Replay out;
    for (std::size_t i : which) {
      const Row& r = rows[i];
      EmulationOptions eo;
      eo.model = in.model;
      eo.batch_size = r.batch;
      eo.requests = requests;
      const bool closed = r.scan->mode == LoadMode::Concurrency;
      const auto e = closed
                         ? emulate_concurrency(sc, eo, static_cast<int>(std::lround(r.row->load)))
                         : emulate_request_rate(sc, eo, r.row->load);
      out.rows.push_back(e);
      out.ips_error.push_back(e.row.inferences_per_s / r.row->inferences_per_s - 1.0);
      out.p50_error.push_back(e.row.p50_us / r.row->p50_us - 1.0);
      out.drive.push_back(
          closed ? std::log1p(out.ips_error.back())
                 : std::log(r.row->mean_latency_us() / std::max(e.row.mean_latency_us(), 1e-9)));
    }
    return out;
  };

  // The smooth curve is fitted to deconvolved points, which assume every execution of a row
  // had the row's mean size; the real executions mix sizes (1 and 3 requests, 2 and 2, ...)
  // and where the curve bends that mix costs more or less than its mean. The simulator knows
  // the mix, so it corrects the curve: each row's speed error (throughput; in an open loop,
  // mean latency) moves a factor anchored at
  // the batch its executions had, until the replayed throughputs match (secant steps on
  // log factor against log throughput, a few iterations). How requests group also depends on
  // how much the time outside the server varies (with clockwork overheads four clients lock
  // into one grouping forever, with jitter they settle where the real server did); that
  // jitter is not in perf_analyzer's columns, so each candidate is refined and the one whose
  // replay is closest to the rows, throughput and p50 together, is kept.
  const std::vector<double> jitter_candidates =
      in.refine ? std::vector<double>{0.0, 0.25, 0.5, 1.0} : std::vector<double>{0.0};
  std::vector<JitterScore> jitter_scores;
  Refinement best;
  for (double cv : jitter_candidates) {
    ov.cv = cv;
    Refinement ref;
    ref.cv = cv;
    for (std::size_t i : replayed) ref.correction.anchors.push_back({rows[i].point.items, 1.0});
    std::vector<double> last_drive(replayed.size(), 0.0), last_log_factor(replayed.size());
    const int last_iteration = in.refine ? in.refine_iterations : 0;
    for (int iteration = 0; iteration <= last_iteration; ++iteration) {
      const ojson table =
          curve_table(curve, max_items_of(rows, in.server, ref.correction), ref.correction);
      const Replay r = replay(table, ov, replayed, in.refine_requests);
      const double score = r.score();
      ref.history.push_back({iteration, r.rms_drive(), r.max_drive(), score});
      if (ref.table.is_null() || r.rms_drive() < ref.replay.rms_drive()) {
        ref.table = table;
        ref.replay = r;
        ref.chosen_iteration = iteration;
        ref.kept = ref.correction;
      }
      if (r.max_drive() < 0.002 || iteration == last_iteration) break;
      for (std::size_t k = 0; k < replayed.size(); ++k) {
        auto& a = ref.correction.anchors[k];
        const double drive = r.drive[k];
        const double log_factor = std::log(a.factor);
        // Speed falls as service time grows, by at most as much (a saturated server) and by
        // less where the overheads outside it dominate the latency.
        double elasticity = 1.0;
        if (iteration > 0 && std::abs(log_factor - last_log_factor[k]) > 1e-6)
          elasticity =
              std::clamp(-(drive - last_drive[k]) / (log_factor - last_log_factor[k]), 0.2, 1.5);
        last_drive[k] = drive;
        last_log_factor[k] = log_factor;
        a.factor *= std::exp(std::clamp(drive / elasticity, -0.7, 0.7));
        if (r.rows[k].items_per_execution > 0.0) a.items = r.rows[k].items_per_execution;
      }
    }
    jitter_scores.push_back({cv, ref.replay.rms_ips_error(), ref.replay.max_ips_error(),
                             ref.replay.max_p50_error(), ref.replay.score()});
    // A smoother model needs a clear gain: a tenth of the tolerance.
    if (best.table.is_null() || ref.replay.score() < best.replay.score() - 0.1) best = ref;
  }
  ov.cv = best.cv;
  const ojson& table = best.table;

  PerfCalibration out;
  // Round trip: every row replayed with the final calibration, at the emulation's full length.
  std::vector<std::size_t> all_rows(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) all_rows[i] = i;
  const Replay final_replay = replay(table, ov, all_rows, EmulationOptions{}.requests);
  for (std::size_t k = 0; k < all_rows.size(); ++k) {
    const Row& r = rows[all_rows[k]];
    const auto& e = final_replay.rows[k];
    PerfCalibration::RoundTrip t;
    t.file = r.scan->file;
    t.line = r.row->line;
    t.batch_size = r.batch;
    t.load = r.row->load;
    t.mode = r.scan->mode;
    t.consistent = r.consistent;
    t.measured_ips = r.row->inferences_per_s;
    t.simulated_ips = e.row.inferences_per_s;
    t.ips_error = final_replay.ips_error[k];
    t.measured_p50_us = r.row->p50_us;
    t.simulated_p50_us = e.row.p50_us;
    t.p50_error = final_replay.p50_error[k];
    t.measured_compute_us = r.row->compute_us();
    t.simulated_compute_us = e.row.compute_us();
    t.measured_queue_us = r.row->server_queue_us;
    t.simulated_queue_us = e.row.server_queue_us;
    t.requests_per_execution = e.requests_per_execution;
    out.round_trip.push_back(t);
  }
  std::sort(out.round_trip.begin(), out.round_trip.end(), [](const auto& a, const auto& b) {
    return std::tie(a.mode, a.batch_size, a.load, a.file, a.line) <
           std::tie(b.mode, b.batch_size, b.load, b.file, b.line);
  });

  // ---- the file ------------------------------------------------------------------------
  ojson& d = out.doc;
  d["sonicsim_calibration"] = 1;
  d["model"] = in.model;
  d["device"] = in.device;
  if (!in.hardware.empty()) d["hardware"] = in.hardware;
  d["created_by"] = std::string("sonicsim ") + SONICSIM_VERSION;
  if (!in.command_line.empty()) d["command"] = in.command_line;
  if (!in.notes.empty()) d["notes"] = in.notes;
  ojson sources = ojson::array();
  for (const auto& s : in.scans)
    sources.push_back({{"file", std::filesystem::path(s.file).filename().string()},
                       {"path", s.file},
                       {"sha256", s.sha256},
                       {"batch_size", s.batch_size},
                       {"batch_size_from", s.batch_source},
                       {"mode", s.mode == LoadMode::Concurrency ? "concurrency" : "request_rate"},
                       {"rows", s.rows.size()}});
  d["sources"] = sources;
  if (!in.tool_version.empty()) d["tool_version"] = in.tool_version;
  d["server"] = {{"max_batch_size", in.server.max_batch_size},
                 {"dynamic_batching", batching_json(in.server)},
                 {"instances", in.server.instances},
                 {"from", in.server.source}};
  d["service_time"] = table;
  d["request_overhead"] = overhead_json(ov);

  ojson fit;
  fit["chosen"] = to_string(curve.kind);
  fit["why"] = choice.why;
  ojson jitter = ojson::array();
  for (const auto& j : jitter_scores)
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
      }
      j["rms_rel_error"] = c.rms_rel_error;
      j["max_rel_error"] = c.max_rel_error;
      j["loo_rms_rel_error"] =
          std::isfinite(c.loo_rms_rel_error) ? ojson(c.loo_rms_rel_error) : ojson(nullptr);
    }
    candidates.push_back(j);
  }
  fit["candidates"] = candidates;
  ojson points = ojson::array();
  std::vector<std::pair<double, std::pair<double, double>>> split;
  for (const auto& r : rows) {
    ojson p{{"file", std::filesystem::path(r.scan->file).filename().string()},
            {"line", r.row->line},
            {"batch_size", r.batch},
            {"load", r.row->load},
            {"items_per_execution", r.point.items},
            {"compute_s", r.row->compute_us() * kUs},
            {"curve_s", curve.at(r.point.items)},
            {"residual", curve.at(r.point.items) / (r.row->compute_us() * kUs) - 1.0},
            {"correction", best.kept.at(r.point.items)},
            {"little_law_error", r.little_error},
            {"used", r.consistent}};
    points.push_back(p);
    if (r.row->compute_us() > 0.0)
      split.push_back({r.point.items,
                       {r.row->compute_input_us / r.row->compute_us(),
                        r.row->compute_output_us / r.row->compute_us()}});
  }
  fit["points"] = points;
  d["fit"] = fit;
  d["overhead_fit"] = {{"client_send_rms_rel_error", ov.client_send.rms_rel_error},
                       {"server_rms_rel_error", ov.server.rms_rel_error},
                       {"client_recv_rms_rel_error", ov.client_recv.rms_rel_error}};
  std::sort(split.begin(), split.end());
  ojson sx = ojson::array(), si = ojson::array(), so = ojson::array();
  for (const auto& [items, shares] : split) {
    sx.push_back(items);
    si.push_back(shares.first);
    so.push_back(shares.second);
  }
  d["compute_split"] = {{"items", sx}, {"input_share", si}, {"output_share", so}};

  ojson rt = ojson::array();
  for (const auto& t : out.round_trip)
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
  d["round_trip"] = rt;

  // ---- the report -----------------------------------------------------------------------
  std::string& s = out.report;
  char buf[512];
  std::snprintf(buf, sizeof buf, "calibration of %s on %s from %zu file(s), %zu row(s)\n",
                in.model.c_str(), in.device.c_str(), in.scans.size(), rows.size());
  s += buf;
  s += "server     " + in.server.source + "\n";
  for (const auto& c : choice.candidates) {
    if (!c.ok) {
      std::snprintf(buf, sizeof buf, "curve      %-10s  not fitted: %s\n", to_string(c.kind),
                    c.note.c_str());
    } else {
      std::snprintf(
          buf, sizeof buf,
          "curve      %-10s  in-sample rms %5.1f%%  max %5.1f%%  held-out rms %5.1f%%%s\n",
          to_string(c.kind), 100 * c.rms_rel_error, 100 * c.max_rel_error,
          100 * c.loo_rms_rel_error, &c == &curve ? "  <- chosen" : "");
    }
    s += buf;
  }
  s += "           " + choice.why + "\n";
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
  s += "round trip (perf_analyzer emulated with this calibration)\n";
  s += "  batch       load   measured inf/s  simulated   error   p50 measured  simulated   error\n";
  for (const auto& t : out.round_trip) {
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
  for (const auto& r : rows)
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
  return out;
}

}  // namespace sonicsim::calibration
