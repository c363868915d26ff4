#include <sonicsim/calibration/perf_calibration.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include <sonicsim/calibration/least_squares.hpp>
#include <sonicsim/calibration/perf_emulation.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/numbers.hpp>

#include "perf_calibration_steps.hpp"

namespace sonicsim::calibration {
namespace perf_fit {
namespace {

using json = nlohmann::json;

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
    f.fixed_ci95 = r.ci95_halfwidth(0);
    f.per_item_ci95 = r.ci95_halfwidth(1);
    if (r.covariance.size())
      f.covariance = {r.covariance(0, 0), r.covariance(0, 1), r.covariance(1, 0),
                      r.covariance(1, 1)};
  }
  if (!distinct || f.fixed < 0.0 || f.per_item < 0.0) {
    // One term alone: a constant when the batch sizes cannot separate them or the slope is
    // negative, otherwise a term proportional to the items.
    const int keep = distinct && f.fixed < 0.0 ? 1 : 0;
    auto r = fit_linear(X.col(keep), y, w);
    f.fixed = keep == 0 ? std::max(0.0, r.params[0]) : 0.0;
    f.per_item = keep == 1 ? std::max(0.0, r.params[0]) : 0.0;
    f.fixed_ci95 = keep == 0 ? r.ci95_halfwidth(0) : 0.0;
    f.per_item_ci95 = keep == 1 ? r.ci95_halfwidth(0) : 0.0;
    // The term held at zero varies with nothing.
    f.covariance = {0.0, 0.0, 0.0, 0.0};
    f.covariance[static_cast<std::size_t>(3 * keep)] =
        r.covariance.size() ? r.covariance(0, 0) : kNaN;
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

// A scenario holding just the calibrated model on one device: what the emulation replays.
scenario::Scenario emulation_scenario(const PerfCalibrationInput& in, const ojson& table,
                                      const Overheads& o) {
  json model = {{"input_bytes_per_item", in.host ? in.host->input_bytes_per_item : 0.0},
                {"output_bytes_per_item", in.host ? in.host->output_bytes_per_item : 0.0},
                {"service_time", json::parse(table.dump())},
                {"max_batch_size", in.server.max_batch_size},
                {"dynamic_batching", json::parse(batching_json(in.server).dump())},
                {"instances", in.server.instances},
                {"request_overhead", json::parse(overhead_json(o).dump())}};
  json server = {
      {"name", "server"}, {"count", 1}, {"device", in.device}, {"models", json::array({in.model})}};
  if (in.host && o.host) {
    // The replay's host: the measured machine's cores doing the server column's CPU share.
    model["host_cost"] = {{"per_request", o.host->per_request},
                          {"per_byte_in", o.host->per_byte_in},
                          {"per_byte_out", o.host->per_byte_out},
                          {"in_server_overhead", true}};
    server["host"] = {{"cores", in.host->cores}};
  }
  json doc = {{"name", "calibrate-" + in.model},
              {"duration", 1},
              {"workload",
               {{"jobs", 1},
                {"threads_per_job", 1},
                {"cpu_time_per_event", 0},
                {"requests", json::array({{{"model", in.model}, {"offload_fraction", 0}}})}}},
              {"models", {{in.model, model}}},
              {"servers", json::array({server})}};
  return scenario::load_json(doc, "<calibration of " + in.model + ">");
}

double max_items_of(const std::vector<Row>& rows, const ServerSettings& s, const Correction& corr) {
  double most = 1.0;
  for (const auto& r : rows) most = std::max(most, r.point.items);
  for (const auto& a : corr.anchors) most = std::max(most, a.items);
  return std::max(2.0 * most, static_cast<double>(s.max_batch_size));
}

// ---- reading and checking the rows ----------------------------------------------------------

// One row of a scan with its Little's-law check and its deconvolved point.
Row checked_row(const PerfCalibrationInput& in, const PerfAnalyzerScan& scan,
                const PerfAnalyzerRow& r) {
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
  return row;
}

// Every row of every scan, in order; throws when a scan's requests exceed max_batch_size.
std::vector<Row> read_perf_rows(const PerfCalibrationInput& in) {
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
    for (const auto& r : scan.rows) rows.push_back(checked_row(in, scan, r));
  }
  if (!problems.empty()) throw scenario::InputError("calibrate perf-analyzer", problems);
  return rows;
}

// The indices of the rows the curve is fitted to (the consistent ones); throws when none is.
std::vector<std::size_t> consistent_rows(const PerfCalibrationInput& in,
                                         const std::vector<Row>& rows) {
  std::vector<std::size_t> fit_rows;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].consistent) fit_rows.push_back(i);
  if (fit_rows.empty())
    throw scenario::InputError(
        "calibrate perf-analyzer",
        {{"", "no row is consistent with Little's law within " + pct(in.consistency_tolerance) +
                  "; expected at least one usable measurement"}});
  return fit_rows;
}

