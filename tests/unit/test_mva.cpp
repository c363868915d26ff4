// Exact MVA against closed forms that do not share its recursion.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <sonicsim/analytic/mva.hpp>

using sonicsim::analytic::ClosedNetwork;
using sonicsim::analytic::mva_throughput_curve;
using sonicsim::analytic::solve_mva;
using sonicsim::analytic::throughput_bounds;

namespace {

// Finite-source M/M/1//N (machine repairman): N sources think Exp(Z), one exponential server of
// mean D. p_k ~ N!/(N-k)! (D/Z)^k, X = (1 - p_0) / D, from the birth-death balance equations.
struct Repairman {
  double throughput, mean_queue, idle;
};
Repairman machine_repairman(int n, double z, double d) {
  // In logs, rescaled by the largest term: the weights overflow a double beyond N ~ 100.
  std::vector<double> log_w(static_cast<std::size_t>(n) + 1, 0.0);
  for (int k = 1; k <= n; ++k) log_w[k] = log_w[k - 1] + std::log((n - k + 1) * d / z);
  const double top = *std::max_element(log_w.begin(), log_w.end());
  double total = 0.0, mean = 0.0;
  for (int k = 0; k <= n; ++k) {
    const double w = std::exp(log_w[k] - top);
    total += w;
    mean += k * w;
  }
  const double p0 = std::exp(log_w[0] - top) / total;
  return {(1.0 - p0) / d, mean / total, p0};
}

}  // namespace

TEST_CASE("MVA with one customer is the sum of the demands", "[mva]") {
  ClosedNetwork net{0.5, {{0.01, 3}, {0.02, 1}, {0.0, 4}}};
  const auto s = solve_mva(net, 1);
  CHECK(s.throughput == Approx(1.0 / (0.5 + 3 * 0.01 + 0.02)));
  CHECK(s.cycle_time_s == Approx(0.55));
  CHECK(s.residence_s[0] == Approx(0.01));
  CHECK(s.arrival_queue[1] == 0.0);
  CHECK(s.utilization[2] == 0.0);
}

TEST_CASE("MVA matches the machine-repairman closed form", "[mva]") {
  for (const double z : {0.05, 1.0, 10.0}) {
    for (const int n : {1, 2, 5, 10, 50, 150}) {
      const double d = 0.1;
      const auto ref = machine_repairman(n, z, d);
      const auto s = solve_mva(ClosedNetwork{z, {{d, 1}}}, n);
      INFO("Z=" << z << " N=" << n);
      CHECK(s.throughput == Approx(ref.throughput).epsilon(1e-10));
      CHECK(s.queue_length[0] == Approx(ref.mean_queue).epsilon(1e-10));
      CHECK(s.utilization[0] == Approx(1.0 - ref.idle).epsilon(1e-10));
    }
  }
}

TEST_CASE("MVA conserves customers and approaches the asymptotes", "[mva]") {
  ClosedNetwork net{2.0, {{0.004, 2}, {0.01, 1}, {0.001, 10}}};
  const double d = net.total_demand_s();
  for (const std::int64_t n : {1, 10, 100, 1000, 100000}) {
    const auto s = solve_mva(net, n);
    double in_stations = 0.0;
    for (std::size_t k = 0; k < net.stations.size(); ++k)
      in_stations += static_cast<double>(net.stations[k].count) * s.queue_length[k];
    CHECK(in_stations + s.throughput * net.think_time_s == Approx(static_cast<double>(n)));
    CHECK(s.throughput <= std::min(n / (d + net.think_time_s), 1.0 / 0.01) * (1 + 1e-12));
  }
  CHECK(solve_mva(net, 100000).throughput == Approx(100.0).epsilon(1e-9));
  CHECK(solve_mva(net, 100000).utilization[1] == Approx(1.0).epsilon(1e-9));
  // Far below the knee the stations hardly queue: X ~ N / (Z + D).
  CHECK(solve_mva(net, 2).throughput == Approx(2.0 / (2.0 + d)).epsilon(1e-3));
  const auto b = throughput_bounds(net, 100);
  CHECK(b.knee_customers == Approx((d + 2.0) / 0.01));
  CHECK(b.asymptotic_upper == Approx(std::min(100.0 / (d + 2.0), 100.0)));
}

