// Reading a results file by what it holds rather than by key paths. Every reader of results
// goes through here (the report, plan, compare and calibration through
// calibration::metric_of_results, the sweep report's names), and every key is named by
// keys.hpp, which the writer uses too: a renamed key is renamed for both sides at once.
//
// Two ways to meet a figure that is missing or not a number. A file a user hands over
// (`sonicsim report`) is checked: each such figure read becomes a problem that names its JSON
// pointer, and check() throws them all at once. The results of a simulation run here (plan,
// compare, calibrate scan) are read as they are: a figure that is not there reads as NaN (no
// event finished after the warm-up; a block the run has none of) and nothing throws.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace sonicsim::results {

// Whether a missing figure is a problem. Optional: results written by older versions lack it
// (the view then answers NaN and records nothing).
enum class Presence { Required, Optional };

// The figures of a distribution's summary (keys::quantile).
enum class Quantile { Mean, P50, P90, P95, P99, Max };
const char* quantile_key(Quantile q);

// The report counts a figure older results lack as 0.
inline double zero_if_missing(double v) {
  return std::isnan(v) ? 0.0 : v;
}

namespace detail {
struct DocumentState;
}

// One place in a document (its JSON pointer, "" for the whole) and the document that records
// what is wrong there. The typed views below derive from it; each keeps its document alive.
class View {
 public:
  const std::string& pointer() const { return pointer_; }
  bool present() const;  // there is a value at this place

  // The readers beneath the typed views, by a key of keys.hpp. A reader of results uses the
  // typed views; these are for a figure none of them offers yet (then add it to a view).
  //
  // The place of a key of this object, or of an element of this array.
  View at(std::string_view key) const;
  View at(std::size_t index) const;
  bool has(std::string_view key) const;
  // A number, NaN (and a problem unless optional) when missing or not a number.
  double number(std::string_view key, Presence presence = Presence::Required) const;
  // A number that may be null (a price not given): nullopt then; missing or not a number is a
  // problem, as for number().
  std::optional<double> nullable_number(std::string_view key) const;
  // An array of `size` numbers (a time series' windows); empty, and a problem, otherwise.
  std::vector<double> numbers(std::string_view key, std::size_t size) const;
  // The length of the array at `key`, 0 when it is not an array.
  std::size_t length(std::string_view key) const;
  // A string; nullopt when missing, and a problem when it is there but not a string.
  std::optional<std::string> text(std::string_view key) const;
  // true or false; nullopt when missing, and a problem when it is there but not a boolean.
  std::optional<bool> flag(std::string_view key) const;
  // The elements of the array, or the members of the object, at `key`: by index, or by name
  // with their names. Empty, and a problem, when it is neither.
  std::vector<View> elements(std::string_view key) const;
  std::vector<std::pair<std::string, View>> members(std::string_view key) const;

 protected:
  View(std::shared_ptr<const detail::DocumentState> doc, std::string pointer)
      : doc_(std::move(doc)), pointer_(std::move(pointer)) {}

  std::shared_ptr<const detail::DocumentState> doc_;
  std::string pointer_;
};

// time_per_event_s, latency_s, queue_time_s, ...
class Quantiles : public View {
 public:
  explicit Quantiles(View v) : View(std::move(v)) {}
  double at(Quantile q, Presence presence = Presence::Required) const;
  bool has(Quantile q) const;
};

// The log-spaced bins of requests.latency_s.histogram: edges one longer than counts.
struct Histogram {
  std::vector<double> edges_s, counts;
};

// `events` of the run or of one workload.
class Events : public View {
 public:
  explicit Events(View v) : View(std::move(v)) {}
  double throughput_per_s() const;
  double per_job_throughput_per_s() const;
  double thread_time_per_event_s() const;  // N_CPU / throughput: comparable with t_SONIC
  Quantiles time_per_event_s() const;
};

// requests.resilience: what the client's tries met. Results written before it existed (and a
// workload's `requests`, which have none) read NaN: the report counts them as 0.
class Resilience : public View {
 public:
  explicit Resilience(View v) : View(std::move(v)) {}
  double retries() const;
  // Failed tries, by why.
  double refused() const;
  double no_server() const;
  double server_lost() const;  // a crash or a drain
  double client_timeout() const;
  double completed_after_retry() const;
  double fallback_after_failure() const;  // computed on the client's CPU after the last try
  double preempted() const;
};

// `requests` of the run or of one workload.
class Requests : public View {
 public:
  explicit Requests(View v) : View(std::move(v)) {}
  double sent() const;
  double failed() const;
  double fallback() const;
  Resilience resilience() const;
  Quantiles latency_s() const;
  // nullopt in results written before the histogram existed.
  std::optional<Histogram> latency_histogram() const;
};

class Jobs;

