// Covariance of the least-squares core when the data cannot pin every parameter: such a
// parameter must read as unknown (infinite variance and interval), never as well known, while
// the parameters the data do pin keep their exact intervals.
#include <cmath>
#include <random>

#include "support.hpp"

#include <sonicsim/calibration/least_squares.hpp>

using namespace sonicsim::calibration;

namespace {

struct Line {
  Eigen::VectorXd x, y;
};

// y = 2 + 0.5 x with a little noise, so the residuals leave the intervals some width.
Line noisy_line() {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0.0, 0.05);
  Line l{Eigen::VectorXd(12), Eigen::VectorXd(12)};
  for (int i = 0; i < 12; ++i) {
    l.x[i] = 1.0 + i;
    l.y[i] = 2.0 + 0.5 * l.x[i] + noise(rng);
  }
  return l;
}

}  // namespace

TEST_CASE("a duplicated column: its parameters unknown, the others exact", "[fit][covariance]") {
  const Line l = noisy_line();
  const Eigen::Index n = l.x.size();
  Eigen::MatrixXd X(n, 3), reduced(n, 2);
  X << Eigen::VectorXd::Ones(n), l.x, l.x;  // columns 1 and 2 only count through their sum
  reduced << Eigen::VectorXd::Ones(n), l.x;
  const FitResult r = fit_linear(X, l.y);
  const FitResult ref = fit_linear(reduced, l.y);
  REQUIRE(r.dof == static_cast<int>(n) - 3);

  CHECK_FALSE(std::isfinite(r.ci95_halfwidth(1)));
  CHECK_FALSE(std::isfinite(r.ci95_halfwidth(2)));
  CHECK(r.ci95_halfwidth(1) > 0.0);  // +inf, not NaN: "any value", not "no answer"
  CHECK_FALSE(r.identifiable(1));
  CHECK_FALSE(r.identifiable(2));
  // The intercept is what the duplicate-free model says, to rounding; its interval differs only
  // by the degree of freedom the extra column cost.
  REQUIRE(r.identifiable(0));
  REQUIRE(std::isfinite(r.ci95_halfwidth(0)));
  const double s2 = r.rss / r.dof, s2_ref = ref.rss / ref.dof;
  CHECK(r.covariance(0, 0) / s2 == Approx(ref.covariance(0, 0) / s2_ref).epsilon(1e-9));
  CHECK(r.params[0] == Approx(ref.params[0]).epsilon(1e-9));
  CHECK(r.params[1] + r.params[2] == Approx(ref.params[1]).epsilon(1e-9));
  CHECK(std::isnan(r.covariance(0, 1)));  // no covariance with what is unknown
}

TEST_CASE("an unused parameter is unknown, not known exactly", "[fit][covariance]") {
  const Line l = noisy_line();
  Eigen::MatrixXd X(l.x.size(), 3);
  X << Eigen::VectorXd::Ones(l.x.size()), l.x, Eigen::VectorXd::Zero(l.x.size());
  const FitResult r = fit_linear(X, l.y);
  CHECK(std::isfinite(r.ci95_halfwidth(0)));
  CHECK(std::isfinite(r.ci95_halfwidth(1)));
  CHECK(r.ci95_halfwidth(2) == std::numeric_limits<double>::infinity());
}

TEST_CASE("a nonlinear model with two parameters in one sum", "[fit][covariance]") {
  // y = a exp((b + c) x): only b + c is measured. The forward-difference Jacobian carries its own
  // noise, which must not make b and c look determined.
  const Line l = noisy_line();
  const Eigen::Index n = l.x.size();
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i)
    y[i] = 3.0 * std::exp(0.1 * l.x[i]) + (l.y[i] - 2.0 - 0.5 * l.x[i]);
  const ResidualFn f = [&](const Eigen::VectorXd& p, Eigen::VectorXd& r) {
    for (Eigen::Index i = 0; i < n; ++i) r[i] = p[0] * std::exp((p[1] + p[2]) * l.x[i]) - y[i];
  };
  Eigen::VectorXd start(3);
  start << 1.0, 0.02, 0.05;
  const FitResult r = fit_nonlinear(f, static_cast<int>(n), start);
  REQUIRE(r.params[1] + r.params[2] == Approx(0.1).epsilon(0.05));
  CHECK(std::isfinite(r.ci95_halfwidth(0)));
  CHECK(r.ci95_halfwidth(0) > 0.0);
  CHECK(r.params[0] == Approx(3.0).margin(3 * r.ci95_halfwidth(0)));
  CHECK_FALSE(std::isfinite(r.ci95_halfwidth(1)));
  CHECK_FALSE(std::isfinite(r.ci95_halfwidth(2)));
}

TEST_CASE("a full-rank fit keeps the classical covariance", "[fit][covariance]") {
  const Line l = noisy_line();
  Eigen::MatrixXd X(l.x.size(), 2);
  X << Eigen::VectorXd::Ones(l.x.size()), l.x;
  const FitResult r = fit_linear(X, l.y);
  const Eigen::MatrixXd classical = (X.transpose() * X).inverse() * (r.rss / r.dof);
  CHECK(r.covariance.isApprox(classical, 1e-10));
  CHECK(r.identifiable(0));
  CHECK(r.identifiable(1));
}
