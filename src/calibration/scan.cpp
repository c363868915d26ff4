// The scan's parameters by name and the analytic model a scan is fitted with: a point's formula
// terms and the metric they predict once the parameters move.
#include <sonicsim/calibration/scan.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

#include "scan_detail.hpp"

namespace sonicsim::calibration {

using scenario::InputError;

namespace scan_detail {

using util::formatted;

std::string show(ScanParam k, double v) {
  if (!std::isfinite(v)) return "-";
  if (k == ScanParam::P) return formatted("%.4g", v);
  if (v == 0.0) return "0 s";
  const char* unit = "s";
  double x = v;
  if (std::abs(v) < 1e-3) {
    unit = "us";
    x = v * 1e6;
  } else if (std::abs(v) < 1.0) {
    unit = "ms";
    x = v * 1e3;
  }
  const int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(std::abs(x)))));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, x, unit);
  return buf;
}

bool has(const std::vector<ScanParam>& list, ScanParam k) {
  return std::find(list.begin(), list.end(), k) != list.end();
}

std::string names_of(const std::vector<ScanParam>& list, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < list.size(); ++i)
    out += (i ? sep : "") + std::string(param_name(list[i]));
  return out;
}

std::vector<std::string> served_models(const scenario::Scenario& s) {
  std::vector<std::string> out;
  for (const auto& r : s.workload().requests)
    if (s.devices_hosting(r.model) > 0 && std::find(out.begin(), out.end(), r.model) == out.end())
      out.push_back(r.model);
  return out;
}

bool on_host(const scenario::Scenario& s, const std::string& model) {
  for (const auto& pool : s.servers)
    if (pool.host && pool.host->cores &&
        std::find(pool.models.begin(), pool.models.end(), model) != pool.models.end())
      return true;
  return false;
}

Moved moved(const ScanPoint& pt, const ScanValues& base, const ScanValues& v) {
  Moved m;
  m.a_g = base.t_gpu > 0.0 ? v.t_gpu / base.t_gpu : 1.0;
  const double a_p = base.p > 0.0 ? v.p / base.p : 1.0;
  const double a_c = base.t_cpu > 0.0 ? v.t_cpu / base.t_cpu : 1.0;
  m.cpu = (1.0 - a_p * pt.values.p) * a_c * pt.values.t_cpu;
  m.t_gpu = m.a_g * pt.values.t_gpu;
  m.t_latency = pt.values.t_latency + (v.t_latency - base.t_latency);
  m.t_host = pt.host_cores > 0.0 ? v.t_host : 0.0;
  const double server = std::max(0.0, pt.server_overhead + (v.t_latency - base.t_latency));
  m.delay = m.t_latency - (pt.host_in_overhead ? std::min(server, m.t_host) : 0.0);
  m.ideal = m.cpu + m.t_gpu + m.delay + m.t_host;
  m.binding = m.a_g * pt.t_gpu_binding;
  return m;
}

}  // namespace scan_detail

using scan_detail::has;
using scan_detail::Moved;
using scan_detail::moved;
using scan_detail::served_models;

// ---- names -----------------------------------------------------------------------------------

const std::vector<ScanParam>& all_scan_params() {
  static const std::vector<ScanParam> all = {ScanParam::TGpu, ScanParam::P, ScanParam::TLatency,
                                             ScanParam::TCpu, ScanParam::THost};
  return all;
}

const char* param_name(ScanParam p) {
  switch (p) {
    case ScanParam::TGpu:
      return "t_gpu";
    case ScanParam::P:
      return "p";
    case ScanParam::TLatency:
      return "t_latency";
    case ScanParam::TCpu:
      return "t_cpu";
    case ScanParam::THost:
      return "t_host";
  }
  return "?";
}

