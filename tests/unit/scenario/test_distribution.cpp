// Distributions (SPEC section 3): moments, bounds and reproducible sampling.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <vector>

#include <sonicsim/scenario/distribution.hpp>
#include <sonicsim/util/rng.hpp>

using sonicsim::Rng;
using sonicsim::scenario::Distribution;
using Kind = sonicsim::scenario::Distribution::Kind;

namespace {

struct Moments {
  double mean = 0, cv = 0, second = 0, min = 1e300, max = -1e300;
};

Moments sample_moments(const Distribution& d, int n, std::uint64_t seed = 42) {
  Rng rng(seed);
  double sum = 0, sum2 = 0;
  Moments m;
  for (int i = 0; i < n; ++i) {
    const double x = d.sample(rng);
    sum += x;
    sum2 += x * x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean = sum / n;
  m.second = sum2 / n;
  m.cv = std::sqrt(std::max(0.0, m.second - m.mean * m.mean)) / m.mean;
  return m;
}

Distribution make(Kind kind, double mean, double cv) {
  Distribution d;
  d.kind = kind;
  d.mean = mean;
  d.cv = cv;
  return d;
}

}  // namespace

TEST_CASE("constant distribution", "[distribution]") {
  const Distribution d = Distribution::constant(2.5);
  Rng rng(1);
  CHECK(d.sample(rng) == 2.5);
  CHECK(d.expected() == 2.5);
  CHECK(d.second_moment() == 6.25);
  CHECK(d.upper_bound() == 2.5);
}

TEST_CASE("sample mean and cv converge for every kind", "[distribution]") {
  constexpr int n = 400'000;
  struct Case {
    const char* name;
    Distribution d;
    double cv;  // expected coefficient of variation of the samples
  };
  Distribution uniform;
  uniform.kind = Kind::Uniform;
  uniform.min = 2;
  uniform.max = 6;
  Distribution empirical;
  empirical.kind = Kind::Empirical;
  empirical.values = {4, 8, 12, 16, 20};
  Distribution weighted = empirical;
  weighted.weights = {0.5, 0.0, 0.0, 0.0, 0.5};
  const std::vector<Case> cases = {
      {"exponential", make(Kind::Exponential, 0.5, 1.0), 1.0},
      {"lognormal", make(Kind::Lognormal, 1.03, 0.3), 0.3},
      {"lognormal wide", make(Kind::Lognormal, 2.0, 1.5), 1.5},
      {"gamma", make(Kind::Gamma, 1.0, 0.5), 0.5},
      {"gamma shape < 1", make(Kind::Gamma, 3.0, 1.5), 1.5},
      {"normal, far from 0", make(Kind::Normal, 10.0, 0.1), 0.1},
      {"uniform", uniform, (4 / std::sqrt(12.0)) / 4},
      {"empirical", empirical, std::sqrt(32.0) / 12},
      {"empirical weighted", weighted, 8.0 / 12},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Moments m = sample_moments(c.d, n);
    // Heavy tails (lognormal cv 1.5) make the sample cv converge slowly: 5% is ~4 sigma.
    CHECK(m.mean == Approx(c.d.expected()).epsilon(0.01));
    CHECK(m.cv == Approx(c.cv).epsilon(c.cv > 1 ? 0.08 : 0.02));
    CHECK(m.second == Approx(c.d.second_moment()).epsilon(c.cv > 1 ? 0.15 : 0.02));
    CHECK(m.min >= 0.0);
    CHECK(m.max <= c.d.upper_bound());
  }
}

TEST_CASE("the normal is truncated at 0 and expected() is the truncated mean", "[distribution]") {
  const Distribution d = make(Kind::Normal, 1.0, 1.0);
  // mean + sigma * phi(1) / Phi(1)
  const double truncated = 1.0 + 0.2419707245 / 0.8413447461;
  CHECK(d.expected() == Approx(truncated).epsilon(1e-8));
  const Moments m = sample_moments(d, 400'000);
  CHECK(m.min >= 0.0);
  CHECK(m.mean == Approx(truncated).epsilon(0.01));
  CHECK(m.second == Approx(d.second_moment()).epsilon(0.02));
  CHECK(d.upper_bound() == std::numeric_limits<double>::infinity());

  const Distribution half = make(Kind::Normal, 1e-9, 1e9);  // sigma 1, mean ~0: half-normal
  CHECK(half.expected() == Approx(std::sqrt(2 / std::numbers::pi)).epsilon(1e-6));
}

TEST_CASE("zero spread collapses to the mean", "[distribution]") {
  Rng rng(3);
  for (Kind k : {Kind::Lognormal, Kind::Gamma, Kind::Normal}) {
    const Distribution d = make(k, 1.5, 0.0);
    CHECK(d.sample(rng) == 1.5);
    CHECK(d.expected() == 1.5);
    CHECK(d.upper_bound() == 1.5);
  }
}

TEST_CASE("sampling depends on the Rng only", "[distribution]") {
  Distribution empirical;
  empirical.kind = Kind::Empirical;
  empirical.values = {1, 2, 3};
  empirical.weights = {0.2, 0.3, 0.5};
  const std::vector<Distribution> all = {Distribution::constant(1),
                                         make(Kind::Exponential, 1, 1),
                                         make(Kind::Lognormal, 1, 0.5),
                                         make(Kind::Gamma, 1, 0.5),
                                         make(Kind::Gamma, 1, 2),
                                         make(Kind::Normal, 1, 0.7),
                                         empirical};
  for (const Distribution& d : all) {
    Rng a(123), b(123), c(124);
    std::vector<double> xa, xb, xc;
    for (int i = 0; i < 100; ++i) {
      xa.push_back(d.sample(a));
      xb.push_back(d.sample(b));
      xc.push_back(d.sample(c));
    }
    CHECK(xa == xb);
    if (d.kind != Kind::Constant) CHECK(xa != xc);
  }
}

// The engine draws each event's CPU time and each request's items through a prepared
// distribution: a run's results stay byte-identical only if it gives exactly the numbers
// sample() gives, and leaves the stream where sample() leaves it.
TEST_CASE("a prepared distribution draws what sample() draws, number for number",
          "[distribution]") {
  Distribution weighted;
  weighted.kind = Kind::Empirical;
  weighted.values = {10, 15, 20, 25};
  weighted.weights = {0.2, 0.3, 0.3, 0.2};
  Distribution unweighted = weighted;
  unweighted.weights.clear();
  Distribution uniform;
  uniform.kind = Kind::Uniform;
  uniform.min = 2;
  uniform.max = 5;
  const std::vector<Distribution> all = {Distribution::constant(3),
                                         make(Kind::Exponential, 1, 1),
                                         make(Kind::Lognormal, 0.5, 0.5),
                                         make(Kind::Lognormal, 2, 0),
                                         make(Kind::Lognormal, 1, 1e-9),
                                         make(Kind::Gamma, 1, 0.5),
                                         make(Kind::Normal, 1, 0.7),
                                         uniform,
                                         weighted,
                                         unweighted};
  for (const Distribution& d : all) {
    const sonicsim::scenario::PreparedDistribution prepared(d);
    Rng a(7), b(7);
    for (int i = 0; i < 1000; ++i) {
      const double x = d.sample(a), y = prepared.sample(b);
      REQUIRE(std::memcmp(&x, &y, sizeof x) == 0);
    }
    CHECK(a.uniform01() == b.uniform01());  // both streams left at the same place
  }
}

TEST_CASE("empirical bounds and names", "[distribution]") {
  Distribution d;
  d.kind = Kind::Empirical;
  d.values = {4, 20, 8};
  CHECK(d.upper_bound() == 20);
  CHECK(d.expected() == Approx(32.0 / 3));
  CHECK(std::string(to_string(Kind::Lognormal)) == "lognormal");
  CHECK(std::string(to_string(Kind::Empirical)) == "empirical");
}
