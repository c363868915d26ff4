// Small statistics of sampled answers: empirical quantiles and binomial intervals, so that
// "meets the constraint in 95% of the plausible cases" carries how sure that 95% is.
#pragma once

#include <utility>
#include <vector>

namespace sonicsim::uncertainty {

// The empirical q-quantile (0 <= q <= 1) by the inverse of the empirical distribution function
// (Hyndman-Fan type 1): the smallest value v with (values <= v) >= q n. Needs a non-empty input.
double quantile_of(std::vector<double> values, double q);

// The Wilson score 95% interval of a proportion k / n (n >= 1).
std::pair<double, double> wilson95(int k, int n);

}  // namespace sonicsim::uncertainty
