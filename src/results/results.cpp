#include <sonicsim/results/results.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <sonicsim/results/device_figures.hpp>
#include <sonicsim/results/energy.hpp>
#include <sonicsim/results/formula.hpp>
#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/format.hpp>

#include "blocks.hpp"

namespace sonicsim::results {

namespace {

using detail::ojson;
namespace k = keys;
using detail::events_json;
using detail::quantiles;
using detail::requests_json;

// Thread time per event of one workload: N_CPU / throughput, which equals the mean time per
// event in sync mode and stays comparable with t_SONIC when async threads hold several events.
// A job flow's threads are not all running at once, so N_CPU / throughput says nothing there:
// it gets the mean time per event over the events a thread holds at once instead.
double thread_time_per_event(const scenario::Workload& w, const metrics::Histogram& time_per_event,
                             double throughput) {
  const double in_flight = w.mode == scenario::Mode::Async ? w.async.events_in_flight : 1.0;
  if (w.flow) return time_per_event.mean() / in_flight;
  return throughput > 0.0 ? static_cast<double>(w.n_threads()) / throughput : 0.0;
}

// Over several workloads: the events' mean of each one's thread time per event (with fixed
// populations, all threads over the total throughput).
double thread_time_per_event(const scenario::Scenario& s, const engine::RunMetrics& m) {
  if (s.single_workload())
    return thread_time_per_event(s.workload(), m.time_per_event, m.throughput());
  double sum = 0.0;
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const auto& w = m.workloads[i];
    const double x = static_cast<double>(w.events_completed) / m.span();
    sum += static_cast<double>(w.events_completed) *
           thread_time_per_event(s.workloads[i], w.time_per_event, x);
  }
  return m.events_completed ? sum / static_cast<double>(m.events_completed) : 0.0;
}

ojson jobs_json(const engine::RunMetrics::Jobs& mj);  // below, with the run's other blocks

ojson workloads_json(const scenario::Scenario& s, const engine::RunMetrics& m) {
  namespace wk = k::workload;
  ojson all = ojson::array();
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const auto& w = s.workloads[i];
    const auto& mw = m.workloads[i];
    const double x = static_cast<double>(mw.events_completed) / m.span();
    ojson j;
    j[wk::name] = w.name;
    j[wk::priority] = w.priority ? ojson(w.priority) : ojson(nullptr);
    j[wk::jobs] = w.jobs;
    j[wk::threads] = w.n_threads();
    j[wk::mode] = w.mode == scenario::Mode::Async ? "async" : "sync";
    j[wk::events] = events_json(mw, x, static_cast<double>(w.jobs),
                                thread_time_per_event(w, mw.time_per_event, x));
    j[wk::requests] = requests_json(mw);
    j[wk::requests][k::requests::fallback_cpu_s] = mw.fallback_cpu_seconds;
    if (mw.jobs) j[wk::job_flow] = jobs_json(*mw.jobs);
    all.push_back(std::move(j));
  }
  return all;
}

// The run's `requests`, with the latency histogram (eight bins per decade: the shape of the
// distribution for plots; sweeps leave it out) and what the client's tries met.
ojson run_requests_json(const engine::RunMetrics& m) {
  ojson rq = requests_json(m);
  if (const auto bins = m.latency.log_bins(8); !bins.counts.empty())
    rq[k::requests::latency_s][k::quantile::histogram] = {{k::histogram::edges_s, bins.edges},
                                                          {k::histogram::counts, bins.counts}};
  const auto& r = m.resilience;
  namespace rs = k::resilience;
  ojson res;
  res[rs::tries] = r.tries;
  res[rs::retries] = r.retries;
  res[rs::failed_tries] = {{k::failed_tries::refused, r.refused},
                           {k::failed_tries::no_server, r.no_server},
                           {k::failed_tries::server_lost, r.server_lost},
                           {k::failed_tries::client_timeout, r.client_timeout}};
  res[rs::completed_after_retry] = r.completed_after_retry;
  res[rs::fallback_after_failure] = r.fallback_after_failure;
  res[rs::fallback_cpu_s] = r.fallback_cpu_seconds;
  res[rs::preempted] = r.preempted;
  res[rs::abandoned_tries] = r.abandoned;
  rq[k::requests::resilience] = res;
  return rq;
}

