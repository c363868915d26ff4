// Samples of the uncertain inputs: a space-filling design in the unit cube (Latin hypercube, or a
// digitally shifted Sobol sequence), each row turned into the values of the inputs and the
// --set overrides that put them in the scenario. Seeded and reproducible: the same spec, count,
// method and seed give the same overrides, byte for byte, on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/overrides.hpp>
#include <sonicsim/uncertainty/inputs.hpp>

namespace sonicsim::uncertainty {

enum class Method { Lhs, Sobol };
// "lhs" or "sobol"; throws InputError(what, ...) otherwise.
Method method_from_name(const std::string& name, const std::string& what);
const char* method_name(Method m);

// n points in (0, 1)^dims. Lhs: one point per stratum of every column, strata permuted and
// jittered by the seed. Sobol: Boost's Sobol sequence (Joe-Kuo directions, up to 3667 columns)
// with a random digital shift from the seed (points 0..n-1, the origin first: the shift moves it,
// and the first 2^k points keep one point in every 2^-k interval of each column).
std::vector<std::vector<double>> design(Method method, int n, int dims, std::uint64_t seed);

// One sample: where it sits in the unit cube, what each input became, and the overrides.
struct Sample {
  std::vector<double> u;               // spec.dims() coordinates
  std::vector<nlohmann::json> values;  // per input: the number (SI) or alternative written
  // Per input, one number to report and correlate: the value (SI), the alternative's index, or
  // a calibrated curve's factor at its table's median batch (curve_factor).
  std::vector<double> summary;
  std::vector<scenario::Override> overrides;
};

// The sample at u (spec.dims() coordinates in (0, 1)).
Sample realise(const Spec& spec, const std::vector<double>& u);

// The value of a one-column input at quantile q (0 < q < 1), SI; a Choice input gives the
// alternative's index. For a calibrated curve, the pointwise quantile q of its factor (the delta
// method's band, moving as one), at every batch of its table.
double quantile(const Input& in, double q);

// Overrides that set input `i` to its quantile q, every other input at its nominal value (the
// scenario as written): a tornado's end.
std::vector<scenario::Override> at_quantile(const Spec& spec, std::size_t i, double q);

// A copy of the spec whose input i is `factor` times narrower around its nominal value (its
// half-width, sd, sigma or covariance scaled; a Choice input is pinned to its most likely
// alternative when factor < 1).
Spec narrowed(const Spec& spec, std::size_t i, double factor);

// The relative 95% half-width of input i around its nominal value (for a curve: the largest over
// its table), what "measure it within 2%" compares with.
double relative_half_width(const Input& in);

// The factor a calibrated curve's sample applies at `batch` (1 = the fitted curve).
double curve_factor(const CalibratedCurve& c, const std::vector<double>& drawn_params,
                    double batch);

}  // namespace sonicsim::uncertainty
