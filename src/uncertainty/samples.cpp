#include <sonicsim/uncertainty/samples.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include <boost/math/special_functions/erf.hpp>
#include <boost/random/sobol.hpp>

#include <sonicsim/calibration/service_fit.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::uncertainty {

using nlohmann::json;

namespace {

constexpr double kZ975 = 1.959963984540054;

// The standard normal's quantile.
double probit(double u) {
  return std::sqrt(2.0) * boost::math::erf_inv(2.0 * u - 1.0);
}

// 53 random bits as a double in (0, 1): the same on every machine (std's distributions are not).
double unit(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) * 0x1p-53;
}

std::vector<std::vector<double>> latin_hypercube(int n, int dims, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(n),
                                        std::vector<double>(static_cast<std::size_t>(dims)));
  std::vector<int> strata(static_cast<std::size_t>(n));
  for (int d = 0; d < dims; ++d) {
    for (int i = 0; i < n; ++i) strata[static_cast<std::size_t>(i)] = i;
    for (int i = n - 1; i > 0; --i)  // Fisher-Yates; the modulo's bias is below 2^-40 here
      std::swap(strata[static_cast<std::size_t>(i)],
                strata[static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(i + 1))]);
    for (int i = 0; i < n; ++i)
      rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(d)] =
          (strata[static_cast<std::size_t>(i)] + unit(rng())) / n;
  }
  return rows;
}

std::vector<std::vector<double>> sobol_points(int n, int dims, std::uint64_t seed) {
  boost::random::sobol gen(static_cast<std::size_t>(dims));
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> shift(static_cast<std::size_t>(dims));
  for (auto& s : shift) s = rng();
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(n),
                                        std::vector<double>(static_cast<std::size_t>(dims)));
  // Boost's sequence starts after the origin; the net of the first 2^m points needs it.
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t d = 0; d < rows[i].size(); ++d)
      rows[i][d] = unit((i == 0 ? std::uint64_t{0} : static_cast<std::uint64_t>(gen())) ^ shift[d]);
  return rows;
}

calibration::CurveFit fit_of(const CalibratedCurve& c, const std::vector<double>& params) {
  calibration::CurveFit f;
  calibration::parse_curve_kind(c.kind, f.kind);
  f.params = params;
  return f;
}

// L with L L^T = covariance (k <= a few), zero columns where a parameter is held.
std::vector<double> cholesky(const std::vector<double>& cov, std::size_t k) {
  std::vector<double> l(k * k, 0.0);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double s = cov[i * k + j];
      for (std::size_t m = 0; m < j; ++m) s -= l[i * k + m] * l[j * k + m];
      if (i == j)
        l[i * k + i] = std::sqrt(std::max(0.0, s));
      else
        l[i * k + j] = l[j * k + j] > 0 ? s / l[j * k + j] : 0.0;
    }
  return l;
}

// Parameters drawn from N(params, covariance) at the normal scores z. A draw is kept above 5% of
// the fitted value: a time or rate at or below zero is no curve (documented).
std::vector<double> draw_params(const CalibratedCurve& c, const std::vector<double>& z) {
  const std::size_t k = c.params.size();
  const auto l = cholesky(c.covariance, k);
  std::vector<double> out = c.params;
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j <= i; ++j) out[i] += l[i * k + j] * z[j];
    out[i] = std::max(out[i], 0.05 * c.params[i]);
  }
  return out;
}

// The relative standard error of the curve at `batch`, by the delta method.
double relative_se(const CalibratedCurve& c, double batch) {
  if (c.params.empty()) return c.rms_rel_error;
  const std::size_t k = c.params.size();
  const double t = fit_of(c, c.params).at(batch);
  std::vector<double> g(k);
  for (std::size_t i = 0; i < k; ++i) {
    auto up = c.params, down = c.params;
    const double h = 1e-6 * c.params[i];
    up[i] += h;
    down[i] -= h;
    g[i] = (fit_of(c, up).at(batch) - fit_of(c, down).at(batch)) / (2 * h);
  }
  double v = 0.0;
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j) v += g[i] * c.covariance[i * k + j] * g[j];
  return std::sqrt(std::max(0.0, v)) / t;
}

double median_batch(const CalibratedCurve& c) {
  return c.batch[c.batch.size() / 2];
}

std::string table_text(const CalibratedCurve& c, const std::vector<double>& factors) {
  json t{{"batch", c.batch}, {"seconds", json::array()}};
  for (std::size_t i = 0; i < c.batch.size(); ++i)
    t["seconds"].push_back(c.seconds[i] * factors[i]);
  return t.dump();
}

std::string written(const Input& in, double v) {
  return write_numeric({0.0, in.quantity, in.integer}, v);
}

std::size_t choice_at(const Input& in, double u) {
  double cum = 0.0;
  for (std::size_t k = 0; k < in.weights.size(); ++k) {
    cum += in.weights[k];
    if (u < cum) return k;
  }
  return in.weights.size() - 1;
}

double value_at(const Input& in, double u) {
  switch (in.dist) {
    case Dist::PlusMinus:
      return in.nominal + in.a * (2.0 * u - 1.0);
    case Dist::Uniform:
      return in.a + (in.b - in.a) * u;
    case Dist::Normal:
      return in.a + in.b * probit(u);
    case Dist::Lognormal:
      return in.a * std::exp(in.b * probit(u));
    case Dist::Choice:
      return static_cast<double>(choice_at(in, u));
    case Dist::Calibration:
      break;
  }
  return in.nominal;
}