ojson arrivals_json(const scenario::Arrivals& a, const engine::RunMetrics& m) {
  namespace ar = k::arrivals;
  const auto& ol = *m.open_loop;
  ojson j;
  j[ar::rate_per_s] = a.rate;
  j[ar::distribution] =
      a.distribution == scenario::Arrivals::Distribution::Poisson ? "poisson" : "constant";
  j[ar::max_in_flight] = a.max_in_flight;
  j[ar::arrived] = ol.arrivals;
  j[ar::offered_per_s] = static_cast<double>(ol.arrivals) / m.span();
  j[ar::dropped] = ol.dropped;
  j[ar::requests_sent] = ol.requests_sent;
  j[ar::peak_in_flight] = ol.peak_in_flight;
  j[ar::backlog_growth_per_s] = m.backlog_growth_per_s();
  j[ar::backlog_growing] = m.backlog_growing();
  return j;
}

ojson jobs_json(const engine::RunMetrics::Jobs& mj) {
  namespace jb = k::jobs;
  ojson j;
  j[jb::total] = mj.total;
  j[jb::started] = mj.started;
  j[jb::finished] = mj.finished;
  j[jb::running_at_end] = mj.started - mj.finished;
  j[jb::not_started] = mj.total - mj.started;
  j[jb::peak_running] = mj.peak_running;
  j[jb::mean_running] = mj.mean_running;
  j[jb::mean_running_threads] = mj.mean_running_threads;
  j[jb::wall_time_s] = quantiles(mj.wall_time, false);
  j[jb::last_exit_s] = mj.finished ? ojson(mj.last_exit) : ojson(nullptr);
  return j;
}

// The site's operations, where the scenario has them: load balancer, admission, preemptions.
void operations_json(const scenario::Scenario& s, const engine::RunMetrics& m, ojson& j) {
  if (m.balancer)
    j[k::top::load_balancer] = {{k::load_balancer::messages, m.balancer->messages},
                                {k::load_balancer::cpu_utilization, m.balancer->cpu_utilization},
                                {k::load_balancer::nic_utilization, m.balancer->nic_utilization},
                                {k::load_balancer::wait_s, quantiles(m.balancer->wait, false)}};
  if (m.admission)
    j[k::top::admission] = {{k::admission::connections, m.admission->connections},
                            {k::admission::refused, m.admission->refused},
                            {k::admission::requests_not_admitted, m.admission->requests}};
  if (!s.faults.preemptions.empty() || s.faults.random_preemption)
    j[k::top::preemptions] = {{k::preemptions::jobs, m.preemptions.jobs},
                              {k::preemptions::events_lost, m.preemptions.events_lost}};
}

ojson models_json(const engine::RunMetrics& m) {
  namespace md = k::model;
  ojson models = ojson::object();
  for (const auto& mm : m.models) {
    ojson o;
    o[md::inferences_per_s] = static_cast<double>(mm.items) / m.span();
    o[md::requests] = mm.requests;
    o[md::rejected] = mm.rejected();
    o[md::rejected_by] = {{k::rejected_by::queue_full, mm.rejected_queue_full},
                          {k::rejected_by::timeout, mm.rejected_timeout},
                          {k::rejected_by::above_max_batch_size, mm.rejected_too_large}};
    o[md::executions] = mm.executions;
    o[md::mean_batch_size] = mm.mean_batch_size();
    o[md::queue_time_s] = quantiles(mm.queue_time, false);
    o[md::compute_time_s] = quantiles(mm.compute_time, false);
    o[md::latency_s] = quantiles(mm.latency, true);
    models[mm.name] = o;
  }
  return models;
}

// An operated pool's replicas over the run and each change of their number.
void replicas_json(const engine::RunMetrics::Pool& p, ojson& o) {
  namespace sv = k::server;
  o[sv::utilization_per_device] = p.utilization;
  o[sv::replicas] = {{k::replicas::mean_up, p.mean_replicas_up},
                     {k::replicas::peak, p.peak_replicas},
                     {k::replicas::device_hours_up, p.replica_seconds_up / 3600.0},
                     {k::replicas::crashes, p.crashes}};
  ojson scaling = ojson::array();
  for (const auto& e : p.scaling)
    scaling.push_back({{k::scaling::t_s, e.time},
                       {k::scaling::from, e.from},
                       {k::scaling::to, e.to},
                       {k::scaling::recommended, e.raw},
                       {k::scaling::metric, e.metric},
                       {k::scaling::why, e.why}});
  o[sv::scaling] = scaling;
}

ojson host_json(const engine::RunMetrics::Pool& p) {
  namespace h = k::server_host;
  const auto& u = p.host_utilization;
  double mean = 0.0;
  for (double x : u) mean += x;
  mean /= static_cast<double>(u.size());
  const auto devices = static_cast<double>(p.utilization.size()) / static_cast<double>(u.size());
  return {{h::hosts, u.size()},
          {h::cores, p.host_cores},
          {h::devices_per_host, devices},
          {h::utilization, mean},
          {h::utilization_max, *std::max_element(u.begin(), u.end())},
          {h::time_per_request_s, p.host_seconds_per_request}};
}

