// Least-squares fitting with parameter uncertainties: the numerical core of `sonicsim calibrate`.
//
// Linear problems are solved by column-pivoted QR; nonlinear ones by Levenberg-Marquardt
// (Eigen's unsupported module, with a forward-difference Jacobian). Both report the covariance
// of the parameters, s^2 (J^T J)^-1 with s^2 = RSS / (n - p), and Student-t 95% confidence
// intervals. Bounds are the caller's business: fit log(x) for a positive x.
#pragma once

#include <functional>
#include <string>

#include <Eigen/Dense>

namespace sonicsim::calibration {

struct FitResult {
  Eigen::VectorXd params;
  Eigen::MatrixXd covariance;  // empty when n <= p (no degrees of freedom left)
  Eigen::VectorXd residuals;   // at the solution, weighted as fitted
  double rss = 0.0;            // sum of squared (weighted) residuals
  int dof = 0;                 // n - p
  bool converged = true;
  std::string message;  // why it did not converge, when it did not

  double stderr_of(int i) const;       // NaN without degrees of freedom
  double ci95_halfwidth(int i) const;  // Student-t quantile x standard error
};

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
