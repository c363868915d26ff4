// `calibrate nodes`: t1, hyperthread and the memory-bandwidth cap of a worker node from per-job
// throughputs (node_fit.hpp).
//
// Below the cap the node's throughput is linear in hyperthread, X(b) = P(b) + Q(b) h (every
// per-thread speed of scenario::NodeSpec is), so a job's throughput T X(b) / (b t1) is linear in
// a = 1/t1 and c = h/t1, and a capped occupancy's T M / (b t1) in d = M/t1. Once it is known
// which occupancies the cap binds at, the fit is weighted linear least squares, solved exactly.
// The cap binds from some occupancy on (X rises with busy threads for any hyperthread >= 0.5),
// so the fit tries every such split, with the cap free or on the kink at the split, and
// hyperthread free or held at its bound 1; the sum of squares of the node model itself (through
// NodeSpec) decides. A cap is kept only when it improves the fit by more than noise would (an F
// test at 95%): with it, the fullest occupancy always fits a little better.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <sonicsim/calibration/least_squares.hpp>
#include <sonicsim/calibration/node_fit.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::calibration {

namespace {

// Exact columns leave only rounding on a true degeneracy, as in fit_linear.
constexpr double kRankTolerance = 1e-10;
// Two fits this close in their sum of squares are the same fit: the simpler one is kept.
constexpr double kTieRelative = 1e-9, kTieAbsolute = 1e-24;
// A hyperthread this far above 1 is 1 rounded.
constexpr double kRounding = 1e-12;

// One distinct occupancy. A row's relative error is u m - 1, with u = T / y (its threads over its
// throughput) and m = s(b) / t1 (the model's events per second per thread), so the rows of one
// occupancy weigh in the sum of squares as one point: sum (u m - 1)^2 = weight (m - target)^2 +
// within, where weight = sum u^2 and target = sum u / weight is the m these rows alone give.
struct Point {
  double busy = 0.0;
  double p = 0.0, q = 0.0;  // the node's throughput below any cap: X(b) = p + q h
  double weight = 0.0, target = 0.0, within = 0.0;
  std::size_t rows = 0;
};

struct Candidate {
  std::size_t split = 0;      // points from here on are capped; points.size(): no cap
  bool cap_at_split = false;  // the cap is the throughput at point `split`, else a free value
  bool h_at_one = false;      // hyperthread held at its bound 1
};

struct Solution {
  Candidate candidate;
  bool valid = false;
  double t1 = 0.0, h = 1.0;
  std::optional<double> cap;
  // Sum over points of weight (m - target)^2: the sum of squares less the part within
  // occupancies, which every fit shares.
  double score = kInf;
};

scenario::NodeSpec node_of(const NodeFitOptions& o, double h, std::optional<double> cap) {
  scenario::NodeSpec n;
  n.cores = o.cores;
  n.threads_per_core = o.threads_per_core;
  n.hyperthread = h;
  n.memory_bandwidth_threads = cap;
  return n;
}

std::vector<Point> points_of(const NodeMeasurements& m, const NodeFitOptions& o) {
  std::map<double, Point> by_busy;
  for (const auto& row : m.rows) {
    Point& pt = by_busy[row.busy_threads()];
    const double u = static_cast<double>(row.threads_per_job) / row.throughput_per_job;
    pt.weight += u * u;
    pt.target += u;
    ++pt.rows;
  }
  const auto none = node_of(o, 0.0, std::nullopt), all = node_of(o, 1.0, std::nullopt);
  for (auto& [busy, pt] : by_busy) {
    pt.busy = busy;
    pt.target /= pt.weight;
    pt.p = none.throughput(busy);
    pt.q = all.throughput(busy) - pt.p;
  }
  for (const auto& row : m.rows) {
    Point& pt = by_busy[row.busy_threads()];
    const double r = static_cast<double>(row.threads_per_job) / row.throughput_per_job * pt.target;
    pt.within += (r - 1.0) * (r - 1.0);
  }
  std::vector<Point> points;
  for (const auto& [busy, pt] : by_busy) points.push_back(pt);
  return points;
}

double score_of(const std::vector<Point>& points, const scenario::NodeSpec& node, double t1) {
  double score = 0.0;
  for (const auto& pt : points) {
    const double d = node.speed_factor(pt.busy) / t1 - pt.target;
    score += pt.weight * d * d;
  }
  return score;
}

// The candidate's linear fit in (a, c, d), then its sum of squares under the node model itself.
// Invalid when the design leaves a parameter undetermined or the solution is outside the
// model's ranges (t1 > 0, 0 < hyperthread <= 1, a cap of at least one thread).
Solution solve(const std::vector<Point>& points, const NodeFitOptions& o, const Candidate& c,
               double* raw_h = nullptr) {
  const std::size_t K = points.size();
  const bool fit_h = o.threads_per_core > 1;
  const bool free_cap = c.split < K && !c.cap_at_split;
  const Eigen::Index cols = 1 + (fit_h ? 1 : 0) + (free_cap ? 1 : 0);
  Eigen::MatrixXd X = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(K), cols);
  Eigen::VectorXd y(K), w(K);
  for (std::size_t k = 0; k < K; ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    const Point& pt = points[k];
    if (free_cap && k >= c.split) {
      X(i, cols - 1) = 1.0 / pt.busy;
    } else {
      const Point& f = k >= c.split ? points[c.split] : pt;
      X(i, 0) = f.p / pt.busy;
      if (fit_h) X(i, 1) = f.q / pt.busy;
    }
    y[i] = pt.target;
    w[i] = pt.weight;
  }
  Solution s;
  s.candidate = c;
  // Identifiability belongs to the split, not to the bound: a hyperthread held at 1 must still be
  // one the data could have told.
  const Eigen::MatrixXd cov =
      covariance_from_jacobian(w.cwiseSqrt().asDiagonal() * X, 1.0, kRankTolerance);
  for (Eigen::Index j = 0; j < cols; ++j)
    if (!std::isfinite(cov(j, j))) return s;
  if (c.h_at_one) {
    X.col(0) += X.col(1);
    X.block(0, 1, X.rows(), cols - 2) = X.rightCols(cols - 2).eval();
    X.conservativeResize(Eigen::NoChange, cols - 1);
  }
  const FitResult r = fit_linear(X, y, w);
  const double a = r.params[0];
  if (!(a > 0.0) || !std::isfinite(a)) return s;
  s.t1 = 1.0 / a;
  s.h = fit_h && !c.h_at_one ? r.params[1] / a : 1.0;
  if (raw_h) *raw_h = s.h;
  if (s.h > 1.0 && s.h <= 1.0 + kRounding) s.h = 1.0;
  if (!(s.h > 0.0 && s.h <= 1.0)) return s;
  if (free_cap)
    s.cap = r.params[r.params.size() - 1] / a;
  else if (c.split < K)
    s.cap = points[c.split].p + points[c.split].q * s.h;
  if (s.cap && !(*s.cap >= 1.0 && std::isfinite(*s.cap))) return s;
  s.score = score_of(points, node_of(o, s.h, s.cap), s.t1);
  s.valid = std::isfinite(s.score);
  return s;
}

