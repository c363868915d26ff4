// `calibrate scan`'s fit: least squares of the analytic model over the free parameters, with the
// ones the data cannot tell apart held, then space mapping against the simulator.
#include <sonicsim/calibration/scan.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/SVD>

#include <sonicsim/points/points.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/writer.hpp>
#include <sonicsim/util/numbers.hpp>

#include <sonicsim/util/format.hpp>

#include "scan_detail.hpp"

namespace sonicsim::calibration {

namespace {

using scan_detail::has;
using scan_detail::Moved;
using scan_detail::moved;
using scan_detail::names_of;
using scan_detail::show;
using scenario::InputError;
using util::formatted;

double logistic(double u) {
  return 1.0 / (1.0 + std::exp(-u));
}

// The fit works on u: log of the times, logit of p, so every u is a valid scenario.
double to_u(ScanParam k, double v) {
  return k == ScanParam::P ? std::log(v / (1.0 - v)) : std::log(v);
}
double from_u(ScanParam k, double u) {
  return k == ScanParam::P ? logistic(u) : std::exp(u);
}

struct FitProblem {
  const std::vector<ScanPoint>& points;
  const ScanValues& base;
  const Measurements& m;
  Metric metric;
  AnalyticModel model;
  std::vector<ScanParam> free;
  ScanValues fixed;                // values of the parameters not fitted
  std::vector<double> correction;  // per point, multiplies the analytic model
  // A free t_host: the hosts' bound (cores / t_host) stands beside the corrected rest of the
  // model, not inside what the correction multiplies, so the simulator's view of the devices
  // (batching, which the formula does not know) does not scale the hosts' capacity.
  bool split_host = false;

