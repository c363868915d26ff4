#include <sonicsim/calibration/least_squares.hpp>

#include <cmath>

#include <boost/math/distributions/students_t.hpp>
#include <unsupported/Eigen/NonLinearOptimization>

#include <sonicsim/util/numbers.hpp>

namespace sonicsim::calibration {

namespace {

// A parameter whose unit vector reaches into the null space of the scaled Jacobian by more than
// this is unidentifiable. What a numerical null vector puts on the identifiable parameters is
// noise: ~1e-16 for exact columns, about the differencing error over the spectral gap for
// forward differences, both far below this.
constexpr double kNullComponent = 1e-3;

// Exact columns (fit_linear) leave only rounding on a true degeneracy.
constexpr double kLinearRankTolerance = 1e-10;

struct Functor {
  using Scalar = double;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;

  const ResidualFn* f;
  int n_in, n_out;
  double step;
  int inputs() const { return n_in; }
  int values() const { return n_out; }
  int operator()(const Eigen::VectorXd& p, Eigen::VectorXd& r) const {
    r.resize(n_out);
    (*f)(p, r);
    for (int i = 0; i < n_out; ++i)
      if (!std::isfinite(r[i])) r[i] = 1e150;  // steer away from invalid regions
    return 0;
  }
  int df(const Eigen::VectorXd& p, Eigen::MatrixXd& J) const {
    J = numeric_jacobian(*f, p, n_out, step);
    return 0;
  }
};

}  // namespace

double FitResult::stderr_of(int i) const {
  if (covariance.size() == 0) return kNaN;
  const double v = covariance(i, i);
  if (std::isnan(v)) return kNaN;
  return std::sqrt(std::max(0.0, v));  // rounding can leave a tiny negative
}

bool FitResult::identifiable(int i) const {
  return covariance.size() == 0 || covariance(i, i) != kInf;
}

Eigen::MatrixXd covariance_from_jacobian(const Eigen::MatrixXd& J, double s2,
                                         double rank_tolerance) {
  const Eigen::Index p = J.cols();
  if (!J.allFinite() || !std::isfinite(s2)) return Eigen::MatrixXd::Constant(p, p, kNaN);
  // Unit columns make the rank test blind to the parameters' units; a zero column stays zero
  // and lands in the null space.
  const Eigen::VectorXd norms = J.colwise().norm();
  Eigen::MatrixXd scaled = J;
  for (Eigen::Index j = 0; j < p; ++j)
    if (norms[j] > 0.0) scaled.col(j) /= norms[j];
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(scaled, Eigen::ComputeFullV);
  const Eigen::VectorXd& s = svd.singularValues();
  const Eigen::MatrixXd& V = svd.matrixV();
  const double largest = s.size() ? s[0] : 0.0;
  // Rank-truncated inverse of scaled^T scaled, and each parameter's reach into the null space
  // (rows of V beyond the rank; fewer residuals than parameters leave those columns too).
  Eigen::MatrixXd inv = Eigen::MatrixXd::Zero(p, p);
  Eigen::VectorXd null_reach = Eigen::VectorXd::Zero(p);
  for (Eigen::Index k = 0; k < p; ++k) {
    const bool kept = k < s.size() && s[k] > rank_tolerance * largest && s[k] > 0.0;
    if (kept)
      inv += V.col(k) * V.col(k).transpose() / (s[k] * s[k]);
    else
      null_reach += V.col(k).cwiseAbs2();
  }
  Eigen::MatrixXd cov(p, p);
  for (Eigen::Index i = 0; i < p; ++i)
    for (Eigen::Index j = 0; j < p; ++j) cov(i, j) = s2 * inv(i, j) / (norms[i] * norms[j]);
  // The truncated inverse is exact for a parameter the data identify (its unit vector lies in
  // the row space of J) and meaningless for one they do not, whatever value it shows.
  for (Eigen::Index i = 0; i < p; ++i) {
    if (norms[i] > 0.0 && std::sqrt(null_reach[i]) <= kNullComponent) continue;
    cov.row(i).setConstant(kNaN);
    cov.col(i).setConstant(kNaN);
  }
  for (Eigen::Index i = 0; i < p; ++i)
    if (std::isnan(cov(i, i))) cov(i, i) = kInf;
  return cov;
}

double FitResult::ci95_halfwidth(int i) const {
  return t_quantile_95(dof) * stderr_of(i);
}

double t_quantile_95(int dof) {
  if (dof <= 0) return kNaN;
  boost::math::students_t dist(static_cast<double>(dof));
  return boost::math::quantile(boost::math::complement(dist, 0.025));
}

Eigen::MatrixXd numeric_jacobian(const ResidualFn& f, const Eigen::VectorXd& p, int n_residuals,
                                 double rel_step) {
  Eigen::VectorXd r0(n_residuals), r1(n_residuals);
  f(p, r0);
  Eigen::MatrixXd J(n_residuals, p.size());
  Eigen::VectorXd q = p;
  for (int j = 0; j < p.size(); ++j) {
    const double h = rel_step * std::max(std::abs(p[j]), 1e-3);
    q[j] = p[j] + h;
    f(q, r1);
    J.col(j) = (r1 - r0) / h;
    q[j] = p[j];
  }
  return J;
}

FitResult fit_linear(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                     const Eigen::VectorXd& weights) {
  Eigen::VectorXd w = Eigen::VectorXd::Ones(y.size());
  if (weights.size()) w = weights.cwiseSqrt();
  const Eigen::MatrixXd Xw = w.asDiagonal() * X;
  const Eigen::VectorXd yw = w.asDiagonal() * y;
  FitResult out;
  out.params = Xw.colPivHouseholderQr().solve(yw);
  out.residuals = Xw * out.params - yw;
  out.rss = out.residuals.squaredNorm();
  out.dof = static_cast<int>(y.size() - X.cols());
  if (out.dof > 0)
    out.covariance = covariance_from_jacobian(Xw, out.rss / out.dof, kLinearRankTolerance);
  return out;
}

FitResult fit_nonlinear(const ResidualFn& f, int n_residuals, Eigen::VectorXd start,
                        const NonlinearOptions& options) {
  Functor fn{&f, static_cast<int>(start.size()), n_residuals, options.diff_step};
  Eigen::LevenbergMarquardt<Functor> lm(fn);
  lm.parameters.maxfev = options.max_evaluations;
  lm.parameters.xtol = options.tolerance;
  lm.parameters.ftol = options.tolerance;
  const auto status = lm.minimize(start);

  FitResult out;
  out.params = start;
  out.residuals.resize(n_residuals);
  fn(start, out.residuals);
  out.rss = out.residuals.squaredNorm();
  out.dof = n_residuals - static_cast<int>(start.size());
  using S = Eigen::LevenbergMarquardtSpace::Status;
  out.converged = status == S::RelativeReductionTooSmall || status == S::RelativeErrorTooSmall ||
                  status == S::RelativeErrorAndReductionTooSmall || status == S::CosinusTooSmall ||
                  status == S::XtolTooSmall || status == S::FtolTooSmall ||
                  status == S::GtolTooSmall;
  if (!out.converged)
    out.message =
        status == S::TooManyFunctionEvaluation
            ? "no convergence within " + std::to_string(options.max_evaluations) + " evaluations"
            : "Levenberg-Marquardt stopped with status " + std::to_string(static_cast<int>(status));
  // Forward differences leave errors of about the step on an exact degeneracy; a hundred
  // times that is still far from information worth an interval.
  if (out.dof > 0)
    out.covariance =
        covariance_from_jacobian(numeric_jacobian(f, start, n_residuals, options.diff_step),
                                 out.rss / out.dof, 100.0 * std::abs(options.diff_step));
  return out;
}

}  // namespace sonicsim::calibration
