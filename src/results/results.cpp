#include <sonicsim/results/results.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <sonicsim/scenario/units.hpp>

namespace sonicsim::results {

namespace {

using ojson = nlohmann::ordered_json;

ojson quantiles(const metrics::Histogram& h, bool p95) {
  ojson j;
  j["mean"] = h.mean();
  j["p50"] = h.quantile(0.50);
  j["p90"] = h.quantile(0.90);
  if (p95) j["p95"] = h.quantile(0.95);
  j["p99"] = h.quantile(0.99);
  j["max"] = h.max();
  return j;
}

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

// The `events` and `requests` blocks of the whole run or of one workload (RunMetrics and
// RunMetrics::Workload name their counts alike).
template <class Counts>
ojson events_json(const Counts& c, double throughput, double jobs, double thread_time) {
  ojson ev;
  ev["completed"] = c.events_completed;
  ev["throughput_per_s"] = throughput;
  ev["per_job_throughput_per_s"] = throughput / jobs;
  ev["time_per_event_s"] = quantiles(c.time_per_event, false);
  ev["thread_time_per_event_s"] = thread_time;
  return ev;
}

template <class Counts>
ojson requests_json(const Counts& c) {
  ojson rq;
  rq["sent"] = c.sent;
  rq["completed"] = c.completed;
  rq["failed"] = c.failed;
  rq["fallback"] = c.fallback;
  rq["in_flight_at_end"] = c.in_flight_at_end;
  rq["latency_s"] = quantiles(c.latency, true);
  return rq;
}

ojson workloads_json(const scenario::Scenario& s, const engine::RunMetrics& m) {
  ojson all = ojson::array();
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const auto& w = s.workloads[i];
    const auto& mw = m.workloads[i];
    const double x = static_cast<double>(mw.events_completed) / m.span();
    ojson j;
    j["name"] = w.name;
    j["priority"] = w.priority ? ojson(w.priority) : ojson(nullptr);
    j["jobs"] = w.jobs;
    j["threads"] = w.n_threads();
    j["mode"] = w.mode == scenario::Mode::Async ? "async" : "sync";
    j["events"] = events_json(mw, x, static_cast<double>(w.jobs),
                              thread_time_per_event(w, mw.time_per_event, x));
    j["requests"] = requests_json(mw);
    j["requests"]["fallback_cpu_s"] = mw.fallback_cpu_seconds;
    all.push_back(std::move(j));
  }
  return all;
}

}  // namespace

