#include <sonicsim/calibration/scan.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <Eigen/SVD>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/pipeline/points.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::calibration {

namespace {

using json = nlohmann::json;
using scenario::InputError;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// 4 significant digits: parameters move by fractions of a percent between rounds.
std::string show(ScanParam k, double v) {
  if (!std::isfinite(v)) return "-";
  if (k == ScanParam::P) return fmt("%.4g", v);
  if (v == 0.0) return "0 s";
  const char* unit = "s";
  double x = v;
  if (std::abs(v) < 1e-3) {
    unit = "us";
    x = v * 1e6;
  } else if (std::abs(v) < 1.0) {
    unit = "ms";
    x = v * 1e3;
  }
  const int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(std::abs(x)))));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, x, unit);
  return buf;
}

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

bool has(const std::vector<ScanParam>& list, ScanParam k) {
  return std::find(list.begin(), list.end(), k) != list.end();
}

std::string names_of(const std::vector<ScanParam>& list, const char* sep = ",") {
  std::string out;
  for (std::size_t i = 0; i < list.size(); ++i)
    out += (i ? sep : "") + std::string(param_name(list[i]));
  return out;
}

// Models whose requests some pool serves: the ones t_gpu and t_latency act on.
std::vector<std::string> served_models(const scenario::Scenario& s) {
  std::vector<std::string> out;
  for (const auto& r : s.workload().requests)
    if (s.devices_hosting(r.model) > 0 && std::find(out.begin(), out.end(), r.model) == out.end())
      out.push_back(r.model);
  return out;
}

// Served requests per event carried by each served model.
std::map<std::string, double> requests_per_model(const scenario::Scenario& s) {
  std::map<std::string, double> out;
  for (const auto& r : s.workload().requests)
    if (s.devices_hosting(r.model) > 0) out[r.model] += r.per_event;
  return out;
}

json distribution_json(const scenario::Distribution& d, double factor) {
  using K = scenario::Distribution::Kind;
  switch (d.kind) {
    case K::Constant:
      return d.mean * factor;
    case K::Exponential:
      return {{"dist", "exponential"}, {"mean", d.mean * factor}};
    case K::Lognormal:
    case K::Gamma:
    case K::Normal:
      return {{"dist", scenario::to_string(d.kind)}, {"mean", d.mean * factor}, {"cv", d.cv}};
    case K::Uniform:
      return {{"dist", "uniform"}, {"min", d.min * factor}, {"max", d.max * factor}};
    case K::Empirical: {
      json values = json::array();
      for (double v : d.values) values.push_back(v * factor);
      return {{"dist", "empirical"}, {"values", values}, {"weights", d.weights}};
    }
  }
  return d.mean * factor;
}

json curve_json(const scenario::ServiceCurve& c, double factor) {
  json batch = json::array(), seconds = json::array();
  for (double b : c.batch) {
    if (b == std::floor(b) && b < 1e15)
      batch.push_back(static_cast<std::int64_t>(b));
    else
      batch.push_back(b);
  }
  for (double t : c.seconds) seconds.push_back(t * factor);
  return {{"batch", batch}, {"seconds", seconds}};
}

json phase_json(const scenario::OverheadPhase& p) {
  if (p.per_item == 0.0 && p.batch.empty()) return p.fixed;
  json j{{"fixed", p.fixed}, {"per_item", p.per_item}};
  if (!p.batch.empty()) {
    j["batch"] = p.batch;
    j["seconds"] = p.seconds;
  }
  return j;
}

// Server overhead per event that t_latency's change can act on (the fixed parts).
double server_fixed_per_event(const scenario::Scenario& s) {
  double total = 0.0;
  for (const auto& [name, n] : requests_per_model(s))
    total += n * s.find_model(name)->overhead.server.fixed;
  return total;
}