ojson servers_json(const engine::RunMetrics& m) {
  namespace sv = k::server;
  ojson servers = ojson::array();
  for (const auto& p : m.pools) {
    ojson o;
    o[sv::name] = p.name;
    o[sv::device] = p.device;
    o[sv::count] = p.utilization.size();
    o[sv::utilization] = p.mean_utilization();
    o[sv::executions] = p.executions;
    o[sv::utilization_min] =
        p.utilization.empty() ? 0.0 : *std::min_element(p.utilization.begin(), p.utilization.end());
    o[sv::utilization_max] =
        p.utilization.empty() ? 0.0 : *std::max_element(p.utilization.begin(), p.utilization.end());
    if (p.operated) replicas_json(p, o);
    if (!p.host_utilization.empty()) o[sv::host] = host_json(p);
    if (!p.mean_executions.empty())
      o[sv::mean_executions] =
          std::accumulate(p.mean_executions.begin(), p.mean_executions.end(), 0.0) /
          static_cast<double>(p.mean_executions.size());
    if (p.memory_tracked) {
      o[sv::memory_used_bytes] = p.memory_used_bytes;
      o[sv::memory_capacity_bytes] =
          p.memory_capacity_bytes ? ojson(*p.memory_capacity_bytes) : ojson(nullptr);
      o[sv::model_loads] = p.model_loads;
      o[sv::model_unloads] = p.model_unloads;
      o[sv::load_time_s] = p.load_time_s;
    }
    servers.push_back(o);
  }
  return servers;
}

// Seconds of [from, to) at a bandwidth factor below 1, and at 0, from (start, factor) steps.
std::pair<double, double> degraded_time(const std::vector<std::pair<double, double>>& steps,
                                        double from, double to) {
  double degraded = 0.0, outage = 0.0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double start = std::max(from, steps[i].first);
    const double end = std::min(to, i + 1 < steps.size() ? steps[i + 1].first : to);
    if (end <= start) continue;
    if (steps[i].second < 1.0) degraded += end - start;
    if (steps[i].second <= 0.0) outage += end - start;
  }
  return {degraded, outage};
}

ojson links_json(const engine::RunMetrics& m) {
  namespace ln = k::link;
  const double span = m.span();
  ojson links = ojson::array();
  for (const auto& l : m.links) {
    ojson o;
    o[ln::name] = l.name;
    o[ln::count] = l.count;
    o[ln::bandwidth_Bps] = l.bandwidth;
    o[ln::latency_s] = l.latency;
    o[ln::bytes] = l.total_bytes();
    o[ln::bytes_to_servers] = l.payload[0];
    o[ln::bytes_to_clients] = l.payload[1];
    // A link class with no link (a server NIC of a CPU-only run, `servers: []`) carries nothing.
    const double links_of_class = std::max(1.0, static_cast<double>(l.count));
    o[ln::mean_bandwidth_Bps] = l.total_bytes() / span / links_of_class;
    o[ln::mean_utilization] =
        std::max(l.bytes[0], l.bytes[1]) / span / links_of_class / l.bandwidth;
    o[ln::peak_utilization] = l.peak_utilization();
    o[ln::peak_window_s] = l.window;
    o[ln::busiest_utilization] = l.busiest_utilization(span);
    o[ln::offered_mean_utilization] =
        std::max(l.offered[0], l.offered[1]) / span / links_of_class / l.bandwidth;
    o[ln::offered_peak_utilization] = l.offered_peak_utilization();
    if (!l.bandwidth_factors.empty()) {
      const auto [degraded, outage] = degraded_time(l.bandwidth_factors, m.warmup, m.duration);
      o[ln::degraded_s] = degraded;
      o[ln::outage_s] = outage;
    }
    links.push_back(o);
  }
  return links;
}

// Triton's counters per window as rates and per-request times.
ojson counters_json(const engine::RunMetrics& m,
                    const std::vector<engine::RunMetrics::TimeSeries::Counters>& all, double dt) {
  namespace sv = k::timeseries::server;
  ojson out = ojson::array();
  for (const auto& c : all) {
    const std::size_t n = c.requests.size();
    std::vector<double> requests(n), failures(n), inferences(n), executions(n), queue(n),
        compute(n);
    for (std::size_t w = 0; w < n; ++w) {
      requests[w] = c.requests[w] / dt;
      failures[w] = c.failures[w] / dt;
      inferences[w] = c.inferences[w] / dt;
      executions[w] = c.executions[w] / dt;
      queue[w] = c.requests[w] > 0.0 ? c.queue_s[w] / c.requests[w] : 0.0;
      compute[w] = c.requests[w] > 0.0 ? c.compute_s[w] / c.requests[w] : 0.0;
    }
    ojson o;
    o[sv::pool] = m.pools.at(c.pool).name;
    if (c.replica >= 0) o[sv::replica] = c.replica;
    o[sv::model] = m.models.at(c.model).name;
    o[sv::requests_per_s] = requests;
    o[sv::failures_per_s] = failures;
    o[sv::inferences_per_s] = inferences;
    o[sv::executions_per_s] = executions;
    o[sv::queue_time_s] = queue;
    o[sv::compute_time_s] = compute;
    out.push_back(std::move(o));
  }
  return out;
}

