// `calibrate scan --free t_gpu,t_host` on a production scan whose saturation is the host's: one
// core doing 20 ms per request (50 events/s) in front of a device that could do 100/s, the
// scenario starting from a bench guess of 10 ms. The fit gives t_host back within 3% and t_GPU
// within 2%, and the host stage's saturation min(N_GPU / t_GPU, cores / t_host) is what binds.
#include "scan_host_support.hpp"

using namespace scan_host;

TEST_CASE("a host-bound scan gives t_host back", "[scan][hosts][simulated]") {
  const json doc = hosted_knee(1, 0.010);
  const ScanFile f(doc);
  const Measurements m = simulated_scan(
      f.file, {{"models.m.host_cost", R"({"per_request": 0.020, "in_server_overhead": true})"}});
  // Saturated at the host's 1 / 20 ms.
  CHECK(m.rows.back().value * m.rows.back().x == Approx(50.0).epsilon(0.01));
  const ScanResult r = fit_hosted(doc, f, m);
  INFO(to_text(r, m));
  const auto& host = host_estimate(r, ScanParam::THost);
  CHECK(host.identified);
  CHECK(r.fit.values.t_host == Approx(0.020).epsilon(0.03));
  CHECK(host.ci_low <= r.fit.values.t_host);
  CHECK(r.fit.values.t_host <= host.ci_high);
  CHECK(r.fit.values.t_gpu == Approx(0.010).epsilon(0.02));
  CHECK(r.mape_percent < 2.0);
}