bool better(const Solution& s, const Solution& best) {
  if (!s.valid) return false;
  if (!best.valid) return true;
  return s.score < best.score - (kTieRelative * best.score + kTieAbsolute);
}

struct Choice {
  Solution no_cap, cap;
  double raw_h = kNaN;  // the unbounded hyperthread without a cap, for the message when none fits
};

// The best fit without a cap and with one, trying the simpler first so that ties keep them.
// Each candidate is a convex problem with the one constraint 0 < hyperthread <= 1: its optimum
// is on the bound 1 exactly when the unbounded one lies above it (below 0 there is no optimum in
// the range, and the bound 1 would only hide that).
Choice choose(const std::vector<Point>& points, const NodeFitOptions& o) {
  const std::size_t K = points.size();
  const bool fit_h = o.threads_per_core > 1;
  Choice ch;
  for (std::size_t split = K + 1; split-- > (o.memory_bandwidth ? 0 : K);)
    for (const bool at_split : {false, true}) {
      if (at_split && split == K) continue;
      Solution& best = split == K ? ch.no_cap : ch.cap;
      double raw_h = kNaN;
      const Solution free_h = solve(points, o, {split, at_split, false}, &raw_h);
      if (better(free_h, best)) best = free_h;
      if (split == K) ch.raw_h = raw_h;
      if (!fit_h || !(raw_h > 1.0)) continue;
      const Solution at_one = solve(points, o, {split, at_split, true});
      if (better(at_one, best)) best = at_one;
    }
  return ch;
}

double total_within(const std::vector<Point>& points) {
  double sum = 0.0;
  for (const auto& pt : points) sum += pt.within;
  return sum;
}

