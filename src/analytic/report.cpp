// Prediction -> the results' `analytic` block and the `sonicsim analytic` terminal summary.
#include <sonicsim/analytic/analytic.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/writer.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::analytic {
namespace {

using nlohmann::json;

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

// analytic.mva: the per-pool maps hold the pools in use only.
json mva_block(const Prediction& pr, const MvaTerm& m) {
  namespace k = results::keys;
  using results::Writer;
  Writer util, queue, residence;
  for (std::size_t i = 0; i < pr.pools.size(); ++i) {
    if (!pr.pools[i].in_use) continue;
    const char* pool = pr.pools[i].name.c_str();
    util.figure(pool, m.device_utilization[i]);
    queue.figure(pool, m.device_queue_length[i]);
    residence.figure(pool, m.device_residence_s[i]);
  }
  Writer latency;
  for (const ModelTerm& model : pr.models)
    if (model.mva_request_latency_s)
      latency.figure(model.name.c_str(), *model.mva_request_latency_s);
  return Writer()
      .figure(k::mva::throughput_per_s, m.throughput_per_s)
      .figure(k::mva::time_per_event_s, m.time_per_event_s)
      .figure(k::mva::think_time_s, m.think_time_s)
      .put(k::mva::device_utilization, util.take())
      .put(k::mva::device_queue_length, queue.take())
      .put(k::mva::device_residence_s, residence.take())
      .put(k::mva::request_latency_s, latency.take())
      .put(k::mva::bounds,
           Writer()
               .figure(k::mva_bounds::throughput_upper_per_s, m.bounds.balanced_upper)
               .figure(k::mva_bounds::throughput_lower_per_s, m.bounds.balanced_lower)
               .figure(k::mva_bounds::throughput_asymptotic_upper_per_s, m.bounds.asymptotic_upper)
               .figure(k::mva_bounds::knee_n_cpu, m.bounds.knee_customers)
               .take())
      .take();
}

// analytic.mva_batched.
json mva_batched_block(const Prediction& pr, const BatchedMvaTerm& m) {
  namespace k = results::keys;
  using results::Writer;
  Writer util, batch, links;
  for (std::size_t i = 0; i < pr.pools.size(); ++i) {
    if (!pr.pools[i].in_use) continue;
    util.figure(pr.pools[i].name.c_str(), m.device_utilization[i]);
    batch.figure(pr.pools[i].name.c_str(), m.mean_batch_items[i]);
  }
  for (std::size_t l = 0; l < pr.links.size(); ++l)
    if (!std::isnan(m.link_utilization[l]))
      links.figure(pr.links[l].name.c_str(), m.link_utilization[l]);
  return Writer()
      .figure(k::mva_batched::throughput_per_s, m.throughput_per_s)
      .figure(k::mva_batched::time_per_event_s, m.time_per_event_s)
      .figure(k::mva_batched::think_time_s, m.think_time_s)
      .put(k::mva_batched::device_utilization, util.take())
      .put(k::mva_batched::mean_batch_items, batch.take())
      .put(k::mva_batched::link_utilization, links.take())
      .take();
}

}  // namespace