// The fixed server overhead per request of each served model once t_latency moves by `delta`
// per event: proportional to what they carry, or spread evenly over the requests when none
// carries any. Empty when the event's overhead would become negative.
std::optional<std::map<std::string, double>> server_overheads(const scenario::Scenario& s,
                                                              double delta) {
  const auto per_model = requests_per_model(s);
  const double carried = server_fixed_per_event(s);
  double requests = 0.0;
  for (const auto& [name, n] : per_model) requests += n;
  // Rounding in the fit's last digit is not a request for a negative overhead.
  const double slack = 1e-12 + 1e-9 * std::abs(carried);
  if (carried + delta < -slack || requests <= 0.0) return std::nullopt;
  std::map<std::string, double> out;
  for (const auto& [name, n] : per_model) {
    const double fixed = s.find_model(name)->overhead.server.fixed;
    out[name] = carried > 0.0 ? std::max(0.0, fixed * (carried + delta) / carried)
                              : std::max(0.0, delta / requests);
  }
  return out;
}

// A point's formula terms once the scenario's parameters `base` become `v`.
struct Moved {
  double a_g = 1.0;  // t_GPU factor
  double cpu = 0.0, t_gpu = 0.0, t_latency = 0.0;
  double ideal = 0.0, binding = 0.0;
};

Moved moved(const ScanPoint& pt, const ScanValues& base, const ScanValues& v) {
  Moved m;
  m.a_g = base.t_gpu > 0.0 ? v.t_gpu / base.t_gpu : 1.0;
  const double a_p = base.p > 0.0 ? v.p / base.p : 1.0;
  const double a_c = base.t_cpu > 0.0 ? v.t_cpu / base.t_cpu : 1.0;
  m.cpu = (1.0 - a_p * pt.values.p) * a_c * pt.values.t_cpu;
  m.t_gpu = m.a_g * pt.values.t_gpu;
  m.t_latency = pt.values.t_latency + (v.t_latency - base.t_latency);
  m.ideal = m.cpu + m.t_gpu + m.t_latency;
  m.binding = m.a_g * pt.t_gpu_binding;
  return m;
}

// ---- the fit ---------------------------------------------------------------------------------

struct FitProblem {
  const std::vector<ScanPoint>& points;
  const ScanValues& base;
  const Measurements& m;
  Metric metric;
  AnalyticModel model;
  std::vector<ScanParam> free;
  ScanValues fixed;                // values of the parameters not fitted
  std::vector<double> correction;  // per point, multiplies the analytic model

