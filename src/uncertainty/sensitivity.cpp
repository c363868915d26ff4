// Sobol indices from Saltelli's pick-freeze design (sensitivity.hpp). The estimators, with f_A,
// f_B and f_{A_B^g} the outputs of the base rows A, B and of A with group g's columns from B:
//   V     = variance of f over A and B together (2n values)
//   S_g   = mean_j f_B[j] (f_{A_B^g}[j] - f_A[j]) / V               (Saltelli et al. 2010)
//   ST_g  = mean_j (f_A[j] - f_{A_B^g}[j])^2 / (2 V)                 (Jansen 1999)
// with f_B centred by the mean of f over A and B in S_g: the same estimator in expectation
// (mean_j (f_{A_B^g}[j] - f_A[j]) tends to 0), but invariant to a shift of the output, whose
// mean would otherwise multiply the estimator's noise (a throughput of 750/s spread by 150/s:
// a half-width of 0.7 at 256 base rows against 0.1 centred).
// The 95% intervals resample the n base rows (j) with replacement and take half the distance
// between the 2.5% and 97.5% quantiles of the resampled estimates. Sums run in row order and the
// resampling draws from std::mt19937_64 with its own index mapping, so the same outputs and seed
// give the same bytes on every machine.
#include <sonicsim/uncertainty/sensitivity.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace sonicsim::uncertainty {

namespace sensitivity_detail {

int column_count(const std::vector<std::vector<int>>& groups) {
  int dims = 0;
  std::vector<int> seen;
  for (const auto& g : groups) {
    if (g.empty()) throw std::invalid_argument("sobol_design: a group without columns");
    for (int c : g) {
      if (c < 0) throw std::invalid_argument("sobol_design: a negative column");
      seen.push_back(c);
      dims = std::max(dims, c + 1);
    }
  }
  std::sort(seen.begin(), seen.end());
  if (std::adjacent_find(seen.begin(), seen.end()) != seen.end() ||
      static_cast<int>(seen.size()) != dims)
    throw std::invalid_argument("sobol_design: the groups must cover columns 0.." +
                                std::to_string(dims - 1) + " once each");
  return dims;
}

// The outputs of one estimate: the base rows chosen (all n, or a bootstrap resample).
struct Outputs {
  const std::vector<double>& f;
  std::size_t n, groups;
  double a(std::size_t j) const { return f[j]; }
  double b(std::size_t j) const { return f[n + j]; }
  double ab(std::size_t g, std::size_t j) const { return f[(2 + g) * n + j]; }
};

// Every group's index from the rows `rows` (indices of base rows, repeats allowed).
std::vector<SobolIndex> estimate(const Outputs& o, const std::vector<std::size_t>& rows) {
  std::vector<SobolIndex> out(o.groups);
  const double m = static_cast<double>(rows.size());
  double sum = 0.0;
  for (std::size_t j : rows) sum += o.a(j) + o.b(j);
  const double mean = sum / (2.0 * m);
  double ss = 0.0;
  bool constant = true;
  for (std::size_t j : rows) {
    ss += (o.a(j) - mean) * (o.a(j) - mean) + (o.b(j) - mean) * (o.b(j) - mean);
    constant = constant && o.a(j) == o.a(rows[0]) && o.b(j) == o.a(rows[0]);
  }
  const double v = ss / (2.0 * m);
  // No variance (or only the rounding of the mean): every index is 0.
  if (constant || !(v > 1e-24 * mean * mean) || !std::isfinite(v)) return out;
  for (std::size_t g = 0; g < o.groups; ++g) {
    double first = 0.0, total = 0.0;
    for (std::size_t j : rows) {
      const double d = o.ab(g, j) - o.a(j);
      first += (o.b(j) - mean) * d;
      total += d * d;
    }
    out[g].first = first / m / v;
    out[g].total = total / m / (2.0 * v);
  }
  return out;
}

// A uniform index below n from 64 random bits: the high word of bits x n (Lemire's mapping,
// without rejection: its bias, below n / 2^64, is far under the bootstrap's own noise).
std::size_t index_below(std::uint64_t bits, std::size_t n) {
  return static_cast<std::size_t>((static_cast<unsigned __int128>(bits) * n) >> 64);
}

// Half the 95% range of values (sorted in place): (q97.5 - q2.5) / 2, each quantile by the
// inverse of the empirical distribution function.
double half_width95(std::vector<double>& values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double k = std::ceil(q * static_cast<double>(values.size()));
    const std::size_t i = k < 1.0 ? 0 : static_cast<std::size_t>(k) - 1;
    return values[std::min(i, values.size() - 1)];
  };
  return (at(0.975) - at(0.025)) / 2.0;
}

void add_intervals(const Outputs& o, std::vector<SobolIndex>& out, int bootstrap,
                   std::uint64_t seed) {
  if (bootstrap <= 0) return;
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> first(o.groups), total(o.groups);
  std::vector<std::size_t> rows(o.n);
  for (int r = 0; r < bootstrap; ++r) {
    for (auto& j : rows) j = index_below(rng(), o.n);
    const auto e = estimate(o, rows);
    for (std::size_t g = 0; g < o.groups; ++g) {
      first[g].push_back(e[g].first);
      total[g].push_back(e[g].total);
    }
  }
  for (std::size_t g = 0; g < o.groups; ++g) {
    out[g].first_ci95 = half_width95(first[g]);
    out[g].total_ci95 = half_width95(total[g]);
  }
}

}  // namespace sensitivity_detail

using namespace sensitivity_detail;

std::vector<std::vector<double>> SobolDesign::rows() const {
  std::vector<std::vector<double>> out;
  out.reserve(static_cast<std::size_t>(n) * (groups.size() + 2));
  out.insert(out.end(), a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  for (const auto& g : groups)
    for (int j = 0; j < n; ++j) {
      auto row = a[j];
      for (int c : g) row[c] = b[j][c];
      out.push_back(std::move(row));
    }
  return out;
}

SobolDesign sobol_design(Method method, int n, const std::vector<std::vector<int>>& groups,
                         std::uint64_t seed) {
  if (n < 2) throw std::invalid_argument("sobol_design: needs at least 2 base rows");
  SobolDesign d;
  d.n = n;
  d.dims = column_count(groups);
  d.groups = groups;
  const auto both = design(method, n, 2 * d.dims, seed);
  for (const auto& row : both) {
    d.a.emplace_back(row.begin(), row.begin() + d.dims);
    d.b.emplace_back(row.begin() + d.dims, row.begin() + 2 * d.dims);
  }
  return d;
}

std::vector<SobolIndex> sobol_indices(const SobolDesign& d, const std::vector<double>& outputs,
                                      int bootstrap, std::uint64_t seed) {
  const std::size_t n = static_cast<std::size_t>(d.n), groups = d.groups.size();
  if (n == 0 || outputs.size() != n * (groups + 2))
    throw std::invalid_argument("sobol_indices: expected " + std::to_string(n * (groups + 2)) +
                                " outputs (n (groups + 2)), found " +
                                std::to_string(outputs.size()));
  const Outputs o{outputs, n, groups};
  std::vector<std::size_t> all(n);
  for (std::size_t j = 0; j < n; ++j) all[j] = j;
  auto out = estimate(o, all);
  add_intervals(o, out, bootstrap, seed);
  return out;
}

std::vector<std::vector<int>> input_groups(const Spec& spec) {
  std::vector<std::vector<int>> out;
  int next = 0;
  for (const auto& in : spec.inputs) {
    std::vector<int> g;
    for (int k = 0; k < in.dims(); ++k) g.push_back(next++);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace sonicsim::uncertainty