// ---- fitting the service curve ---------------------------------------------------------------

// Every curve kind fitted to the rows' points, the best chosen (or the forced one); throws when
// the chosen one cannot be fitted.
CurveChoice fit_service_curve(const PerfCalibrationInput& in, const std::vector<Row>& rows,
                              const std::vector<std::size_t>& fit_rows) {
  std::vector<CurvePoint> points;
  for (std::size_t i : fit_rows) points.push_back(rows[i].point);
  const CurveKind* forced = in.curve ? &*in.curve : nullptr;
  CurveChoice choice = choose_curve(points, forced);
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
  return choice;
}

// ---- refining the curve by replay ------------------------------------------------------------

// The rows `which` replayed in the simulator with a candidate calibration.
Replay replay_rows(const PerfCalibrationInput& in, const std::vector<Row>& rows, const ojson& table,
                   const Overheads& o, const std::vector<std::size_t>& which,
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
                       ? in.emulate.concurrency(sc, eo, static_cast<int>(std::lround(r.row->load)))
                       : in.emulate.request_rate(sc, eo, r.row->load);
    out.rows.push_back(e);
    out.ips_error.push_back(e.row.inferences_per_s / r.row->inferences_per_s - 1.0);
    out.p50_error.push_back(e.row.p50_us / r.row->p50_us - 1.0);
    out.drive.push_back(
        closed ? std::log1p(out.ips_error.back())
               : std::log(r.row->mean_latency_us() / std::max(e.row.mean_latency_us(), 1e-9)));
  }
  return out;
}

// The secant step state of each anchor: its last speed error and log factor.
struct SecantMemory {
  std::vector<double> drive, log_factor;
};

// One secant step: each anchor's factor moved by its row's speed error, and the anchor moved to
// the items per execution its replay had.
void move_anchors(Correction& correction, const Replay& r, int iteration, SecantMemory& last) {
  for (std::size_t k = 0; k < correction.anchors.size(); ++k) {
    auto& a = correction.anchors[k];
    const double drive = r.drive[k];
    const double log_factor = std::log(a.factor);
    // Speed falls as service time grows, by at most as much (a saturated server) and by
    // less where the overheads outside it dominate the latency.
    double elasticity = 1.0;
    if (iteration > 0 && std::abs(log_factor - last.log_factor[k]) > 1e-6)
      elasticity =
          std::clamp(-(drive - last.drive[k]) / (log_factor - last.log_factor[k]), 0.2, 1.5);
    last.drive[k] = drive;
    last.log_factor[k] = log_factor;
    a.factor *= std::exp(std::clamp(drive / elasticity, -0.7, 0.7));
    if (r.rows[k].items_per_execution > 0.0) a.items = r.rows[k].items_per_execution;
  }
}

// The curve corrected by the simulator for the overhead jitter `ov.cv`, keeping the iteration
// whose replay of the rows `replayed` is closest in speed.
Refinement refine_curve(const PerfCalibrationInput& in, const std::vector<Row>& rows,
                        const CurveFit& curve, const Overheads& ov,
                        const std::vector<std::size_t>& replayed) {
  Refinement ref;
  ref.cv = ov.cv;
  for (std::size_t i : replayed) ref.correction.anchors.push_back({rows[i].point.items, 1.0});
  SecantMemory last{std::vector<double>(replayed.size(), 0.0),
                    std::vector<double>(replayed.size())};
  const int last_iteration = in.refine ? in.refine_iterations : 0;
  for (int iteration = 0; iteration <= last_iteration; ++iteration) {
    const ojson table =
        curve_table(curve, max_items_of(rows, in.server, ref.correction), ref.correction);
    const Replay r = replay_rows(in, rows, table, ov, replayed, in.refine_requests);
    const double score = r.score();
    ref.history.push_back({iteration, r.rms_drive(), r.max_drive(), score});
    if (ref.table.is_null() || r.rms_drive() < ref.replay.rms_drive()) {
      ref.table = table;
      ref.replay = r;
      ref.chosen_iteration = iteration;
      ref.kept = ref.correction;
    }
    if (r.max_drive() < 0.002 || iteration == last_iteration) break;
    move_anchors(ref.correction, r, iteration, last);
  }
  return ref;
}