// The per-window series of the devices, pools, models and links.
void timeseries_parts_json(const engine::RunMetrics& m, ojson& t) {
  namespace ts = k::timeseries;
  const auto& series = *m.timeseries;
  ojson devices = ojson::array();
  for (const auto& d : series.devices)
    devices.push_back({{ts::device::pool, m.pools.at(d.pool).name},
                       {ts::device::index, d.index},
                       {ts::device::utilization, d.utilization},
                       {ts::device::queue_length, d.queue_length}});
  t[ts::devices] = devices;
  ojson pools = ojson::array();
  for (std::size_t p = 0; p < m.pools.size(); ++p)
    if (m.pools[p].operated)
      pools.push_back({{ts::pool::pool, m.pools[p].name},
                       {ts::pool::replicas, series.pools.at(p).replicas},
                       {ts::pool::ready, series.pools.at(p).ready}});
  if (!pools.empty()) t[ts::pools] = pools;
  ojson tm = ojson::object();
  for (std::size_t i = 0; i < series.models.size(); ++i) {
    const auto& sm = series.models[i];
    tm[m.models.at(i).name] = {{ts::model::inferences_per_s, sm.inferences_per_s},
                               {ts::model::executions_per_s, sm.executions_per_s},
                               {ts::model::mean_batch_size, sm.mean_batch_size},
                               {ts::model::latency_p50_s, sm.latency_p50_s},
                               {ts::model::latency_p99_s, sm.latency_p99_s}};
  }
  t[ts::models] = tm;
  ojson tl = ojson::array();
  for (std::size_t i = 0; i < series.links.size(); ++i) {
    const auto& sl = series.links[i];
    tl.push_back({{ts::link::name, m.links.at(i).name},
                  {ts::link::bytes_per_s_to_servers, sl.bytes_per_s[0]},
                  {ts::link::bytes_per_s_to_clients, sl.bytes_per_s[1]},
                  {ts::link::utilization, sl.utilization}});
  }
  t[ts::links] = tl;
  t[ts::servers] = counters_json(m, series.servers, series.interval);
  if (!series.replicas.empty())
    t[ts::replicas] = counters_json(m, series.replicas, series.interval);
}

ojson timeseries_json(const scenario::Scenario& s, const engine::RunMetrics& m) {
  namespace ts = k::timeseries;
  const auto& series = *m.timeseries;
  ojson t;
  t[ts::interval_s] = series.interval;
  t[ts::t_s] = series.t;
  t[ts::events_per_s] = series.events_per_s;
  if (m.jobs) t[ts::running_jobs] = series.running_jobs;
  if (!s.single_workload()) {
    ojson tw = ojson::object();
    for (std::size_t i = 0; i < series.workloads.size(); ++i)
      tw[s.workloads[i].name] = {{ts::workload::events_per_s, series.workloads[i].events_per_s},
                                 {ts::workload::latency_p50_s, series.workloads[i].latency_p50_s},
                                 {ts::workload::latency_p99_s, series.workloads[i].latency_p99_s}};
    t[ts::workloads] = tw;
  }
  timeseries_parts_json(m, t);
  return t;
}

ojson perf_json(const runner::RunOutput& run) {
  ojson perf;
  perf[k::perf::wall_time_s] = run.wall_time_s;
  perf[k::perf::simulated_requests] = run.metrics.requests_simulated;
  perf[k::perf::simulated_requests_per_wall_s] =
      run.wall_time_s > 0.0 ? static_cast<double>(run.metrics.requests_simulated) / run.wall_time_s
                            : 0.0;
  perf[k::perf::peak_rss_bytes] = run.peak_rss_bytes;
  perf[k::perf::estimated_peak_rss_bytes] = run.estimated_peak_rss_bytes;
  perf[k::perf::engine_events] = run.events_processed;
  perf[k::perf::estimated_engine_events] = run.estimated_events;
  if (const auto& f = run.flow_solver) {
    ojson flows;
    flows[k::perf::quiet_changes] = f->quiet_changes;
    flows[k::perf::solves] = f->solves;
    flows[k::perf::flow_visits] = f->flow_visits;
    flows[k::perf::link_visits] = f->link_visits;
    flows[k::perf::class_changes] = f->class_changes;
    flows[k::perf::class_builds] = f->class_builds;
    flows[k::perf::flows_moved] = f->flows_moved;
    perf[k::perf::flow_solver] = flows;
  }
  return perf;
}

