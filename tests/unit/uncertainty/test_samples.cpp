// Sampling designs and samples: stratified_columns, reproducible, and each input's value where its
// distribution puts it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/units.hpp>
#include <sonicsim/uncertainty/samples.hpp>
#include <sonicsim/uncertainty/stats.hpp>

using namespace sonicsim;
using namespace sonicsim::uncertainty;

namespace {

// Every column of `rows` has exactly one point in each of the n equal strata of (0, 1).
bool stratified_columns(const std::vector<std::vector<double>>& rows) {
  const std::size_t n = rows.size();
  for (std::size_t d = 0; d < rows.front().size(); ++d) {
    std::set<std::size_t> seen;
    for (const auto& r : rows) {
      if (!(r[d] > 0 && r[d] < 1)) return false;
      seen.insert(static_cast<std::size_t>(r[d] * static_cast<double>(n)));
    }
    if (seen.size() != n) return false;
  }
  return true;
}

Input numeric_input(Dist dist, double nominal, double a, double b) {
  Input in;
  in.path = "x";
  in.dist = dist;
  in.nominal = nominal;
  in.a = a;
  in.b = b;
  return in;
}

Spec spec_of(const Input& in) {
  Spec s;
  s.inputs = {in};
  return s;
}

}  // namespace

TEST_CASE("Latin hypercube and Sobol designs stratify every column and follow their seed",
          "[uncertainty][design]") {
  for (auto m : {Method::Lhs, Method::Sobol}) {
    INFO(method_name(m));
    const auto a = design(m, 64, 5, 11);
    REQUIRE(a.size() == 64);
    CHECK(stratified_columns(a));
    CHECK(design(m, 64, 5, 11) == a);  // the same seed, the same points
    CHECK(design(m, 64, 5, 12) != a);
  }
  // Latin hypercubes stratify any count; Sobol points every power of two.
  CHECK(stratified_columns(design(Method::Lhs, 37, 3, 1)));
  CHECK(stratified_columns(design(Method::Sobol, 256, 40, 1)));
}

TEST_CASE("each distribution maps the unit interval onto its values", "[uncertainty][design]") {
  const double z975 = 1.959963984540054;
  CHECK(quantile(numeric_input(Dist::PlusMinus, 10, 2, 0), 0.5) == Approx(10));
  CHECK(quantile(numeric_input(Dist::PlusMinus, 10, 2, 0), 0.975) == Approx(11.9));
  CHECK(quantile(numeric_input(Dist::Uniform, 0, 4, 8), 0.25) == Approx(5));
  CHECK(quantile(numeric_input(Dist::Normal, 0, 3, 0.5), 0.975) == Approx(3 + z975 * 0.5));
  CHECK(quantile(numeric_input(Dist::Lognormal, 0, 2, 0.3), 0.025) ==
        Approx(2 * std::exp(-z975 * 0.3)));
  Input choice = numeric_input(Dist::Choice, 0, 0, 0);
  choice.values = {"a", "b", "c"};
  choice.weights = {0.5, 0.25, 0.25};
  CHECK(quantile(choice, 0.49) == 0);
  CHECK(quantile(choice, 0.51) == 1);
  CHECK(quantile(choice, 0.99) == 2);
  // Relative 95% half-widths, what "measure it within 2%" compares with.
  CHECK(relative_half_width(numeric_input(Dist::PlusMinus, 10, 2, 0)) == Approx(0.2));
  CHECK(relative_half_width(numeric_input(Dist::Normal, 0, 4, 0.2)) == Approx(z975 * 0.05));
  CHECK(relative_half_width(
            narrowed(spec_of(numeric_input(Dist::Normal, 0, 4, 0.2)), 0, 0.5).inputs[0]) ==
        Approx(z975 * 0.025));
}