// The smooth curve is fitted to deconvolved points, which assume every execution of a row
// had the row's mean size; the real executions mix sizes (1 and 3 requests, 2 and 2, ...)
// and where the curve bends that mix costs more or less than its mean. The simulator knows
// the mix, so it corrects the curve: each row's speed error (throughput; in an open loop,
// mean latency) moves a factor anchored at the batch its executions had, until the replayed
// throughputs match (secant steps on log factor against log throughput, a few iterations). How
// requests group also depends on how much the time outside the server varies (with clockwork
// overheads four clients lock into one grouping forever, with jitter they settle where the
// real server did); that jitter is not in perf_analyzer's columns, so each candidate is refined
// and the one whose replay is closest to the rows, throughput and p50 together, is kept.
JitterChoice choose_overhead_jitter(const PerfCalibrationInput& in, const std::vector<Row>& rows,
                                    const CurveFit& curve, Overheads ov,
                                    const std::vector<std::size_t>& replayed) {
  const std::vector<double> jitter_candidates =
      in.refine ? std::vector<double>{0.0, 0.25, 0.5, 1.0} : std::vector<double>{0.0};
  JitterChoice out;
  for (double cv : jitter_candidates) {
    ov.cv = cv;
    const Refinement ref = refine_curve(in, rows, curve, ov, replayed);
    out.scores.push_back({cv, ref.replay.rms_ips_error(), ref.replay.max_ips_error(),
                          ref.replay.max_p50_error(), ref.replay.score()});
    // A smoother model needs a clear gain: a tenth of the tolerance.
    if (out.best.table.is_null() || ref.replay.score() < out.best.replay.score() - 0.1)
      out.best = ref;
  }
  return out;
}

// ---- the round trip --------------------------------------------------------------------------

// Every row replayed with the final calibration, at the emulation's full length.
std::vector<PerfCalibration::RoundTrip> replay_round_trip(const PerfCalibrationInput& in,
                                                          const std::vector<Row>& rows,
                                                          const ojson& table, const Overheads& ov) {
  std::vector<PerfCalibration::RoundTrip> round_trip;
  std::vector<std::size_t> all_rows(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) all_rows[i] = i;
  const Replay final_replay =
      replay_rows(in, rows, table, ov, all_rows, EmulationOptions{}.requests);
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
    round_trip.push_back(t);
  }
  std::sort(round_trip.begin(), round_trip.end(), [](const auto& a, const auto& b) {
    return std::tie(a.mode, a.batch_size, a.load, a.file, a.line) <
           std::tie(b.mode, b.batch_size, b.load, b.file, b.line);
  });
  return round_trip;
}

}  // namespace
}  // namespace perf_fit

// The steps live in perf_fit and are named with it: a unity build brings other files' names
// into this namespace.
PerfCalibration calibrate_perf_analyzer(const PerfCalibrationInput& in) {
  const std::vector<perf_fit::Row> rows = perf_fit::read_perf_rows(in);
  const std::vector<std::size_t> fit_rows = perf_fit::consistent_rows(in, rows);
  perf_fit::Overheads ov{perf_fit::fit_phase(rows, &PerfAnalyzerRow::client_send_us),
                         perf_fit::fit_phase(rows, &PerfAnalyzerRow::network_server_us),
                         perf_fit::fit_phase(rows, &PerfAnalyzerRow::client_recv_us), 0.0,
                         std::nullopt};
  if (in.host) ov.host = perf_fit::host_cost_of(ov.server, *in.host);
  const CurveChoice choice = perf_fit::fit_service_curve(in, rows, fit_rows);
  const CurveFit& curve = choice.best();
  const perf_fit::JitterChoice jitter =
      perf_fit::choose_overhead_jitter(in, rows, curve, ov, fit_rows);
  ov.cv = jitter.best.cv;

  PerfCalibration out;
  out.round_trip = perf_fit::replay_round_trip(in, rows, jitter.best.table, ov);
  const perf_fit::CalibrationOutcome outcome{in, rows, choice, curve, jitter, ov, out.round_trip};
  out.doc = perf_fit::calibration_file(outcome);
  out.report = perf_fit::calibration_report(outcome);
  return out;
}

}  // namespace sonicsim::calibration
