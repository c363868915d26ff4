// The latency histogram: quantiles within its stated error, exact counts and means, and the
// log-spaced bins the results export for plots.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <sonicsim/metrics/histogram.hpp>

using sonicsim::metrics::Histogram;

TEST_CASE("histogram: quantiles within 0.07%, exact count, mean, min and max", "[histogram]") {
  Histogram h;
  for (int i = 1; i <= 100000; ++i) h.add(i * 1e-6);  // 1 us .. 100 ms, uniform
  CHECK(h.count() == 100000);
  CHECK(h.mean() == Approx(50000.5e-6).epsilon(1e-12));
  CHECK(h.min() == 1e-6);
  CHECK(h.max() == 100000 * 1e-6);
  for (double q : {0.01, 0.5, 0.9, 0.99, 0.999})
    CHECK(h.quantile(q) == Approx(1e-6 + q * (0.1 - 1e-6)).epsilon(7e-4));
}

TEST_CASE("histogram: log bins hold every sample in the decade it belongs to", "[histogram]") {
  Histogram h;
  for (int i = 1; i <= 99; ++i) h.add(i);  // 1 .. 99
  const auto one = h.log_bins(1);
  REQUIRE(one.edges.size() == 3);
  CHECK(one.edges[0] == Approx(1.0));
  CHECK(one.edges[1] == Approx(10.0));
  CHECK(one.edges[2] == Approx(100.0));
  REQUIRE(one.counts.size() == 2);
  CHECK(one.counts[0] == 9);   // 1 .. 9
  CHECK(one.counts[1] == 90);  // 10 .. 99

  const auto eight = h.log_bins(8);
  std::uint64_t total = 0;
  for (auto c : eight.counts) total += c;
  CHECK(total == 99);
  CHECK(eight.counts.size() + 1 == eight.edges.size());
  for (std::size_t i = 1; i < eight.edges.size(); ++i)
    CHECK(eight.edges[i] / eight.edges[i - 1] == Approx(std::pow(10.0, 1.0 / 8)));
  CHECK(eight.edges.front() <= 1.0);
  CHECK(eight.edges.back() > 99.0);
}

TEST_CASE("histogram: zeros count in the first bin; no positive sample, no bins", "[histogram]") {
  Histogram h;
  CHECK(h.log_bins(8).counts.empty());
  h.add(0.0);
  CHECK(h.log_bins(8).counts.empty());
  h.add(0.002);
  h.add(0.003);
  const auto b = h.log_bins(1);
  REQUIRE(b.counts.size() == 1);
  CHECK(b.counts[0] == 3);
  CHECK(b.edges[0] == Approx(0.001));
}

// The reference: every sample sorted, the same rank rule (numpy's "linear"), so a quantile of
// the histogram is within its bucket width of the exact one.
static double histogram_exact_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(std::floor(q * static_cast<double>(v.size() - 1)))];
}

TEST_CASE("histogram: only the span of the samples is held, whatever their order", "[histogram]") {
  // Two per workload and client site: 500 sites x 16 workloads held every bucket from 2^-40 s
  // up, about 1 MB each. A span of a factor of 8 holds 3 x 1024 buckets, 24 kB.
  Histogram narrow;
  for (int i = 0; i < 1000; ++i) narrow.add(0.5 + 3.5 * i / 1000.0);  // 0.5 s .. 4 s
  CHECK(narrow.bucket_bytes() <= 2 * 4 * 1024 * sizeof(std::uint64_t));

  // Falling, rising and scattered samples (a falling minimum grows the front) give the same
  // quantiles, and each is within a bucket's width (2^-10, relative) of the sorted samples'.
  std::vector<double> values;
  for (int i = 0; i < 20000; ++i) values.push_back(1e-3 * std::pow(1.0007, i % 9973) + 1e-7 * i);
  Histogram rising, falling, scattered;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (double v : sorted) rising.add(v);
  for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) falling.add(*it);
  for (double v : values) scattered.add(v);
  for (double q : {0.0, 0.001, 0.25, 0.5, 0.9, 0.999, 1.0}) {
    INFO("q = " << q);
    CHECK(falling.quantile(q) == rising.quantile(q));
    CHECK(scattered.quantile(q) == rising.quantile(q));
    CHECK(rising.quantile(q) == Approx(histogram_exact_quantile(values, q)).epsilon(1.0 / 1024));
  }
  // Falling one bucket at a time grows the front by at least the span held, not by a bucket.
  CHECK(falling.bucket_bytes() <= 4 * rising.bucket_bytes());
}

TEST_CASE("histogram: merging disjoint and overlapping spans equals adding every sample",
          "[histogram]") {
  Histogram low, high, middle, all;
  for (int i = 1; i <= 500; ++i) {
    low.add(1e-6 * i);     // 1 us .. 0.5 ms
    high.add(10.0 + i);    // 11 s .. 510 s
    middle.add(1e-4 * i);  // 0.1 ms .. 50 ms: overlaps low
    for (double v : {1e-6 * i, 10.0 + i, 1e-4 * i}) all.add(v);
  }
  Histogram merged;
  merged.merge(high);  // the high span first: merging low then grows the front
  merged.merge(low);
  merged.merge(middle);
  merged.merge(Histogram{});
  CHECK(merged.count() == all.count());
  CHECK(merged.min() == all.min());
  CHECK(merged.max() == all.max());
  for (double q : {0.0, 0.1, 0.33, 0.5, 0.66, 0.9, 1.0})
    CHECK(merged.quantile(q) == all.quantile(q));
  const auto a = merged.log_bins(10), b = all.log_bins(10);
  CHECK(a.edges == b.edges);
  CHECK(a.counts == b.counts);
}
