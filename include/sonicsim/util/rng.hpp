// Reproducible random numbers: xoshiro256++ seeded through splitmix64.
//
// Hand-written rather than std:: distributions because the standard leaves their algorithms to
// the library, and "same seed, same bytes" must hold on every platform and compiler.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace sonicsim {

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Seed of an independent stream: one per (scenario seed, purpose, index), so that changing the
// number of threads does not shift the random numbers of the others (common random numbers).
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index) {
  std::uint64_t s = seed ^ (purpose * 0xd1b54a32d192ed03ULL);
  std::uint64_t a = splitmix64(s);
  s = a ^ (index * 0x8cb92ba72f3d8dd7ULL);
  return splitmix64(s);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 1) { reseed(seed); }

  void reseed(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in (0, 1): never 0, so log() is always finite.
  double uniform01() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  double exponential(double mean) { return -mean * std::log(uniform01()); }
  // Standard normal by the polar Box-Muller method, one value per call (the pair's second value
  // is cached so every call consumes a deterministic number of draws per pair).
  double normal() {
    if (!std::isnan(spare_)) {
      const double v = spare_;
      spare_ = kNoSpare;
      return v;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform01() - 1.0;
      v = 2.0 * uniform01() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    return u * f;
  }
  // Index in [0, n).
  std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>(uniform01() * n) % n; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
  // The pair's cached second value; NaN (which the method never gives) when there is none, so
  // that a generator is 40 bytes and a thread's whole record one cache line.
  static constexpr double kNoSpare = std::numeric_limits<double>::quiet_NaN();
  double spare_ = kNoSpare;
};

}  // namespace sonicsim
