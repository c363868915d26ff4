// Variance-based sensitivity: first-order and total Sobol indices of a model's output over its
// uncertain inputs, estimated from Saltelli's pick-freeze design (Saltelli et al. 2010, Comput.
// Phys. Commun. 181: 259-270): two independent base samples A and B, and for each group of
// columns a copy of A with that group taken from B. First order by Saltelli 2010's estimator,
// total by Jansen's, 95% intervals by bootstrap over the base rows. Columns are grouped so that a
// calibrated curve's parameters count as one input (inputs.hpp: Input::dims()).
#pragma once

#include <cstdint>
#include <vector>

#include <sonicsim/uncertainty/samples.hpp>

namespace sonicsim::uncertainty {

struct SobolDesign {
  int n = 0, dims = 0;
  std::vector<std::vector<int>> groups;   // the columns of each input
  std::vector<std::vector<double>> a, b;  // n rows of dims coordinates each
  // The rows to evaluate, in this order: A (n rows), B (n), then A_B^g for every group g (n
  // each): n (groups + 2) in all.
  std::vector<std::vector<double>> rows() const;
};

// A and B are the two halves of one design of 2 x dims columns (design(), same method and seed).
SobolDesign sobol_design(Method method, int n, const std::vector<std::vector<int>>& groups,
                         std::uint64_t seed);

struct SobolIndex {
  double first = 0.0, total = 0.0;
  double first_ci95 = 0.0, total_ci95 = 0.0;  // half-widths (bootstrap)
};
// Indices per group from the outputs of rows(), in the same order. With no variance (a constant
// output) every index is 0. `bootstrap` resamples of the n base rows give the intervals.
std::vector<SobolIndex> sobol_indices(const SobolDesign& d, const std::vector<double>& outputs,
                                      int bootstrap = 200, std::uint64_t seed = 1);

// The groups of a spec's inputs: input i takes the next inputs[i].dims() columns.
std::vector<std::vector<int>> input_groups(const Spec& spec);

}  // namespace sonicsim::uncertainty
