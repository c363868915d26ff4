// Service-time curves t(n) fitted to measured (items per execution, seconds) points.
//
// Candidates:
//   linear       t(n) = a + b n                            (2 parameters, least squares)
//   piecewise    straight lines through the points          (one knot per point)
//   saturating   t(n) = t0 (1 + (n / n_s)^k)^(1/k)          (3 parameters, Levenberg-Marquardt)
// The saturating curve is flat at t0 for small batches (the device is latency bound) and grows
// as n / r_max, r_max = n_s / t0 items per second, for large ones (throughput bound); k sets how
// sharp the knee is (k = 1 is the linear curve t0 + n / r_max). Errors are relative, because
// service times span three decades. The curve kept is the one with the smallest leave-one-out
// error (each point predicted by a fit that did not see it); one within 10% of the best with
// fewer parameters is preferred, since it extrapolates more safely.
#pragma once

#include <string>
#include <vector>

namespace sonicsim::calibration {

struct CurvePoint {
  double items = 0.0;    // mean items per execution
  double seconds = 0.0;  // mean execution time
};

enum class CurveKind { Linear, Piecewise, Saturating };
const char* to_string(CurveKind k);
bool parse_curve_kind(const std::string& text, CurveKind& out);

struct CurveFit {
  CurveKind kind = CurveKind::Linear;
  bool ok = false;  // false when the data cannot support this curve (too few points, no fit)
  std::string note;
  // linear: a [s], b [s/item]; saturating: t0 [s], r_max [items/s], k; piecewise: none.
  std::vector<std::string> param_names;
  std::vector<double> params, ci95;  // ci95: half-widths, NaN when undetermined
  std::vector<CurvePoint> knots;     // piecewise only
  double rms_rel_error = 0.0;        // in sample
  double max_rel_error = 0.0;        // in sample
  double loo_rms_rel_error = 0.0;    // held out (leave one out)
  std::vector<double> residuals;     // relative, per point, in sample
  // The parameters' covariance, row-major k x k in the order of `params`, in their own units:
  // the fit's s^2 (J^T J)^-1 (least_squares.hpp); the saturating curve's mapped from the log
  // parameters it fits, to first order, as its intervals are, but with their correlation (so
  // r_max's variance is not ci95[1]'s, which ignores it). A non-finite entry is undetermined
  // (+inf on the diagonal of a parameter the data leave free, NaN beside it; every entry NaN
  // without degrees of freedom; NaN for a linear term clamped at 0, as its ci95). Empty without
  // parameters (piecewise).
  std::vector<double> covariance;

  double at(double items) const;
  int n_params() const;
};

// Fits one kind. Needs >= 2 points (linear, piecewise) or >= 3 (saturating). Without
// `held_out` the leave-one-out error is not computed (NaN): the fit alone is cheap.
CurveFit fit_curve(CurveKind kind, const std::vector<CurvePoint>& points, bool held_out = true);

struct CurveChoice {
  std::vector<CurveFit> candidates;  // linear, piecewise, saturating
  int chosen = -1;
  std::string why;
  const CurveFit& best() const { return candidates.at(static_cast<std::size_t>(chosen)); }
};

// Fits every kind and chooses by held-out error; `forced` picks a kind regardless.
CurveChoice choose_curve(const std::vector<CurvePoint>& points, const CurveKind* forced = nullptr);

// Batch sizes at which a smooth curve is tabulated for the scenario's batch/seconds form:
// 1, then steps of 2^(1/8) up to `max_items`, so linear interpolation between them stays within
// 0.3% of the curve for any k <= 8.
std::vector<double> tabulation_points(double max_items);

}  // namespace sonicsim::calibration