  ScanValues values_of(const Eigen::VectorXd& u) const {
    ScanValues v = fixed;
    for (std::size_t j = 0; j < free.size(); ++j) v.at(free[j]) = from_u(free[j], u[j]);
    return v;
  }
  double scale(std::size_t i) const { return m.has_stddev ? m.rows[i].stddev : m.rows[i].value; }
  // What the correction multiplies.
  double uncorrected(std::size_t i, const ScanValues& v) const {
    return predict_metric(points[i], base, v, metric, model, !split_host);
  }
  double predicted(std::size_t i, const ScanValues& v) const {
    const double rest = correction[i] * uncorrected(i, v);
    if (!split_host || !(v.t_host > 0.0)) return rest;
    const ScanPoint& pt = points[i];
    const double host = metric_of_throughput(metric, pt.host_cores / v.t_host, pt.n_cpu, pt.jobs);
    return is_time(metric) ? std::max(rest, host) : std::min(rest, host);
  }
  // Events per second at point i for a value of the metric (metric_of_throughput inverted).
  double throughput_of(std::size_t i, double value) const {
    const ScanPoint& pt = points[i];
    switch (metric) {
      case Metric::PerJobThroughput:
        return value * pt.jobs;
      case Metric::Throughput:
        return value;
      case Metric::TimePerEvent:
      case Metric::ThreadTimePerEvent:
        return pt.n_cpu / value;
    }
    return value;
  }
  void residuals(const Eigen::VectorXd& u, Eigen::VectorXd& r) const {
    const ScanValues v = values_of(u);
    for (std::size_t i = 0; i < points.size(); ++i)
      r[static_cast<int>(i)] = (predicted(i, v) - m.rows[i].value) / scale(i);
  }
  ResidualFn fn() const {
    return [this](const Eigen::VectorXd& u, Eigen::VectorXd& r) { residuals(u, r); };
  }
};

Eigen::VectorXd start_u(const std::vector<ScanParam>& free, const ScanValues& start,
                        const ScanValues& base) {
  Eigen::VectorXd u(static_cast<int>(free.size()));
  for (std::size_t j = 0; j < free.size(); ++j) {
    double v = start.get(free[j]);
    // log(0) has no neighbourhood to search: start from a small round trip instead.
    if (free[j] == ScanParam::TLatency && !(v > 0.0))
      v = std::max(1e-6, 1e-3 * (base.t_gpu + base.t_cpu));
    // No host work yet: start where the hosts would bind about as soon as the devices.
    if (free[j] == ScanParam::THost && !(v > 0.0)) v = std::max(1e-6, base.t_gpu);
    if (free[j] == ScanParam::P) v = std::clamp(v, 1e-9, 1.0 - 1e-9);
    u[static_cast<int>(j)] = to_u(free[j], v);
  }
  return u;
}

FitOutcome fit_once(const FitProblem& pb, const ScanValues& start) {
  const int n = static_cast<int>(pb.points.size());
  const ResidualFn f = pb.fn();
  FitOutcome out;
  out.raw = fit_nonlinear(f, n, start_u(pb.free, start, pb.base));
  out.values = pb.values_of(out.raw.params);
  out.weighted_rss = out.raw.rss;
  for (std::size_t i = 0; i < pb.points.size(); ++i)
    out.predicted.push_back(pb.predicted(i, out.values));
  // The core's covariance, except that with measured standard deviations the spread they
  // promise is a floor: a fit closer than the errors allow (reduced chi^2 < 1) does not make the
  // parameters better known than the measurements.
  Eigen::MatrixXd cov = out.raw.covariance;
  if (out.raw.dof > 0 && pb.m.has_stddev && out.raw.rss < out.raw.dof) {
    const NonlinearOptions defaults;
    cov = covariance_from_jacobian(numeric_jacobian(f, out.raw.params, n, defaults.diff_step), 1.0,
                                   100.0 * defaults.diff_step);
  }
  out.reduced_chi2 = out.raw.dof > 0 ? out.raw.rss / out.raw.dof : kNaN;
  for (ScanParam k : all_scan_params()) {
    // Without hosts there is no host stage to report.
    if (k == ScanParam::THost && !(pb.points.front().host_cores > 0.0)) continue;
    ParamEstimate e;
    e.param = k;
    e.scenario_value = pb.base.get(k);
    e.value = out.values.get(k);
    e.ci_low = e.ci_high = kNaN;
    const auto it = std::find(pb.free.begin(), pb.free.end(), k);
    e.free = it != pb.free.end();
    if (e.free) {
      const int j = static_cast<int>(it - pb.free.begin());
      // An unidentifiable parameter's infinite half-width maps back to its whole valid range.
      const double h =
          cov.size() ? t_quantile_95(out.raw.dof) * std::sqrt(std::max(0.0, cov(j, j))) : kNaN;
      if (!std::isnan(h)) {
        e.ci_low = from_u(k, out.raw.params[j] - h);
        e.ci_high = from_u(k, out.raw.params[j] + h);
        e.identified = std::isfinite(h);
      }
    }
    out.params.push_back(e);
  }
  return out;
}

// Levenberg-Marquardt finds the nearest minimum, and in log space a parameter it pushes towards
// 0 lands on a plateau where nothing depends on it any more (the formula's kink invites such
// jumps). So: from the start, from that solution with any parameter that ran more than 100-fold
// put back, and from the start with each parameter 3 times smaller and larger; the lowest
// sum of squares wins (the first on ties, so an ordinary fit keeps its own answer).
FitOutcome fit_best(const FitProblem& pb, const ScanValues& start) {
  FitOutcome best = fit_once(pb, start);
  std::vector<ScanValues> starts;
  ScanValues reset = best.values;
  bool ran = false;
  for (ScanParam k : pb.free) {
    const double from = start_u({k}, start, pb.base)[0], to = start_u({k}, best.values, pb.base)[0];
    if (std::abs(to - from) > std::log(100.0)) {
      reset.at(k) = start.get(k);
      ran = true;
    }
  }
  if (ran) starts.push_back(reset);
  for (ScanParam k : pb.free) {
    for (const double step : {-1.0, 1.0}) {
      ScanValues v = start;
      const double u = start_u({k}, start, pb.base)[0] + step * std::log(3.0);
      v.at(k) = from_u(k, u);
      starts.push_back(v);
    }
  }
  for (const ScanValues& v : starts) {
    FitOutcome f = fit_once(pb, v);
    if (f.raw.rss < best.raw.rss * (1.0 - 1e-9)) best = std::move(f);
  }
  return best;
}

// Free parameters the measurements cannot tell apart at u: a parameter that can move one way
// without changing any prediction (a zero column of the one-sided Jacobian: the formula's kinks
// make a fit stop on the edge of a flat valley), or a direction in which every prediction stays
// put (a null vector of the Jacobian, columns scaled to unit length). Empty when all are
// identifiable.
std::vector<ScanParam> confounded(const FitProblem& pb, const Eigen::VectorXd& u) {
  const int n = static_cast<int>(pb.points.size());
  const Eigen::MatrixXd up = numeric_jacobian(pb.fn(), u, n, 1e-6);
  const Eigen::MatrixXd down = numeric_jacobian(pb.fn(), u, n, -1e-6);
  const double largest = std::max(up.colwise().norm().maxCoeff(), down.colwise().norm().maxCoeff());
  for (int j = 0; j < up.cols(); ++j)
    if (!(up.col(j).norm() > 1e-9 * largest) || !(down.col(j).norm() > 1e-9 * largest))
      return {pb.free[static_cast<std::size_t>(j)]};
  if (up.cols() < 2) return {};
  Eigen::MatrixXd J = 0.5 * (up + down);
  for (int j = 0; j < J.cols(); ++j) J.col(j) /= J.col(j).norm();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeThinV);
  const Eigen::VectorXd s = svd.singularValues();
  // Finite differences leave ~1e-6 of noise on an exact degeneracy; real but weak information
  // (t_GPU near the knee under MVA) sits around 1e-2. Between them the intervals would be
  // hundreds of times the value anyway.
  if (s[s.size() - 1] > 1e-4 * s[0]) return {};
  const Eigen::VectorXd v = svd.matrixV().col(s.size() - 1);
  std::vector<ScanParam> group;
  for (int j = 0; j < v.size(); ++j)
    if (std::abs(v[j]) > 0.2) group.push_back(pb.free[static_cast<std::size_t>(j)]);
  return group;
}

std::string why_confounded(const std::vector<ScanParam>& group, const FitProblem& pb,
                           const ScanValues& v) {
  if (group.size() == 1) {
    return std::string(param_name(group[0])) +
           " does not change the prediction at any measured point (for instance every point "
           "is above the knee, where only t_GPU counts)";
  }
  const bool away = !has(group, ScanParam::TGpu);
  if (away) {
    return names_of(group, " and ") +
           " cannot be told apart by these measurements: a synchronous thread only sees them "
           "through (1-p) t_CPU + t_latency, its time away from the coprocessor";
  }
  bool any_saturated = false;
  for (const ScanPoint& pt : pb.points) {
    const Moved t = moved(pt, pb.base, v);
    any_saturated = any_saturated || (pt.n_gpu > 0 && t.binding * pt.n_cpu / pt.n_gpu > t.ideal);
  }
  return names_of(group, " and ") + " cannot be told apart by these measurements" +
         (any_saturated ? ""
                        : ": every point is below the knee, where only t_ideal = (1-p) t_CPU + "
                          "t_GPU + t_latency shows; measure above the knee too");
}

// Which of a confounded group to hold at the scenario's value: the one a planner knows best.
// t_GPU is the capacity, the reason for the scan; p and t_CPU come from CPU-only profiling;
// t_latency (overheads) is what is usually unknown.
ScanParam to_hold(const std::vector<ScanParam>& group) {
  for (ScanParam k :
       {ScanParam::TCpu, ScanParam::THost, ScanParam::P, ScanParam::TLatency, ScanParam::TGpu})
    if (has(group, k)) return k;
  return group.front();
}

double weighted_rss_of(const std::vector<double>& predicted, const Measurements& m) {
  double rss = 0.0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const double scale = m.has_stddev ? m.rows[i].stddev : m.rows[i].value;
    const double r = (predicted[i] - m.rows[i].value) / scale;
    rss += r * r;
  }
  return rss;
}

