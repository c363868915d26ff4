#include <sonicsim/calibration/service_fit.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <sonicsim/calibration/least_squares.hpp>
#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::calibration {

namespace {

double saturating(double t0, double n_s, double k, double n) {
  return t0 * std::pow(1.0 + std::pow(n / n_s, k), 1.0 / k);
}

// The scenario's own interpolation (floored below the first point, linear above the last), so
// the piecewise candidate is judged exactly as the simulator will use it.
double piecewise_at(const std::vector<CurvePoint>& knots, double n) {
  scenario::ServiceCurve c;
  for (const auto& k : knots) {
    c.batch.push_back(k.items);
    c.seconds.push_back(k.seconds);
  }
  return c.at(n);
}

// Points sorted by items, with equal item counts merged (mean time), as the curve needs.
std::vector<CurvePoint> knots_of(std::vector<CurvePoint> points) {
  std::sort(points.begin(), points.end(),
            [](const auto& a, const auto& b) { return a.items < b.items; });
  std::vector<CurvePoint> out;
  std::vector<int> counts;
  for (const auto& p : points) {
    if (!out.empty() && std::abs(p.items - out.back().items) <= 1e-9 * p.items) {
      out.back().seconds += p.seconds;
      ++counts.back();
    } else {
      out.push_back(p);
      counts.push_back(1);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].seconds /= counts[i];
  return out;
}

// A fit's k x k covariance, row-major; every entry NaN when the fit had no degrees of freedom.
std::vector<double> covariance_of(const FitResult& r, int k) {
  std::vector<double> out(static_cast<std::size_t>(k * k), kNaN);
  if (r.covariance.size() == 0) return out;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) out[static_cast<std::size_t>(i * k + j)] = r.covariance(i, j);
  return out;
}

// The covariance of g(p) from that of p, to first order: G C G^T, G the Jacobian of g at the
// solution. A zero of G takes no part (a parameter g does not read leaves it alone, whatever its
// variance); a non-finite covariance G does read leaves the entry undetermined. Computed once per
// pair, so the result is exactly symmetric.
std::vector<double> mapped_covariance(const Eigen::MatrixXd& G, const FitResult& r) {
  const int k = static_cast<int>(G.rows());
  std::vector<double> out(static_cast<std::size_t>(k * k), kNaN);
  if (r.covariance.size() == 0) return out;
  for (int i = 0; i < k; ++i)
    for (int j = i; j < k; ++j) {
      double sum = 0.0;
      bool finite = true;
      for (Eigen::Index a = 0; a < G.cols() && finite; ++a)
        for (Eigen::Index b = 0; b < G.cols() && finite; ++b) {
          if (G(i, a) == 0.0 || G(j, b) == 0.0) continue;
          const double c = r.covariance(a, b);
          if (std::isfinite(c))
            sum += G(i, a) * c * G(j, b);
          else
            finite = false;
        }
      const double v = finite ? sum : (i == j ? kInf : kNaN);
      out[static_cast<std::size_t>(i * k + j)] = out[static_cast<std::size_t>(j * k + i)] = v;
    }
  return out;
}

CurveFit fit_linear_curve(const std::vector<CurvePoint>& pts) {
  CurveFit f;
  f.kind = CurveKind::Linear;
  f.param_names = {"a_s", "b_s_per_item"};
  const int n = static_cast<int>(pts.size());
  Eigen::MatrixXd X(n, 2);
  Eigen::VectorXd y(n), w(n);
  for (int i = 0; i < n; ++i) {
    X(i, 0) = 1.0;
    X(i, 1) = pts[i].items;
    y[i] = pts[i].seconds;
    w[i] = 1.0 / (pts[i].seconds * pts[i].seconds);  // relative errors
  }
  auto r = fit_linear(X, y, w);
  if (r.params[0] < 0.0 || r.params[1] < 0.0) {
    // A negative intercept or slope is not a service time: keep the other term alone.
    const int keep = r.params[0] < 0.0 ? 1 : 0;
    auto r1 = fit_linear(X.col(keep), y, w);
    r.params = Eigen::Vector2d::Zero();
    r.params[keep] = r1.params[0];
    r.covariance = Eigen::Matrix2d::Constant(kNaN);
    if (r1.covariance.size()) r.covariance(keep, keep) = r1.covariance(0, 0);
    r.dof = r1.dof;
    f.note = keep == 1 ? "intercept clamped at 0" : "slope clamped at 0";
  }
  f.params = {r.params[0], r.params[1]};
  f.ci95 = {r.ci95_halfwidth(0), r.ci95_halfwidth(1)};
  f.covariance = covariance_of(r, 2);
  f.ok = f.params[0] + f.params[1] > 0.0;
  return f;
}

CurveFit fit_saturating_curve(const std::vector<CurvePoint>& pts) {
  CurveFit f;
  f.kind = CurveKind::Saturating;
  f.param_names = {"t0_s", "r_max_items_per_s", "k"};
  const int n = static_cast<int>(pts.size());
  // Parameters in log space keep t0, n_s and k positive; k is kept within [0.3, 20].
  auto model = [&](const Eigen::VectorXd& p, double items) {
    const double k = std::clamp(std::exp(p[2]), 0.3, 20.0);
    return saturating(std::exp(p[0]), std::exp(p[1]), k, items);
  };
  const ResidualFn res = [&](const Eigen::VectorXd& p, Eigen::VectorXd& r) {
    for (int i = 0; i < n; ++i) r[i] = model(p, pts[i].items) / pts[i].seconds - 1.0;
  };
  // Start from the smallest point as the floor and the largest one's rate as the slope, and try
  // a few knee sharpnesses: the least-squares surface has shallow valleys in k.
  const double t0 = pts.front().seconds;
  const double slope = pts.back().seconds / pts.back().items;
  FitResult best;
  best.rss = std::numeric_limits<double>::infinity();
  for (double k0 : {1.0, 2.0, 4.0}) {
    Eigen::Vector3d start(std::log(t0), std::log(std::max(t0 / slope, 1e-6)), std::log(k0));
    auto r = fit_nonlinear(res, n, start);
    if (std::isfinite(r.rss) && r.rss < best.rss) best = r;
  }
  if (!std::isfinite(best.rss)) {
    f.note = "no convergence";
    return f;
  }
  const double ft0 = std::exp(best.params[0]), fns = std::exp(best.params[1]);
  const double fk = std::clamp(std::exp(best.params[2]), 0.3, 20.0);
  f.params = {ft0, fns / ft0, fk};
  // Delta method: the log-parameters' intervals mapped back (r_max = n_s / t0).
  auto ci = [&](int i) { return best.ci95_halfwidth(i); };
  f.ci95 = {ft0 * ci(0), (fns / ft0) * std::hypot(ci(0), ci(1)), fk * ci(2)};
  // The covariance by the same first-order rule, with the log parameters' correlation, which
  // the half-width of r_max above leaves out (it adds the variances of log t0 and log n_s as if
  // they were independent): d t0 = t0 d(log t0), d r_max = r_max (d(log n_s) - d(log t0)),
  // d k = k d(log k).
  Eigen::Matrix3d G = Eigen::Matrix3d::Zero();
  G(0, 0) = ft0;
  G(1, 0) = -fns / ft0;
  G(1, 1) = fns / ft0;
  G(2, 2) = fk;
  f.covariance = mapped_covariance(G, best);
  f.ok = true;
  if (!best.converged) f.note = best.message;
  return f;
}

void score(CurveFit& f, const std::vector<CurvePoint>& pts) {
  double ss = 0.0, mx = 0.0;
  f.residuals.clear();
  for (const auto& p : pts) {
    const double e = f.at(p.items) / p.seconds - 1.0;
    f.residuals.push_back(e);
    ss += e * e;
    mx = std::max(mx, std::abs(e));
  }
  f.rms_rel_error = std::sqrt(ss / static_cast<double>(pts.size()));
  f.max_rel_error = mx;
}

}  // namespace