// Whether the cap's fit is better than the one without by more than noise: an F test of one
// more parameter at 95% (F(1, dof) is t(dof) squared).
bool cap_significant(const Choice& ch, double within, std::size_t rows, int params, double& f) {
  if (!ch.cap.valid) return false;
  if (!ch.no_cap.valid) return true;
  const double with = ch.cap.score + within, without = ch.no_cap.score + within;
  const double gain = without - with - (kTieRelative * without + kTieAbsolute);
  const int dof = static_cast<int>(rows) - params;
  if (dof <= 0) return gain > 0.0;
  f = (without - with) / (with / dof);
  return gain > t_quantile_95(dof) * t_quantile_95(dof) * with / dof;
}

std::string busy_text(double busy) {
  return util::exact_number(busy) + " busy threads";
}

void refuse_without_siblings(const NodeMeasurements& m, const NodeFitOptions& o,
                             const std::vector<Point>& points) {
  if (o.threads_per_core == 1 || points.back().busy > o.cores) return;
  throw InputError(
      m.file,
      {{"", "found occupancies up to " + busy_text(points.back().busy) +
                " (jobs_per_node x threads_per_job), at most the node's --cores " +
                std::to_string(o.cores) +
                ": every thread had a core of its own, so the measurements cannot show how " +
                std::to_string(o.threads_per_core) +
                " hardware threads share a core (hyperthread); expected an occupancy above " +
                std::to_string(o.cores) + " busy threads (e.g. " + std::to_string(2 * o.cores) +
                " threads: 2C/T jobs of T threads), or --threads-per-core 1"}});
}

[[noreturn]] void refuse_no_fit(const NodeMeasurements& m, const NodeFitOptions& o, double raw_h) {
  std::string found = "no node of " + std::to_string(o.cores) + " cores x " +
                      std::to_string(o.threads_per_core) + " hardware threads";
  if (o.threads_per_core > 1)
    found += " with a hyperthread in (0, 1]" +
             (std::isfinite(raw_h) ? " (the throughputs give " + util::formatted("%.3g", raw_h) +
                                         ": threads sharing a core slower than one alone on it)"
                                   : std::string());
  throw InputError(m.file, {{"", "found " + found +
                                     " that reproduces these throughputs, expected measurements "
                                     "of CPU-only jobs on one idle node: check --cores and "
                                     "--threads-per-core, and that jobs_per_node and "
                                     "threads_per_job are what ran"}});
}

// The 95% intervals of t1, hyperthread and the cap (those fitted) from the Jacobian of the
// points' m = min(X(b), M) / (b t1), weighted as the sum of squares weighs them.
void add_intervals(NodeFit& fit, const std::vector<Point>& points, double rss) {
  const bool fit_h = fit.hyperthread.fitted, fit_cap = fit.memory_bandwidth_threads.fitted;
  NodeParameter* params[] = {&fit.cpu_time_per_event, &fit.hyperthread,
                             &fit.memory_bandwidth_threads};
  const int p = 1 + (fit_h ? 1 : 0) + (fit_cap ? 1 : 0);
  fit.dof = static_cast<int>(fit.rows) - p;
  if (fit.dof <= 0) {
    fit.no_interval = "no degrees of freedom: " + std::to_string(fit.rows) + " rows for " +
                      std::to_string(p) +
                      " parameters (measure each occupancy more than once, or one more "
                      "occupancy)";
    for (auto* q : params) q->low = q->high = kNaN;
    return;
  }
  const double t1 = fit.cpu_time_per_event.value;
  const double cap = fit_cap ? fit.memory_bandwidth_threads.value : kInf;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(points.size()), p);
  for (std::size_t k = 0; k < points.size(); ++k) {
    const Point& pt = points[k];
    const auto i = static_cast<Eigen::Index>(k);
    const double x = pt.p + pt.q * fit.hyperthread.value, sw = std::sqrt(pt.weight);
    const bool capped = x >= cap;
    J(i, 0) = -sw * std::min(x, cap) / (pt.busy * t1 * t1);
    if (fit_h && !capped) J(i, 1) = sw * pt.q / (pt.busy * t1);
    if (fit_cap && capped) J(i, p - 1) = sw / (pt.busy * t1);
  }
  const Eigen::MatrixXd cov = covariance_from_jacobian(J, rss / fit.dof, kRankTolerance);
  const double t = t_quantile_95(fit.dof);
  const double lowest[] = {0.0, 0.0, 1.0}, highest[] = {kInf, 1.0, kInf};
  for (int j = 0, col = 0; j < 3; ++j) {
    NodeParameter& q = *params[j];
    if (!q.fitted) continue;
    const double half = t * std::sqrt(std::max(0.0, cov(col, col)));
    q.low = std::max(lowest[j], q.value - half);
    q.high = std::min(highest[j], q.value + half);
    ++col;
  }
}