double mape_of(const std::vector<double>& predicted, const Measurements& m) {
  double sum = 0.0;
  for (std::size_t i = 0; i < predicted.size(); ++i)
    sum += std::abs(predicted[i] - m.rows[i].value) / m.rows[i].value;
  return predicted.empty() ? kNaN : 100.0 * sum / static_cast<double>(predicted.size());
}

}  // namespace

// ---- fit and refinement ----------------------------------------------------------------------

namespace {

// Parameters the scenario cannot carry are bad input, named before any fit.
void check_free(const ScanValues& base, const std::vector<ScanPoint>& points, const Measurements& m,
                const ScanOptions& options) {
  if (options.free.empty()) throw InputError("--free", {{"", "found no parameter to fit"}});
  std::vector<scenario::Problem> problems;
  const double requests = points.empty() ? 0.0 : points.front().requests_per_event;
  for (ScanParam k : options.free) {
    if (k == ScanParam::TGpu && !(base.t_gpu > 0.0))
      problems.push_back({"",
                          "t_gpu: no request is served by a pool (t_GPU = 0), so no curve "
                          "to scale; drop t_gpu from --free"});
    if (k == ScanParam::P && !(base.p > 0.0))
      problems.push_back({"",
                          "p: the served requests' offload fractions are all 0 and scaling "
                          "cannot move them; set one with --set or drop p from --free"});
    if (k == ScanParam::TCpu && !(base.t_cpu > 0.0))
      problems.push_back({"", "t_cpu: workload.cpu_time_per_event has mean 0; nothing to scale"});
    if (k == ScanParam::THost && !(points.front().host_cores > 0.0))
      problems.push_back({"",
                          "t_host: no pool serving the requests has host cores "
                          "(servers[i].host.cores), so there is no host stage to fit; give the "
                          "pools their hosts' cores (--set servers.0.host.cores=N) or drop "
                          "t_host from --free"});
    if (k == ScanParam::TLatency && !(requests > 0.0))
      problems.push_back({"",
                          "t_latency: no request is served by a pool, so there is no request "
                          "to carry an overhead; drop t_latency from --free"});
  }
  if (!problems.empty()) throw InputError("--free", std::move(problems));
  if (m.rows.size() < min_scan_rows(options.free.size())) {
    throw InputError(
        m.file,
        {{"", "found " + std::to_string(m.rows.size()) + " data rows, expected at least " +
                  std::to_string(options.free.size() + 1) + " to fit " +
                  std::to_string(options.free.size()) + " parameters with an error estimate"}});
  }
}

// A parameter the fit drove to the edge of its range stops mattering there: why, in words, or
// "" when it stayed in reach.
std::string ran_off(ScanParam k, const ScanValues& v, const ScanValues& base) {
  if (!(std::abs(start_u({k}, v, base)[0] - start_u({k}, base, base)[0]) > std::log(1000.0)))
    return "";
  const bool up = v.get(k) > base.get(k);
  std::string why = "the fit drives " + std::string(param_name(k)) + " to " +
                    (k == ScanParam::P ? (up ? "1" : "0") : (up ? "infinity" : "0")) +
                    ": the measurements are " + (up == (k == ScanParam::P) ? "faster" : "slower") +
                    " than any value of it explains, or too noisy to show it";
  if (k == ScanParam::P && up) why += " (p >= 1 would leave no CPU work per event)";
  return why;
}

// A t_host that changes no prediction means the hosts never bind at the measured points: it is
// held at the scenario's value, and what the data do say is an upper bound, the t_host at which
// the hosts would just bind at the busiest point (cores / throughput there).
void hold_host(FitProblem& pb, ScanResult& r) {
  pb.free.erase(std::find(pb.free.begin(), pb.free.end(), ScanParam::THost));
  double upper = std::numeric_limits<double>::infinity();
  ScanValues v = r.analytic_fit.values;
  v.t_host = 0.0;  // the model without the hosts' bound
  for (std::size_t i = 0; i < pb.points.size(); ++i) {
    const double x = pb.throughput_of(i, pb.predicted(i, v));
    if (x > 0.0) upper = std::min(upper, pb.points[i].host_cores / x);
  }
  r.t_host_upper = upper;
  r.notes.push_back(
      "t_host is not determined by these measurements: the hosts bind at no "
      "measured point, so the data only say t_host < " +
      show(ScanParam::THost, upper) +
      " (their cores over the highest throughput); kept at the scenario's " +
      show(ScanParam::THost, pb.base.t_host) +
      "; measure where the hosts saturate (more jobs, larger inputs) to fit it");
  if (pb.free.empty())
    throw InputError(pb.m.file, {{"",
                                  "these measurements determine none of the parameters: "
                                  "the hosts bind at no measured point"}});
}

// The analytic fit, holding at the scenario's value what the data cannot separate (an error
// when the user chose the parameters).
void fit_analytic(FitProblem& pb, const ScanOptions& options, const ScanValues& start,
                  ScanResult& r) {
  const ScanValues& base = pb.base;
  for (;;) {
    // A pair that is degenerate at the scenario's values may only look so there (every point
    // below the model's knee until t_GPU moves): the fit decides. But a truly degenerate pair
    // lets the fit wander to where one of them stops mattering at all (a latency driven to 0 in
    // log space), which would hide the pair: then the pair seen at the start is the answer.
    const auto at_start = confounded(pb, start_u(pb.free, start, base));
    r.analytic_fit = fit_best(pb, start);
    const ScanValues& v = r.analytic_fit.values;
    auto group = confounded(pb, start_u(pb.free, v, base));
    if (group.empty()) break;
    std::string off;
    ScanValues seen_at = v;
    if (!at_start.empty()) {
      group = at_start;
      seen_at = base;
    } else if (group.size() == 1) {
      off = ran_off(group.front(), v, base);
    }
    const std::string why = off.empty() ? why_confounded(group, pb, seen_at) : off;
    if (group.size() == 1 && group.front() == ScanParam::THost) {
      hold_host(pb, r);
      continue;
    }
    if (options.free_given && !off.empty()) {
      throw InputError("--free",
                       {{"", "--free " + names_of(options.free) + ": " + why +
                                 "; check the scenario's other inputs, or hold " +
                                 param_name(group.front()) + " (leave it out of --free)"}});
    }
    if (options.free_given) {
      throw InputError("--free",
                       {{"", "--free " + names_of(options.free) + ": " + why +
                                 "; fit fewer of them (for instance --free " + names_of([&] {
                                   auto keep = options.free;
                                   keep.erase(std::find(keep.begin(), keep.end(), to_hold(group)));
                                   return keep;
                                 }()) +
                                 ") or measure what separates them"}});
    }
    const ScanParam hold = to_hold(group);
    pb.free.erase(std::find(pb.free.begin(), pb.free.end(), hold));
    r.notes.push_back(why + ": " + param_name(hold) + " kept at the scenario's " +
                      show(hold, base.get(hold)) + " (choose with --free)");
    if (pb.free.empty())
      throw InputError(pb.m.file,
                       {{"", "these measurements determine none of the parameters: " + why}});
  }
}

// A free t_host. The formula does not know batching, so its devices can look slower than the
// measured hosts: with a simulator, the model is first corrected by a simulation at the
// scenario's values (the hosts' bound kept out of the correction). And a t_host that lets the
// hosts bind nowhere changes no prediction, which would stop the fit where it starts: where the
// model is faster than the measurements, it starts where the hosts bind at their throughput.
ScanValues host_start(FitProblem& pb, const Simulator* simulator, ScanResult& r) {
  if (simulator) {
    const std::vector<double> simulated = (*simulator)(pb.base);
    for (std::size_t i = 0; i < pb.points.size(); ++i)
      if (simulated[i] > 0.0 && std::isfinite(simulated[i]))
        pb.correction[i] = simulated[i] / pb.uncorrected(i, pb.base);
    r.notes.push_back(
        "t_host free: the analytic model was corrected by a simulation at the "
        "scenario's values before the fit (it does not know batching)");
  }
  // Only points the model overshoots ask for a host that binds (elsewhere a binding host and
  // a slower device can look alike, and the scenario's own reading is kept); 10% past binding,
  // so that the fit sees t_host act both ways from the start.
  double binding = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < pb.points.size(); ++i) {
    const double measured = pb.throughput_of(i, pb.m.rows[i].value);
    if (pb.throughput_of(i, pb.predicted(i, pb.base)) > 1.02 * measured)
      binding = std::min(binding, pb.points[i].host_cores / measured);
  }
  ScanValues start = pb.base;
  if (std::isfinite(binding)) start.t_host = std::max(start.t_host, 1.1 * binding);
  return start;
}