const char* to_string(CurveKind k) {
  switch (k) {
    case CurveKind::Linear:
      return "linear";
    case CurveKind::Piecewise:
      return "piecewise";
    case CurveKind::Saturating:
      return "saturating";
  }
  return "?";
}

bool parse_curve_kind(const std::string& text, CurveKind& out) {
  for (CurveKind k : {CurveKind::Linear, CurveKind::Piecewise, CurveKind::Saturating})
    if (text == to_string(k)) {
      out = k;
      return true;
    }
  return false;
}

int CurveFit::n_params() const {
  return kind == CurveKind::Piecewise ? static_cast<int>(knots.size())
                                      : static_cast<int>(params.size());
}

double CurveFit::at(double items) const {
  switch (kind) {
    case CurveKind::Linear:
      return params[0] + params[1] * items;
    case CurveKind::Piecewise:
      return piecewise_at(knots, items);
    case CurveKind::Saturating:
      return saturating(params[0], params[0] * params[1], params[2], items);
  }
  return kNaN;
}

CurveFit fit_curve(CurveKind kind, const std::vector<CurvePoint>& points, bool held_out) {
  const auto pts = knots_of(points);
  CurveFit f;
  f.kind = kind;
  const std::size_t need = kind == CurveKind::Saturating ? 3 : 2;
  if (pts.size() < need) {
    f.note = "needs " + std::to_string(need) + " distinct batch sizes, found " +
             std::to_string(pts.size());
    return f;
  }
  if (kind == CurveKind::Linear) f = fit_linear_curve(pts);
  if (kind == CurveKind::Saturating) f = fit_saturating_curve(pts);
  if (kind == CurveKind::Piecewise) {
    f.kind = kind;
    f.knots = pts;
    f.ok = true;
  }
  if (!f.ok) return f;
  score(f, pts);
  f.loo_rms_rel_error = kNaN;
  if (!held_out) return f;

  // Held out: each point predicted by the same kind fitted without it. Dropping an end point
  // makes the piecewise curve extrapolate, exactly what a user does beyond the measurements.
  double ss = 0.0;
  int counted = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    std::vector<CurvePoint> rest;
    for (std::size_t j = 0; j < pts.size(); ++j)
      if (j != i) rest.push_back(pts[j]);
    if (rest.size() < need) continue;
    CurveFit g = fit_curve(kind, rest, false);
    if (!g.ok) continue;
    const double e = g.at(pts[i].items) / pts[i].seconds - 1.0;
    ss += e * e;
    ++counted;
  }
  f.loo_rms_rel_error = counted ? std::sqrt(ss / counted) : kNaN;
  return f;
}