TEST_CASE("The balanced job bounds bracket exact MVA", "[mva]") {
  std::mt19937_64 gen(7);
  auto uniform = [&] { return static_cast<double>(gen() >> 11) * 0x1.0p-53; };
  for (int trial = 0; trial < 200; ++trial) {
    ClosedNetwork net;
    net.think_time_s = trial % 5 == 0 ? 0.0 : uniform() * 2.0;
    const int groups = 1 + static_cast<int>(uniform() * 5);
    for (int g = 0; g < groups; ++g)
      net.stations.push_back({0.001 + uniform() * 0.05, 1 + static_cast<int>(uniform() * 4)});
    const auto curve = mva_throughput_curve(net, 400);
    for (std::int64_t n = 1; n <= 400; n += 7) {
      const double x = curve[static_cast<std::size_t>(n - 1)];
      const auto b = throughput_bounds(net, n);
      INFO("trial " << trial << " N=" << n);
      CHECK(x <= b.balanced_upper * (1 + 1e-9));
      CHECK(b.balanced_upper <= b.asymptotic_upper * (1 + 1e-12));
      CHECK(x >= b.balanced_lower * (1 - 1e-9));
      CHECK(b.balanced_lower >= b.pessimistic_lower * (1 - 1e-12));
    }
  }
}

TEST_CASE("Grouped and listed-one-by-one stations give the same solution", "[mva]") {
  ClosedNetwork grouped{0.3, {{0.02, 4}, {0.005, 3}}};
  ClosedNetwork listed{0.3, {}};
  for (int i = 0; i < 4; ++i) listed.stations.push_back({0.02, 1});
  for (int i = 0; i < 3; ++i) listed.stations.push_back({0.005, 1});
  for (const std::int64_t n : {1, 7, 64, 500}) {
    const auto a = solve_mva(grouped, n);
    const auto b = solve_mva(listed, n);
    CHECK(a.throughput == Approx(b.throughput).epsilon(1e-12));
    CHECK(a.queue_length[0] == Approx(b.queue_length[3]).epsilon(1e-12));
    CHECK(a.queue_length[1] == Approx(b.queue_length[6]).epsilon(1e-12));
  }
  // The merge is an optimisation only: a direct recursion over every station agrees.
  const std::int64_t n = 300;
  std::vector<double> q(listed.stations.size(), 0.0), r(q.size());
  double x = 0.0;
  for (std::int64_t k = 1; k <= n; ++k) {
    double cycle = listed.think_time_s;
    for (std::size_t i = 0; i < q.size(); ++i)
      cycle += r[i] = listed.stations[i].demand_s * (1 + q[i]);
    x = static_cast<double>(k) / cycle;
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = x * r[i];
  }
  CHECK(solve_mva(grouped, n).throughput == Approx(x).epsilon(1e-12));
}

TEST_CASE("The throughput curve is the recursion's X(n)", "[mva]") {
  ClosedNetwork net{0.1, {{0.003, 2}, {0.001, 5}}};
  const auto curve = mva_throughput_curve(net, 200);
  REQUIRE(curve.size() == 200);
  for (std::size_t i = 1; i < curve.size(); ++i) CHECK(curve[i] >= curve[i - 1]);
  CHECK(curve[0] == Approx(solve_mva(net, 1).throughput));
  CHECK(curve[199] == Approx(solve_mva(net, 200).throughput).epsilon(1e-14));
  CHECK(mva_throughput_curve(net, 0).empty());
}

TEST_CASE("Degenerate networks", "[mva]") {
  CHECK(solve_mva(ClosedNetwork{1.0, {}}, 0).throughput == 0.0);
  CHECK(solve_mva(ClosedNetwork{0.5, {}}, 10).throughput == Approx(20.0));  // delay only
  CHECK(std::isinf(solve_mva(ClosedNetwork{0.0, {}}, 3).throughput));
  const auto b = throughput_bounds(ClosedNetwork{0.5, {}}, 10);
  CHECK(b.balanced_upper == Approx(20.0));
  CHECK(b.balanced_lower == Approx(20.0));
}

// Its speed is a benchmark's matter, not a timed assertion (they fail under the sanitizers).
TEST_CASE("MVA solves 100,000 threads x 1,000 GPUs: the slowest devices bind", "[mva][perf]") {
  // A realistic farm: 1,000 devices of four kinds, listed one by one.
  ClosedNetwork net{1.0, {}};
  for (int i = 0; i < 1000; ++i) net.stations.push_back({0.002 * (1 + i % 4), 1});
  const auto s = solve_mva(net, 100000);
  // 1,000 devices with a total demand of 5 s per event against 1 s of thinking: the 250
  // slowest devices bind at 1 / 0.008 events/s, approached from below.
  CHECK(s.throughput < 125.0);
  CHECK(s.throughput == Approx(125.0).epsilon(1e-2));
  CHECK(s.throughput <= throughput_bounds(net, 100000).balanced_upper);
}