// Output space mapping: simulate at the current parameters, correct the analytic model by the
// simulated/analytic ratio seen there (it then matches the simulator there), refit, until the
// parameters settle. Reports the round closest to the measurements when they do not.
void refine(FitProblem& pb, const ScanOptions& options, const Simulator& simulator, ScanResult& r) {
  const Measurements& m = pb.m;
  r.refined = true;
  FitOutcome current = r.analytic_fit;
  std::optional<ScanValues> previous;
  double best_rss = std::numeric_limits<double>::infinity();
  FitOutcome best;
  std::vector<double> best_sim;
  for (int round = 0; round <= options.max_refinements; ++round) {
    Round rd;
    rd.values = current.values;
    rd.simulated = simulator(current.values);
    for (std::size_t i = 0; i < rd.simulated.size(); ++i)
      if (!(rd.simulated[i] > 0.0) || !std::isfinite(rd.simulated[i]))
        throw std::runtime_error("the simulation of point " + format_x(m.rows[i].x) +
                                 " gave no usable " + metric_name(options.metric));
    rd.mape_percent = mape_of(rd.simulated, m);
    bool settled = previous.has_value();
    for (const ParamEstimate& e : current.params) {
      if (!e.free || !previous) continue;
      const double before = previous->get(e.param);
      const double moved = std::abs(e.value - before) / std::max(std::abs(before), 1e-300);
      rd.max_change = std::max(rd.max_change, moved);
      // Simulation noise moves a parameter by a fraction of its interval each round; chasing
      // it below that would never end.
      const double interval = std::isfinite(e.ci_high) && std::isfinite(e.ci_low)
                                  ? 0.5 * (e.ci_high - e.ci_low) / std::abs(e.value)
                                  : 0.0;
      if (moved > std::max(options.tolerance, 0.1 * interval)) settled = false;
    }
    r.rounds.push_back(rd);
    const double rss = weighted_rss_of(rd.simulated, m);
    if (rss < best_rss) {
      best_rss = rss;
      best = current;
      best_sim = rd.simulated;
    }
    if (settled) {
      r.converged = true;
      best = current;
      best_sim = rd.simulated;
      break;
    }
    if (round == options.max_refinements) break;
    for (std::size_t i = 0; i < pb.points.size(); ++i)
      pb.correction[i] = rd.simulated[i] / pb.uncorrected(i, current.values);
    previous = current.values;
    current = fit_best(pb, current.values);
    if (!current.raw.converged)
      r.notes.push_back("refinement round " + std::to_string(round + 1) +
                        ": the fit did not converge: " + current.raw.message);
  }
  if (!r.converged)
    r.notes.push_back("the refinement did not settle within " +
                      std::to_string(options.max_refinements) +
                      " rounds; reporting the simulated round closest to the measurements");
  r.fit = best;
  r.final_prediction = best_sim;
}

}  // namespace

