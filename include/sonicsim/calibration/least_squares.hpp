// Least-squares fitting with parameter uncertainties: the numerical core of `sonicsim calibrate`.
//
// Linear problems are solved by column-pivoted QR; nonlinear ones by Levenberg-Marquardt
// (Eigen's unsupported module, with a forward-difference Jacobian). Both report the covariance
// of the parameters, s^2 (J^T J)^-1 with s^2 = RSS / (n - p), and Student-t 95% confidence
// intervals. Bounds are the caller's business: fit log(x) for a positive x.
//
// A parameter the data cannot identify (its column is zero, or a combination of the others, so
// some change of it leaves every residual as it was) has no finite variance: its variance and
// its interval are +infinity, its covariances with the other parameters NaN. A pseudo-inverse
// would give it a finite, even zero, variance, which reads as "well known". The parameters the
// data do identify keep their exact variance.
#pragma once

#include <functional>
#include <string>

#include <Eigen/Dense>

namespace sonicsim::calibration {

struct FitResult {
  Eigen::VectorXd params;
  // Empty when n <= p (no degrees of freedom left). An unidentifiable parameter has +inf on the
  // diagonal and NaN elsewhere in its row and column.
  Eigen::MatrixXd covariance;
  Eigen::VectorXd residuals;  // at the solution, weighted as fitted
  double rss = 0.0;           // sum of squared (weighted) residuals
  int dof = 0;                // n - p
  bool converged = true;
  std::string message;  // why it did not converge, when it did not

  double stderr_of(int i) const;       // NaN without degrees of freedom, +inf if unidentifiable
  double ci95_halfwidth(int i) const;  // Student-t quantile x standard error
  bool identifiable(int i) const;      // false when the data leave parameter i free
};

// s2 (J^T J)^-1, with the rule above for unidentifiable parameters. J is the Jacobian of the
// (weighted) residuals, s2 the variance of one residual. The rank is judged on J with its
// columns scaled to unit length, so the parameters' units do not matter: singular values below
// `rank_tolerance` times the largest count as zero.
Eigen::MatrixXd covariance_from_jacobian(const Eigen::MatrixXd& J, double s2,
                                         double rank_tolerance);

// Minimises || W^(1/2) (X b - y) ||^2; `weights` empty means all 1.
FitResult fit_linear(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                     const Eigen::VectorXd& weights = {});

// Residual function: fills r (size n) for parameters p. Must be deterministic.
using ResidualFn = std::function<void(const Eigen::VectorXd& p, Eigen::VectorXd& r)>;

struct NonlinearOptions {
  int max_evaluations = 4000;
  double tolerance = 1e-10;  // relative, on parameters and on the sum of squares
  // Forward-difference step relative to each parameter (absolute for parameters near 0).
  double diff_step = 1e-6;
};

FitResult fit_nonlinear(const ResidualFn& f, int n_residuals, Eigen::VectorXd start,
                        const NonlinearOptions& options = {});

// Jacobian by forward differences, as used for the covariance.
Eigen::MatrixXd numeric_jacobian(const ResidualFn& f, const Eigen::VectorXd& p, int n_residuals,
                                 double rel_step);

// Two-sided Student-t quantile for 95% coverage with `dof` degrees of freedom.
double t_quantile_95(int dof);

}  // namespace sonicsim::calibration
