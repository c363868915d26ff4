// The parameters' covariance that `calibrate perf-analyzer` writes beside each fitted curve's
// 95% intervals (`fit.candidates[].covariance`, `overhead_fit.*.covariance`,
// `host_cost.fit.covariance`; issue 38: the `uncertainty` block draws a curve from
// N(params, covariance)). Held to the closed form of least squares on synthetic lines, to the
// covariance computed directly in the curve's own parameters for the saturating curve, and, on
// the shipped calibrations of the CMS scans (real data), to the intervals written beside it.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support.hpp"

#include <sonicsim/calibration/least_squares.hpp>
#include <sonicsim/calibration/service_fit.hpp>

using namespace sonicsim::calibration;
namespace fs = std::filesystem;

namespace {

// s^2 (X^T W X)^-1 with s^2 = sum w r^2 / (n - p), written out.
Eigen::MatrixXd closed_form_covariance(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                       const Eigen::VectorXd& w) {
  const Eigen::MatrixXd XtWX = X.transpose() * w.asDiagonal() * X;
  const Eigen::MatrixXd inv = XtWX.inverse();
  const Eigen::VectorXd b = inv * X.transpose() * w.asDiagonal() * y;
  const Eigen::VectorXd r = y - X * b;
  const double s2 = r.dot(w.asDiagonal() * r) / static_cast<double>(X.rows() - X.cols());
  return s2 * inv;
}

// The smallest eigenvalue of the correlation matrix of `c` (scale-free: the parameters' units
// span ten decades); PSD when it is not below rounding.
double smallest_correlation_eigenvalue(const Eigen::MatrixXd& c) {
  const Eigen::VectorXd d = c.diagonal().cwiseSqrt().cwiseInverse();
  const Eigen::MatrixXd r = d.asDiagonal() * c * d.asDiagonal();
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(r).eigenvalues().minCoeff();
}

Eigen::MatrixXd as_matrix(const std::vector<double>& v, int k) {
  Eigen::MatrixXd m(k, k);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) m(i, j) = v[static_cast<std::size_t>(i * k + j)];
  return m;
}

}  // namespace

TEST_CASE("least squares on a line: the covariance is s^2 (X^T X)^-1, noise-free and noisy",
          "[fit][covariance]") {
  const int n = 12;
  Eigen::MatrixXd X(n, 2);
  Eigen::VectorXd exact(n), noisy(n);
  std::mt19937_64 rng(38);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (int i = 0; i < n; ++i) {
    X(i, 0) = 1.0;
    X(i, 1) = 1.0 + i;
    exact[i] = 2.0 + 0.5 * X(i, 1);
    noisy[i] = exact[i] + noise(rng);
  }
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);

  // Noise-free: the line exactly, and a covariance of rounding only.
  const FitResult e = fit_linear(X, exact);
  CHECK(e.params[0] == Approx(2.0).epsilon(1e-12));
  CHECK(e.params[1] == Approx(0.5).epsilon(1e-12));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) CHECK(std::abs(e.covariance(i, j)) < 1e-20);

  // Noisy: the closed form, entry by entry, symmetric, and the intervals' variance.
  const FitResult r = fit_linear(X, noisy);
  const Eigen::MatrixXd want = closed_form_covariance(X, noisy, ones);
  REQUIRE(r.covariance.rows() == 2);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) CHECK(r.covariance(i, j) == Approx(want(i, j)).epsilon(1e-9));
  CHECK(r.covariance(0, 1) == r.covariance(1, 0));
  CHECK(r.covariance(0, 1) < 0.0);  // intercept and slope trade off on x > 0
  const double t = t_quantile_95(n - 2);
  for (int i = 0; i < 2; ++i)
    CHECK(r.ci95_halfwidth(i) == Approx(t * std::sqrt(want(i, i))).epsilon(1e-9));
}