ScanResult fit_scan(const std::vector<ScanPoint>& points, const ScanValues& base,
                    const Measurements& m, const ScanOptions& options, const Simulator* simulator) {
  if (points.size() != m.rows.size())
    throw std::logic_error("fit_scan: one scan point per measurement expected");
  check_free(base, points, m, options);

  ScanResult r;
  r.base = base;
  r.model = options.model;
  FitProblem pb{points,        base,         m,    options.metric,
                options.model, options.free, base, std::vector<double>(points.size(), 1.0)};
  pb.split_host = has(options.free, ScanParam::THost) && points.front().host_cores > 0.0;
  const ScanValues start = pb.split_host ? host_start(pb, simulator, r) : base;
  fit_analytic(pb, options, start, r);
  r.free = pb.free;
  if (!r.analytic_fit.raw.converged)
    r.notes.push_back("the analytic fit did not converge: " + r.analytic_fit.raw.message);
  r.fit = r.analytic_fit;
  r.final_prediction = r.fit.predicted;
  if (simulator) refine(pb, options, *simulator, r);

  if (!std::isnan(r.t_host_upper))
    for (FitOutcome* f : {&r.analytic_fit, &r.fit})
      for (ParamEstimate& e : f->params)
        if (e.param == ScanParam::THost) {
          e.free = true;
          e.identified = false;
          e.ci_low = 0.0;
          e.ci_high = r.t_host_upper;
        }
  r.mape_percent = mape_of(r.final_prediction, m);
  if (m.rows.size() == r.free.size())
    r.notes.push_back(
        "as many measurements as free parameters: the fit goes through them "
        "exactly and says nothing of its own error (no interval); measure more "
        "points to know how well the value is determined");
  if (r.mape_percent > 5.0)
    r.notes.push_back("the fitted model still misses the measurements by " +
                      formatted("%.1f%%", r.mape_percent) + " on average: moving " +
                      names_of(r.free, ", ") +
                      " alone cannot follow them; free more parameters or check the scenario's "
                      "other inputs before trusting the fit");
  if (!m.has_stddev && r.fit.reduced_chi2 < 1e-10)
    r.notes.push_back(
        "the model reproduces every measurement to better than 1e-5: the 95% "
        "intervals, which come from the residuals' spread, have next to no width; "
        "give " +
        std::string(metric_name(m.metric)) +
        "_stddev columns for intervals from the measurement errors");
  return r;
}

