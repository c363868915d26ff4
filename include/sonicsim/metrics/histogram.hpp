// Distribution of a positive quantity (latencies, times per event) in bounded memory.
//
// Values fall into log-spaced buckets: 2^10 buckets per power of two give quantiles within 0.07%
// relative error, whatever the number of samples; the mean and the count are exact. A simulated
// hour at site scale records tens of millions of samples, which must not cost one double each.
// Only the buckets between the smallest and the largest sample are held (8 kB per factor of two
// the samples span): a run keeps two per workload and client site, and 500 sites x 16 workloads
// held from 2^-40 s up cost 1 MB each (docs/limits.md#memory).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <sonicsim/util/sim_time.hpp>

namespace sonicsim::metrics {

class Histogram {
 public:
  // Inline for the common case, a sample inside the buckets held (every request adds one or
  // two); the rest in add_slow.
  void add(double value) {
    if (count_ != 0 && value > kZeroBelow) {
      min_ = value < min_ ? value : min_;
      max_ = value > max_ ? value : max_;
      ++count_;
      sum_ += value;
      const std::size_t b = bucket_of(value);
      if (b >= first_ && b - first_ < buckets_.size()) {
        ++buckets_[b - first_];
        return;
      }
      cover(b);
      ++buckets_[b - first_];
      return;
    }
    add_slow(value);
  }
  void merge(const Histogram& other);

  std::uint64_t count() const { return count_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  double min() const { return count_ ? min_ : 0.0; }
  double max() const { return count_ ? max_ : 0.0; }
  // q in [0, 1]; 0 with no samples. Interpolates inside the bucket, clamped to [min, max].
  double quantile(double q) const;

  // The samples in log-spaced bins of `per_decade` per factor of ten (edges 10^(k/per_decade)),
  // from the bin holding the smallest sample to the one holding the largest: what a histogram
  // plot needs, in a few dozen numbers. Zeros count in the first bin. Empty without a positive
  // sample.
  struct Bins {
    std::vector<double> edges;          // counts.size() + 1, increasing
    std::vector<std::uint64_t> counts;  // samples in [edges[i], edges[i + 1])
  };
  Bins log_bins(int per_decade) const;

  // The bytes the buckets hold now: what a histogram costs, for the memory estimate's tests.
  std::size_t bucket_bytes() const { return buckets_.capacity() * sizeof(std::uint64_t); }

 private:
  static constexpr int kSubBits = 10;
  static constexpr int kMinExp = -40;  // values below 2^-40 s (~1 ps) are counted as zero
  static constexpr int kMaxExp = 40;
  static constexpr double kZeroBelow = 0x1p-40;
  static_assert(kMinExp == -40, "kZeroBelow is 2^kMinExp");
  // The bucket is read off the IEEE-754 bits: the exponent, then the top kSubBits of the mantissa
  // (value = 1.m x 2^(e-1023) = 0.5 x (1 + m) x 2^(e-1022), matching bucket_low()).
  static std::size_t bucket_of(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const int exp = static_cast<int>((bits >> 52) & 0x7ff) - 1022;
    if (exp > kMaxExp)
      return static_cast<std::size_t>(kMaxExp - kMinExp + 1) * (1u << kSubBits) - 1;
    const auto sub = static_cast<std::size_t>((bits >> (52 - kSubBits)) & ((1u << kSubBits) - 1));
    return static_cast<std::size_t>(exp - kMinExp) * (1u << kSubBits) + sub;
  }
  void add_slow(double value);
  static double bucket_low(std::size_t bucket);
  void cover(std::size_t bucket);  // grows buckets_ to hold `bucket`

  std::vector<std::uint64_t> buckets_;  // buckets first_, first_ + 1, ...; grown on demand
  std::size_t first_ = 0;
  std::uint64_t zeros_ = 0;
  std::uint64_t count_ = 0;
  double sum_ = 0.0;
  double min_ = 0.0, max_ = 0.0;
};

// Integral of a 0/1 busy signal over a fixed window [from, to]: the utilization of a device.
class BusyTime {
 public:
  BusyTime(Time from, Time to) : from_(from), to_(to) {}
  void set_busy(bool busy, Time now);
  double busy_seconds(Time now) const;  // including a busy period still open at `now`
  double utilization(Time now) const;

 private:
  double overlap(Time a, Time b) const;
  Time from_, to_;
  Time since_;
  double total_ = 0.0;
  bool busy_ = false;
};

}  // namespace sonicsim::metrics