// JSON has no infinity or NaN: nlohmann writes them as null, which the reader (and `report`)
// rightly refuses. A quantity that may not exist is written as null on purpose (analytic's
// num()); any other non-finite figure is a bug upstream, reported before a byte is written.
void check_finite(const ojson& v, const std::string& path) {
  if (v.is_number_float() && !std::isfinite(v.get<double>()))
    throw std::logic_error("the results figure `" + path + "` came out as " +
                           (std::isnan(v.get<double>()) ? "NaN" : "infinite") +
                           ", which JSON cannot hold; no results were written (please report "
                           "this with the scenario)");
  if (v.is_object())
    for (const auto& [key, item] : v.items())
      check_finite(item, path.empty() ? key : path + "." + key);
  if (v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i)
      check_finite(v[i], path + "[" + std::to_string(i) + "]");
}

}  // namespace

ojson to_json(const scenario::Scenario& s, const runner::RunOutput& run,
              const nlohmann::json& analytic) {
  const auto& m = run.metrics;
  ojson j;
  j[k::top::sonicsim_version] = SONICSIM_VERSION;
  j[k::top::scenario] = s.name;
  j[k::top::scenario_sha256] = s.sha256;
  if (!s.referenced_files.empty()) {
    ojson files = ojson::array();
    for (const auto& f : s.referenced_files)
      files.push_back({{k::file::path, f.path}, {k::file::sha256, f.sha256}});
    j[k::top::scenario_files] = std::move(files);
  }
  j[k::top::seed] = s.seed;
  j[k::top::simulated_time_s] = m.duration;
  j[k::top::warmup_s] = m.warmup;
  j[k::top::events] = events_json(m, m.throughput(), static_cast<double>(s.total_jobs()),
                                  thread_time_per_event(s, m));
  j[k::top::requests] = run_requests_json(m);
  if (!s.single_workload()) j[k::top::workloads] = workloads_json(s, m);
  if (!s.sites.empty()) {
    j[k::top::sites] = detail::sites_json(s, m);
    j[k::top::egress] = detail::egress_json(s, m);
  }
  if (m.open_loop && s.workload().arrivals)
    j[k::top::arrivals] = arrivals_json(*s.workload().arrivals, m);
  if (m.jobs) j[k::top::jobs] = jobs_json(*m.jobs);
  if (auto modules = detail::modules_json(s, m); !modules.empty())
    j[k::top::modules] = std::move(modules);
  if (auto nodes = detail::nodes_json(s, m); !nodes.empty()) j[k::top::nodes] = std::move(nodes);
  operations_json(s, m, j);
  j[k::top::models] = models_json(m);
  j[k::top::servers] = servers_json(m);
  if (auto devices = device_figures_json(s); !devices.is_null())
    j[k::top::devices] = std::move(devices);
  add_energy_and_cost(s, m, j);
  j[k::top::links] = links_json(m);
  ojson net;
  net[k::network::transport] = m.transport;
  net[k::network::reason] = run.transport.reason;
  if (run.transport.any_flow())
    net[k::network::flow_solver] = runner::flow_solver_name(run.transport.solver);
  net[k::network::predicted_busiest_link_utilization] = run.transport.worst_link_utilization;
  if (run.transport.observed_link_utilization) {
    net[k::network::observed_busiest_link_utilization] = *run.transport.observed_link_utilization;
    net[k::network::runs] = run.transport.runs;
  }
  j[k::top::network] = net;
  j[k::top::analytic] = analytic;
  if (m.timeseries) j[k::top::timeseries] = timeseries_json(s, m);
  j[k::top::perf] = perf_json(run);
  check_finite(j, "");
  return j;
}

namespace {

// The summary's lines, printf-formatted.
class Lines {
 public:
  template <class... Args>
  void operator()(const char* format, Args... args) {
    std::snprintf(line_, sizeof line_, format, args...);
    o_ << line_;
  }
  std::string str() const { return o_.str(); }

