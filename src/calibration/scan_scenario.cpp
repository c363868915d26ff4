// `calibrate scan`'s fit back onto the scenario: each parameter as the one documented change of
// the scenario's document (scan.hpp), and the fitted scenario as its file will hold it.
#include <sonicsim/calibration/scan.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/scenario/writer.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>

#include "scan_detail.hpp"

namespace sonicsim::calibration {

namespace {

using json = nlohmann::json;
using scan_detail::has;
using scan_detail::served_models;
using scan_detail::show;
using scenario::InputError;
using util::formatted;

// Served requests per event carried by each served model.
std::map<std::string, double> requests_per_model(const scenario::Scenario& s) {
  std::map<std::string, double> out;
  for (const auto& r : s.workload().requests)
    if (s.devices_hosting(r.model) > 0) out[r.model] += r.per_event;
  return out;
}

scenario::Model& scan_model_of(scenario::Scenario& s, const std::string& name) {
  return *std::find_if(s.models.begin(), s.models.end(),
                       [&](const scenario::Model& m) { return m.name == name; });
}

scenario::Distribution scan_scaled(scenario::Distribution d, double factor) {
  d.mean *= factor;
  d.min *= factor;
  d.max *= factor;
  for (double& v : d.values) v *= factor;
  return d;
}

// Server overhead per event that t_latency's change can act on (the fixed parts).
double server_fixed_per_event(const scenario::Scenario& s) {
  double total = 0.0;
  for (const auto& [name, n] : requests_per_model(s))
    total += n * s.find_model(name)->overhead.server.fixed;
  return total;
}

// The fixed server overhead per request of each served model once t_latency moves by `delta`
// per event: proportional to what they carry, or spread evenly over the requests when none
// carries any. Empty when the event's overhead would become negative.
std::optional<std::map<std::string, double>> server_overheads(const scenario::Scenario& s,
                                                              double delta) {
  const auto per_model = requests_per_model(s);
  const double carried = server_fixed_per_event(s);
  double requests = 0.0;
  for (const auto& [name, n] : per_model) requests += n;
  // Rounding in the fit's last digit is not a request for a negative overhead.
  const double slack = 1e-12 + 1e-9 * std::abs(carried);
  if (carried + delta < -slack || requests <= 0.0) return std::nullopt;
  std::map<std::string, double> out;
  for (const auto& [name, n] : per_model) {
    const double fixed = s.find_model(name)->overhead.server.fixed;
    out[name] = carried > 0.0 ? std::max(0.0, fixed * (carried + delta) / carried)
                              : std::max(0.0, delta / requests);
  }
  return out;
}

// Every served model's host work scaled to t_host per event; without any yet, t_host spread
// evenly over the requests of the models on hosts as per-request work that is part of the
// server overhead (what a production point says the bench's server time holds).
void apply_host(scenario::Scenario& out, const scenario::Scenario& s, const ScanValues& base,
                const ScanValues& v) {
  double requests = 0.0;
  for (const auto& [name, n] : requests_per_model(s))
    if (scan_detail::on_host(s, name)) requests += n;
  for (const auto& [name, n] : requests_per_model(s)) {
    if (!scan_detail::on_host(s, name)) continue;
    const scenario::Model& m = *s.find_model(name);
    scenario::HostCost c;
    c.in_server_overhead = true;
    if (base.t_host > 0.0) {
      if (!m.host_cost) continue;
      const double f = v.t_host / base.t_host;
      c = *m.host_cost;
      c.per_request *= f;
      c.per_byte_in *= f;
      c.per_byte_out *= f;
      c.per_execution *= f;
    } else if (requests > 0.0) {
      c.per_request = v.t_host / requests;
    }
    scan_model_of(out, name).host_cost = c;
  }
}

}  // namespace

// ---- back onto the scenario ------------------------------------------------------------------

scenario::Scenario apply_values(const scenario::Scenario& s, const ScanValues& base,
                                const ScanValues& v, const std::vector<ScanParam>& free,
                                const std::string& what) {
  scenario::Scenario out = s;
  // A parameter at its scenario value changes nothing, not even a calibration file reference.
  const auto moves = [&](ScanParam k) { return has(free, k) && v.get(k) != base.get(k); };
  const auto served = served_models(s);
  if (moves(ScanParam::TGpu)) {
    const double factor = v.t_gpu / base.t_gpu;
    for (const auto& name : served) {
      scenario::Model& model = scan_model_of(out, name);
      for (auto& [device, curve] : model.service_time)
        for (double& t : curve.seconds) t *= factor;
      for (auto& [device, timing] : model.pipeline_time) {
        timing.latency *= factor;
        timing.interval *= factor;
      }
    }
  }
  if (moves(ScanParam::P)) {
    const double factor = v.p / base.p;
    double total = 0.0;
    for (auto& r : out.workload().requests) {
      if (s.devices_hosting(r.model) > 0) r.offload_fraction *= factor;
      total += r.offload_fraction;
    }
    if (total >= 1.0 - 1e-9) {
      throw InputError(what,
                       {{"workload.requests", "p = " + formatted("%.6g", v.p) +
                                                  " from the fit makes the offload "
                                                  "fractions sum to " +
                                                  formatted("%.6g", total) +
                                                  ", expected less than 1 (some CPU work "
                                                  "per event); fix p (drop it from --free)"}});
    }
  }
  if (moves(ScanParam::THost)) apply_host(out, s, base, v);
  if (moves(ScanParam::TCpu))
    out.workload().cpu_time_per_event =
        scan_scaled(s.workload().cpu_time_per_event, v.t_cpu / base.t_cpu);
  if (moves(ScanParam::TLatency)) {
    const double delta = v.t_latency - base.t_latency;
    const auto overheads = server_overheads(s, delta);
    if (!overheads) {
      throw InputError(
          what, {{"models", "the fit asks for t_latency = " + util::format_time(v.t_latency) +
                                " per event, " + util::format_time(-delta) +
                                " less than the scenario's " + util::format_time(base.t_latency) +
                                ", but its requests carry only " +
                                util::format_time(server_fixed_per_event(s)) +
                                " of fixed server overhead per event to take away (a negative "
                                "overhead): the measured events are faster than the scenario's "
                                "network path allows; check the link latencies or fix t_latency"}});
    }
    // A calibration file's overheads become explicit (the writer), so only the server part
    // changes.
    for (const auto& [name, fixed] : *overheads) {
      scenario::OverheadPhase& server = scan_model_of(out, name).overhead.server;
      server = server.shifted(fixed - server.fixed);
    }
  }
  return out;
}

std::vector<std::string> describe_mapping(const scenario::Scenario& s, const ScanValues& base,
                                          const ScanValues& v, const std::vector<ScanParam>& free) {
  std::vector<std::string> out;
  if (has(free, ScanParam::TGpu))
    for (const auto& name : served_models(s))
      out.push_back("models." + name + ".service_time: every seconds value x " +
                    formatted("%.4f", v.t_gpu / base.t_gpu) + " (explicit batch/seconds tables)");
  if (has(free, ScanParam::P))
    for (std::size_t i = 0; i < s.workload().requests.size(); ++i)
      if (s.devices_hosting(s.workload().requests[i].model) > 0)
        out.push_back("workload.requests[" + std::to_string(i) + "].offload_fraction: " +
                      formatted("%.4g", s.workload().requests[i].offload_fraction) + " -> " +
                      formatted("%.4g", s.workload().requests[i].offload_fraction * v.p / base.p));
  if (has(free, ScanParam::TCpu))
    out.push_back("workload.cpu_time_per_event: mean x " + formatted("%.4f", v.t_cpu / base.t_cpu) +
                  " (cv kept)");
  if (has(free, ScanParam::THost))
    for (const auto& name : served_models(s))
      if (scan_detail::on_host(s, name))
        out.push_back("models." + name + ".host_cost: " +
                      (base.t_host > 0.0
                           ? "every term x " + formatted("%.4f", v.t_host / base.t_host)
                           : std::string("per_request work spread over the requests")) +
                      " (t_host " + show(ScanParam::THost, v.t_host) +
                      " per event, part of the server overhead)");
  if (has(free, ScanParam::TLatency)) {
    const auto overheads = server_overheads(s, v.t_latency - base.t_latency);
    const auto per_model = requests_per_model(s);
    if (overheads)
      for (const auto& [name, fixed] : *overheads)
        out.push_back("models." + name + ".request_overhead.server: " +
                      util::format_time(s.find_model(name)->overhead.server.fixed) + " -> " +
                      util::format_time(fixed) + " fixed per request (" +
                      formatted("%g", per_model.at(name)) + " per event)");
  }
  return out;
}

namespace {

namespace fs = std::filesystem;

bool is_reference_key(const std::string& key) {
  return key == "calibration" || key == "triton_config" || key == "$schema";
}

// Relative file references are relative to the scenario's folder: keep them pointing at the
// same files from the output's folder.
void relocate(json& v, const fs::path& from, const fs::path& to) {
  if (v.is_array()) {
    for (auto& x : v) relocate(x, from, to);
    return;
  }
  if (!v.is_object()) return;
  for (auto& item : v.items()) {
    if (!is_reference_key(item.key()) || !item.value().is_string()) {
      relocate(item.value(), from, to);
      continue;
    }
    const std::string text = item.value().get<std::string>();
    const fs::path ref(text);
    if (ref.empty() || ref.is_absolute() || text.find("://") != std::string::npos) continue;
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(fs::absolute(from / ref, ec), ec);
    const fs::path base = fs::weakly_canonical(fs::absolute(to, ec), ec);
    fs::path rel = target.lexically_relative(base);
    item.value() = (rel.empty() ? target : rel).generic_string();
  }
}

// `v` with its object keys in the order `like` has them (the user's file), new keys after.
nlohmann::ordered_json ordered_like(const json& v, const nlohmann::ordered_json& like) {
  using ojson = nlohmann::ordered_json;
  if (v.is_object()) {
    ojson out = ojson::object();
    if (like.is_object())
      for (const auto& item : like.items())
        if (v.contains(item.key())) out[item.key()] = ordered_like(v[item.key()], item.value());
    for (const auto& item : v.items())
      if (!out.contains(item.key())) out[item.key()] = ordered_like(item.value(), nullptr);
    return out;
  }
  if (v.is_array()) {
    ojson out = ojson::array();
    for (std::size_t i = 0; i < v.size(); ++i)
      out.push_back(ordered_like(v[i], like.is_array() && i < like.size() ? like[i] : ojson()));
    return out;
  }
  return ojson::parse(v.dump());
}

}  // namespace

nlohmann::ordered_json fitted_scenario(const scenario::Scenario& s, const ScanResult& r,
                                       const Measurements& m, const std::string& output) {
  scenario::Scenario fitted = apply_values(s, r.base, r.fit.values, r.free, output);
  std::string note = "Calibrated by `sonicsim calibrate scan` against " + m.file + " (" +
                     metric_name(m.metric) + ", " + std::to_string(m.rows.size()) + " points): ";
  for (std::size_t i = 0; i < r.free.size(); ++i) {
    const ScanParam k = r.free[i];
    note += (i ? ", " : "") + std::string(param_name(k)) + " " + show(k, r.base.get(k)) + " -> " +
            show(k, r.fit.values.get(k));
  }
  note += "; MAPE " + formatted("%.2f%%", r.mape_percent) + ".";
  fitted.description = s.description.empty() ? note : s.description + " " + note;
  json doc = scenario::write_scenario(s, fitted);
  const fs::path from =
      s.source_file.empty() ? fs::path(".") : fs::path(s.source_file).parent_path();
  const fs::path to = fs::path(output).parent_path();
  relocate(doc, from.empty() ? fs::path(".") : from, to.empty() ? fs::path(".") : to);

  nlohmann::ordered_json like;
  if (!s.source_file.empty()) {
    // The scenario was loaded from this file, so it is within the caps; "" if it has gone since.
    std::string error;
    const std::string text = read_text(s.source_file, error);
    like = nlohmann::ordered_json::parse(text, nullptr, false);
    if (like.is_discarded()) like = nullptr;
  }
  return ordered_like(doc, like);
}

}  // namespace sonicsim::calibration
