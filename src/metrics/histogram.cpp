#include <sonicsim/metrics/histogram.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sonicsim::metrics {

double Histogram::bucket_low(std::size_t bucket) {
  const int exp = static_cast<int>(bucket >> kSubBits) + kMinExp;
  const double sub = static_cast<double>(bucket & ((1u << kSubBits) - 1));
  return std::ldexp(0.5 * (1.0 + sub / (1 << kSubBits)), exp);
}

void Histogram::cover(std::size_t b) {
  if (buckets_.empty()) {
    first_ = b;
    buckets_.assign(1, 0);
  } else if (b < first_) {
    // Grown downwards by at least the span held: a minimum that keeps falling one bucket at a
    // time costs amortised O(1) per sample, as growing upwards does in std::vector.
    const std::size_t grow = std::max(first_ - b, std::min(first_, buckets_.size()));
    buckets_.insert(buckets_.begin(), grow, 0);
    first_ -= grow;
  } else if (b - first_ >= buckets_.size()) {
    buckets_.resize(b - first_ + 1, 0);
  }
}

void Histogram::add_slow(double value) {
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  ++count_;
  sum_ += value;
  if (!(value > kZeroBelow)) {
    ++zeros_;
    return;
  }
  const std::size_t b = bucket_of(value);
  cover(b);
  ++buckets_[b - first_];
}

void Histogram::merge(const Histogram& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  sum_ += other.sum_;
  zeros_ += other.zeros_;
  if (other.buckets_.empty()) return;
  cover(other.first_);
  cover(other.first_ + other.buckets_.size() - 1);
  const std::size_t offset = other.first_ - first_;
  for (std::size_t i = 0; i < other.buckets_.size(); ++i) buckets_[offset + i] += other.buckets_[i];
}

double Histogram::quantile(double q) const {
  if (count_ == 0) return 0.0;
  q = std::clamp(q, 0.0, 1.0);
  // Rank in [0, count-1], as the "linear" definition of numpy's percentile.
  const double rank = q * static_cast<double>(count_ - 1);
  double seen = static_cast<double>(zeros_);
  if (rank < seen) return min_;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    const double n = static_cast<double>(buckets_[i]);
    if (n == 0.0) continue;
    if (rank < seen + n) {
      const std::size_t b = first_ + i;
      const double lo = bucket_low(b), hi = bucket_low(b + 1);
      const double f = (rank - seen + 0.5) / n;
      return std::clamp(lo + f * (hi - lo), min_, max_);
    }
    seen += n;
  }
  return max_;
}

Histogram::Bins Histogram::log_bins(int per_decade) const {
  Bins out;
  if (per_decade <= 0) return out;
  const double k = static_cast<double>(per_decade);
  // A fine bucket is 0.07% wide: it goes where its middle falls, within the samples' range.
  const auto middle = [this](std::size_t b) {
    return std::clamp(0.5 * (bucket_low(b) + bucket_low(b + 1)), min_, max_);
  };
  const auto bin_of = [k](double v) { return static_cast<long>(std::floor(k * std::log10(v))); };
  std::size_t lowest = 0;
  while (lowest < buckets_.size() && buckets_[lowest] == 0) ++lowest;
  if (lowest == buckets_.size()) return out;  // no positive sample
  const long first = bin_of(middle(first_ + lowest));
  const long last = std::max(first, bin_of(max_));
  out.counts.assign(static_cast<std::size_t>(last - first + 1), 0);
  for (long b = first; b <= last + 1; ++b) out.edges.push_back(std::pow(10.0, b / k));
  out.counts.front() += zeros_;
  for (std::size_t i = lowest; i < buckets_.size(); ++i)
    if (buckets_[i] > 0)
      out.counts[static_cast<std::size_t>(std::clamp(bin_of(middle(first_ + i)), first, last) -
                                          first)] += buckets_[i];
  return out;
}

double BusyTime::overlap(Time a, Time b) const {
  return std::max(0.0, std::min(b, to_) - std::max(a, from_));
}

void BusyTime::set_busy(bool busy, Time now) {
  if (busy == busy_) return;
  if (busy) {
    since_ = now;
  } else {
    total_ += overlap(since_, now);
  }
  busy_ = busy;
}

double BusyTime::busy_seconds(Time now) const {
  return total_ + (busy_ ? overlap(since_, now) : 0.0);
}

double BusyTime::utilization(Time now) const {
  const double span = std::min(now, to_) - from_;
  return span > 0.0 ? busy_seconds(now) / span : 0.0;
}

}  // namespace sonicsim::metrics
