// `calibrate scan --free t_gpu,t_host` on a scan whose saturation is the device's (4 host cores
// at 5 ms per request could do 800 events/s, the device 100/s): t_host changes no prediction,
// so it is not identified; its interval is [0, the t_host at which the hosts would just bind],
// which holds the truth, and t_GPU is still fitted.
#include "scan_host_support.hpp"

using namespace scan_host;

TEST_CASE("a device-bound scan says t_host is not identifiable, with its bound",
          "[scan][hosts][simulated]") {
  const json doc = hosted_knee(4, 0.005);
  const ScanFile f(doc);
  const Measurements m = simulated_scan(f.file, {});
  const ScanResult r = fit_hosted(doc, f, m);
  INFO(to_text(r, m));
  const auto& host = host_estimate(r, ScanParam::THost);
  CHECK(host.free);
  CHECK_FALSE(host.identified);
  CHECK(host.ci_low == 0.0);
  // The highest throughput is the device's ~100 events/s: 4 cores / 100 per s = 40 ms.
  CHECK(host.ci_high == Approx(0.040).epsilon(0.05));
  CHECK(host.ci_high > 0.005);
  CHECK(r.fit.values.t_host == 0.005);
  bool said = false;
  for (const auto& n : r.notes)
    said = said || n.find("t_host is not determined") != std::string::npos;
  CHECK(said);
  CHECK(r.fit.values.t_gpu == Approx(0.010).epsilon(0.02));
}