std::vector<ScanParam> parse_free(const std::string& text) {
  std::vector<ScanParam> out;
  std::vector<scenario::Problem> problems;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    std::string name = text.substr(start, comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    bool found = false;
    for (ScanParam k : all_scan_params()) {
      if (name != param_name(k)) continue;
      found = true;
      if (has(out, k))
        problems.push_back({"", "found `" + name + "` twice, expected each parameter once"});
      else
        out.push_back(k);
    }
    if (!found)
      problems.push_back({"", "found `" + name + "` in `" + text +
                                  "`, expected a comma-separated list of t_gpu, p, t_latency, "
                                  "t_cpu, t_host"});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!problems.empty()) throw InputError("--free", std::move(problems));
  return out;
}

std::optional<AnalyticModel> analytic_model_from_name(std::string_view name) {
  if (name == "auto") return AnalyticModel::Auto;
  if (name == "formula") return AnalyticModel::Formula;
  if (name == "mva") return AnalyticModel::Mva;
  return std::nullopt;
}

const char* model_name(AnalyticModel m) {
  switch (m) {
    case AnalyticModel::Auto:
      return "auto";
    case AnalyticModel::Formula:
      return "formula";
    case AnalyticModel::Mva:
      return "mva";
  }
  return "?";
}

AnalyticModel resolve_model(AnalyticModel m, const scenario::Scenario& s) {
  if (!s.single_workload())
    throw InputError(s.source_file, {{"workloads", "found " + std::to_string(s.workloads.size()) +
                                                       " workloads, expected one: a scan is "
                                                       "fitted to one workload's measurements"}});
  if (s.workload().mode == scenario::Mode::Async) {
    if (m == AnalyticModel::Mva)
      throw InputError("--model", {{"",
                                    "found mva, expected formula or auto: exact MVA does not "
                                    "model async mode (workload.mode = async)"}});
    return AnalyticModel::Formula;
  }
  if (m != AnalyticModel::Auto) return m;
  using K = scenario::Distribution::Kind;
  bool constant = s.workload().cpu_time_per_event.kind == K::Constant;
  for (const auto& r : s.workload().requests)
    constant = constant && (r.items.kind == K::Constant ||
                            (r.items.kind == K::Empirical && r.items.values.size() == 1));
  for (const auto& name : served_models(s))
    constant = constant && s.find_model(name)->spread.kind == K::Constant;
  return constant ? AnalyticModel::Formula : AnalyticModel::Mva;
}

double ScanValues::get(ScanParam k) const {
  return const_cast<ScanValues&>(*this).at(k);
}

double& ScanValues::at(ScanParam k) {
  switch (k) {
    case ScanParam::TGpu:
      return t_gpu;
    case ScanParam::P:
      return p;
    case ScanParam::TLatency:
      return t_latency;
    case ScanParam::TCpu:
      return t_cpu;
    case ScanParam::THost:
      return t_host;
  }
  return t_gpu;
}

// ---- the model -------------------------------------------------------------------------------

namespace {

// The hosts serving the point's requests and their work per event (t_host), one execution per
// request as analytic/hosts.cpp counts it.
void add_host_stage(const scenario::Scenario& s, const analytic::Prediction& pr, ScanPoint& pt) {
  for (const auto& pool : s.servers) {
    if (!pool.host || !pool.host->cores) continue;
    bool serves = false;
    for (const auto& name : served_models(s))
      serves =
          serves || std::find(pool.models.begin(), pool.models.end(), name) != pool.models.end();
    if (!serves) continue;
    const double hosts = static_cast<double>(pool.count / pool.host->devices);
    pt.hosts += hosts;
    pt.host_cores += hosts * *pool.host->cores;
  }
  bool any_cost = false, all_in = true;
  for (const auto& t : pr.requests) {
    if (!t.served) continue;
    const scenario::Model& m = *s.find_model(t.model);
    pt.server_overhead += t.per_event * m.overhead.server.at(t.mean_items);
    if (!m.host_cost || !scan_detail::on_host(s, t.model)) continue;
    const auto& c = *m.host_cost;
    any_cost = true;
    all_in = all_in && c.in_server_overhead;
    pt.values.t_host += t.per_event * (c.per_request_work(t.mean_items * m.input_bytes_per_item,
                                                          t.mean_items * m.output_bytes_per_item) +
                                       c.per_execution);
  }
  pt.host_in_overhead = !any_cost || all_in;
}

}  // namespace