// An element of `workloads` (several workloads only).
class Workload : public View {
 public:
  explicit Workload(View v) : View(std::move(v)) {}
  std::optional<std::string> name() const;
  double threads() const;
  Events events() const;
  Requests requests() const;
  bool has_job_flow() const;  // the workload has a job flow
  Jobs job_flow() const;      // its flow's jobs alone
};

// An element of `sites` (several sites only): the figures of the client nodes at the site.
class Site : public View {
 public:
  explicit Site(View v) : View(std::move(v)) {}
  std::optional<std::string> name() const;
  double threads() const;
  double devices() const;
  Events events() const;
  Requests requests() const;
  double bytes_out() const;
  double bytes_in() const;
  std::optional<double> egress_cost() const;  // nullopt without a price
};

// An element of `egress` (several sites only): bytes from one site to another over the WAN.
class Egress : public View {
 public:
  explicit Egress(View v) : View(std::move(v)) {}
  std::optional<std::string> from() const;
  std::optional<std::string> to() const;
  double bytes() const;
  std::optional<double> cost() const;  // nullopt without the sender's price
};

// A value of `models`.
class Model : public View {
 public:
  Model(std::string name, View v) : View(std::move(v)), name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  double mean_batch_size() const;
  Quantiles latency_s() const;
  Quantiles queue_time_s() const;
  Quantiles compute_time_s() const;

 private:
  std::string name_;
};

// An element of `servers`: one pool.
class Pool : public View {
 public:
  explicit Pool(View v) : View(std::move(v)) {}
  std::optional<std::string> name() const;
  std::optional<std::string> device() const;  // the device's name ("T4")
  double count() const;
  double utilization() const;      // mean over the pool's devices
  double utilization_max() const;  // of its busiest device; NaN in results without it
  // Devices of the pool that crashed after the warm-up; NaN for a pool with neither an
  // autoscaler nor faults (its results have no `replicas`).
  double crashes() const;
  // Pools whose hosts have cores (docs/servers.md); nullopt otherwise.
  std::optional<double> host_utilization() const;  // busy cores / cores, mean over hosts
  std::optional<double> host_time_per_request_s() const;
  // Device memory and model loading; NaN for a pool that does not use them (docs/results.md).
  double memory_used_bytes() const;
  std::optional<double> memory_capacity_bytes() const;  // nullopt: no limit (or not tracked)
  double model_loads() const;
  double model_unloads() const;
  double load_time_s() const;
};

// `energy` (scenarios that give some power): joules over the measured period.
class Energy : public View {
 public:
  explicit Energy(View v) : View(std::move(v)) {}
  double joules() const;
  std::optional<double> per_event_j() const;  // nullopt when no event completed
  double mean_power_w() const;
  double devices_j() const;
  double hosts_j() const;
  double client_cores_j() const;
};

// `cost` (scenarios with `prices`), in their currency.
class Cost : public View {
 public:
  explicit Cost(View v) : View(std::move(v)) {}
  std::optional<double> per_event() const;  // nullopt when no event completed
  std::optional<double> per_million_events() const;
  double hourly() const;
};

// `jobs` (job flows only): the flow's jobs over the run.
class Jobs : public View {
 public:
  explicit Jobs(View v) : View(std::move(v)) {}
  double total() const;
  double started() const;
  // Time-weighted over the measured span; NaN in results written before they existed.
  double mean_running() const;
  double mean_running_threads() const;
};

// An element of `modules`: the module behind one request kind (reader_clients.cpp).
class Module : public View {
 public:
  explicit Module(View v) : View(std::move(v)) {}
  std::optional<std::string> workload() const;
  double request() const;
  std::optional<std::string> model() const;
  bool served() const;
  Quantiles wait_s() const;
  double module_cpu_time_s() const;
  Quantiles module_time_s() const;
};

// An element of `nodes`: one workload's worker nodes (reader_clients.cpp).
class Nodes : public View {
 public:
  explicit Nodes(View v) : View(std::move(v)) {}
  std::optional<std::string> workload() const;
  double count() const;
  double hardware_threads() const;
  double mean_busy_threads() const;
  double mean_occupancy() const;
  double mean_speed_factor() const;
  double cpu_only_speed_factor() const;
  double cpu_only_throughput_per_s() const;
  std::optional<double> speedup_vs_cpu_only() const;  // nullopt with a job flow
};

// An element of `links`: one link class.
class Link : public View {
 public:
  explicit Link(View v) : View(std::move(v)) {}
  std::optional<std::string> name() const;
  double bytes() const;             // both directions, both payloads
  double mean_utilization() const;  // carried: bytes as they passed
  double peak_utilization() const;  // of the busiest window
  // Offered: bytes as they were sent (results written before issue 33 lack them: NaN).
  double offered_mean_utilization() const;
  double offered_peak_utilization() const;
  // Seconds after the warm-up at a reduced bandwidth (outages included), and at none; NaN
  // unless the scenario has link faults.
  double degraded_s() const;
  double outage_s() const;
};