ojson to_json(const scenario::Scenario& s, const runner::RunOutput& run,
              const nlohmann::json& analytic) {
  const auto& m = run.metrics;
  const double span = m.span();
  ojson j;
  j["sonicsim_version"] = SONICSIM_VERSION;
  j["scenario"] = s.name;
  j["scenario_sha256"] = s.sha256;
  if (!s.referenced_files.empty()) {
    ojson files = ojson::array();
    for (const auto& f : s.referenced_files)
      files.push_back({{"path", f.path}, {"sha256", f.sha256}});
    j["scenario_files"] = std::move(files);
  }
  j["seed"] = s.seed;
  j["simulated_time_s"] = m.duration;
  j["warmup_s"] = m.warmup;

  j["events"] = events_json(m, m.throughput(), static_cast<double>(s.total_jobs()),
                            thread_time_per_event(s, m));

  ojson rq = requests_json(m);
  // Eight bins per decade: the shape of the distribution for plots (sweeps leave it out).
  if (const auto bins = m.latency.log_bins(8); !bins.counts.empty())
    rq["latency_s"]["histogram"] = {{"edges_s", bins.edges}, {"counts", bins.counts}};
  {
    const auto& r = m.resilience;
    ojson res;
    res["tries"] = r.tries;
    res["retries"] = r.retries;
    res["failed_tries"] = {{"refused", r.refused},
                           {"no_server", r.no_server},
                           {"server_lost", r.server_lost},
                           {"client_timeout", r.client_timeout}};
    res["completed_after_retry"] = r.completed_after_retry;
    res["fallback_after_failure"] = r.fallback_after_failure;
    res["fallback_cpu_s"] = r.fallback_cpu_seconds;
    res["preempted"] = r.preempted;
    res["abandoned_tries"] = r.abandoned;
    rq["resilience"] = res;
  }
  j["requests"] = rq;
  if (!s.single_workload()) j["workloads"] = workloads_json(s, m);

  if (m.open_loop && s.workload().arrivals) {
    const auto& a = *s.workload().arrivals;
    const auto& ol = *m.open_loop;
    ojson ar;
    ar["rate_per_s"] = a.rate;
    ar["distribution"] =
        a.distribution == scenario::Arrivals::Distribution::Poisson ? "poisson" : "constant";
    ar["max_in_flight"] = a.max_in_flight;
    ar["arrived"] = ol.arrivals;
    ar["offered_per_s"] = static_cast<double>(ol.arrivals) / span;
    ar["dropped"] = ol.dropped;
    ar["requests_sent"] = ol.requests_sent;
    ar["peak_in_flight"] = ol.peak_in_flight;
    ar["backlog_growth_per_s"] = m.backlog_growth_per_s();
    ar["backlog_growing"] = m.backlog_growing();
    j["arrivals"] = ar;
  }

  if (m.jobs) {
    const auto& mj = *m.jobs;
    ojson jb;
    jb["total"] = mj.total;
    jb["started"] = mj.started;
    jb["finished"] = mj.finished;
    jb["running_at_end"] = mj.started - mj.finished;
    jb["not_started"] = mj.total - mj.started;
    jb["peak_running"] = mj.peak_running;
    jb["wall_time_s"] = quantiles(mj.wall_time, false);
    jb["last_exit_s"] = mj.finished ? ojson(mj.last_exit) : ojson(nullptr);
    j["jobs"] = jb;
  }

  if (m.balancer)
    j["load_balancer"] = {{"messages", m.balancer->messages},
                          {"cpu_utilization", m.balancer->cpu_utilization},
                          {"nic_utilization", m.balancer->nic_utilization},
                          {"wait_s", quantiles(m.balancer->wait, false)}};
  if (m.admission)
    j["admission"] = {{"connections", m.admission->connections},
                      {"refused", m.admission->refused},
                      {"requests_not_admitted", m.admission->requests}};
  if (!s.faults.preemptions.empty() || s.faults.random_preemption)
    j["preemptions"] = {{"jobs", m.preemptions.jobs}, {"events_lost", m.preemptions.events_lost}};

  ojson models = ojson::object();
  for (const auto& mm : m.models) {
    ojson o;
    o["inferences_per_s"] = static_cast<double>(mm.items) / span;
    o["requests"] = mm.requests;
    o["rejected"] = mm.rejected();
    o["rejected_by"] = {{"queue_full", mm.rejected_queue_full},
                        {"timeout", mm.rejected_timeout},
                        {"above_max_batch_size", mm.rejected_too_large}};
    o["executions"] = mm.executions;
    o["mean_batch_size"] = mm.mean_batch_size();
    o["queue_time_s"] = quantiles(mm.queue_time, false);
    o["compute_time_s"] = quantiles(mm.compute_time, false);
    o["latency_s"] = quantiles(mm.latency, true);
    models[mm.name] = o;
  }
  j["models"] = models;

  ojson servers = ojson::array();
  for (const auto& p : m.pools) {
    ojson o;
    o["name"] = p.name;
    o["device"] = p.device;
    o["count"] = p.utilization.size();
    o["utilization"] = p.mean_utilization();
    o["executions"] = p.executions;
    o["utilization_min"] =
        p.utilization.empty() ? 0.0 : *std::min_element(p.utilization.begin(), p.utilization.end());
    o["utilization_max"] =
        p.utilization.empty() ? 0.0 : *std::max_element(p.utilization.begin(), p.utilization.end());
    if (p.operated) {
      o["utilization_per_device"] = p.utilization;
      o["replicas"] = {{"mean_up", p.mean_replicas_up},
                       {"peak", p.peak_replicas},
                       {"device_hours_up", p.replica_seconds_up / 3600.0},
                       {"crashes", p.crashes}};
      ojson scaling = ojson::array();
      for (const auto& e : p.scaling)
        scaling.push_back({{"t_s", e.time},
                           {"from", e.from},
                           {"to", e.to},
                           {"recommended", e.raw},
                           {"metric", e.metric},
                           {"why", e.why}});
      o["scaling"] = scaling;
    }
    servers.push_back(o);
  }
  j["servers"] = servers;

  ojson links = ojson::array();
  for (const auto& l : m.links) {
    ojson o;
    o["name"] = l.name;
    o["count"] = l.count;
    o["bandwidth_Bps"] = l.bandwidth;
    o["latency_s"] = l.latency;
    o["bytes"] = l.total_bytes();
    o["bytes_to_servers"] = l.bytes[0];
    o["bytes_to_clients"] = l.bytes[1];
    o["mean_bandwidth_Bps"] = l.total_bytes() / span / l.count;
    o["mean_utilization"] = std::max(l.bytes[0], l.bytes[1]) / span / l.count / l.bandwidth;
    o["peak_utilization"] = l.peak_utilization();
    o["peak_window_s"] = l.window;
    o["busiest_utilization"] = l.busiest_utilization(span);
    links.push_back(o);
  }
  j["links"] = links;

  ojson net;
  net["transport"] = m.transport;
  net["reason"] = run.transport.reason;
  net["predicted_busiest_link_utilization"] = run.transport.worst_link_utilization;
  j["network"] = net;

  j["analytic"] = analytic;

  if (m.timeseries) {
    const auto& ts = *m.timeseries;
    ojson t;
    t["interval_s"] = ts.interval;
    t["t_s"] = ts.t;
    t["events_per_s"] = ts.events_per_s;
    if (m.jobs) t["running_jobs"] = ts.running_jobs;
    if (!s.single_workload()) {
      ojson tw = ojson::object();
      for (std::size_t i = 0; i < ts.workloads.size(); ++i)
        tw[s.workloads[i].name] = {{"events_per_s", ts.workloads[i].events_per_s},
                                   {"latency_p50_s", ts.workloads[i].latency_p50_s},
                                   {"latency_p99_s", ts.workloads[i].latency_p99_s}};
      t["workloads"] = tw;
    }
    ojson devices = ojson::array();
    for (const auto& d : ts.devices)
      devices.push_back({{"pool", m.pools.at(d.pool).name},
                         {"index", d.index},
                         {"utilization", d.utilization},
                         {"queue_length", d.queue_length}});
    t["devices"] = devices;
    ojson pools = ojson::array();
    for (std::size_t p = 0; p < m.pools.size(); ++p)
      if (m.pools[p].operated)
        pools.push_back({{"pool", m.pools[p].name},
                         {"replicas", ts.pools.at(p).replicas},
                         {"ready", ts.pools.at(p).ready}});
    if (!pools.empty()) t["pools"] = pools;
    ojson tm = ojson::object();
    for (std::size_t i = 0; i < ts.models.size(); ++i) {
      const auto& sm = ts.models[i];
      tm[m.models.at(i).name] = {{"inferences_per_s", sm.inferences_per_s},
                                 {"executions_per_s", sm.executions_per_s},
                                 {"mean_batch_size", sm.mean_batch_size},
                                 {"latency_p50_s", sm.latency_p50_s},
                                 {"latency_p99_s", sm.latency_p99_s}};
    }
    t["models"] = tm;
    ojson tl = ojson::array();
    for (std::size_t i = 0; i < ts.links.size(); ++i) {
      const auto& sl = ts.links[i];
      tl.push_back({{"name", m.links.at(i).name},
                    {"bytes_per_s_to_servers", sl.bytes_per_s[0]},
                    {"bytes_per_s_to_clients", sl.bytes_per_s[1]},
                    {"utilization", sl.utilization}});
    }
    t["links"] = tl;
    j["timeseries"] = t;
  }

  ojson perf;
  perf["wall_time_s"] = run.wall_time_s;
  perf["simulated_requests"] = m.requests_simulated;
  perf["simulated_requests_per_wall_s"] =
      run.wall_time_s > 0.0 ? static_cast<double>(m.requests_simulated) / run.wall_time_s : 0.0;
  perf["peak_rss_bytes"] = run.peak_rss_bytes;
  j["perf"] = perf;
  return j;
}