ScanPoint scan_point(const scenario::Scenario& s, double x) {
  // The overheads are added here from the scenario, whether or not analytic::predict counts
  // them, so the base of t_latency is what the simulator delays each event by.
  scenario::Scenario bare = s;
  for (auto& m : bare.models) m.overhead = {};
  const analytic::Prediction pr = analytic::predict(bare);
  ScanPoint pt;
  pt.x = x;
  double overhead = 0.0;
  for (const auto& t : pr.requests) {
    if (!t.served) continue;
    const auto& o = s.find_model(t.model)->overhead;
    const double fixed = o.client_send.fixed + o.server.fixed + o.client_recv.fixed;
    const double per_item = o.client_send.per_item + o.server.per_item + o.client_recv.per_item;
    overhead += t.per_event * (fixed + per_item * t.mean_items);
    pt.requests_per_event += t.per_event;
  }
  pt.values = {pr.t_gpu_s, pr.p, pr.t_latency_s + overhead, pr.t_cpu_s};
  pt.p_fallback = pr.p_fallback;
  pt.n_cpu = static_cast<double>(pr.n_cpu);
  pt.n_gpu = static_cast<double>(pr.n_gpu);
  pt.jobs = static_cast<double>(s.workload().jobs);
  int in_use = 0;
  for (const auto& pool : pr.pools) in_use += pool.in_use ? 1 : 0;
  if (in_use == 1)
    pt.t_gpu_binding = pr.t_gpu_s;
  else if (pr.binding_pool >= 0)
    pt.t_gpu_binding =
        pt.n_gpu * pr.pools[static_cast<std::size_t>(pr.binding_pool)].demand_per_device_s;
  pt.network = analytic::closed_network(pr);
  add_host_stage(s, pr, pt);
  return pt;
}

double predict_metric(const ScanPoint& pt, const ScanValues& base, const ScanValues& v,
                      Metric metric, AnalyticModel model, bool host_station) {
  const Moved t = moved(pt, base, v);
  double throughput = 0.0;
  if (model == AnalyticModel::Mva) {
    analytic::ClosedNetwork net = pt.network;
    net.think_time_s = t.cpu + t.delay;
    for (auto& st : net.stations) st.demand_s *= t.a_g;
    if (t.t_host > 0.0 && !host_station) net.think_time_s += t.t_host;
    if (t.t_host > 0.0 && host_station) {
      // Each host's cores as one station (Seidmann's approximation of a c-server station: a
      // queue with demand D / c and a delay of D (c - 1) / c), the events spread over the hosts.
      const double per_host = t.t_host / pt.hosts, cores = pt.host_cores / pt.hosts;
      net.think_time_s += t.t_host * (cores - 1.0) / cores;
      net.stations.push_back({per_host / cores, static_cast<std::int64_t>(pt.hosts)});
    }
    throughput = analytic::solve_mva(net, static_cast<std::int64_t>(pt.n_cpu)).throughput;
  } else {
    // analytic::predict's expression, term for term, with the parameters moved: the cycle is
    // the longest of the unloaded one and each station's saturated one (devices, host cores).
    double t_sonic = t.ideal;
    if (pt.n_gpu > 0 && t.binding > 0.0)
      t_sonic = t.cpu + t.t_gpu +
                t.binding * std::max(0.0, pt.n_cpu / pt.n_gpu - t.ideal / t.binding) + t.delay +
                t.t_host;
    if (t.t_host > 0.0 && host_station)
      t_sonic = std::max(t_sonic, t.t_host * pt.n_cpu / pt.host_cores);
    throughput = pt.n_cpu / t_sonic;
  }
  return metric_of_throughput(metric, throughput, pt.n_cpu, pt.jobs);
}

}  // namespace sonicsim::calibration