TEST_CASE("the linear curve's covariance is the weighted closed form, on relative errors",
          "[fit][covariance]") {
  // t(n) = a + b n fitted on relative errors: weights 1 / t^2, so s^2 (X^T W X)^-1.
  const std::vector<double> items{1, 2, 4, 8, 16, 32, 64, 128};
  const int n = static_cast<int>(items.size());
  std::mt19937_64 rng(2026);
  std::normal_distribution<double> noise(0.0, 0.02);
  for (const bool noisy : {false, true}) {
    INFO((noisy ? "seeded noise" : "noise-free"));
    std::vector<CurvePoint> pts;
    Eigen::MatrixXd X(n, 2);
    Eigen::VectorXd y(n), w(n);
    for (int i = 0; i < n; ++i) {
      const double truth = 1e-3 + 2e-4 * items[static_cast<std::size_t>(i)];
      y[i] = noisy ? truth * (1.0 + noise(rng)) : truth;
      X(i, 0) = 1.0;
      X(i, 1) = items[static_cast<std::size_t>(i)];
      w[i] = 1.0 / (y[i] * y[i]);
      pts.push_back({items[static_cast<std::size_t>(i)], y[i]});
    }
    const CurveFit f = fit_curve(CurveKind::Linear, pts, false);
    REQUIRE(f.ok);
    REQUIRE(f.note.empty());  // neither term clamped
    REQUIRE(f.covariance.size() == 4);
    CHECK(f.covariance[1] == f.covariance[2]);
    const double t = t_quantile_95(n - 2);
    if (!noisy) {
      CHECK(f.params[0] == Approx(1e-3).epsilon(1e-10));
      CHECK(f.params[1] == Approx(2e-4).epsilon(1e-10));
      for (int i = 0; i < 2; ++i)
        CHECK(std::sqrt(f.covariance[static_cast<std::size_t>(3 * i)]) < 1e-12 * f.params[i]);
      continue;
    }
    const Eigen::MatrixXd want = closed_form_covariance(X, y, w);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j)
        CHECK(f.covariance[static_cast<std::size_t>(2 * i + j)] ==
              Approx(want(i, j)).epsilon(1e-8));
      // The diagonal is what the interval beside it says.
      CHECK(f.covariance[static_cast<std::size_t>(3 * i)] ==
            Approx(std::pow(f.ci95[static_cast<std::size_t>(i)] / t, 2)).epsilon(1e-12));
    }
    CHECK(smallest_correlation_eigenvalue(as_matrix(f.covariance, 2)) > 0.0);
  }
}