 private:
  std::ostringstream o_;
  char line_[512];
};

using util::format_time;

// What was simulated, the events, and the formula's view of them.
void summary_head(Lines& out, const scenario::Scenario& s, const engine::RunMetrics& m,
                  const nlohmann::json& analytic, bool open) {
  const double span = m.span();
  if (open) {
    const auto& a = *s.workload().arrivals;
    out("%s: open loop, %.6g arrivals/s (%s), %s simulated after %s warm-up, seed %llu\n",
        s.name.c_str(), a.rate,
        a.distribution == scenario::Arrivals::Distribution::Poisson ? "poisson" : "constant",
        format_time(span).c_str(), format_time(m.warmup).c_str(),
        static_cast<unsigned long long>(s.seed));
    out("\nevents     %llu completed, %.4g /s (offered %.4g /s)\n",
        static_cast<unsigned long long>(m.events_completed), m.throughput(),
        static_cast<double>(m.open_loop->arrivals) / span);
  } else if (s.single_workload()) {
    out("%s: %lld threads (%lld jobs x %d), %s simulated after %s warm-up, seed %llu\n",
        s.name.c_str(), static_cast<long long>(s.workload().n_threads()),
        static_cast<long long>(s.workload().jobs), s.workload().threads_per_job,
        format_time(span).c_str(), format_time(m.warmup).c_str(),
        static_cast<unsigned long long>(s.seed));
    out("\nevents     %llu completed, %.4g /s (%.4g /s per job)\n",
        static_cast<unsigned long long>(m.events_completed), m.throughput(),
        m.throughput() / static_cast<double>(s.workload().jobs));
  } else {
    out("%s: %zu workloads, %lld threads in %lld jobs, %s simulated after %s warm-up, seed "
        "%llu\n",
        s.name.c_str(), s.workloads.size(), static_cast<long long>(s.total_threads()),
        static_cast<long long>(s.total_jobs()), format_time(span).c_str(),
        format_time(m.warmup).c_str(), static_cast<unsigned long long>(s.seed));
    out("\nevents     %llu completed, %.4g /s (%.4g /s per job)\n",
        static_cast<unsigned long long>(m.events_completed), m.throughput(),
        m.throughput() / static_cast<double>(s.total_jobs()));
  }
  out("           time per event: mean %s  p50 %s  p99 %s\n",
      format_time(m.time_per_event.mean()).c_str(),
      format_time(m.time_per_event.quantile(0.5)).c_str(),
      format_time(m.time_per_event.quantile(0.99)).c_str());
  for (const std::string& line : formula_summary(s, m, analytic)) out("%s\n", line.c_str());
}

void summary_requests(Lines& out, const scenario::Scenario& s, const engine::RunMetrics& m) {
  const double span = m.span();
  if (m.jobs) {
    const auto& mj = *m.jobs;
    out("jobs       %llu of %llu started, %llu finished, %llu running at the end (peak %llu)\n",
        static_cast<unsigned long long>(mj.started), static_cast<unsigned long long>(mj.total),
        static_cast<unsigned long long>(mj.finished),
        static_cast<unsigned long long>(mj.started - mj.finished),
        static_cast<unsigned long long>(mj.peak_running));
    if (mj.finished)
      out("           wall time: mean %s  p50 %s  p99 %s; the last exited at %s\n",
          format_time(mj.wall_time.mean()).c_str(), format_time(mj.wall_time.quantile(0.5)).c_str(),
          format_time(mj.wall_time.quantile(0.99)).c_str(), format_time(mj.last_exit).c_str());
  }
  out("requests   %llu sent = %llu completed + %llu failed + %llu fallback + %llu in flight\n",
      static_cast<unsigned long long>(m.sent), static_cast<unsigned long long>(m.completed),
      static_cast<unsigned long long>(m.failed), static_cast<unsigned long long>(m.fallback),
      static_cast<unsigned long long>(m.in_flight_at_end));
  if (m.latency.count())
    out("           latency: mean %s  p50 %s  p99 %s\n", format_time(m.latency.mean()).c_str(),
        format_time(m.latency.quantile(0.5)).c_str(),
        format_time(m.latency.quantile(0.99)).c_str());
  if (!s.single_workload())
    for (std::size_t i = 0; i < s.workloads.size(); ++i) {
      const auto& w = s.workloads[i];
      const auto& mw = m.workloads[i];
      const std::string priority = w.priority ? "priority " + std::to_string(w.priority) : "";
      out("workload   %-20s %-11s %.4g events/s, time per event mean %s p99 %s; latency p50 %s "
          "p99 %s; %llu failed, %llu fallback\n",
          w.name.c_str(), priority.c_str(), static_cast<double>(mw.events_completed) / span,
          format_time(mw.time_per_event.mean()).c_str(),
          format_time(mw.time_per_event.quantile(0.99)).c_str(),
          format_time(mw.latency.quantile(0.5)).c_str(),
          format_time(mw.latency.quantile(0.99)).c_str(),
          static_cast<unsigned long long>(mw.failed), static_cast<unsigned long long>(mw.fallback));
    }
  // Sites: where each site's events stand, and what crossed the WAN from it.
  for (std::size_t i = 0; i < m.sites.size(); ++i) {
    const auto& site = m.sites[i];
    double out_bytes = 0.0;
    for (double b : m.egress_bytes[i]) out_bytes += b;
    if (site.sent == 0) {  // servers only
      out("site       %-20s no client jobs; %s out over the WAN\n", s.sites[i].name.c_str(),
          util::format_bytes(out_bytes).c_str());
      continue;
    }
    out("site       %-20s %.4g events/s, time per event mean %s p99 %s; latency p50 %s p99 %s; "
        "%s out over the WAN\n",
        s.sites[i].name.c_str(), static_cast<double>(site.events_completed) / span,
        format_time(site.time_per_event.mean()).c_str(),
        format_time(site.time_per_event.quantile(0.99)).c_str(),
        format_time(site.latency.quantile(0.5)).c_str(),
        format_time(site.latency.quantile(0.99)).c_str(), util::format_bytes(out_bytes).c_str());
  }
}

// What the client's tries met, and how an open loop's backlog fared.
void summary_trouble(Lines& out, const engine::RunMetrics& m, bool open) {
  const auto& r = m.resilience;
  const std::uint64_t failed_tries = r.refused + r.no_server + r.server_lost + r.client_timeout;
  if (failed_tries > 0 || r.preempted > 0)
    out("trouble    %llu failed tries (%llu refused, %llu no server, %llu lost in a crash or "
        "drain, %llu timed out), %llu retries; %llu completed after a retry, %llu fell back "
        "to the CPU (%s of CPU), %llu lost to preemption\n",
        static_cast<unsigned long long>(failed_tries), static_cast<unsigned long long>(r.refused),
        static_cast<unsigned long long>(r.no_server),
        static_cast<unsigned long long>(r.server_lost),
        static_cast<unsigned long long>(r.client_timeout),
        static_cast<unsigned long long>(r.retries),
        static_cast<unsigned long long>(r.completed_after_retry),
        static_cast<unsigned long long>(r.fallback_after_failure),
        format_time(r.fallback_cpu_seconds).c_str(), static_cast<unsigned long long>(r.preempted));
  if (m.preemptions.jobs > 0)
    out("preempted  %llu times a job, %llu events in progress lost and redone\n",
        static_cast<unsigned long long>(m.preemptions.jobs),
        static_cast<unsigned long long>(m.preemptions.events_lost));
  if (open) {
    const auto& ol = *m.open_loop;
    out("arrivals   peak %llu requests in flight, backlog %+.4g /s, %llu dropped at "
        "max_in_flight\n",
        static_cast<unsigned long long>(ol.peak_in_flight), m.backlog_growth_per_s(),
        static_cast<unsigned long long>(ol.dropped));
    if (m.backlog_growing())
      out("           PAST SATURATION: the servers finish fewer requests than arrive, the backlog "
          "grows for as long as the run lasts\n");
  }
}

// Models, servers, links, the transport and how long the simulation took.
void summary_devices(Lines& out, const scenario::Scenario& s, const runner::RunOutput& run) {
  const auto& m = run.metrics;
  const double span = m.span();
  for (const auto& mm : m.models) {
    if (mm.executions == 0 && mm.rejected() == 0) continue;
    out("model      %-20s %.4g inf/s  batch %.2f  queue %s  compute %s\n", mm.name.c_str(),
        static_cast<double>(mm.items) / span, mm.mean_batch_size(),
        format_time(mm.queue_time.mean()).c_str(), format_time(mm.compute_time.mean()).c_str());
    if (mm.rejected() > 0)
      out("           %-20s %llu rejected: %llu queue full, %llu timed out, %llu above "
          "max_batch_size\n",
          "", static_cast<unsigned long long>(mm.rejected()),
          static_cast<unsigned long long>(mm.rejected_queue_full),
          static_cast<unsigned long long>(mm.rejected_timeout),
          static_cast<unsigned long long>(mm.rejected_too_large));
  }
  for (const auto& p : m.pools) {
    out("servers    %-20s %zu x %s  utilization %.1f%%\n", p.name.c_str(), p.utilization.size(),
        p.device.c_str(), 100.0 * p.mean_utilization());
    if (p.operated)
      out("replicas   %-20s mean %.2f up, peak %d, %.3g device-hours, %zu scaling changes, %llu "
          "crashes\n",
          "", p.mean_replicas_up, p.peak_replicas, p.replica_seconds_up / 3600.0, p.scaling.size(),
          static_cast<unsigned long long>(p.crashes));
    if (!p.host_utilization.empty()) {
      const auto& u = p.host_utilization;
      out("host       %-20s %zu x %d cores  utilization %.1f%% (busiest %.1f%%)  %s per request\n",
          "", u.size(), p.host_cores,
          100.0 * std::accumulate(u.begin(), u.end(), 0.0) / static_cast<double>(u.size()),
          100.0 * *std::max_element(u.begin(), u.end()),
          format_time(p.host_seconds_per_request).c_str());
    }
    if (p.memory_tracked)
      out("memory     %-20s peak %s per device, %llu model loads (%.3g s), %llu unloads\n", "",
          util::format_bytes(p.memory_used_bytes).c_str(),
          static_cast<unsigned long long>(p.model_loads), p.load_time_s,
          static_cast<unsigned long long>(p.model_unloads));
  }
  for (const auto& l : m.links) {
    // The demand, where it was more than the link carried (flows hold the rest back).
    const double offered = l.offered_peak_utilization(), peak = l.peak_utilization();
    const std::string demand = offered > 1.01 * peak && offered > 1e-3
                                   ? util::formatted(" (offered %.1f%%)", 100.0 * offered)
                                   : std::string();
    out("link       %-20s %s  mean %s per link  peak %.1f%%%s\n", l.name.c_str(),
        util::format_bytes(l.total_bytes()).c_str(),
        util::format_bandwidth(l.total_bytes() / span / l.count).c_str(), 100.0 * peak,
        demand.c_str());
  }
  for (const auto& w : run_warnings(s, run)) out("WARNING    %s\n", w.c_str());
  if (run.transport.any_flow()) {
    out("network    %s transport (%s flows): %s\n", m.transport.c_str(),
        runner::flow_solver_name(run.transport.solver), run.transport.reason.c_str());
  } else {
    out("network    %s transport: %s\n", m.transport.c_str(), run.transport.reason.c_str());
  }
}

void summary_perf(Lines& out, const runner::RunOutput& run) {
  const auto& m = run.metrics;
  out("perf       %.3g s wall, %.3g simulated requests per wall-second, peak RSS %.0f MB "
      "(estimated %.0f MB), %.3g engine events (estimated %.3g)\n",
      run.wall_time_s,
      run.wall_time_s > 0 ? static_cast<double>(m.requests_simulated) / run.wall_time_s : 0.0,
      static_cast<double>(run.peak_rss_bytes) / 1e6, run.estimated_peak_rss_bytes / 1e6,
      run.events_processed, run.estimated_events);
}

}  // namespace