// Input `in` realised from its columns u[0 .. dims).
void realise_input(const Input& in, const double* u, Sample& s) {
  if (in.curve) {
    const CalibratedCurve& c = *in.curve;
    std::vector<double> factors(c.batch.size());
    if (c.params.empty()) {
      const double f = std::exp(c.rms_rel_error * probit(u[0]));
      std::fill(factors.begin(), factors.end(), f);
    } else {
      std::vector<double> z(c.params.size());
      for (std::size_t j = 0; j < z.size(); ++j) z[j] = probit(u[j]);
      const auto drawn = draw_params(c, z);
      for (std::size_t i = 0; i < c.batch.size(); ++i)
        factors[i] = curve_factor(c, drawn, c.batch[i]);
    }
    s.overrides.push_back({in.path, table_text(c, factors)});
    s.summary.push_back(factors[c.batch.size() / 2]);
    s.values.push_back(factors[c.batch.size() / 2]);
    return;
  }
  const double v = value_at(in, u[0]);
  if (in.dist == Dist::Choice) {
    const auto k = static_cast<std::size_t>(v);
    s.overrides.push_back({in.path, in.values[k].dump()});
    s.values.push_back(in.values[k]);
    s.summary.push_back(v);
    return;
  }
  const double kept = in.integer ? static_cast<double>(std::llround(v)) : v;
  s.overrides.push_back({in.path, written(in, kept)});
  s.values.push_back(kept);
  s.summary.push_back(kept);
}

}  // namespace

Method method_from_name(const std::string& name, const std::string& what) {
  if (name == "lhs") return Method::Lhs;
  if (name == "sobol") return Method::Sobol;
  throw InputError(what, {{"", "found `" + name + "`, expected lhs or sobol"}});
}

const char* method_name(Method m) {
  return m == Method::Lhs ? "lhs" : "sobol";
}

std::vector<std::vector<double>> design(Method method, int n, int dims, std::uint64_t seed) {
  if (n <= 0 || dims <= 0)
    return std::vector<std::vector<double>>(static_cast<std::size_t>(std::max(n, 0)));
  return method == Method::Lhs ? latin_hypercube(n, dims, seed) : sobol_points(n, dims, seed);
}

double curve_factor(const CalibratedCurve& c, const std::vector<double>& drawn_params,
                    double batch) {
  if (c.params.empty()) return 1.0;
  return fit_of(c, drawn_params).at(batch) / fit_of(c, c.params).at(batch);
}

Sample realise(const Spec& spec, const std::vector<double>& u) {
  Sample s;
  s.u = u;
  std::size_t col = 0;
  for (const auto& in : spec.inputs) {
    realise_input(in, u.data() + col, s);
    col += static_cast<std::size_t>(in.dims());
  }
  return s;
}

double quantile(const Input& in, double q) {
  if (in.curve) return std::exp(probit(q) * relative_se(*in.curve, median_batch(*in.curve)));
  const double v = value_at(in, q);
  return in.integer ? static_cast<double>(std::llround(v)) : v;
}

std::vector<scenario::Override> at_quantile(const Spec& spec, std::size_t i, double q) {
  const Input& in = spec.inputs.at(i);
  if (in.curve) {
    const CalibratedCurve& c = *in.curve;
    std::vector<double> factors(c.batch.size());
    for (std::size_t b = 0; b < c.batch.size(); ++b)
      factors[b] = std::exp(probit(q) * relative_se(c, c.batch[b]));
    return {{in.path, table_text(c, factors)}};
  }
  if (in.dist == Dist::Choice) return {{in.path, in.values[choice_at(in, q)].dump()}};
  return {{in.path, written(in, quantile(in, q))}};
}

Spec narrowed(const Spec& spec, std::size_t i, double factor) {
  Spec out = spec;
  Input& in = out.inputs.at(i);
  switch (in.dist) {
    case Dist::PlusMinus:
    case Dist::Normal:
    case Dist::Lognormal:
      (in.dist == Dist::PlusMinus ? in.a : in.b) *= factor;
      break;
    case Dist::Uniform: {
      const double mid = (in.a + in.b) / 2, half = (in.b - in.a) / 2 * factor;
      in.a = mid - half;
      in.b = mid + half;
      break;
    }
    case Dist::Choice:
      if (factor < 1) {
        const auto top =
            std::max_element(in.weights.begin(), in.weights.end()) - in.weights.begin();
        std::fill(in.weights.begin(), in.weights.end(), 0.0);
        in.weights[static_cast<std::size_t>(top)] = 1.0;
      }
      break;
    case Dist::Calibration:
      for (double& v : in.curve->covariance) v *= factor * factor;
      in.curve->rms_rel_error *= factor;
      break;
  }
  return out;
}

double relative_half_width(const Input& in) {
  const double scale = std::abs(in.nominal);
  switch (in.dist) {
    case Dist::PlusMinus:
      return scale > 0 ? in.a / scale : 0.0;
    case Dist::Uniform: {
      const double mid = std::abs(in.a + in.b) / 2;
      return mid > 0 ? (in.b - in.a) / 2 / mid : 0.0;
    }
    case Dist::Normal:
      return in.a != 0 ? kZ975 * in.b / std::abs(in.a) : 0.0;
    case Dist::Lognormal:
      return std::sinh(kZ975 * in.b);
    case Dist::Choice:
      return 0.0;
    case Dist::Calibration: {
      double worst = 0.0;
      for (double b : in.curve->batch) worst = std::max(worst, relative_se(*in.curve, b));
      return std::sinh(kZ975 * worst);
    }
  }
  return 0.0;
}

}  // namespace sonicsim::uncertainty
