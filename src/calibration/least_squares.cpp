#include <sonicsim/calibration/least_squares.hpp>

#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>
#include <unsupported/Eigen/NonLinearOptimization>

namespace sonicsim::calibration {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// s^2 (J^T J)^-1 through the pseudo-inverse, so an unidentifiable direction gives a huge
// variance instead of a crash.
Eigen::MatrixXd covariance_of(const Eigen::MatrixXd& J, double rss, int dof) {
  if (dof <= 0) return {};
  const Eigen::MatrixXd jtj = J.transpose() * J;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(jtj);
  return cod.pseudoInverse() * (rss / dof);
}

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
  return std::sqrt(std::max(0.0, covariance(i, i)));
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
  out.covariance = covariance_of(Xw, out.rss, out.dof);
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
  out.covariance =
      covariance_of(numeric_jacobian(f, start, n_residuals, options.diff_step), out.rss, out.dof);
  return out;
}

}  // namespace sonicsim::calibration