CurveChoice choose_curve(const std::vector<CurvePoint>& points, const CurveKind* forced) {
  CurveChoice c;
  for (CurveKind k : {CurveKind::Linear, CurveKind::Piecewise, CurveKind::Saturating})
    c.candidates.push_back(fit_curve(k, points));
  char buf[256];
  if (forced) {
    c.chosen = static_cast<int>(*forced);
    c.why = std::string("chosen by the user (--curve ") + to_string(*forced) + ")";
    return c;
  }
  int best = -1;
  for (std::size_t i = 0; i < c.candidates.size(); ++i) {
    const auto& f = c.candidates[i];
    if (!f.ok || !std::isfinite(f.loo_rms_rel_error)) continue;
    if (best < 0 || f.loo_rms_rel_error < c.candidates[best].loo_rms_rel_error)
      best = static_cast<int>(i);
  }
  if (best < 0) {
    // Too few points to hold any out: the curve through them is all the data says.
    c.chosen = static_cast<int>(CurveKind::Piecewise);
    c.why =
        "too few batch sizes to compare curves on held-out points; the line through the "
        "measured points is used";
    return c;
  }
  // A simpler curve nearly as good on held-out points extrapolates more safely.
  int chosen = best;
  for (std::size_t i = 0; i < c.candidates.size(); ++i) {
    const auto& f = c.candidates[i];
    if (!f.ok || !std::isfinite(f.loo_rms_rel_error)) continue;
    if (f.n_params() < c.candidates[chosen].n_params() &&
        f.loo_rms_rel_error <= 1.1 * c.candidates[best].loo_rms_rel_error)
      chosen = static_cast<int>(i);
  }
  c.chosen = chosen;
  const auto& f = c.candidates[chosen];
  std::snprintf(buf, sizeof buf, "smallest held-out (leave-one-out) error: %.1f%% rms",
                100.0 * f.loo_rms_rel_error);
  c.why = buf;
  if (chosen != best) {
    std::snprintf(buf, sizeof buf,
                  "; preferred to %s (%.1f%%) for having fewer parameters within 10%%",
                  to_string(c.candidates[best].kind), 100.0 * c.candidates[best].loo_rms_rel_error);
    c.why += buf;
  } else {
    for (const auto& g : c.candidates)
      if (g.ok && &g != &f && std::isfinite(g.loo_rms_rel_error)) {
        std::snprintf(buf, sizeof buf, "; %s %.1f%%", to_string(g.kind),
                      100.0 * g.loo_rms_rel_error);
        c.why += buf;
      }
  }
  return c;
}

std::vector<double> tabulation_points(double max_items) {
  std::vector<double> out;
  const double step = std::pow(2.0, 0.125);
  for (double x = 1.0; x < max_items * step; x *= step) {
    const double v = std::round(x * 1000.0) / 1000.0;
    if (out.empty() || v > out.back()) out.push_back(v);
  }
  return out;
}

}  // namespace sonicsim::calibration
