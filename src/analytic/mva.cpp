#include <sonicsim/analytic/mva.hpp>

#include <algorithm>
#include <cmath>

#include <sonicsim/util/numbers.hpp>

#include "mva_groups.hpp"

namespace sonicsim::analytic {
namespace {

using detail::merge_equal_demands;
using Merged = detail::MergedStations;

// Runs the recursion up to `customers`; `on_step(n, X)` sees every population. Leaves `queue`
// at Q(N) and `previous` at Q(N-1).
template <class OnStep>
double recurse(const ClosedNetwork& network, const Merged& m, std::int64_t customers,
               std::vector<double>& residence, std::vector<double>& queue,
               std::vector<double>& previous, OnStep on_step) {
  const std::size_t k = m.demand.size();
  residence.assign(k, 0.0);
  queue.assign(k, 0.0);
  previous.assign(k, 0.0);
  const double z = std::max(network.think_time_s, 0.0);
  double x = 0.0;
  for (std::int64_t n = 1; n <= customers; ++n) {
    double cycle = z;
    for (std::size_t i = 0; i < k; ++i) {
      residence[i] = m.demand[i] * (1.0 + queue[i]);
      cycle += m.count[i] * residence[i];
    }
    x = cycle > 0.0 ? static_cast<double>(n) / cycle : kInf;
    if (n == customers) previous = queue;
    for (std::size_t i = 0; i < k; ++i) queue[i] = std::isinf(x) ? 0.0 : x * residence[i];
    on_step(n, x);
  }
  return x;
}

}  // namespace

double ClosedNetwork::total_demand_s() const {
  double d = 0.0;
  for (const StationGroup& g : stations)
    d += std::max(g.demand_s, 0.0) * static_cast<double>(std::max<std::int64_t>(g.count, 0));
  return d;
}

double ClosedNetwork::max_demand_s() const {
  double d = 0.0;
  for (const StationGroup& g : stations)
    if (g.count > 0) d = std::max(d, g.demand_s);
  return d;
}

MvaSolution solve_mva(const ClosedNetwork& network, std::int64_t customers) {
  const Merged m = merge_equal_demands(network);
  std::vector<double> residence, queue, previous;
  MvaSolution s;
  s.customers = std::max<std::int64_t>(customers, 0);
  s.throughput =
      recurse(network, m, s.customers, residence, queue, previous, [](std::int64_t, double) {});
  const std::size_t g = network.stations.size();
  s.residence_s.resize(g);
  s.queue_length.resize(g);
  s.utilization.resize(g);
  s.arrival_queue.resize(g);
  for (std::size_t i = 0; i < g; ++i) {
    const std::size_t r = m.slot[i];
    s.residence_s[i] = residence[r];
    s.queue_length[i] = queue[r];
    s.utilization[i] = std::isinf(s.throughput) ? 0.0 : s.throughput * m.demand[r];
    s.arrival_queue[i] = previous[r];
  }
  if (s.customers == 0) {
    s.cycle_time_s = 0.0;
  } else if (std::isinf(s.throughput)) {
    s.cycle_time_s = 0.0;
  } else {
    s.cycle_time_s = static_cast<double>(s.customers) / s.throughput;
  }
  return s;
}

std::vector<double> mva_throughput_curve(const ClosedNetwork& network, std::int64_t max_customers) {
  const Merged m = merge_equal_demands(network);
  std::vector<double> residence, queue, previous, curve;
  curve.reserve(static_cast<std::size_t>(std::max<std::int64_t>(max_customers, 0)));
  recurse(network, m, max_customers, residence, queue, previous,
          [&](std::int64_t, double x) { curve.push_back(x); });
  return curve;
}

ThroughputBounds throughput_bounds(const ClosedNetwork& network, std::int64_t customers) {
  ThroughputBounds b;
  const double n = static_cast<double>(std::max<std::int64_t>(customers, 0));
  const double z = std::max(network.think_time_s, 0.0);
  const double d = network.total_demand_s();
  const double d_max = network.max_demand_s();
  double loaded = 0.0;  // stations that take time; idle ones do not dilute D_avg
  for (const StationGroup& g : network.stations)
    if (g.demand_s > 0.0) loaded += static_cast<double>(std::max<std::int64_t>(g.count, 0));
  if (n == 0.0) return b;
  if (d + z <= 0.0) {
    b.asymptotic_upper = b.balanced_upper = b.balanced_lower = b.pessimistic_lower = kInf;
    return b;
  }
  const double cap = d_max > 0.0 ? 1.0 / d_max : kInf;
  b.asymptotic_upper = std::min(n / (d + z), cap);
  b.pessimistic_lower = n / (n * d + z);
  b.knee_customers = d_max > 0.0 ? (d + z) / d_max : kInf;
  if (d <= 0.0) {  // only the delay station: X = N / Z exactly
    b.balanced_upper = b.balanced_lower = b.asymptotic_upper;
    return b;
  }
  // With the arrival theorem, R(N) = D + sum_k D_k Q_k(N-1), and Q(N-1) = (N-1) - X(N-1) Z. The
  // balanced network (all loaded stations at D_avg) is the best case and the one with D/D_max
  // stations at D_max the worst; bounding X(N-1) by the asymptotes gives these.
  const double d_avg = d / loaded;
  b.balanced_upper = std::min(cap, n / (d + z + (n - 1.0) * d_avg / (1.0 + z / d)));
  b.balanced_lower = n / (d + z + (n - 1.0) * d_max / (1.0 + z / (n * d)));
  return b;
}

}  // namespace sonicsim::analytic
