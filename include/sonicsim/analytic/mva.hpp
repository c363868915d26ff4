// Exact Mean Value Analysis (Reiser & Lavenberg 1980) of a single-class closed network: N
// customers cycle through one delay (infinite-server) station and single-server queueing
// stations (FCFS with exponential service or processor sharing: BCMP product form).
//
// Identical stations are solved once: the recursion costs O(N x distinct demands), which keeps
// 100,000 threads x 1,000 GPUs well below a second. See docs/analytic.md.
#pragma once

#include <cstdint>
#include <vector>

namespace sonicsim::analytic {

// `count` identical queueing stations, each with service demand `demand_s` (seconds of service
// per customer cycle, i.e. visits x mean service time).
struct StationGroup {
  double demand_s = 0.0;
  std::int64_t count = 1;
};

struct ClosedNetwork {
  double think_time_s = 0.0;  // Z: demand at the delay station
  std::vector<StationGroup> stations;

  double total_demand_s() const;  // D = sum of count x demand
  double max_demand_s() const;    // D_max, the bottleneck
};

// Indexed like ClosedNetwork::stations; every per-station value is for ONE station of the group.
struct MvaSolution {
  std::int64_t customers = 0;
  double throughput = 0.0;          // X(N), customer cycles per second (+inf if nothing takes time)
  double cycle_time_s = 0.0;        // N / X = Z + sum of residence times
  std::vector<double> residence_s;  // R_k(N), per cycle
  std::vector<double> queue_length;  // Q_k(N), customers at the station (in service included)
  std::vector<double> utilization;   // U_k = X D_k
  // Q_k(N-1): what an arriving customer finds (arrival theorem), so that the mean time of one
  // visit with service time s is s (1 + arrival_queue).
  std::vector<double> arrival_queue;
};

// Exact MVA for `customers` >= 0. Stations with the same demand are merged internally, so
// listing 1,000 identical devices one by one costs the same as one group of 1,000.
MvaSolution solve_mva(const ClosedNetwork& network, std::int64_t customers);

// X(n) for n = 1..max_customers (element n-1), from the same recursion.
std::vector<double> mva_throughput_curve(const ClosedNetwork& network, std::int64_t max_customers);

// Several classes of customers that differ only in their think time (the threads of each site:
// Z_c = (1-p) t_CPU + that site's t_latency), with the same demand at every station: exact
// multi-class MVA over every population vector (Reiser and Lavenberg), while the vectors number
// at most `max_vectors`; beyond, Schweitzer's approximation (`exact` false).
struct ClassedSolution {
  bool exact = true;
  std::vector<double> throughput;    // X_c(N) per class
  std::vector<double> cycle_time_s;  // N_c / X_c: Z_c + the residence times
  MvaSolution total;                 // stations as in solve_mva; throughput the classes' sum
};
ClassedSolution solve_mva_classes(const ClosedNetwork& network, const std::vector<double>& think_s,
                                  const std::vector<std::int64_t>& customers,
                                  double max_vectors = 2e6);

// Bounds on X(N) that need no recursion (Lazowska et al., Quantitative System Performance ch. 5).
struct ThroughputBounds {
  double asymptotic_upper = 0.0;   // min(N / (D + Z), 1 / D_max)
  double balanced_upper = 0.0;     // balanced job bound, never above asymptotic_upper
  double balanced_lower = 0.0;     // balanced job bound
  double pessimistic_lower = 0.0;  // N / (N D + Z): every other customer queued ahead
  double knee_customers = 0.0;     // N* = (D + Z) / D_max, where the two asymptotes cross
};
ThroughputBounds throughput_bounds(const ClosedNetwork& network, std::int64_t customers);

}  // namespace sonicsim::analytic
