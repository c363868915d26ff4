// Random quantities of a scenario (SPEC section 3) and their reproducible sampling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sonicsim {
class Rng;
}

namespace sonicsim::scenario {

struct Distribution {
  enum class Kind { Constant, Exponential, Lognormal, Gamma, Normal, Uniform, Empirical };

  Kind kind = Kind::Constant;
  double mean = 0.0;                    // for constant: the value
  double cv = 0.0;                      // coefficient of variation (stddev / mean)
  double min = 0.0, max = 0.0;          // uniform bounds
  std::vector<double> values, weights;  // empirical; weights normalised to sum 1 by the loader

  static Distribution constant(double v) {
    Distribution d;
    d.mean = v;
    return d;
  }

  // The mean of what sample() returns (normal: of the distribution truncated at 0).
  double expected() const;
  // E[X^2], for the analytic models' second moments.
  double second_moment() const;
  // Largest value sample() can return, or +inf.
  double upper_bound() const;
  double sample(Rng& rng) const;
  bool operator==(const Distribution&) const = default;
};

// A distribution with what sample() derives from it on every draw worked out once (a
// lognormal's mu and sigma, an empirical one's total weight): the same numbers from the same
// stream, for the hot paths that draw once per event or request. Points into `d`, which must
// outlive it.
class PreparedDistribution {
 public:
  PreparedDistribution() = default;
  explicit PreparedDistribution(const Distribution& d);
  double sample(Rng& rng) const;

 private:
  const Distribution* d_ = nullptr;
  Distribution::Kind kind_ = Distribution::Kind::Constant;
  double mean_ = 0.0;
  double mu_ = 0.0, sigma_ = 0.0;  // lognormal with cv > 0
  double total_weight_ = 0.0;      // empirical with weights
  bool weighted_ = false;
};

const char* to_string(Distribution::Kind kind);

}  // namespace sonicsim::scenario
