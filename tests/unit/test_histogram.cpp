// The latency histogram: quantiles within its stated error, exact counts and means, and the
// log-spaced bins the results export for plots.
#include <catch2/catch.hpp>

#include <cmath>

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