TEST_CASE("the saturating curve's covariance is the one of its own parameters",
          "[fit][covariance]") {
  // The curve is fitted in log parameters and its covariance mapped to (t0, r_max, k): to
  // first order the same as the covariance computed from the Jacobian in (t0, r_max, k)
  // directly. Its t0 and k variances are what their intervals say; r_max's interval adds the
  // log variances of t0 and n_s as if independent, the covariance keeps their correlation.
  const double t0 = 2e-3, r_max = 5000.0, k = 2.0;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<CurvePoint> pts;
  for (double n = 1.0; n <= 512.0; n *= 2.0)
    pts.push_back(
        {n, t0 * std::pow(1.0 + std::pow(n / (t0 * r_max), k), 1.0 / k) * (1.0 + noise(rng))});
  const int n = static_cast<int>(pts.size());
  const CurveFit f = fit_curve(CurveKind::Saturating, pts, false);
  REQUIRE(f.ok);
  REQUIRE(f.covariance.size() == 9);
  const Eigen::MatrixXd c = as_matrix(f.covariance, 3);
  REQUIRE(c.allFinite());
  CHECK((c - c.transpose()).norm() == 0.0);

  const ResidualFn res = [&](const Eigen::VectorXd& q, Eigen::VectorXd& r) {
    for (int i = 0; i < n; ++i) {
      const auto& p = pts[static_cast<std::size_t>(i)];
      r[i] =
          q[0] * std::pow(1.0 + std::pow(p.items / (q[0] * q[1]), q[2]), 1.0 / q[2]) / p.seconds -
          1.0;
    }
  };
  const Eigen::Vector3d q(f.params[0], f.params[1], f.params[2]);
  Eigen::VectorXd r(n);
  res(q, r);
  const Eigen::MatrixXd direct =
      covariance_from_jacobian(numeric_jacobian(res, q, n, 1e-7), r.squaredNorm() / (n - 3), 1e-8);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      INFO("entry " << i << ", " << j);
      CHECK(c(i, j) == Approx(direct(i, j)).epsilon(1e-3));
    }

  const double t = t_quantile_95(n - 3);
  CHECK(c(0, 0) == Approx(std::pow(f.ci95[0] / t, 2)).epsilon(1e-12));
  CHECK(c(2, 2) == Approx(std::pow(f.ci95[2] / t, 2)).epsilon(1e-12));
  // var(r) / r^2 = var(log n_s) + var(log t0) - 2 cov(log t0, log n_s), and the interval has
  // (ci / t r)^2 = var(log n_s) + var(log t0): the difference is the correlation term.
  const double rel_cov_t0_r = c(0, 1) / (f.params[0] * f.params[1]);
  const double var_log_t0 = c(0, 0) / (f.params[0] * f.params[0]);
  CHECK(c(1, 1) / (f.params[1] * f.params[1]) ==
        Approx(std::pow(f.ci95[1] / (t * f.params[1]), 2) - 2.0 * (rel_cov_t0_r + var_log_t0))
            .epsilon(1e-9));
  CHECK(smallest_correlation_eigenvalue(c) > 0.0);
}