std::string summary(const scenario::Scenario& s, const runner::RunOutput& run,
                    const nlohmann::json& analytic) {
  using scenario::format_time;
  const auto& m = run.metrics;
  const double span = m.span();
  std::ostringstream o;
  char line[512];
  auto out = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    o << line;
  };
  const bool open = m.open_loop && s.workload().arrivals;
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
  // The formula speaks of a fixed population; jobs that come and go are not one.
  // Nor does it speak of several workloads sharing the servers.
  if (!open && !m.jobs && s.single_workload() && analytic.is_object() &&
      analytic.contains("t_sonic_s") && analytic["t_sonic_s"].is_number()) {
    const double t_sonic = analytic["t_sonic_s"].get<double>();
    const double thread_time = m.thread_time_per_event(s.workload().n_threads());
    out("           formula t_SONIC %s (%s), simulated/formula = %.4f (N_CPU / throughput)\n",
        format_time(t_sonic).c_str(),
        analytic.value("saturated", false) ? "saturated" : "below saturation",
        t_sonic > 0 ? thread_time / t_sonic : 0.0);
  }
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
  {
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
          format_time(r.fallback_cpu_seconds).c_str(),
          static_cast<unsigned long long>(r.preempted));
    if (m.preemptions.jobs > 0)
      out("preempted  %llu times a job, %llu events in progress lost and redone\n",
          static_cast<unsigned long long>(m.preemptions.jobs),
          static_cast<unsigned long long>(m.preemptions.events_lost));
  }
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
  }
  for (const auto& l : m.links) {
    out("link       %-20s %s  mean %s per link  peak %.1f%%\n", l.name.c_str(),
        scenario::format_bytes(l.total_bytes()).c_str(),
        scenario::format_bandwidth(l.total_bytes() / span / l.count).c_str(),
        100.0 * l.peak_utilization());
  }
  out("network    %s transport: %s\n", m.transport.c_str(), run.transport.reason.c_str());
  out("perf       %.3g s wall, %.3g simulated requests per wall-second, peak RSS %.0f MB\n",
      run.wall_time_s,
      run.wall_time_s > 0 ? static_cast<double>(m.requests_simulated) / run.wall_time_s : 0.0,
      static_cast<double>(run.peak_rss_bytes) / 1e6);
  return o.str();
}

void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw OutputError(path + ": cannot write: folder " + dir.string() + " does not exist");
  if (fs::is_directory(target, ec)) throw OutputError(path + ": cannot write: it is a folder");
  if (::access(dir.c_str(), W_OK) != 0)
    throw OutputError(path + ": cannot write: no permission in " + dir.string());
}

void write_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Appended rather than "." + ...: GCC 12 warns (-Wrestrict) on the temporary's concatenation.
  std::string hidden(".");
  hidden.append(target.filename().string()).append(".XXXXXX");
  std::string tmpl = (dir / hidden).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) throw OutputError(path + ": cannot write (" + std::strerror(errno) + ")");
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw OutputError(path + ": write failed (" + std::strerror(err) + ")");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    throw OutputError(path + ": write failed (" + std::strerror(errno) + ")");
  }
  ::chmod(tmpl.c_str(), 0644);
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw OutputError(path + ": cannot write (" + std::strerror(err) + ")");
  }
}

}  // namespace sonicsim::results