void describe_points(NodeFit& fit, const NodeMeasurements& m, const std::vector<Point>& points) {
  const double t1 = fit.cpu_time_per_event.value;
  double sum = 0.0;
  for (const auto& row : m.rows) {
    NodeResidual r;
    r.fitted = per_job_throughput(fit.node, t1, row);
    r.residual = r.fitted / row.throughput_per_job - 1.0;
    sum += r.residual * r.residual;
    fit.residuals.push_back(r);
  }
  fit.rms_residual = std::sqrt(sum / static_cast<double>(m.rows.size()));
  for (const auto& pt : points) {
    NodeOccupancy occ;
    occ.busy_threads = pt.busy;
    occ.rows = pt.rows;
    occ.measured_speed = pt.target * t1;
    occ.fitted_speed = fit.node.speed_factor(pt.busy);
    occ.capped = fit.node.memory_bandwidth_threads &&
                 pt.p + pt.q * fit.node.hyperthread >= *fit.node.memory_bandwidth_threads;
    fit.occupancies.push_back(occ);
  }
}

void add_notes(NodeFit& fit, const NodeFitOptions& o, const std::vector<Point>& points) {
  const int hardware = o.cores * o.threads_per_core;
  if (o.threads_per_core == 1)
    fit.notes.push_back(
        "threads_per_core 1: no hyper-threads, so no hyperthread to fit; cpu_time_per_event" +
        std::string(o.memory_bandwidth ? " and the memory-bandwidth cap" : "") + " only");
  if (fit.hyperthread.at_bound)
    fit.notes.push_back("hyperthread held at 1, its bound: above " + std::to_string(o.cores) +
                        " busy threads the throughput grew as if the node had more than " +
                        std::to_string(o.cores) + " cores (is --cores right?)");
  if (points.back().busy > hardware)
    fit.notes.push_back("up to " + busy_text(points.back().busy) + " on " +
                        std::to_string(hardware) +
                        " hardware threads: the model time-slices the threads beyond them");
  if (fit.dof > 0 && fit.rms_residual < 1e-9)
    fit.notes.push_back("the residuals are all ~0 (noise-free data?): the intervals have no width");
}

}  // namespace

double per_job_throughput(const scenario::NodeSpec& node, double cpu_time_per_event,
                          const NodeRow& row) {
  return static_cast<double>(row.threads_per_job) * node.speed_factor(row.busy_threads()) /
         cpu_time_per_event;
}

NodeFit fit_node(const NodeMeasurements& m, const NodeFitOptions& o) {
  const std::vector<Point> points = points_of(m, o);
  refuse_without_siblings(m, o, points);
  const Choice ch = choose(points, o);
  const double within = total_within(points);
  const int base_params = o.threads_per_core > 1 ? 2 : 1;
  double f = kNaN;
  const bool with_cap = cap_significant(ch, within, m.rows.size(), base_params + 1, f);
  const Solution& s = with_cap ? ch.cap : ch.no_cap;
  if (!s.valid) refuse_no_fit(m, o, ch.raw_h);

  NodeFit fit;
  fit.rows = m.rows.size();
  fit.node = node_of(o, s.h, s.cap);
  fit.cpu_time_per_event = {true, s.t1, 0.0, 0.0, false};
  fit.hyperthread = {o.threads_per_core > 1, s.h, 0.0, 0.0, s.candidate.h_at_one};
  fit.memory_bandwidth_asked = o.memory_bandwidth;
  if (s.cap) fit.memory_bandwidth_threads = {true, *s.cap, 0.0, 0.0, false};
  if (o.memory_bandwidth && !s.cap) {
    for (const auto& pt : points)
      fit.memory_bandwidth_at_least =
          std::max(fit.memory_bandwidth_at_least, fit.node.throughput(pt.busy));
    const std::string test =
        std::isfinite(f) ? " (F = " + util::formatted("%.3g", f) + ", below its 95% quantile)"
                         : std::string();
    fit.memory_bandwidth_why =
        (ch.cap.valid ? "a cap improves the fit by no more than noise would" + test
                      : std::string("no cap below the throughputs measured fits them")) +
        ": the cap binds at none of the measured occupancies, so they cannot tell it; measure "
        "fuller nodes (more jobs per node) to see it";
  }
  describe_points(fit, m, points);
  add_intervals(fit, points, s.score + within);
  add_notes(fit, o, points);
  return fit;
}

}  // namespace sonicsim::calibration
