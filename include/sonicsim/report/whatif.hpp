// What a site board reads first: the key figures of one or more runs side by side, and what
// changed from the first run (the baseline) stated in words, from the runs' results files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/report/table.hpp>
#include <sonicsim/results_format/reader.hpp>

namespace sonicsim::report {

// The figures of one results file (SPEC section 6) that the report speaks of and draws.
struct RunFigures {
  std::string file, scenario;
  // Several workloads (the results' `workloads`): each one's own figures. The formula's figures
  // (t_ideal, t_SONIC, knee and their inputs) describe one workload, so they are NaN then.
  struct Workload {
    std::string name;
    double threads = 0.0, events_per_s = 0.0, time_per_event_s = 0.0, latency_p99_s = 0.0;
  };
  std::vector<Workload> workloads;
  double threads = 0.0, devices = 0.0;  // N_CPU, N_GPU (analytic block)
  double events_per_s = 0.0;
  double time_per_event_s = 0.0, time_per_event_p99_s = 0.0;
  double t_ideal_s = 0.0, t_sonic_s = 0.0;
  double knee_threads = 0.0;        // N_CPU where the formula saturates: per device x devices
  double device_utilization = 0.0;  // device-weighted over the pools
  double requests_failed = 0.0, requests_fallback = 0.0, requests_sent = 0.0;
  double warmup_s = 0.0;
  std::string mode;               // sync or async (analytic block)
  double t_cpu_s = 0.0, p = 0.0;  // formula inputs: CPU time per event, offloaded fraction
  double t_gpu_s = 0.0, t_latency_s = 0.0;
  // Request latency over all models at the stored percentiles: (cumulative fraction, seconds)
  // for p50, p90, p95, p99 and max.
  std::vector<std::pair<double, double>> latency_percentiles;
  // requests.latency_s.histogram: log-spaced bins (edges one longer than counts); empty in
  // results written before it existed.
  std::vector<double> latency_edges_s, latency_counts;
  struct Model {
    double latency_p50_s = 0.0, latency_p99_s = 0.0, mean_batch_size = 0.0;
    // Where a request's time goes: mean latency, queue wait and execution; requests per event.
    double latency_mean_s = 0.0, queue_mean_s = 0.0, compute_mean_s = 0.0;
    double requests_per_event = 0.0;
  };
  std::map<std::string, Model> models;
  std::map<std::string, double> link_peak_utilization;  // by link name
  // Several sites (results `sites`, and the WAN's links, "wan/NAME"); empty on one site.
  struct Site {
    std::string name;
    double threads = 0.0, devices = 0.0, events_per_s = 0.0, time_per_event_s = 0.0;
    double latency_mean_s = 0.0, latency_p99_s = 0.0;
    double bytes_out = 0.0, bytes_in = 0.0;  // over the WAN
    std::optional<double> egress_cost;       // nullopt without the site's price
  };
  std::vector<Site> sites;
  struct WanLink {
    std::string name;  // as in the results: "wan/esnet"
    double bytes = 0.0, mean_utilization = 0.0, peak_utilization = 0.0;
  };
  std::vector<WanLink> wan_links;
  // The run in windows (results `timeseries`, when the scenario asked for it).
  using Timeseries = results::Timeseries;
  std::optional<Timeseries> timeseries;
  // Power and prices (results `energy`, `cost`; docs/servers.md): nullopt without them.
  std::optional<double> energy_per_event_j, mean_power_w, cost_per_event;
  double energy_devices_j = 0.0, energy_hosts_j = 0.0, energy_client_cores_j = 0.0;
  // Per server pool (results `servers`): devices and host busy, device memory (server_report).
  struct Pool {
    std::string name;
    double devices = 0.0, utilization = 0.0, model_loads = 0.0;
    std::optional<double> host_utilization, host_time_per_request_s;  // pools with host cores
    std::optional<double> memory_used_bytes;                          // pools with memory keys
    std::optional<double> memory_capacity_bytes;  // devices.D.memory; nullopt: no limit
  };
  std::vector<Pool> pools;
  // What went wrong after the warm-up (report/trouble.hpp): device crashes per pool, link
  // outages and degradations, and what the clients' tries met. All empty or 0 in a run with no
  // fault and no failed try.
  struct Trouble {
    struct Crashes {
      std::string pool, device;
      double devices = 0.0, crashed = 0.0;
    };
    std::vector<Crashes> crashes;  // pools that can crash (operated pools), in results order
    struct Link {
      std::string name;
      double degraded_s = 0.0, outage_s = 0.0;  // outages are part of degraded_s
    };
    std::vector<Link> links;  // every link, when the scenario degrades some
    double retries = 0.0, refused = 0.0, no_server = 0.0, server_lost = 0.0, timed_out = 0.0;
    double failed_tries() const { return refused + no_server + server_lost + timed_out; }
  };
  Trouble trouble;
  // The client side (client_report): each request kind's module time, and each node workload's
  // nodes (results `modules`, `nodes`); empty in results that have none.
  struct Module {
    std::string name;  // "model", or "workload/model" with several workloads
    double wait_mean_s = 0.0, wait_p99_s = 0.0, cpu_s = 0.0;
  };
  std::vector<Module> modules;
  struct Nodes {
    std::string workload;
    double occupancy = 0.0, speed_factor = 0.0, cpu_only_speed_factor = 0.0;
    std::optional<double> speedup_vs_cpu_only;
  };
  std::vector<Nodes> nodes;
};

// Throws scenario::InputError naming the file and the JSON path of what is missing or wrong.
RunFigures read_results(const std::string& path);

enum class Format { Text, Markdown };

// The key figures, one row per figure and one column per run.
Table figures_table(const std::vector<RunFigures>& runs);

// What differs in `run` from `base`, as clauses ("adding 2 devices (8 -> 10)", "moves the knee
// from 928 to 1160 threads", ...); changes under 1% (one point for utilizations) are left out.
std::vector<std::string> changes(const RunFigures& base, const RunFigures& run);

// Clauses as one sentence: "a; b; and c".
std::string join_clauses(const std::vector<std::string>& clauses);
// "\nOTHER against BASE: a; b; and c.\n" (file names in bold for Markdown).
std::string comparison_paragraph(const std::string& file, const std::string& base_file,
                                 const std::vector<std::string>& clauses, Format format);

// Clauses shared by the run and sweep comparisons; each appends nothing when nothing changed.
void devices_change(double base, double now, std::vector<std::string>& said);
// `what` is "throughput" or "peak throughput"; always says something (unchanged or by how much).
void throughput_change(const std::string& what, double base, double now,
                       std::vector<std::string>& said);
void link_peak_changes(const std::map<std::string, double>& base,
                       const std::map<std::string, double>& now, std::vector<std::string>& said);

// One run: its figures. Several: a table of figures by run, then one paragraph per run after
// the first saying what differs from it (changes under 1% are called unchanged).
std::string whatif(const std::vector<RunFigures>& runs, Format format);

// Shared wording of the report's numbers: three significant digits ("791.6", "0.0123"), times
// with their unit ("14.04 ms"), fractions as whole percent ("38%"), changes signed ("+12.0%").
std::string num(double v);
std::string time_text(double seconds);
std::string pct(double fraction);
std::string signed_pct(double change);
// Changes the what-if sentences leave unsaid: under 1% of the larger value, and for shares
// (utilizations) under one point.
bool unchanged(double a, double b);
bool same_share(double a, double b);

}  // namespace sonicsim::report