json to_json(const Prediction& pr, const std::optional<FormedBatches>& formed) {
  namespace k = results::keys;
  using results::Writer;
  Writer j;
  j.figure(k::analytic::t_cpu_s, pr.t_cpu_s)
      .figure(k::analytic::p, pr.p)
      .figure(k::analytic::t_gpu_s, pr.t_gpu_s)
      .figure(k::analytic::t_latency_s, pr.t_latency_s)
      .put(k::analytic::n_cpu, pr.n_cpu)
      .put(k::analytic::n_gpu, pr.n_gpu)
      .figure(k::analytic::t_ideal_s, pr.t_ideal_s)
      .figure(k::analytic::t_sonic_s, pr.t_sonic_s)
      .put(k::analytic::saturated, pr.saturated)
      .figure(k::analytic::saturation_n_cpu_per_gpu, pr.saturation_n_cpu_per_gpu)
      .put(k::analytic::mode, mode_name(pr.mode))
      .figure(k::analytic::p_fallback, pr.p_fallback)
      .figure(k::analytic::throughput_per_s, pr.throughput_per_s)
      .put(k::analytic::binding_pool,
           pr.binding_pool < 0 ? json(nullptr)
                               : json(pr.pools[static_cast<std::size_t>(pr.binding_pool)].name));

  json links = json::array();
  for (const LinkTerm& l : pr.links)
    links.push_back(Writer()
                        .put(k::analytic_link::name, l.name)
                        .figure(k::analytic_link::bandwidth_Bps, l.bandwidth_Bps)
                        .figure(k::analytic_link::latency_s, l.latency_s)
                        .figure(k::analytic_link::load_Bps, l.load_Bps)
                        .figure(k::analytic_link::utilization, l.utilization)
                        .take());
  j.put(k::analytic::network,
        Writer()
            .figure(k::analytic_network::bytes_in_per_event, pr.bytes_in_per_event)
            .figure(k::analytic_network::bytes_out_per_event, pr.bytes_out_per_event)
            .figure(k::analytic_network::round_trip_latency_s, pr.round_trip_latency_s)
            .figure(k::analytic_network::path_bandwidth_Bps, pr.path_bandwidth_Bps)
            .put(k::analytic_network::links, std::move(links))
            .take());

  Writer models;
  for (const ModelTerm& m : pr.models)
    models.put(m.name.c_str(),
               Writer()
                   .put(k::analytic_model::served, m.served)
                   .figure(k::analytic_model::offload_fraction, m.offload_fraction)
                   .put(k::analytic_model::requests_per_event, m.per_event)
                   .figure(k::analytic_model::mean_items, m.mean_items)
                   .figure(k::analytic_model::t_gpu_s, m.t_gpu_s)
                   .figure(k::analytic_model::t_gpu_routed_s, m.t_gpu_routed_s)
                   .figure(k::analytic_model::t_latency_s, m.t_latency_s)
                   .put(k::analytic_model::n_gpu, m.n_gpu)
                   .put(k::analytic_model::pools, m.pools)
                   .figure(k::analytic_model::t_gpu_full_batch_s, m.t_gpu_full_batch_s)
                   .figure(k::analytic_model::mva_request_latency_s, m.mva_request_latency_s)
                   .take());
  j.put(k::analytic::per_model, models.take());

  json pools = json::array();
  for (const PoolTerm& p : pr.pools)
    pools.push_back(
        Writer()
            .put(k::analytic_pool::name, p.name)
            .put(k::analytic_pool::device, p.device)
            .put(k::analytic_pool::count, p.count)
            .put(k::analytic_pool::models, p.models)
            .put(k::analytic_pool::in_use, p.in_use)
            .figure(k::analytic_pool::demand_s, p.demand_s)
            .figure(k::analytic_pool::demand_per_device_s, p.demand_per_device_s)
            .figure(k::analytic_pool::demand_per_device_full_batch_s,
                    p.demand_per_device_full_batch_s)
            .figure(k::analytic_pool::saturation_n_cpu_per_gpu, p.saturation_n_cpu_per_gpu)
            .figure(k::analytic_pool::saturation_n_cpu, p.saturation_n_cpu)
            .put(k::analytic_pool::saturated, p.saturated)
            .put(k::analytic_pool::binding, p.binding)
            .figure(k::analytic_pool::utilization, p.utilization)
            .take());
  j.put(k::analytic::per_pool, std::move(pools));

  if (!pr.mva) {
    j.put(k::analytic::mva, nullptr);
  } else {
    j.put(k::analytic::mva, mva_block(pr, *pr.mva));
  }
  j.put(k::analytic::mva_batched,
        pr.mva_batched ? mva_batched_block(pr, *pr.mva_batched) : json(nullptr));
  if (pr.arrival_rate_per_s)
    j.put(k::analytic::arrivals,
          Writer()
              .put(k::analytic_arrivals::rate_per_s, *pr.arrival_rate_per_s)
              .figure(k::analytic_arrivals::saturation_rate_per_s, pr.saturation_rate_per_s)
              .take());
  if (!pr.sites.empty()) {
    json sites = json::array();
    for (const SiteTerm& s : pr.sites) {
      Writer site;
      site.put(k::analytic_site::name, s.name)
          .put(k::analytic_site::threads, s.threads)
          .figure(k::analytic_site::t_latency_s, s.t_latency_s)
          .figure(k::analytic_site::t_sonic_s, s.t_sonic_s);
      if (s.mva_time_per_event_s)
        site.figure(k::analytic_site::mva_time_per_event_s, *s.mva_time_per_event_s);
      sites.push_back(site.take());
    }
    j.put(k::analytic::sites, std::move(sites));
  }
  if (pr.node) {
    const NodeTerm& n = *pr.node;
    j.put(k::analytic::node,
          Writer()
              .figure(k::analytic_node::threads_per_node, n.threads_per_node)
              .figure(k::analytic_node::cpu_only_speed_factor, n.cpu_only_speed_factor)
              .figure(k::analytic_node::cpu_only_time_per_event_s, n.cpu_only_time_per_event_s)
              .figure(k::analytic_node::mean_busy_threads, n.mean_busy_threads)
              .figure(k::analytic_node::speed_factor, n.speed_factor)
              .figure(k::analytic_node::t_cpu_eff_s, n.t_cpu_eff_s)
              .figure(k::analytic_node::t_sonic_s, n.t_sonic_s)
              .figure(k::analytic_node::speedup_vs_cpu_only, n.speedup_vs_cpu_only)
              .take());
  }
  if (formed)
    j.put(k::analytic::formed_batches,
          Writer()
              .figure(k::analytic_formed::mean_batch_size, formed->mean_batch_size)
              .figure(k::analytic_formed::t_gpu_s, formed->formula.t_gpu_s)
              .figure(k::analytic_formed::t_ideal_s, formed->formula.t_ideal_s)
              .figure(k::analytic_formed::t_sonic_s, formed->formula.t_sonic_s)
              .put(k::analytic_formed::saturated, formed->formula.saturated)
              .figure(k::analytic_formed::saturation_n_cpu_per_gpu,
                      formed->formula.saturation_n_cpu_per_gpu)
              .take());
  j.put(k::analytic::notes, pr.notes);
  return j.take();
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

  if (pr.mva_batched) {
    const BatchedMvaTerm& m = *pr.mva_batched;
    out << "\nMVA with dynamic batching and link stations (approximate)\n";
    out << table({{"throughput", general(m.throughput_per_s) + " /s", ""},
                  {"time/event", show_time(m.time_per_event_s), "per thread"}},
                 "  ", "lrl");
    if (has_gpu) {
      std::vector<std::vector<std::string>> rows = {{"pool", "utilization", "batch (items)"}};
      for (std::size_t k = 0; k < pr.pools.size(); ++k)
        if (pr.pools[k].in_use)
          rows.push_back({pr.pools[k].name, util::percent(m.device_utilization[k]),
                          general(m.mean_batch_items[k])});
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
