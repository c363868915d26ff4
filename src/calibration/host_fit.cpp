// The server host's CPU costs from perf_analyzer's server columns (`calibrate perf-analyzer
// --host-cores N`, docs/calibration.md "The host stage").
//
// `Network+Server Send/Recv` is what a request spends in Triton's gRPC front end, both ways:
// receive and deserialise the inputs, serialise and send the outputs. Across batch sizes it is a
// fixed part per request and a part growing with the payload; the payload grows with the items
// in and out together, so the scans cannot tell a byte in from a byte out, and one rate per byte
// is charged to both. That work occupies a host core; the bench's few clients never queued on
// the cores, so the column is the work itself, and in the scenario it moves from the pure delay
// (`request_overhead.server`) to the host stage: `in_server_overhead` takes it off the delay
// where the host is modelled, so nothing is counted twice.
//
// `Server Compute Input/Output` (the copies to and from the device) are fitted per byte of an
// execution too, but only recorded: Triton makes them inside the execution, with the instance
// held, while `host_cost`'s per-byte work comes before the batcher; moving them there would let
// the next batch start during the copy. They stay in the device curve.
#include <cmath>
#include <cstdio>
#include <limits>

#include <sonicsim/calibration/least_squares.hpp>

#include "perf_calibration_steps.hpp"

namespace sonicsim::calibration::perf_fit {
namespace {

// [low, high] of a non-negative term, null where the data leave it open.
ojson interval_json(double value, double half) {
  if (!std::isfinite(half)) return ojson::array({nullptr, nullptr});
  return ojson::array({std::max(0.0, value - half), value + half});
}

// A copy time per execution as fixed + per byte of the execution's payload (items per execution
// x bytes per item), on relative errors; empty without a payload.
ojson copy_fit_json(const std::vector<Row>& rows, double PerfAnalyzerRow::*field,
                    double bytes_per_item) {
  if (!(bytes_per_item > 0.0) || rows.size() < 3) return nullptr;
  const int n = static_cast<int>(rows.size());
  Eigen::MatrixXd X(n, 2);
  Eigen::VectorXd y(n), w(n);
  for (int i = 0; i < n; ++i) {
    X(i, 0) = 1.0;
    X(i, 1) = rows[i].point.items * bytes_per_item;
    y[i] = rows[i].row->*field * kUs;
    w[i] = 1.0 / std::pow(y[i] + kUs, 2);
  }
  const FitResult r = fit_linear(X, y, w);
  return {{"fixed", r.params[0]},
          {"per_byte", r.params[1]},
          {"fixed_ci95", interval_json(r.params[0], r.ci95_halfwidth(0))},
          {"per_byte_ci95", interval_json(r.params[1], r.ci95_halfwidth(1))}};
}

// The cores the measured load kept busy with the host work, at the busiest row: more than the
// given cores means the column cannot all be CPU work on them.
double busy_cores(const CalibrationOutcome& c) {
  const HostSpec& h = *c.in.host;
  double most = 0.0;
  for (const Row& r : c.rows) {
    const double requests_per_s = r.row->inferences_per_s / r.batch;
    const double work = c.ov.host->per_request_work(r.batch * h.input_bytes_per_item,
                                                    r.batch * h.output_bytes_per_item);
    most = std::max(most, requests_per_s * work);
  }
  return most;
}

}  // namespace

scenario::HostCost host_cost_of(const PhaseFit& server, const HostSpec& h) {
  scenario::HostCost cost;
  cost.per_request = server.fixed;
  const double bytes = h.input_bytes_per_item + h.output_bytes_per_item;
  // Without a payload the per-item part has no byte to ride on: it stays a delay.
  if (bytes > 0.0) cost.per_byte_in = cost.per_byte_out = server.per_item / bytes;
  cost.in_server_overhead = true;
  return cost;
}

ojson host_cost_json(const CalibrationOutcome& c) {
  if (!c.in.host || !c.ov.host) return nullptr;
  const HostSpec& h = *c.in.host;
  const scenario::HostCost& cost = *c.ov.host;
  const double bytes = h.input_bytes_per_item + h.output_bytes_per_item;
  const double per_byte_half = bytes > 0.0 ? c.ov.server.per_item_ci95 / bytes : 0.0;
  // (per_request, per_byte) are the server fit's (fixed, per_item / bytes): its covariance,
  // scaled; without a payload per_byte is held at zero.
  const std::vector<double>& s = c.ov.server.covariance;
  const std::vector<double> covariance =
      bytes > 0.0 ? std::vector<double>{s[0], s[1] / bytes, s[2] / bytes, s[3] / (bytes * bytes)}
                  : std::vector<double>{s[0], 0.0, 0.0, 0.0};
  std::vector<Row> fitted;
  for (const Row& r : c.rows)
    if (r.consistent) fitted.push_back(r);
  ojson fit{
      {"cores", h.cores},
      {"input_bytes_per_item", h.input_bytes_per_item},
      {"output_bytes_per_item", h.output_bytes_per_item},
      {"bytes_from", h.bytes_from},
      {"from",
       "Network+Server Send/Recv per request = per_request + per_byte x (input + output bytes "
       "per item) x batch size (the request_overhead.server fit), all of it host CPU work"},
      {"per_request_ci95", interval_json(cost.per_request, c.ov.server.fixed_ci95)},
      {"per_byte_ci95", interval_json(cost.per_byte_in, per_byte_half)},
      {"param_order", ojson::array({"per_request", "per_byte"})},
      {"covariance", covariance_json(covariance, 2)},
      {"rms_rel_error", c.ov.server.rms_rel_error},
      {"busy_cores", busy_cores(c)},
      {"copies",
       {{"input",
         copy_fit_json(fitted, &PerfAnalyzerRow::compute_input_us, h.input_bytes_per_item)},
        {"output",
         copy_fit_json(fitted, &PerfAnalyzerRow::compute_output_us, h.output_bytes_per_item)},
        {"kept_in", "service_time: Triton copies inside the execution, its instance held"}}}};
  return {{"per_request", cost.per_request},   {"per_byte_in", cost.per_byte_in},
          {"per_byte_out", cost.per_byte_out}, {"per_execution", 0.0},
          {"in_server_overhead", true},        {"fit", fit}};
}

std::string host_cost_report(const CalibrationOutcome& c) {
  if (!c.in.host || !c.ov.host) return "";
  const HostSpec& h = *c.in.host;
  const scenario::HostCost& cost = *c.ov.host;
  const double bytes = h.input_bytes_per_item + h.output_bytes_per_item;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "host       %d cores; %.0f B in + %.0f B out per item (%s)\n"
                "host cost  per_request %.1f us +- %.1f, per_byte %.4g ns +- %.2g (in and out), "
                "from the server column; the measured load kept %.2f cores busy\n",
                h.cores, h.input_bytes_per_item, h.output_bytes_per_item, h.bytes_from.c_str(),
                cost.per_request / kUs, c.ov.server.fixed_ci95 / kUs, cost.per_byte_in * 1e9,
                bytes > 0.0 ? c.ov.server.per_item_ci95 / bytes * 1e9 : 0.0, busy_cores(c));
  std::string s = buf;
  if (busy_cores(c) > h.cores)
    s += "warning    the host work at the measured throughput needs more cores than the " +
         std::to_string(h.cores) +
         " given: the server column cannot all be CPU work on them (it holds waiting or "
         "network time); check --host-cores\n";
  return s;
}

}  // namespace sonicsim::calibration::perf_fit
