#include <sonicsim/scenario/distribution.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>

#include <sonicsim/util/numbers.hpp>
#include <sonicsim/util/rng.hpp>

namespace sonicsim::scenario {
namespace {

double std_normal_pdf(double x) {
  return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
}
double std_normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

// phi(a) / Phi(a) for a = mean/sigma: the shift of the mean caused by cutting the normal at 0.
// Far in the left tail both vanish; their ratio tends to -a (Mills ratio), which keeps the
// result finite for distributions built in code with a very negative mean.
double truncation_ratio(double a) {
  if (a < -30.0) return -a;
  return std_normal_pdf(a) / std_normal_cdf(a);
}

double empirical_total_weight(const Distribution& d) {
  double total = 0.0;
  for (double w : d.weights) total += w;
  return total;
}

// The value whose cumulative weight first passes `target` (in [0, total weight)).
double weighted_pick(const Distribution& d, double target) {
  double cumulative = 0.0;
  for (std::size_t i = 0; i < d.values.size(); ++i) {
    cumulative += d.weights[i];
    if (target < cumulative) return d.values[i];
  }
  // Rounding can leave target a hair above the sum: the last value with weight takes it.
  for (std::size_t i = d.values.size(); i-- > 0;)
    if (d.weights[i] > 0.0) return d.values[i];
  return d.values.back();
}

// Weighted sum of f(value); uniform weights when none are given.
template <class F>
double empirical_moment(const Distribution& d, F f) {
  if (d.values.empty()) return 0.0;
  double sum = 0.0;
  if (d.weights.size() != d.values.size()) {
    for (double v : d.values) sum += f(v);
    return sum / static_cast<double>(d.values.size());
  }
  const double total = empirical_total_weight(d);
  for (std::size_t i = 0; i < d.values.size(); ++i) sum += d.weights[i] * f(d.values[i]);
  return total > 0 ? sum / total : 0.0;
}

// Marsaglia & Tsang (2000), "A simple method for generating gamma variables"; shape < 1 is
// boosted to shape + 1 and scaled back with U^(1/shape).
double sample_gamma(Rng& rng, double shape, double scale) {
  double boost = 1.0;
  if (shape < 1.0) {
    boost = std::pow(rng.uniform01(), 1.0 / shape);
    shape += 1.0;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = rng.normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = rng.uniform01();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) {
      return d * v * scale * boost;
    }
  }
}

}  // namespace

const char* to_string(Distribution::Kind kind) {
  switch (kind) {
    case Distribution::Kind::Constant:
      return "constant";
    case Distribution::Kind::Exponential:
      return "exponential";
    case Distribution::Kind::Lognormal:
      return "lognormal";
    case Distribution::Kind::Gamma:
      return "gamma";
    case Distribution::Kind::Normal:
      return "normal";
    case Distribution::Kind::Uniform:
      return "uniform";
    case Distribution::Kind::Empirical:
      return "empirical";
  }
  return "unknown";
}

double Distribution::expected() const {
  switch (kind) {
    case Kind::Constant:
    case Kind::Exponential:
    case Kind::Lognormal:
    case Kind::Gamma:
      return mean;
    case Kind::Normal: {
      const double sigma = cv * mean;
      if (sigma <= 0.0) return std::max(mean, 0.0);
      return mean + sigma * truncation_ratio(mean / sigma);
    }
    case Kind::Uniform:
      return 0.5 * (min + max);
    case Kind::Empirical:
      return empirical_moment(*this, [](double v) { return v; });
  }
  return mean;
}

double Distribution::second_moment() const {
  switch (kind) {
    case Kind::Constant:
      return mean * mean;
    case Kind::Exponential:
      return 2.0 * mean * mean;
    case Kind::Lognormal:
    case Kind::Gamma:
      return mean * mean * (1.0 + cv * cv);
    case Kind::Normal: {
      // E[X^2] of N(m, s) cut at 0 simplifies to m^2 + s^2 + m s phi(a)/Phi(a), a = m/s.
      const double sigma = cv * mean;
      if (sigma <= 0.0) return mean > 0 ? mean * mean : 0.0;
      return mean * mean + sigma * sigma + mean * sigma * truncation_ratio(mean / sigma);
    }
    case Kind::Uniform:
      return (min * min + min * max + max * max) / 3.0;
    case Kind::Empirical:
      return empirical_moment(*this, [](double v) { return v * v; });
  }
  return mean * mean;
}

double Distribution::upper_bound() const {
  switch (kind) {
    case Kind::Constant:
      return mean;
    case Kind::Exponential:
      return kInf;
    case Kind::Lognormal:
    case Kind::Gamma:
    case Kind::Normal:
      return cv > 0.0 ? kInf : std::max(mean, 0.0);
    case Kind::Uniform:
      return max;
    case Kind::Empirical: {
      double hi = -kInf;
      for (double v : values) hi = std::max(hi, v);
      return values.empty() ? 0.0 : hi;
    }
  }
  return kInf;
}

double Distribution::sample(Rng& rng) const {
  switch (kind) {
    case Kind::Constant:
      return mean;
    case Kind::Exponential:
      return rng.exponential(mean);
    case Kind::Lognormal: {
      if (cv <= 0.0) return mean;
      const double sigma2 = std::log1p(cv * cv);
      const double mu = std::log(mean) - 0.5 * sigma2;
      return std::exp(mu + std::sqrt(sigma2) * rng.normal());
    }
    case Kind::Gamma: {
      if (cv <= 0.0) return mean;
      const double shape = 1.0 / (cv * cv);
      return sample_gamma(rng, shape, mean / shape);
    }
    case Kind::Normal: {
      const double sigma = cv * mean;
      if (sigma <= 0.0) return std::max(mean, 0.0);
      // Rejection keeps the shape of the normal above 0 exactly; the loader only builds normals
      // with mean >= 0, so at least half of the draws are accepted.
      for (;;) {
        const double x = mean + sigma * rng.normal();
        if (x >= 0.0) return x;
      }
    }
    case Kind::Uniform:
      return min + (max - min) * rng.uniform01();
    case Kind::Empirical: {
      if (values.empty()) return 0.0;
      if (weights.size() != values.size()) return values[rng.below(values.size())];
      return weighted_pick(*this, rng.uniform01() * empirical_total_weight(*this));
    }
  }
  return mean;
}

PreparedDistribution::PreparedDistribution(const Distribution& d)
    : d_(&d), kind_(d.kind), mean_(d.mean) {
  if (d.kind == Distribution::Kind::Lognormal && d.cv > 0.0) {
    const double sigma2 = std::log1p(d.cv * d.cv);
    mu_ = std::log(d.mean) - 0.5 * sigma2;
    sigma_ = std::sqrt(sigma2);
  }
  weighted_ = d.kind == Distribution::Kind::Empirical && !d.values.empty() &&
              d.weights.size() == d.values.size();
  if (weighted_) total_weight_ = empirical_total_weight(d);
}

// Distribution::sample's arithmetic in its order, with the per-draw constants taken from above.
double PreparedDistribution::sample(Rng& rng) const {
  if (kind_ == Distribution::Kind::Constant) return mean_;
  if (kind_ == Distribution::Kind::Lognormal && sigma_ > 0.0)
    return std::exp(mu_ + sigma_ * rng.normal());
  if (weighted_) {
    return weighted_pick(*d_, rng.uniform01() * total_weight_);
  }
  return d_->sample(rng);
}

}  // namespace sonicsim::scenario