TEST_CASE("a sample writes each value as the scenario writes it", "[uncertainty][design]") {
  Spec spec;
  Input t = numeric_input(Dist::Uniform, 0.1, 0.05, 0.15);
  t.path = "workload.cpu_time_per_event";
  t.quantity = scenario::Quantity::Time;
  Input jobs = numeric_input(Dist::PlusMinus, 20, 5, 0);
  jobs.path = "workload.jobs";
  jobs.integer = true;
  Input bw = numeric_input(Dist::Uniform, 1.25e9, 1e9, 2e9);
  bw.path = "network.site_uplink.bandwidth";
  bw.quantity = scenario::Quantity::Bandwidth;
  Input mode = numeric_input(Dist::Choice, 0, 0, 0);
  mode.path = "workload.mode";
  mode.values = {"sync", "async"};
  mode.weights = {0.5, 0.5};
  spec.inputs = {t, jobs, bw, mode};
  const auto s = realise(spec, {0.5, 0.9, 0.25, 0.75});
  REQUIRE(s.overrides.size() == 4);
  std::string error;
  const auto time = scenario::parse_quantity(nlohmann::json::parse(s.overrides[0].value),
                                             scenario::Quantity::Time, error);
  REQUIRE(time);
  CHECK(*time == Approx(0.1));
  CHECK(s.overrides[1].value == "24");  // 20 + 5 x 0.8 rounded
  const auto band = scenario::parse_quantity(nlohmann::json::parse(s.overrides[2].value),
                                             scenario::Quantity::Bandwidth, error);
  REQUIRE(band);
  CHECK(*band == Approx(1.25e9));
  CHECK(s.overrides[3].value == "\"async\"");
  CHECK(s.summary == std::vector<double>{s.summary[0], 24, s.summary[2], 1});
}

TEST_CASE("a calibrated curve moves as one, and not at all at the fit's own parameters",
          "[uncertainty][calibration]") {
  CalibratedCurve c;
  c.kind = "linear";
  c.param_names = {"a_s", "b_s_per_item"};
  c.params = {0.001, 0.0001};
  c.covariance = {1e-8, 0, 0, 1e-12};
  c.batch = {1, 10, 100};
  c.seconds = {0.0011, 0.0021, 0.0111};
  Input in;
  in.path = "models.m.service_time";
  in.dist = Dist::Calibration;
  in.nominal = 1;
  in.curve = c;
  const Spec spec = spec_of(in);
  REQUIRE(spec.dims() == 2);
  const auto centre = realise(spec, {0.5, 0.5});
  const auto table = nlohmann::json::parse(centre.overrides[0].value);
  CHECK(table["seconds"].get<std::vector<double>>() == c.seconds);
  // a one sd up: the curve's fixed part grows by 1e-4 s, at every batch by the curve's ratio.
  const auto up = realise(spec, {0.8413447460685429, 0.5});
  const auto moved =
      nlohmann::json::parse(up.overrides[0].value)["seconds"].get<std::vector<double>>();
  for (std::size_t i = 0; i < c.batch.size(); ++i) {
    const double base = 0.001 + 0.0001 * c.batch[i];
    CHECK(moved[i] == Approx(c.seconds[i] * (base + 1e-4) / base).epsilon(1e-6));
  }
  // The tornado's ends are the pointwise 95% band, moving as one.
  const auto hi = nlohmann::json::parse(at_quantile(spec, 0, 0.975)[0].value)["seconds"];
  for (std::size_t i = 0; i < c.batch.size(); ++i) CHECK(hi[i].get<double>() > c.seconds[i]);
}

TEST_CASE("quantiles and binomial intervals of sampled answers", "[uncertainty][stats]") {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  CHECK(quantile_of(v, 0.0) == 1);
  CHECK(quantile_of(v, 0.2) == 1);
  CHECK(quantile_of(v, 0.5) == 3);
  CHECK(quantile_of(v, 0.95) == 5);
  const auto [lo, hi] = wilson95(19, 20);
  CHECK(lo == Approx(0.7639).margin(1e-3));  // the Wilson interval of 19/20
  CHECK(hi == Approx(0.9911).margin(1e-3));
}