std::vector<std::string> run_warnings(const scenario::Scenario& s, const runner::RunOutput& run) {
  std::vector<std::string> warnings;
  const auto& m = run.metrics;
  const double span = m.span();
  // Its time per event and rates would read 0: not a measurement, the want of one.
  if (m.events_completed == 0)
    warnings.push_back("no event completed in the measured span (" + util::format_time(span) +
                       " after a warm-up of " + util::format_time(m.warmup) +
                       "): its time per event and rates are 0 for want of events, not measured; "
                       "lengthen the duration, shorten the warm-up, or see what held the "
                       "requests (their outcomes on the `requests` line)");
  // Flows never carry more than a link's bandwidth: only a direction left to the analytic path
  // can, and the advice names what would change that for this scenario.
  if (span <= 0.0 || (run.transport.flow_to_servers && run.transport.flow_to_clients))
    return warnings;
  const bool user_chose = s.network.flow_model == scenario::FlowModel::Analytic;
  for (const auto& l : m.links) {
    const double u = l.busiest_utilization(span);
    if (u > 1.0)
      warnings.push_back(
          l.name + " carried " + util::percent(u, "%.0f") +
          " of its bandwidth on average (busiest link, busier direction): more than it can; the "
          "analytic transport does not slow transfers for contention, so this run's times are "
          "too short; " +
          (user_chose ? std::string("network.flow_model is \"analytic\": set it to \"auto\" "
                                    "or \"flow\"")
                      : std::string("set network.flow_model to \"flow\"")));
  }
  return warnings;
}

std::string summary(const scenario::Scenario& s, const runner::RunOutput& run,
                    const nlohmann::json& analytic) {
  const auto& m = run.metrics;
  const bool open = m.open_loop && s.workload().arrivals;
  Lines out;
  summary_head(out, s, m, analytic, open);
  summary_requests(out, s, m);
  for (const std::string& line : detail::modules_summary(s, m)) out("%s\n", line.c_str());
  for (const std::string& line : detail::nodes_summary(s, m)) out("%s\n", line.c_str());
  summary_trouble(out, m, open);
  summary_devices(out, s, run);
  for (const std::string& line : device_figures_summary(s)) out("%s\n", line.c_str());
  for (const std::string& line : energy_summary(s, m)) out("%s\n", line.c_str());
  summary_perf(out, run);
  return out.str();
}

}  // namespace sonicsim::results
