// The searches on any evaluator (plan.hpp): bracket and bisection of a monotone verdict, pattern
// search of a unimodal cost, and the statistics of replications they compare.
#include <sonicsim/plan/plan.hpp>

#include <algorithm>
#include <cmath>

#include <sonicsim/util/numbers.hpp>

#include "questions.hpp"

namespace sonicsim::plan {

double student_t975(int dof) {
  static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                     2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                     2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                     2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof <= 0) return kInf;
  if (dof <= 30) return table[dof - 1];
  return 1.96 + 2.4 / dof;  // within 0.5% of the exact quantile above 30
}

Stat statistics(const std::vector<double>& values) {
  Stat s;
  s.values = values;
  if (values.empty()) return s;
  double sum = 0.0;
  for (double v : values) {
    if (!std::isfinite(v)) {
      s.mean = v;  // one run with no finished event decides: no mean of the others hides it
      return s;
    }
    sum += v;
  }
  const double n = static_cast<double>(values.size());
  s.mean = sum / n;
  if (values.size() < 2) return s;
  double ss = 0.0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(ss / (n - 1.0));
  s.ci95 = student_t975(static_cast<int>(values.size()) - 1) * s.stddev / std::sqrt(n);
  return s;
}

double Domain::clamp(double x) const {
  return std::min(max, std::max(min, x));
}
// Steps grow with each expansion: the analytic bracket is usually close, but may be far off.
double Domain::up(double x, int k) const {
  if (geometric)
    return clamp(detail::round_bandwidth(x * std::pow(1.0 + 4.0 * tolerance, std::ldexp(1.0, k))));
  return clamp(x + std::max(1.0, std::round(x * 0.25 * std::ldexp(1.0, k))));
}
double Domain::down(double x, int k) const {
  if (geometric)
    return clamp(detail::round_bandwidth(x / std::pow(1.0 + 4.0 * tolerance, std::ldexp(1.0, k))));
  return clamp(x - std::max(1.0, std::round(x * std::min(0.5, 0.2 * std::ldexp(1.0, k)))));
}
double Domain::mid(double a, double b) const {
  if (geometric) return clamp(detail::round_bandwidth(std::sqrt(a * b)));
  return std::floor((a + b) / 2.0);
}
bool Domain::close(double a, double b) const {
  if (geometric) return std::max(a, b) <= std::min(a, b) * (1.0 + tolerance);
  return std::abs(a - b) <= 1.0;
}

Boundary find_boundary(const Domain& d, bool ok_below, double guess_a, double guess_b,
                       const std::function<std::vector<bool>(const std::vector<double>&)>& ok,
                       int probes) {
  // Sides are named by the verdict, so one loop serves both directions.
  int k = 0;
  const auto toward_ok = [&](double x) { return ok_below ? d.down(x, k++) : d.up(x, k++); };
  const auto toward_fail = [&](double x) { return ok_below ? d.up(x, k++) : d.down(x, k++); };
  const double ok_limit = ok_below ? d.min : d.max, fail_limit = ok_below ? d.max : d.min;
  const bool a_first = ok_below ? guess_a <= guess_b : guess_a >= guess_b;
  const double ok_guess = d.clamp(a_first ? guess_a : guess_b);
  double fail_guess = d.clamp(a_first ? guess_b : guess_a);
  if (fail_guess == ok_guess && fail_guess != fail_limit) {
    fail_guess = toward_fail(ok_guess);
    k = 0;
  }

  Boundary b;
  std::vector<bool> first = fail_guess == ok_guess ? ok({ok_guess}) : ok({ok_guess, fail_guess});
  if (first.size() == 1) first.push_back(first[0]);
  if (first[0]) {
    b.ok = ok_guess;
    if (fail_guess == ok_guess) {
      if (ok_guess == fail_limit) return b;
    } else if (!first[1]) {
      b.fail = fail_guess;
    } else {
      b.ok = fail_guess;
    }
    while (!b.fail) {
      if (*b.ok == fail_limit) return b;
      const double x = toward_fail(*b.ok);
      if (ok({x})[0])
        b.ok = x;
      else
        b.fail = x;
    }
  } else {
    b.fail = ok_guess;
    while (!b.ok) {
      if (*b.fail == ok_limit) return b;
      const double x = toward_ok(*b.fail);
      if (ok({x})[0])
        b.ok = x;
      else
        b.fail = x;
    }
  }
  while (!d.close(*b.ok, *b.fail)) {
    // `probes` values split the bracket evenly (on a log scale for bandwidth) and run together.
    std::vector<double> probe;
    const double lo = *b.ok, hi = *b.fail;
    for (int i = 1; i <= std::max(1, probes); ++i) {
      const double f = static_cast<double>(i) / (std::max(1, probes) + 1);
      double m = d.geometric ? detail::round_bandwidth(lo * std::pow(hi / lo, f))
                             : std::floor(lo + (hi - lo) * f);
      if (probes <= 1) m = d.mid(lo, hi);
      if (m != lo && m != hi && std::find(probe.begin(), probe.end(), m) == probe.end())
        probe.push_back(m);
    }
    if (probe.empty()) break;  // rounding left nothing in between
    const auto verdict = ok(probe);
    // Walk from the ok end: the bracket closes on the first value that fails.
    for (std::size_t i = 0; i < probe.size(); ++i) {
      if (!verdict[i]) {
        b.fail = probe[i];
        break;
      }
      b.ok = probe[i];
    }
  }
  return b;
}

double find_minimum(const Domain& d, double guess, double step,
                    const std::function<std::vector<double>(const std::vector<double>&)>& f) {
  double c = d.clamp(std::round(guess));
  double s = std::max(1.0, std::round(step));
  for (int round = 0; round < 200; ++round) {
    std::vector<double> probe{c};
    for (double x : {d.clamp(c - s), d.clamp(c + s)})
      if (std::find(probe.begin(), probe.end(), x) == probe.end()) probe.push_back(x);
    const auto v = f(probe);
    std::size_t best = 0;
    for (std::size_t i = 1; i < probe.size(); ++i)
      if (v[i] < v[best]) best = i;
    if (best == 0) {
      if (s <= 1.0) return c;
      s = std::max(1.0, std::floor(s / 2.0));
    } else {
      // Keep going the way the cost falls, faster each time: the optimum may be far off.
      c = probe[best];
      s *= 2.0;
    }
  }
  return c;
}

}  // namespace sonicsim::plan
