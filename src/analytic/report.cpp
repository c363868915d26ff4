// Prediction -> the results' `analytic` block and the `sonicsim analytic` terminal summary.
#include <sonicsim/analytic/analytic.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::analytic {
namespace {

using nlohmann::json;

// JSON has no infinity: a quantity that does not exist is null.
json num(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}
json num(const std::optional<double>& x) {
  return x ? num(*x) : json(nullptr);
}

const char* mode_name(scenario::Mode m) {
  return m == scenario::Mode::Async ? "async" : "sync";
}

std::string fixed(double x, int digits) {
  if (!std::isfinite(x)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string general(double x) {
  if (!std::isfinite(x)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

std::string show_time(double s) {
  return std::isfinite(s) ? util::format_time(s) : "-";
}
std::string show_time(const std::optional<double>& s) {
  return s ? show_time(*s) : "-";
}
// Columns two spaces apart; `align` has 'l' or 'r' per column (missing: the first column left,
// the others right, which suits a header row over numbers).
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent,
                  const std::string& align = "") {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::ostringstream out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      const bool left = c < align.size() ? align[c] == 'l' : c == 0;
      line += left ? row[c] + pad : pad + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
  return out.str();
}

}  // namespace

json to_json(const Prediction& pr) {
  json j;
  j["t_cpu_s"] = num(pr.t_cpu_s);
  j["p"] = num(pr.p);
  j["t_gpu_s"] = num(pr.t_gpu_s);
  j["t_latency_s"] = num(pr.t_latency_s);
  j["n_cpu"] = pr.n_cpu;
  j["n_gpu"] = pr.n_gpu;
  j["t_ideal_s"] = num(pr.t_ideal_s);
  j["t_sonic_s"] = num(pr.t_sonic_s);
  j["saturated"] = pr.saturated;
  j["saturation_n_cpu_per_gpu"] = num(pr.saturation_n_cpu_per_gpu);

  j["mode"] = mode_name(pr.mode);
  j["p_fallback"] = num(pr.p_fallback);
  j["throughput_per_s"] = num(pr.throughput_per_s);
  j["binding_pool"] = pr.binding_pool < 0
                          ? json(nullptr)
                          : json(pr.pools[static_cast<std::size_t>(pr.binding_pool)].name);

  json network;
  network["bytes_in_per_event"] = num(pr.bytes_in_per_event);
  network["bytes_out_per_event"] = num(pr.bytes_out_per_event);
  network["round_trip_latency_s"] = num(pr.round_trip_latency_s);
  network["path_bandwidth_Bps"] = num(pr.path_bandwidth_Bps);
  network["links"] = json::array();
  for (const LinkTerm& l : pr.links)
    network["links"].push_back({{"name", l.name},
                                {"bandwidth_Bps", num(l.bandwidth_Bps)},
                                {"latency_s", num(l.latency_s)},
                                {"load_Bps", num(l.load_Bps)},
                                {"utilization", num(l.utilization)}});
  j["network"] = std::move(network);

  json models = json::object();
  for (const ModelTerm& m : pr.models)
    models[m.name] = {{"served", m.served},
                      {"offload_fraction", num(m.offload_fraction)},
                      {"requests_per_event", m.per_event},
                      {"mean_items", num(m.mean_items)},
                      {"t_gpu_s", num(m.t_gpu_s)},
                      {"t_gpu_routed_s", num(m.t_gpu_routed_s)},
                      {"t_latency_s", num(m.t_latency_s)},
                      {"n_gpu", m.n_gpu},
                      {"pools", m.pools},
                      {"t_gpu_full_batch_s", num(m.t_gpu_full_batch_s)},
                      {"mva_request_latency_s", num(m.mva_request_latency_s)}};
  j["per_model"] = std::move(models);

  json pools = json::array();
  for (const PoolTerm& p : pr.pools)
    pools.push_back({{"name", p.name},
                     {"device", p.device},
                     {"count", p.count},
                     {"models", p.models},
                     {"in_use", p.in_use},
                     {"demand_s", num(p.demand_s)},
                     {"demand_per_device_s", num(p.demand_per_device_s)},
                     {"demand_per_device_full_batch_s", num(p.demand_per_device_full_batch_s)},
                     {"saturation_n_cpu_per_gpu", num(p.saturation_n_cpu_per_gpu)},
                     {"saturation_n_cpu", num(p.saturation_n_cpu)},
                     {"saturated", p.saturated},
                     {"binding", p.binding},
                     {"utilization", num(p.utilization)}});
  j["per_pool"] = std::move(pools);

  if (!pr.mva) {
    j["mva"] = nullptr;
  } else {
    const MvaTerm& m = *pr.mva;
    json mva;
    mva["throughput_per_s"] = num(m.throughput_per_s);
    mva["time_per_event_s"] = num(m.time_per_event_s);
    mva["think_time_s"] = num(m.think_time_s);
    json util = json::object(), queue = json::object(), residence = json::object();
    for (std::size_t k = 0; k < pr.pools.size(); ++k) {
      if (!pr.pools[k].in_use) continue;
      util[pr.pools[k].name] = num(m.device_utilization[k]);
      queue[pr.pools[k].name] = num(m.device_queue_length[k]);
      residence[pr.pools[k].name] = num(m.device_residence_s[k]);
    }
    mva["device_utilization"] = std::move(util);
    mva["device_queue_length"] = std::move(queue);
    mva["device_residence_s"] = std::move(residence);
    json latency = json::object();
    for (const ModelTerm& model : pr.models)
      if (model.mva_request_latency_s) latency[model.name] = num(*model.mva_request_latency_s);
    mva["request_latency_s"] = std::move(latency);
    mva["bounds"] = {{"throughput_upper_per_s", num(m.bounds.balanced_upper)},
                     {"throughput_lower_per_s", num(m.bounds.balanced_lower)},
                     {"throughput_asymptotic_upper_per_s", num(m.bounds.asymptotic_upper)},
                     {"knee_n_cpu", num(m.bounds.knee_customers)}};
    j["mva"] = std::move(mva);
  }
  if (pr.arrival_rate_per_s)
    j["arrivals"] = {{"rate_per_s", *pr.arrival_rate_per_s},
                     {"saturation_rate_per_s", num(pr.saturation_rate_per_s)}};
  if (!pr.sites.empty()) {
    json sites = json::array();
    for (const SiteTerm& s : pr.sites) {
      json site = {{"name", s.name},
                   {"threads", s.threads},
                   {"t_latency_s", num(s.t_latency_s)},
                   {"t_sonic_s", num(s.t_sonic_s)}};
      if (s.mva_time_per_event_s) site["mva_time_per_event_s"] = num(*s.mva_time_per_event_s);
      sites.push_back(std::move(site));
    }
    j["sites"] = std::move(sites);
  }
  j["notes"] = pr.notes;
  return j;
}

std::string to_text(const Prediction& pr) {
  std::ostringstream out;
  const bool has_gpu = pr.n_gpu > 0;
  out << "Analytic prediction for " << (pr.scenario.empty() ? "<unnamed>" : pr.scenario)
      << (pr.arrival_rate_per_s ? std::string(" (open loop)")
                                : " (mode " + std::string(mode_name(pr.mode)) + ")")
      << "\n\n";

  out << "Formula inputs (per event, per thread)\n";
  out << table({{"t_CPU", show_time(pr.t_cpu_s), "CPU-only time per event"},
                {"p", fixed(pr.p, 4),
                 "share of t_CPU offloaded" +
                     (pr.p_fallback > 0 ? " (+" + fixed(pr.p_fallback, 4) + " CPU fallback)"
                                        : std::string())},
                {"t_GPU", show_time(pr.t_gpu_s), "coprocessor busy time"},
                {"t_latency", show_time(pr.t_latency_s), "network round trips"},
                {"N_CPU", std::to_string(pr.n_cpu), "client threads"},
                {"N_GPU", std::to_string(pr.n_gpu), "devices serving a requested model"}},
               "  ", "lrl");

  if (pr.arrival_rate_per_s) {
    out << "\nOpen loop (workload.arrivals)\n";
    out << table(
        {{"arrivals", general(*pr.arrival_rate_per_s) + " /s", "offered, events per second"},
         {"t_ideal", show_time(pr.t_ideal_s), "time per event, unloaded"},
         {"saturation", general(pr.saturation_rate_per_s) + " /s",
          "arrivals per second that fill the binding pool (no batching)"},
         {"throughput", general(pr.throughput_per_s) + " /s",
          pr.saturated ? "SATURATED with one request per execution" : "not saturated"}},
        "  ", "lrl");
  } else {
    out << "\nSynchronous SONIC formula\n";
    std::vector<std::vector<std::string>> f = {
        {"t_ideal", show_time(pr.t_ideal_s), "time per event, unsaturated"},
        {"t_SONIC", show_time(pr.t_sonic_s), "time per event"},
        {"throughput", general(pr.throughput_per_s) + " /s", "events per second, all threads"}};
    if (has_gpu) {
      f.push_back({"N_CPU/N_GPU",
                   fixed(static_cast<double>(pr.n_cpu) / static_cast<double>(pr.n_gpu), 1),
                   pr.saturated ? "SATURATED" : "not saturated"});
      f.push_back({"saturation", fixed(pr.saturation_n_cpu_per_gpu, 1),
                   "N_CPU/N_GPU at the knee (t_ideal / t_GPU)"});
    } else {
      f.push_back({"saturation", "-", "no coprocessors: the CPU-only baseline"});
    }
    out << table(f, "  ", "lrl");
  }

  if (!pr.models.empty()) {
    out << "\nPer model\n";
    std::vector<std::vector<std::string>> rows = {
        {"model", "p_i", "req/ev", "items", "t_GPU", "t_latency", "devices", "full-batch t_GPU"}};
    for (const ModelTerm& m : pr.models)
      rows.push_back({m.name, fixed(m.offload_fraction, 4), std::to_string(m.per_event),
                      general(m.mean_items), m.served ? show_time(m.t_gpu_s) : "CPU fallback",
                      m.served ? show_time(m.t_latency_s) : "-", std::to_string(m.n_gpu),
                      show_time(m.t_gpu_full_batch_s)});
    out << table(rows, "  ");
  }

  if (has_gpu) {
    out << "\nPer pool (demand = busy time per event)\n";
    std::vector<std::vector<std::string>> rows = {
        {"pool", "device", "count", "demand/device", "utilization", "knee N_CPU", "state"}};
    for (const PoolTerm& p : pr.pools) {
      if (!p.in_use) {
        rows.push_back({p.name, p.device, std::to_string(p.count), "-", "-", "-", "unused"});
        continue;
      }
      std::string state = p.saturated ? "saturated" : "ok";
      if (p.binding) state += ", binding";
      rows.push_back({p.name, p.device, std::to_string(p.count), show_time(p.demand_per_device_s),
                      util::percent(p.utilization), fixed(p.saturation_n_cpu, 0), state});
    }
    out << table(rows, "  ", "llrrrrl");
  }

  if (pr.mva) {
    const MvaTerm& m = *pr.mva;
    out << "\nExact MVA (closed network, exponential service, no batching)\n";
    out << table({{"throughput", general(m.throughput_per_s) + " /s",
                   "bounds " + general(m.bounds.balanced_lower) + " .. " +
                       general(m.bounds.balanced_upper) + " /s"},
                  {"time/event", show_time(m.time_per_event_s), "per thread"},
                  {"think time", show_time(m.think_time_s), "CPU work + network per event"}},
                 "  ", "lrl");
    if (has_gpu) {
      std::vector<std::vector<std::string>> rows = {
          {"pool", "utilization", "queue/device", "residence/event"}};
      for (std::size_t k = 0; k < pr.pools.size(); ++k)
        if (pr.pools[k].in_use)
          rows.push_back({pr.pools[k].name, util::percent(m.device_utilization[k]),
                          general(m.device_queue_length[k]), show_time(m.device_residence_s[k])});
      out << '\n' << table(rows, "  ");
      rows = {{"model", "request latency"}};
      for (const ModelTerm& model : pr.models)
        if (model.mva_request_latency_s)
          rows.push_back({model.name, show_time(model.mva_request_latency_s)});
      out << '\n' << table(rows, "  ");
    }
  }

  if (!pr.notes.empty()) {
    out << "\nNotes\n";
    for (const std::string& n : pr.notes) out << "  - " << n << '\n';
  }
  return out.str();
}

}  // namespace sonicsim::analytic