Simulator point_simulator(const points::Simulator& simulate, const std::string& scenario_path,
                          const std::vector<scenario::Override>& common,
                          const scenario::Scenario& base, const ScanValues& base_values,
                          const std::vector<ScanParam>& free, const Measurements& m,
                          const std::string& vary, int workers) {
  return [=](const ScanValues& v) {
    // The fitted values as overrides after the user's: what the refined scenario changes.
    const std::vector<scenario::Override> fitted = scenario::write_overrides(
        base, apply_values(base, base_values, v, free, "the refined scenario"));
    std::vector<std::vector<scenario::Override>> sets;
    for (std::size_t i = 0; i < m.rows.size(); ++i) {
      sets.push_back(fitted);
      sets.back().push_back({"seed", std::to_string(base.seed + 7919 * (i + 1))});
      sets.back().push_back({vary, format_x(m.rows[i].x)});
    }
    const auto results = points::run_points(simulate, scenario_path, common, sets, workers);
    std::vector<double> out;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i].ok) {
        const std::string why = "simulating " + vary + "=" + format_x(m.rows[i].x) +
                                " at the fitted parameters failed: " + results[i].error;
        if (results[i].input_error) throw InputError(scenario_path, {{"", why}});
        throw std::runtime_error(why);
      }
      out.push_back(metric_of_results(results[i].results, m.metric));
    }
    return out;
  };
}

}  // namespace sonicsim::calibration