// `analytic.formed_batches`: the formula at the batches a run formed (docs/analytic.md).
class FormedBatches : public View {
 public:
  explicit FormedBatches(View v) : View(std::move(v)) {}
  double mean_batch_size() const;  // items per execution over the models with dynamic batching
  double t_gpu_s() const;
  double t_ideal_s() const;
  double t_sonic_s() const;
  bool saturated() const;
  double saturation_n_cpu_per_gpu() const;
};

// `analytic`: the formula's and MVA's view of the scenario (docs/analytic.md).
class Analytic : public View {
 public:
  explicit Analytic(View v) : View(std::move(v)) {}
  double n_cpu() const;
  double n_gpu() const;
  double t_ideal_s() const;
  double t_sonic_s() const;
  bool saturated() const;
  double saturation_n_cpu_per_gpu() const;  // the knee, per device
  // A run of a closed loop whose models batch dynamically; nullopt otherwise, in `sonicsim
  // analytic`'s block and in results written before it existed.
  std::optional<FormedBatches> formed_batches() const;
  std::optional<std::string> mode() const;  // sync or async
  // The formula's inputs.
  double t_cpu_s(Presence presence = Presence::Required) const;
  double p(Presence presence = Presence::Required) const;
  double t_gpu_s(Presence presence = Presence::Required) const;
  double t_latency_s(Presence presence = Presence::Required) const;
  double requests_per_event(const std::string& model, Presence presence = Presence::Required) const;
};

// `timeseries` as data: every series as long as t_s.
struct Timeseries {
  std::vector<double> t_s, events_per_s;
  struct Device {
    std::string pool;
    double index = 0.0;
    std::vector<double> utilization, queue_length;
  };
  std::vector<Device> devices;
  struct Model {
    std::vector<double> inferences_per_s, mean_batch_size, latency_p50_s, latency_p99_s;
  };
  std::map<std::string, Model> models;
  struct Link {
    std::string name;
    std::vector<double> utilization, bytes_per_s_to_servers, bytes_per_s_to_clients;
  };
  std::vector<Link> links;
  std::vector<double> running_jobs;  // job flows only
  struct Workload {                  // several workloads only
    std::string name;
    std::vector<double> events_per_s, latency_p50_s, latency_p99_s;
  };
  std::vector<Workload> workloads;
  struct Pool {  // pools with an autoscaler or faults only
    std::string name;
    std::vector<double> replicas, ready;
  };
  std::vector<Pool> pools;
  // Triton's counters per pool and model (`servers`) and per replica (`replicas`, with
  // timeseries.replicas): rates per second; times per request, 0 when none.
  struct Server {
    std::string pool, model;
    int replica = -1;  // -1: the whole pool
    std::vector<double> requests_per_s, failures_per_s, inferences_per_s, executions_per_s,
        queue_time_s, compute_time_s;
  };
  std::vector<Server> servers, replicas;  // empty: results written before they existed
};

// A whole results document.
class Document : public View {
 public:
  // Reads a results file. Throws InputError naming the file when it cannot be read or
  // is not a JSON object.
  static Document read(const std::string& file);
  // Results in memory (a point's results from points::run_points): `doc` must outlive this
  // document and its views.
  explicit Document(const nlohmann::json& doc);

  const std::string& file() const;
  std::string scenario() const;  // "" when absent
  // The seed the run used; nullopt when absent or not an unsigned integer.
  std::optional<std::uint64_t> seed() const;
  double warmup_s(Presence presence = Presence::Required) const;
  Events events() const;
  Requests requests() const;
  Analytic analytic() const;
  std::vector<Model> models() const;
  std::vector<Pool> servers() const;
  std::vector<Link> links() const;
  bool has_workloads() const;
  std::vector<Workload> workloads() const;
  bool has_sites() const;
  std::vector<Site> sites() const;
  std::vector<Egress> egress() const;
  bool has_timeseries() const;
  Timeseries timeseries() const;
  bool has_energy() const;
  Energy energy() const;
  bool has_cost() const;
  Cost cost() const;
  bool has_jobs() const;  // a job flow
  Jobs jobs() const;
  std::vector<Nodes> nodes() const;     // empty without `workload.node`
  std::vector<Module> modules() const;  // empty for an open loop (and older results)

  // Throws InputError naming the file as a results file, with the JSON pointer of
  // every figure read so far that was missing or not what it should be.
  void check() const;

 private:
  explicit Document(std::shared_ptr<const detail::DocumentState> state);
};

}  // namespace sonicsim::results