TEST_CASE("the shipped CMS calibrations: covariance and intervals agree, PSD",
          "[fit][covariance][calibrate]") {
  // Real data: every calibration of calibration/cms-t4, written by `calibrate perf-analyzer`
  // from the CMS paper's scans (scripts/calibrate-cms.sh).
  using json = nlohmann::ordered_json;  // the files' key order matters (param_order)
  const fs::path dir = fs::path(SONICSIM_SOURCE_DIR) / "calibration" / "cms-t4";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 20);
  // A matrix of numbers and nulls; its determined block (rows with a variance) as a matrix.
  auto read_matrix = [](const json& m, std::size_t k, std::vector<int>& known) {
    REQUIRE(m.is_array());
    REQUIRE(m.size() == k);
    for (std::size_t i = 0; i < k; ++i) {
      REQUIRE(m[i].size() == k);
      for (std::size_t j = 0; j < k; ++j) CHECK(m[i][j] == m[j][i]);  // symmetric, nulls too
      if (!m[i][i].is_null()) known.push_back(static_cast<int>(i));
    }
    Eigen::MatrixXd c(known.size(), known.size());
    for (std::size_t a = 0; a < known.size(); ++a)
      for (std::size_t b = 0; b < known.size(); ++b) {
        const json& x = m[static_cast<std::size_t>(known[a])][static_cast<std::size_t>(known[b])];
        REQUIRE(x.is_number());
        c(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = x.get<double>();
      }
    return c;
  };
  int saturating = 0, linear = 0, hosts = 0;
  for (const auto& path : files) {
    INFO(path.filename().string());
    std::ifstream in(path);
    const json doc = json::parse(in);
    // The curve fits' degrees of freedom: distinct items per execution among the rows used.
    std::vector<double> items;
    for (const auto& p : doc["fit"]["points"])
      if (p["used"].get<bool>()) items.push_back(p["items_per_execution"].get<double>());
    std::sort(items.begin(), items.end());
    int distinct = 0;
    for (std::size_t i = 0; i < items.size(); ++i)
      distinct += i == 0 || std::abs(items[i] - items[i - 1]) > 1e-9 * items[i];
    for (const auto& cand : doc["fit"]["candidates"]) {
      if (!cand.contains("params")) continue;
      const std::string kind = cand["kind"];
      INFO(kind);
      std::vector<std::string> names;
      for (const auto& [name, value] : cand["params"].items()) names.push_back(name);
      REQUIRE(cand["param_order"].get<std::vector<std::string>>() == names);
      const std::size_t k = names.size();
      std::vector<int> known;
      const Eigen::MatrixXd c = read_matrix(cand["covariance"], k, known);
      const bool clamped = cand.contains("note") &&
                           cand["note"].get<std::string>().find("clamped") != std::string::npos;
      const int dof = distinct - (clamped ? 1 : static_cast<int>(k));
      const double t = t_quantile_95(dof);
      for (std::size_t i = 0; i < k; ++i) {
        const json& ci = cand["ci95_halfwidth"][names[i]];
        const json& v = cand["covariance"][i][i];
        INFO(names[i]);
        CHECK(ci.is_null() == v.is_null());
        if (!ci.is_null() && names[i] != "r_max_items_per_s")  // r_max: below
          CHECK(v.get<double>() == Approx(std::pow(ci.get<double>() / t, 2)).epsilon(1e-9));
      }
      if (kind == "saturating" && known.size() >= 2 && known[0] == 0 && known[1] == 1) {
        const auto& p = cand["params"];
        const double t0 = p["t0_s"], r = p["r_max_items_per_s"];
        const double ci_r = cand["ci95_halfwidth"]["r_max_items_per_s"];
        CHECK(c(1, 1) / (r * r) ==
              Approx(std::pow(ci_r / (t * r), 2) - 2.0 * (c(0, 1) / (t0 * r) + c(0, 0) / (t0 * t0)))
                  .epsilon(1e-6));
      }
      if (c.rows() > 0) CHECK(smallest_correlation_eigenvalue(c) > -1e-9);
      (kind == "saturating" ? saturating : linear) += c.rows() > 0;
    }
    // The overheads: (fixed, per_item), PSD.
    for (const char* phase : {"client_send", "server", "client_recv"}) {
      INFO(phase);
      const json& o = doc["overhead_fit"][phase];
      CHECK(o["param_order"] == json::array({"fixed", "per_item"}));
      std::vector<int> known;
      const Eigen::MatrixXd c = read_matrix(o["covariance"], 2, known);
      for (Eigen::Index i = 0; i < c.rows(); ++i) CHECK(c(i, i) >= 0.0);
      if (c.rows() == 2 && c(0, 0) > 0.0 && c(1, 1) > 0.0)
        CHECK(smallest_correlation_eigenvalue(c) > -1e-9);
    }
    // The host costs: (per_request, per_byte), each variance what its interval says.
    if (!doc.contains("host_cost")) continue;
    const json& h = doc["host_cost"];
    const json& fit = h["fit"];
    REQUIRE(fit["param_order"] == json::array({"per_request", "per_byte"}));
    std::vector<int> known;
    const Eigen::MatrixXd c = read_matrix(fit["covariance"], 2, known);
    REQUIRE(known.size() == 2);
    const auto& pts = doc["fit"]["points"];
    const bool both = h["per_request"].get<double>() > 0.0 && h["per_byte_in"].get<double>() > 0.0;
    const double t = t_quantile_95(static_cast<int>(pts.size()) - (both ? 2 : 1));
    const double value[2] = {h["per_request"], h["per_byte_in"]};
    const char* interval[2] = {"per_request_ci95", "per_byte_ci95"};
    for (int i = 0; i < 2; ++i) {
      INFO(interval[i]);
      const double half = fit[interval[i]][1].get<double>() - value[i];
      CHECK(c(i, i) == Approx(std::pow(half / t, 2)).epsilon(1e-6).margin(1e-300));
    }
    if (both) CHECK(smallest_correlation_eigenvalue(c) > -1e-9);
    ++hosts;
  }
  // Not vacuous: most files have determined saturating and linear covariances and a host.
  CHECK(saturating >= 10);
  CHECK(linear >= 10);
  CHECK(hosts >= 10);
}