  ScanValues values_of(const Eigen::VectorXd& u) const {
    ScanValues v = fixed;
    for (std::size_t j = 0; j < free.size(); ++j) v.at(free[j]) = from_u(free[j], u[j]);
    return v;
  }
  double scale(std::size_t i) const { return m.has_stddev ? m.rows[i].stddev : m.rows[i].value; }
  double predicted(std::size_t i, const ScanValues& v) const {
    return correction[i] * predict_metric(points[i], base, v, metric, model);
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
  for (ScanParam k : {ScanParam::TCpu, ScanParam::P, ScanParam::TLatency, ScanParam::TGpu})
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

// ---- names -----------------------------------------------------------------------------------

const std::vector<ScanParam>& all_scan_params() {
  static const std::vector<ScanParam> all = {ScanParam::TGpu, ScanParam::P, ScanParam::TLatency,
                                             ScanParam::TCpu};
  return all;
}

const char* param_name(ScanParam p) {
  switch (p) {
    case ScanParam::TGpu:
      return "t_gpu";
    case ScanParam::P:
      return "p";
    case ScanParam::TLatency:
      return "t_latency";
    case ScanParam::TCpu:
      return "t_cpu";
  }
  return "?";
}

std::vector<ScanParam> parse_free(const std::string& text) {
  std::vector<ScanParam> out;
  std::vector<scenario::Problem> problems;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    std::string name = text.substr(start, comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    bool found = false;
    for (ScanParam k : all_scan_params()) {
      if (name != param_name(k)) continue;
      found = true;
      if (has(out, k))
        problems.push_back({"", "found `" + name + "` twice, expected each parameter once"});
      else
        out.push_back(k);
    }
    if (!found)
      problems.push_back({"", "found `" + name + "` in `" + text +
                                  "`, expected a comma-separated list of t_gpu, p, t_latency, "
                                  "t_cpu"});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!problems.empty()) throw InputError("--free", std::move(problems));
  return out;
}

std::optional<AnalyticModel> analytic_model_from_name(std::string_view name) {
  if (name == "auto") return AnalyticModel::Auto;
  if (name == "formula") return AnalyticModel::Formula;
  if (name == "mva") return AnalyticModel::Mva;
  return std::nullopt;
}

const char* model_name(AnalyticModel m) {
  switch (m) {
    case AnalyticModel::Auto:
      return "auto";
    case AnalyticModel::Formula:
      return "formula";
    case AnalyticModel::Mva:
      return "mva";
  }
  return "?";
}

AnalyticModel resolve_model(AnalyticModel m, const scenario::Scenario& s) {
  if (!s.single_workload())
    throw InputError(s.source_file, {{"workloads", "found " + std::to_string(s.workloads.size()) +
                                                       " workloads, expected one: a scan is "
                                                       "fitted to one workload's measurements"}});
  if (s.workload().mode == scenario::Mode::Async) {
    if (m == AnalyticModel::Mva)
      throw InputError("--model", {{"",
                                    "found mva, expected formula or auto: exact MVA does not "
                                    "model async mode (workload.mode = async)"}});
    return AnalyticModel::Formula;
  }
  if (m != AnalyticModel::Auto) return m;
  using K = scenario::Distribution::Kind;
  bool constant = s.workload().cpu_time_per_event.kind == K::Constant;
  for (const auto& r : s.workload().requests)
    constant = constant && (r.items.kind == K::Constant ||
                            (r.items.kind == K::Empirical && r.items.values.size() == 1));
  for (const auto& name : served_models(s))
    constant = constant && s.find_model(name)->spread.kind == K::Constant;
  return constant ? AnalyticModel::Formula : AnalyticModel::Mva;
}

double ScanValues::get(ScanParam k) const {
  switch (k) {
    case ScanParam::TGpu:
      return t_gpu;
    case ScanParam::P:
      return p;
    case ScanParam::TLatency:
      return t_latency;
    case ScanParam::TCpu:
      return t_cpu;
  }
  return kNaN;
}

double& ScanValues::at(ScanParam k) {
  switch (k) {
    case ScanParam::TGpu:
      return t_gpu;
    case ScanParam::P:
      return p;
    case ScanParam::TLatency:
      return t_latency;
    case ScanParam::TCpu:
      return t_cpu;
  }
  return t_gpu;
}

// ---- the model -------------------------------------------------------------------------------

ScanPoint scan_point(const scenario::Scenario& s, double x) {
  // The overheads are added here from the scenario, whether or not analytic::predict counts
  // them, so the base of t_latency is what the simulator delays each event by.
  scenario::Scenario bare = s;
  for (auto& m : bare.models) m.overhead = {};
  const analytic::Prediction pr = analytic::predict(bare);
  ScanPoint pt;
  pt.x = x;
  double overhead = 0.0;
  for (const auto& t : pr.requests) {
    if (!t.served) continue;
    const auto& o = s.find_model(t.model)->overhead;
    const double fixed = o.client_send.fixed + o.server.fixed + o.client_recv.fixed;
    const double per_item = o.client_send.per_item + o.server.per_item + o.client_recv.per_item;
    overhead += t.per_event * (fixed + per_item * t.mean_items);
    pt.requests_per_event += t.per_event;
  }
  pt.values = {pr.t_gpu_s, pr.p, pr.t_latency_s + overhead, pr.t_cpu_s};
  pt.p_fallback = pr.p_fallback;
  pt.n_cpu = static_cast<double>(pr.n_cpu);
  pt.n_gpu = static_cast<double>(pr.n_gpu);
  pt.jobs = static_cast<double>(s.workload().jobs);
  int in_use = 0;
  for (const auto& pool : pr.pools) in_use += pool.in_use ? 1 : 0;
  if (in_use == 1)
    pt.t_gpu_binding = pr.t_gpu_s;
  else if (pr.binding_pool >= 0)
    pt.t_gpu_binding =
        pt.n_gpu * pr.pools[static_cast<std::size_t>(pr.binding_pool)].demand_per_device_s;
  pt.network = analytic::closed_network(pr);
  return pt;
}

double predict_metric(const ScanPoint& pt, const ScanValues& base, const ScanValues& v,
                      Metric metric, AnalyticModel model) {
  const Moved t = moved(pt, base, v);
  double throughput = 0.0;
  if (model == AnalyticModel::Mva) {
    analytic::ClosedNetwork net = pt.network;
    net.think_time_s = t.cpu + t.t_latency;
    for (auto& st : net.stations) st.demand_s *= t.a_g;
    throughput = analytic::solve_mva(net, static_cast<std::int64_t>(pt.n_cpu)).throughput;
  } else {
    // analytic::predict's expression, term for term, with the parameters moved.
    double t_sonic = t.ideal;
    if (pt.n_gpu > 0 && t.binding > 0.0)
      t_sonic = t.cpu + t.t_gpu +
                t.binding * std::max(0.0, pt.n_cpu / pt.n_gpu - t.ideal / t.binding) + t.t_latency;
    throughput = pt.n_cpu / t_sonic;
  }
  return metric_of_throughput(metric, throughput, pt.n_cpu, pt.jobs);
}

// ---- fit and refinement ----------------------------------------------------------------------

ScanResult fit_scan(const std::vector<ScanPoint>& points, const ScanValues& base,
                    const Measurements& m, const ScanOptions& options, const Simulator* simulator) {
  if (points.size() != m.rows.size())
    throw std::logic_error("fit_scan: one scan point per measurement expected");
  if (options.free.empty()) throw InputError("--free", {{"", "found no parameter to fit"}});
  std::vector<scenario::Problem> problems;
  const double requests = points.empty() ? 0.0 : points.front().requests_per_event;
  for (ScanParam k : options.free) {
    const std::string name = param_name(k);
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
    if (k == ScanParam::TLatency && !(requests > 0.0))
      problems.push_back({"",
                          "t_latency: no request is served by a pool, so there is no request "
                          "to carry an overhead; drop t_latency from --free"});
  }
  if (!problems.empty()) throw InputError("--free", std::move(problems));
  if (m.rows.size() < options.free.size() + 1) {
    throw InputError(
        m.file,
        {{"", "found " + std::to_string(m.rows.size()) + " data rows, expected at least " +
                  std::to_string(options.free.size() + 1) + " to fit " +
                  std::to_string(options.free.size()) + " parameters with an error estimate"}});
  }

  ScanResult r;
  r.base = base;
  r.model = options.model;
  FitProblem pb{points,        base,         m,    options.metric,
                options.model, options.free, base, std::vector<double>(points.size(), 1.0)};

  // Analytic fit, holding what the data cannot separate.
  for (;;) {
    // A pair that is degenerate at the scenario's values may only look so there (every point
    // below the model's knee until t_GPU moves): the fit decides. But a truly degenerate pair
    // lets the fit wander to where one of them stops mattering at all (a latency driven to 0 in
    // log space), which would hide the pair: then the pair seen at the start is the answer.
    const auto at_start = confounded(pb, start_u(pb.free, base, base));
    r.analytic_fit = fit_best(pb, base);
    const ScanValues& v = r.analytic_fit.values;
    auto group = confounded(pb, start_u(pb.free, v, base));
    if (group.empty()) break;
    std::string ran_off;
    ScanValues seen_at = v;
    if (!at_start.empty()) {
      group = at_start;
      seen_at = base;
    } else if (const ScanParam k = group.front();
               group.size() == 1 && std::abs(start_u({k}, v, base)[0] -
                                             start_u({k}, base, base)[0]) > std::log(1000.0)) {
      // A parameter the fit drove to the edge of its range stops mattering there: say so.
      const bool up = v.get(k) > base.get(k);
      ran_off = "the fit drives " + std::string(param_name(k)) + " to " +
                (k == ScanParam::P ? (up ? "1" : "0") : (up ? "infinity" : "0")) +
                ": the measurements are " + (up == (k == ScanParam::P) ? "faster" : "slower") +
                " than any value of it explains, or too noisy to show it";
      if (k == ScanParam::P && up) ran_off += " (p >= 1 would leave no CPU work per event)";
    }
    const std::string why = ran_off.empty() ? why_confounded(group, pb, seen_at) : ran_off;
    if (options.free_given && !ran_off.empty()) {
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
      throw InputError(m.file,
                       {{"", "these measurements determine none of the parameters: " + why}});
  }
  r.free = pb.free;
  if (!r.analytic_fit.raw.converged)
    r.notes.push_back("the analytic fit did not converge: " + r.analytic_fit.raw.message);
  r.fit = r.analytic_fit;
  r.final_prediction = r.fit.predicted;

  if (simulator) {
    r.refined = true;
    FitOutcome current = r.analytic_fit;
    std::optional<ScanValues> previous;
    double best_rss = std::numeric_limits<double>::infinity();
    FitOutcome best;
    std::vector<double> best_sim;
    for (int round = 0; round <= options.max_refinements; ++round) {
      Round rd;
      rd.values = current.values;
      rd.simulated = (*simulator)(current.values);
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
      // Output space mapping: the analytic model times the simulated/analytic ratio seen at the
      // current parameters matches the simulator there; refit that corrected model.
      for (std::size_t i = 0; i < points.size(); ++i)
        pb.correction[i] = rd.simulated[i] / predict_metric(points[i], base, current.values,
                                                            options.metric, options.model);
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
  r.mape_percent = mape_of(r.final_prediction, m);
  if (r.mape_percent > 5.0)
    r.notes.push_back("the fitted model still misses the measurements by " +
                      fmt("%.1f%%", r.mape_percent) + " on average: moving " +
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

Simulator point_simulator(const std::string& scenario_path,
                          const std::vector<scenario::Override>& common,
                          const scenario::Scenario& base, const ScanValues& base_values,
                          const std::vector<ScanParam>& free, const Measurements& m,
                          const std::string& vary, int workers) {
  const json base_doc = json::parse(base.canonical_json);
  return [=](const ScanValues& v) {
    const json doc = apply_values(base_doc, base, base_values, v, free, "the refined scenario");
    const std::string workload = doc["workload"].dump(), models = doc["models"].dump();
    std::vector<std::vector<scenario::Override>> sets;
    for (std::size_t i = 0; i < m.rows.size(); ++i)
      sets.push_back({{"workload", workload},
                      {"models", models},
                      {"seed", std::to_string(base.seed + 7919 * (i + 1))},
                      {vary, format_x(m.rows[i].x)}});
    const auto results = pipeline::run_points(scenario_path, common, sets, workers);
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

// ---- back onto the scenario ------------------------------------------------------------------

json apply_values(const json& doc, const scenario::Scenario& s, const ScanValues& base,
                  const ScanValues& v, const std::vector<ScanParam>& free,
                  const std::string& what) {
  json out = doc;
  // A parameter at its scenario value changes nothing, not even a calibration file reference.
  const auto moves = [&](ScanParam k) { return has(free, k) && v.get(k) != base.get(k); };
  const auto served = served_models(s);
  if (moves(ScanParam::TGpu)) {
    const double factor = v.t_gpu / base.t_gpu;
    for (const auto& name : served) {
      const scenario::Model* model = s.find_model(name);
      json& st = out["models"][name]["service_time"];
      const bool single =
          st.contains("batch") || st.contains("seconds") || st.contains("calibration");
      if (single) {
        st.erase("calibration");
        const json c = curve_json(model->service_time.at("*"), factor);
        st["batch"] = c["batch"];
        st["seconds"] = c["seconds"];
      } else {
        for (auto& item : st.items()) {
          if (item.key() == "dist" || item.key() == "cv") continue;
          item.value() = curve_json(model->service_time.at(item.key()), factor);
        }
      }
    }
  }
  if (moves(ScanParam::P)) {
    const double factor = v.p / base.p;
    double total = 0.0;
    for (std::size_t i = 0; i < s.workload().requests.size(); ++i) {
      const auto& r = s.workload().requests[i];
      const bool is_served = s.devices_hosting(r.model) > 0;
      const double p = is_served ? r.offload_fraction * factor : r.offload_fraction;
      total += p;
      if (is_served) out["workload"]["requests"][i]["offload_fraction"] = p;
    }
    if (total >= 1.0 - 1e-9) {
      throw InputError(what,
                       {{"workload.requests", "p = " + fmt("%.6g", v.p) +
                                                  " from the fit makes the offload "
                                                  "fractions sum to " +
                                                  fmt("%.6g", total) +
                                                  ", expected less than 1 (some CPU work "
                                                  "per event); fix p (drop it from --free)"}});
    }
  }
  if (moves(ScanParam::TCpu))
    out["workload"]["cpu_time_per_event"] =
        distribution_json(s.workload().cpu_time_per_event, v.t_cpu / base.t_cpu);
  if (moves(ScanParam::TLatency)) {
    const double delta = v.t_latency - base.t_latency;
    const auto overheads = server_overheads(s, delta);
    if (!overheads) {
      throw InputError(
          what,
          {{"models", "the fit asks for t_latency = " + scenario::format_time(v.t_latency) +
                          " per event, " + scenario::format_time(-delta) +
                          " less than the scenario's " + scenario::format_time(base.t_latency) +
                          ", but its requests carry only " +
                          scenario::format_time(server_fixed_per_event(s)) +
                          " of fixed server overhead per event to take away (a negative "
                          "overhead): the measured events are faster than the scenario's "
                          "network path allows; check the link latencies or fix t_latency"}});
    }
    for (const auto& [name, fixed] : *overheads) {
      const scenario::Model* model = s.find_model(name);
      json& mj = out["models"][name];
      const json* own = mj.contains("request_overhead") ? &mj["request_overhead"] : nullptr;
      const scenario::OverheadPhase server =
          model->overhead.server.shifted(fixed - model->overhead.server.fixed);
      if (own && own->is_object() && !own->contains("calibration")) {
        mj["request_overhead"]["server"] = phase_json(server);
      } else {
        // A calibration file's overheads become explicit, so only the server part changes.
        json o = json::object();
        if (!model->overhead.client_send.is_zero())
          o["client_send"] = phase_json(model->overhead.client_send);
        o["server"] = phase_json(server);
        if (!model->overhead.client_recv.is_zero())
          o["client_recv"] = phase_json(model->overhead.client_recv);
        using K = scenario::Distribution::Kind;
        const auto& spread = model->overhead.spread;
        if (spread.kind != K::Constant) o["dist"] = scenario::to_string(spread.kind);
        if (spread.kind == K::Lognormal || spread.kind == K::Gamma) o["cv"] = spread.cv;
        mj["request_overhead"] = o;
      }
    }
  }
  return out;
}

std::vector<std::string> describe_mapping(const scenario::Scenario& s, const ScanValues& base,
                                          const ScanValues& v, const std::vector<ScanParam>& free) {
  std::vector<std::string> out;
  if (has(free, ScanParam::TGpu))
    for (const auto& name : served_models(s))
      out.push_back("models." + name + ".service_time: every seconds value x " +
                    fmt("%.4f", v.t_gpu / base.t_gpu) + " (explicit batch/seconds tables)");
  if (has(free, ScanParam::P))
    for (std::size_t i = 0; i < s.workload().requests.size(); ++i)
      if (s.devices_hosting(s.workload().requests[i].model) > 0)
        out.push_back("workload.requests[" + std::to_string(i) + "].offload_fraction: " +
                      fmt("%.4g", s.workload().requests[i].offload_fraction) + " -> " +
                      fmt("%.4g", s.workload().requests[i].offload_fraction * v.p / base.p));
  if (has(free, ScanParam::TCpu))
    out.push_back("workload.cpu_time_per_event: mean x " + fmt("%.4f", v.t_cpu / base.t_cpu) +
                  " (cv kept)");
  if (has(free, ScanParam::TLatency)) {
    const auto overheads = server_overheads(s, v.t_latency - base.t_latency);
    const auto per_model = requests_per_model(s);
    if (overheads)
      for (const auto& [name, fixed] : *overheads)
        out.push_back("models." + name + ".request_overhead.server: " +
                      scenario::format_time(s.find_model(name)->overhead.server.fixed) + " -> " +
                      scenario::format_time(fixed) + " fixed per request (" +
                      fmt("%g", per_model.at(name)) + " per event)");
  }
  return out;
}

namespace {

namespace fs = std::filesystem;

bool is_reference_key(const std::string& key) {
  return key == "calibration" || key == "triton_config" || key == "$schema";
}

// Relative file references are relative to the scenario's folder: keep them pointing at the
// same files from the output's folder.
void relocate(json& v, const fs::path& from, const fs::path& to) {
  if (v.is_array()) {
    for (auto& x : v) relocate(x, from, to);
    return;
  }
  if (!v.is_object()) return;
  for (auto& item : v.items()) {
    if (!is_reference_key(item.key()) || !item.value().is_string()) {
      relocate(item.value(), from, to);
      continue;
    }
    const std::string text = item.value().get<std::string>();
    const fs::path ref(text);
    if (ref.empty() || ref.is_absolute() || text.find("://") != std::string::npos) continue;
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(fs::absolute(from / ref, ec), ec);
    const fs::path base = fs::weakly_canonical(fs::absolute(to, ec), ec);
    fs::path rel = target.lexically_relative(base);
    item.value() = (rel.empty() ? target : rel).generic_string();
  }
}

// `v` with its object keys in the order `like` has them (the user's file), new keys after.
nlohmann::ordered_json ordered_like(const json& v, const nlohmann::ordered_json& like) {
  using ojson = nlohmann::ordered_json;
  if (v.is_object()) {
    ojson out = ojson::object();
    if (like.is_object())
      for (const auto& item : like.items())
        if (v.contains(item.key())) out[item.key()] = ordered_like(v[item.key()], item.value());
    for (const auto& item : v.items())
      if (!out.contains(item.key())) out[item.key()] = ordered_like(item.value(), nullptr);
    return out;
  }
  if (v.is_array()) {
    ojson out = ojson::array();
    for (std::size_t i = 0; i < v.size(); ++i)
      out.push_back(ordered_like(v[i], like.is_array() && i < like.size() ? like[i] : ojson()));
    return out;
  }
  return ojson::parse(v.dump());
}

}  // namespace

nlohmann::ordered_json fitted_scenario(const scenario::Scenario& s, const ScanResult& r,
                                       const Measurements& m, const std::string& output) {
  json doc = apply_values(json::parse(s.canonical_json), s, r.base, r.fit.values, r.free, output);
  const fs::path from =
      s.source_file.empty() ? fs::path(".") : fs::path(s.source_file).parent_path();
  const fs::path to = fs::path(output).parent_path();
  relocate(doc, from.empty() ? fs::path(".") : from, to.empty() ? fs::path(".") : to);

  std::string note = "Calibrated by `sonicsim calibrate scan` against " + m.file + " (" +
                     metric_name(m.metric) + ", " + std::to_string(m.rows.size()) + " points): ";
  for (std::size_t i = 0; i < r.free.size(); ++i) {
    const ScanParam k = r.free[i];
    note += (i ? ", " : "") + std::string(param_name(k)) + " " + show(k, r.base.get(k)) + " -> " +
            show(k, r.fit.values.get(k));
  }
  note += "; MAPE " + fmt("%.2f%%", r.mape_percent) + ".";
  const std::string before = doc.value("description", std::string());
  doc["description"] = before.empty() ? note : before + " " + note;

  nlohmann::ordered_json like;
  if (!s.source_file.empty()) {
    std::ifstream in(s.source_file);
    std::stringstream text;
    text << in.rdbuf();
    like = nlohmann::ordered_json::parse(text.str(), nullptr, false);
    if (like.is_discarded()) like = nullptr;
  }
  return ordered_like(doc, like);
}

// ---- reports ---------------------------------------------------------------------------------

std::string to_text(const ScanResult& r, const Measurements& m) {
  std::ostringstream o;
  o << "fit        " << names_of(r.free, ", ") << " of " << metric_name(m.metric) << " at "
    << m.rows.size() << " points (" << (m.has_stddev ? "weights 1/stddev^2" : "relative errors")
    << "), analytic model: " << (r.model == AnalyticModel::Mva ? "exact MVA" : "SONIC formula")
    << (r.refined ? ", refined against the simulator" : "") << "\n";
  for (const auto& n : r.notes) o << "note       " << n << "\n";

  if (r.refined) {
    o << "\nspace mapping (simulate, correct the analytic model by simulated/analytic, refit):\n";
    for (std::size_t k = 0; k < r.rounds.size(); ++k) {
      const Round& rd = r.rounds[k];
      o << "  round " << k + 1 << ":";
      for (ScanParam p : r.free) o << "  " << param_name(p) << " " << show(p, rd.values.get(p));
      o << "   simulated MAPE " << fmt("%.2f%%", rd.mape_percent);
      if (k > 0) o << ", moved " << fmt("%.2f%%", 100.0 * rd.max_change);
      o << "\n";
    }
    o << "  " << (r.converged ? "converged" : "not converged") << "\n";
  }

  o << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-10s  %12s  %12s  %-29s  %8s\n", "parameter", "scenario",
                "fitted", "95% interval", "change");
  o << line;
  for (const ParamEstimate& e : r.fit.params) {
    std::string interval = "(held)";
    if (e.free && std::isnan(e.ci_low)) interval = "(no degrees of freedom)";
    if (e.free && !e.identified) interval = "(not determined by the data)";
    if (e.free && e.identified && !std::isnan(e.ci_low)) {
      interval = "[";
      interval += show(e.param, e.ci_low);
      interval += ", ";
      interval += show(e.param, e.ci_high);
      interval += "]";
    }
    const double change =
        e.scenario_value != 0.0 ? 100.0 * (e.value - e.scenario_value) / e.scenario_value : kNaN;
    std::snprintf(line, sizeof line, "%-10s  %12s  %12s  %-29s  %8s\n", param_name(e.param),
                  show(e.param, e.scenario_value).c_str(), show(e.param, e.value).c_str(),
                  interval.c_str(),
                  e.free && std::isfinite(change) ? fmt("%+.1f%%", change).c_str() : "");
    o << line;
  }

  o << "\n";
  const std::string model = r.refined ? "simulated" : "analytic";
  std::snprintf(line, sizeof line, "%10s  %14s  %14s  %9s\n", m.x_column.c_str(), "measured",
                model.c_str(), "residual");
  o << line;
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const double pred = r.final_prediction[i];
    const auto value = [&](double x) {
      return is_time(m.metric) ? scenario::format_time(x) : fmt("%.4g /s", x);
    };
    std::snprintf(line, sizeof line, "%10s  %14s  %14s  %9s\n", format_x(m.rows[i].x).c_str(),
                  value(m.rows[i].value).c_str(), value(pred).c_str(),
                  fmt("%+.2f%%", 100.0 * (pred - m.rows[i].value) / m.rows[i].value).c_str());
    o << line;
  }
  o << "MAPE " << fmt("%.2f%%", r.mape_percent) << " (" << model << " at the fitted parameters)\n";
  return o.str();
}

nlohmann::ordered_json to_json(const ScanResult& r, const Measurements& m) {
  using ojson = nlohmann::ordered_json;
  const auto num = [](double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); };
  ojson j;
  j["measurements"] = m.file;
  j["metric"] = metric_name(m.metric);
  j["weights"] = m.has_stddev ? "1/stddev^2" : "1/measured^2 (relative errors)";
  j["analytic_model"] = model_name(r.model);
  ojson params = ojson::object();
  for (const ParamEstimate& e : r.fit.params) {
    ojson p;
    p["free"] = e.free;
    p["scenario"] = num(e.scenario_value);
    p["fitted"] = num(e.value);
    p["ci95"] = e.free ? ojson::array({num(e.ci_low), num(e.ci_high)}) : ojson(nullptr);
    if (e.free) p["identified"] = e.identified;
    params[param_name(e.param)] = p;
  }
  j["parameters"] = params;
  ojson points = ojson::array();
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    ojson p;
    p["x"] = m.rows[i].x;
    p["measured"] = m.rows[i].value;
    p["predicted"] = num(r.final_prediction[i]);
    p["residual_percent"] =
        num(100.0 * (r.final_prediction[i] - m.rows[i].value) / m.rows[i].value);
    points.push_back(p);
  }
  j["points"] = points;
  j["predicted_by"] = r.refined ? "simulation" : "analytic";
  j["mape_percent"] = num(r.mape_percent);
  j["dof"] = r.fit.raw.dof;
  j["reduced_chi2"] = num(r.fit.reduced_chi2);
  j["refined"] = r.refined;
  j["converged"] = r.converged;
  ojson rounds = ojson::array();
  for (const Round& rd : r.rounds) {
    ojson x;
    for (ScanParam k : r.free) x[param_name(k)] = rd.values.get(k);
    x["simulated_mape_percent"] = num(rd.mape_percent);
    x["max_change"] = rd.max_change;
    rounds.push_back(x);
  }
  j["rounds"] = rounds;
  j["notes"] = r.notes;
  return j;
}

}  // namespace sonicsim::calibration
