// Multi-class MVA for the threads of several sites (mva.hpp: solve_mva_classes).
#include <algorithm>
#include <cmath>

#include <sonicsim/analytic/mva.hpp>
#include <sonicsim/util/numbers.hpp>

#include "mva_groups.hpp"

namespace sonicsim::analytic {

namespace {

using Groups = detail::MergedStations;

// One population's step: residence of a class-c customer at each group given the queues it
// finds, X_c and the new queues.
struct Step {
  std::vector<double> x;                       // per class
  std::vector<std::vector<double>> residence;  // [class][group]
  std::vector<double> queue;                   // per group
};

}  // namespace

ClassedSolution solve_mva_classes(const ClosedNetwork& network, const std::vector<double>& think_s,
                                  const std::vector<std::int64_t>& customers, double max_vectors) {
  const Groups g = detail::merge_equal_demands(network);
  const std::size_t classes = customers.size(), k = g.demand.size();
  ClassedSolution out;
  double vectors = 1.0;
  for (std::int64_t n : customers) vectors *= static_cast<double>(std::max<std::int64_t>(n, 0) + 1);
  out.exact = vectors <= max_vectors;

  // The step at population n, given the queues found by a class-c arrival (Q(n - e_c)).
  const auto step = [&](const std::vector<std::int64_t>& n,
                        const std::vector<const double*>& found) {
    Step s;
    s.x.assign(classes, 0.0);
    s.residence.assign(classes, std::vector<double>(k, 0.0));
    s.queue.assign(k, 0.0);
    for (std::size_t c = 0; c < classes; ++c) {
      if (n[c] <= 0) continue;
      double cycle = std::max(think_s[c], 0.0);
      for (std::size_t i = 0; i < k; ++i) {
        s.residence[c][i] = g.demand[i] * (1.0 + found[c][i]);
        cycle += g.count[i] * s.residence[c][i];
      }
      s.x[c] = cycle > 0.0 ? static_cast<double>(n[c]) / cycle : kInf;
    }
    for (std::size_t c = 0; c < classes; ++c)
      for (std::size_t i = 0; i < k; ++i)
        if (n[c] > 0 && std::isfinite(s.x[c])) s.queue[i] += s.x[c] * s.residence[c][i];
    return s;
  };

  Step last;
  std::vector<std::vector<double>> arrival(classes, std::vector<double>(k, 0.0));
  const std::vector<double> empty(k, 0.0);
  if (out.exact) {
    // Every population vector in mixed-radix order: n - e_c always comes before n. The queues
    // of all of them, flat: [vector * k + group].
    std::vector<std::size_t> stride(classes, 1);
    for (std::size_t c = 1; c < classes; ++c)
      stride[c] = stride[c - 1] * static_cast<std::size_t>(customers[c - 1] + 1);
    const auto total = static_cast<std::size_t>(vectors);
    std::vector<double> queue(total * k, 0.0);
    std::vector<std::int64_t> n(classes, 0);
    std::vector<const double*> found(classes, empty.data());
    last = step(n, found);
    for (std::size_t idx = 1; idx < total; ++idx) {
      for (std::size_t c = 0; c < classes; ++c) {  // the next vector
        if (++n[c] <= customers[c]) break;
        n[c] = 0;
      }
      for (std::size_t c = 0; c < classes; ++c)
        found[c] = n[c] > 0 ? &queue[(idx - stride[c]) * k] : empty.data();
      last = step(n, found);
      std::copy(last.queue.begin(), last.queue.end(),
                queue.begin() + static_cast<std::ptrdiff_t>(idx * k));
    }
    for (std::size_t c = 0; c < classes; ++c) arrival[c].assign(found[c], found[c] + k);
  } else {
    // Schweitzer: a class-c arrival finds the queues at N less its own share, 1/N_c of its
    // class's part, iterated to a fixed point.
    std::vector<std::vector<double>> part(classes, std::vector<double>(k, 0.0));
    for (std::size_t c = 0; c < classes; ++c)
      for (std::size_t i = 0; i < k; ++i)
        part[c][i] =
            static_cast<double>(customers[c]) / static_cast<double>(k) / std::max(g.count[i], 1.0);
    for (int it = 0; it < 10000; ++it) {
      for (std::size_t c = 0; c < classes; ++c)
        for (std::size_t i = 0; i < k; ++i) {
          double q = 0.0;
          for (std::size_t d = 0; d < classes; ++d) q += part[d][i];
          const double own = customers[c] > 0 ? part[c][i] / static_cast<double>(customers[c]) : 0;
          arrival[c][i] = q - own;
        }
      std::vector<const double*> found(classes);
      for (std::size_t c = 0; c < classes; ++c) found[c] = arrival[c].data();
      last = step(customers, found);
      double change = 0.0;
      for (std::size_t c = 0; c < classes; ++c)
        for (std::size_t i = 0; i < k; ++i) {
          const double next = std::isfinite(last.x[c]) ? last.x[c] * last.residence[c][i] : 0.0;
          change = std::max(change, std::abs(next - part[c][i]));
          part[c][i] = next;
        }
      if (change < 1e-10) break;
    }
  }
  out.throughput = last.x;
  out.cycle_time_s.assign(classes, 0.0);
  MvaSolution& t = out.total;
  for (std::size_t c = 0; c < classes; ++c) {
    t.customers += customers[c];
    t.throughput += last.x[c];
    if (customers[c] > 0 && std::isfinite(last.x[c]) && last.x[c] > 0.0)
      out.cycle_time_s[c] = static_cast<double>(customers[c]) / last.x[c];
  }
  t.cycle_time_s = t.throughput > 0.0 && std::isfinite(t.throughput)
                       ? static_cast<double>(t.customers) / t.throughput
                       : 0.0;
  const std::size_t stations = network.stations.size();
  t.residence_s.assign(stations, 0.0);
  t.queue_length.assign(stations, 0.0);
  t.utilization.assign(stations, 0.0);
  t.arrival_queue.assign(stations, 0.0);
  for (std::size_t s = 0; s < stations; ++s) {
    const std::size_t i = g.slot[s];
    t.queue_length[s] = last.queue[i];
    t.utilization[s] = std::isfinite(t.throughput) ? t.throughput * g.demand[i] : 0.0;
    // Per cycle and per arrival, the classes' throughput-weighted means.
    for (std::size_t c = 0; c < classes; ++c) {
      if (!(t.throughput > 0.0) || !std::isfinite(t.throughput)) break;
      const double w = last.x[c] / t.throughput;
      t.residence_s[s] += w * last.residence[c][i];
      t.arrival_queue[s] += w * arrival[c][i];
    }
  }
  return out;
}

}  // namespace sonicsim::analytic
