// The scenario as plain, validated data: what `sonicsim run` simulates.
//
// Every quantity is in SI base units (seconds, bytes, bytes per second). A Scenario is only ever
// built by the loader (scenario/loader.hpp), which guarantees the invariants documented here, so
// the engine and the analytic models never re-check them.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sonicsim/balancing/policies.hpp>
#include <sonicsim/client_policies/policies.hpp>
#include <sonicsim/scenario/devices.hpp>
#include <sonicsim/scenario/distribution.hpp>
#include <sonicsim/scenario/link_class.hpp>
#include <sonicsim/scenario/node.hpp>
#include <sonicsim/scenario/sites.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::scenario {

enum class Mode { Sync, Async };

// CMSSW ExternalWork semantics, see docs/model.md: the event's requests are sent when the event
// starts; `independent_work_fraction` of its CPU work runs while they are in flight, the rest
// once all responses are back. A thread holds `events_in_flight` events at once and runs the CPU
// work of whichever is ready (one piece at a time, first come first served).
struct AsyncSettings {
  double independent_work_fraction = 1.0;  // in [0, 1]
  int events_in_flight = 1;                // >= 1
  bool operator==(const AsyncSettings&) const = default;
};

struct RequestSpec {
  std::string model;
  double offload_fraction = 0.0;  // p_i: share of t_CPU this algorithm costs on the CPU
  int per_event = 1;              // requests of this kind per event (>= 1)
  Distribution items = Distribution::constant(1);  // batch items per request, rounded, >= 1
  // The CPU time per event of the module that sends these requests, outside them (seconds, >= 0):
  // added to the time the event waits for them, it gives the module time an experiment publishes
  // (docs/results.md, `module_time_s`). Reporting only: the engine's CPU work is t_CPU.
  double module_cpu_time = 0.0;
  bool operator==(const RequestSpec&) const = default;
};

// Open loop (perf_analyzer's request-rate mode, or any client that does not wait): events arrive
// at `rate` whatever the responses, and each arrival sends the workload's requests at once. No
// client thread, no CPU time, nobody waits: past saturation the servers' queues grow for as long
// as the run lasts, unless Triton's queue policy rejects. `max_in_flight` is the client's limit on
// outstanding requests (gRPC clients have one too); it also bounds the simulator's memory. An
// arrival that finds it reached is not sent and is counted as dropped.
struct Arrivals {
  enum class Distribution { Constant, Poisson };  // perf_analyzer's --request-distribution
  double rate = 1.0;                              // events per second, > 0
  Distribution distribution = Distribution::Constant;
  std::int64_t max_in_flight = 1'000'000;  // requests
  bool operator==(const Arrivals&) const = default;
};

// Jobs that start at given times, each process a number of events and exit (`workload.flow`),
// instead of a population that runs for the whole simulation: the waves of a batch system.
// Job j (from 0) starts at:
//   together: 0;  waves: first + floor(j / wave_size) x every;  ramp: over x j / jobs;
//   times: start_times[j].
// Each thread's first event then begins within one mean event time of it, as for a population.
//   running (a measured profile of running jobs): start_times[j], and job j takes no event from
//   end_times[j] on.
struct JobFlow {
  enum class Start { Together, Waves, Ramp, Times, Running };
  Start start = Start::Together;
  Distribution events_per_job = Distribution::constant(1.0);  // sampled per job, rounded, >= 1
  std::int64_t wave_size = 1;
  double wave_every = 0.0, first = 0.0;
  double ramp_over = 0.0;
  std::vector<double> start_times;  // seconds, one per job (Times, Running)
  std::vector<double> end_times;    // Running: seconds, one per job; infinity: runs to the end
  double start_of(std::int64_t job, std::int64_t jobs) const;
  bool operator==(const JobFlow&) const = default;
};

// What a client does when a request fails: the server refused it (queue full, queue timeout,
// too large), no server was up to take it, the server crashed with it, or no answer came within
// `timeout`. CMSSW's SonicClient: retry up to allowed_tries in all, the first retry on the same
// server and later ones on another if there is one, then fall back to local inference.
struct ClientPolicy {
  double timeout = 0.0;  // seconds per try, from its send until its response is back; 0: none
  int allowed_tries = 1;
  double retry_delay = 0.0;  // seconds between a failed try and the next
  // The last resort for a request whose tries are used up (`fallback`): the chosen client policy
  // with its settings (include/sonicsim/client_policies/, one header each; none by default).
  client_policies::Settings fallback;
  bool operator==(const ClientPolicy&) const = default;
};

// The jobs of one analysis or user: a scenario holds one workload or several sharing the servers
// (`workloads`), each with its own jobs, requests, client policy and Triton priority.
struct Workload {
  std::string name;  // unique in the scenario; "" for the single `workload`
  // Triton's request priority (1 is the highest); 0: none, the models' default level. A priority
  // above a model's priority_levels also gets the default level, as in Triton.
  std::uint64_t priority = 0;
  std::int64_t jobs = 1;
  int threads_per_job = 1;
  int jobs_per_node = 1;
  Mode mode = Mode::Sync;
  AsyncSettings async;
  Distribution cpu_time_per_event = Distribution::constant(1.0);  // t_CPU (seconds)
  std::vector<RequestSpec> requests;
  // Set: an open loop (one client node, no threads; jobs and threads_per_job stay 1, t_CPU 0).
  std::optional<Arrivals> arrivals;
  // Set: jobs come and go (JobFlow); unset: all jobs run from start to end.
  std::optional<JobFlow> flow;
  ClientPolicy client;
  // With `sites`: where its client nodes are (one site, or several by share) and, when it has
  // its own, how it chooses a serving site (else the scenario's `routing`). Without: empty.
  std::vector<SiteShare> sites;
  std::optional<SiteRouting> routing;
  // `core_power`: what each client core (one per thread) draws (power.hpp); unset: nothing.
  std::optional<PowerSpec> core_power;
  // `node`: the worker node its jobs share (node.hpp); unset: each thread runs at speed 1, as on
  // a machine of its own.
  std::optional<NodeSpec> node;
  StartPattern start;  // `start`: when the jobs begin (node.hpp)

  bool open_loop() const { return arrivals.has_value(); }
  std::int64_t n_threads() const { return jobs * threads_per_job; }
  std::int64_t n_nodes() const { return (jobs + jobs_per_node - 1) / jobs_per_node; }
  double offload_fraction() const;  // p = sum of p_i
  bool operator==(const Workload&) const = default;
};

// Mean coprocessor busy time of one execution as a function of its batch size: piecewise linear
// between the points, linear extrapolation above the last one (and below the first one, floored
// at the first point's value so that no batch is ever cheaper than the smallest measured one).
// A falling last segment (measurement noise) is extrapolated flat, never down towards zero.
struct ServiceCurve {
  std::vector<double> batch;    // strictly increasing, >= 1
  std::vector<double> seconds;  // > 0, same length as batch
  std::string source;           // "table" or the calibration file it came from
  double at(double batch_size) const;
  bool operator==(const ServiceCurve&) const = default;
};

// Spread of a random time around its mean (an execution's duration, a request's overhead).
struct ServiceSpread {
  Distribution::Kind kind = Distribution::Kind::Constant;  // constant|exponential|lognormal|gamma
  double cv = 0.0;
  bool operator==(const ServiceSpread&) const = default;
};

// Per-request time outside the links, the server's queue and its executions: gRPC serialization
// and (de)marshalling on the client and the server, as perf_analyzer reports them ("Client
// Send", "Network+Server Send/Recv" less the wire, "Client Recv"). A pure delay: it occupies
// neither the client thread's CPU nor the device.
//
// A calibration also records the overhead measured at each request size it saw (`batch`,
// `seconds`): real gRPC costs are not linear in the payload (buffer growth, chunking), and a
// linear fit misses single sizes by tens of percent. Between measured sizes the table is
// interpolated; beyond them, fixed + per_item's slope continues from the nearest measured size.
struct OverheadPhase {
  double fixed = 0.0;                  // seconds per request
  double per_item = 0.0;               // seconds per batch item of the request
  std::vector<double> batch, seconds;  // measured; strictly increasing sizes, may be empty
  double at(double items) const;
  // The same phase with every time `delta` longer (fixed and measured values alike), floored
  // at zero: how a fit that moves t_latency changes a calibrated overhead.
  OverheadPhase shifted(double delta) const;
  bool is_zero() const;
  bool operator==(const OverheadPhase&) const = default;
};
struct RequestOverhead {
  OverheadPhase client_send;  // before the request leaves the client
  OverheadPhase server;       // server-side receive and send, added before the queue
  OverheadPhase client_recv;  // after the response reaches the client
  // Jitter of each direction's overhead around its mean (network stacks and gRPC threads are
  // not clockwork); it decides how a closed loop's requests group into batches.
  ServiceSpread spread;
  std::string source;  // "" or the calibration file it came from
  double to_server(double items) const { return client_send.at(items) + server.at(items); }
  double to_client(double items) const { return client_recv.at(items); }
  double total(double items) const { return to_server(items) + to_client(items); }
  bool operator==(const RequestOverhead&) const = default;
};

// Triton's queue policy (dynamic_batching.default_queue_policy) for one model's queue on one
// device. Triton applies timeouts lazily: only when its batcher next looks at the queue.
struct QueuePolicy {
  enum class TimeoutAction { Reject, Delay };
  std::int64_t max_queue_size = 0;  // 0: unlimited; an arrival finding this many queued is rejected
  double default_timeout = 0.0;     // seconds; 0: none
  // Reject: a request that waited longer fails; Delay: it is served after every other request.
  TimeoutAction timeout_action = TimeoutAction::Reject;
  bool allow_timeout_override = false;  // stored only: requests carry no timeout of their own
  bool operator==(const QueuePolicy&) const = default;
};

struct DynamicBatching {
  std::vector<int> preferred_batch_size;  // ascending, each <= max_batch_size
  double max_queue_delay = 0.0;           // seconds
  QueuePolicy queue_policy;
  // Triton's priority levels (1 is the highest; 0 levels: one queue). A level without its own
  // policy in priority_queue_policy has `queue_policy`, the default one.
  std::uint64_t priority_levels = 0;
  std::uint64_t default_priority_level = 0;
  std::map<std::uint64_t, QueuePolicy> priority_queue_policy;
  // The level (1-based; 0 without levels) a request of this priority waits at: its own if it is
  // one of the levels, else the default level, as Triton does.
  std::uint64_t level_of(std::uint64_t priority) const {
    if (priority_levels == 0) return 0;
    return priority >= 1 && priority <= priority_levels ? priority : default_priority_level;
  }
  const QueuePolicy& policy_of(std::uint64_t level) const {
    const auto it = priority_queue_policy.find(level);
    return it == priority_queue_policy.end() ? queue_policy : it->second;
  }
  bool operator==(const DynamicBatching&) const = default;
};

struct TensorSpec {
  std::string name;
  std::vector<std::int64_t> shape;  // per item, no batch dimension
  std::string dtype;                // FP32, FP16, INT64, ...
  double bytes() const;
  bool operator==(const TensorSpec&) const = default;
};

struct Model {
  std::string name;
  double input_bytes_per_item = 0.0;
  double output_bytes_per_item = 0.0;
  // Curve per device name; the key "*" is the curve for any device without its own.
  std::map<std::string, ServiceCurve> service_time;
  ServiceSpread spread;
  int max_batch_size = 0;  // 0: no limit on the items of one execution
  std::optional<DynamicBatching> dynamic_batching;
  int instances = 1;  // concurrent executions per device, sharing it (processor sharing)
  RequestOverhead overhead;
  std::vector<TensorSpec> inputs, outputs;  // informative; bytes already folded in
  // The Triton config.pbtxt the model was read from (as written in the scenario), "" if none,
  // and the kind of its instance groups ("KIND_GPU", ...; "" without instance_group).
  std::string triton_config;
  std::string instance_kind;
  // Host CPU work of each request and execution on a server host with cores (devices.hpp).
  std::optional<HostCost> host_cost;
  // Timing per pipeline device name (`service_time.D` = {latency, interval}); such a device also
  // has its curve in `service_time` (latency + (n - 1) x interval), for the formulas.
  std::map<std::string, PipelineTiming> pipeline_time;
  // Device memory it holds while loaded (devices.hpp); unset: none. Seconds to load it on a
  // device (a server starting up, or explicit model control's load on demand).
  std::optional<MemoryFootprint> memory;
  double load_time = 0.0;
  double memory_bytes() const { return memory ? memory->bytes(instances, max_batch_size) : 0.0; }

  // The curve for a pool's device; the loader guarantees it exists for every pool hosting this.
  const ServiceCurve& curve_for(const std::string& device) const;
  bool operator==(const Model&) const = default;
};

// SuperSONIC's rate limiter in front of the servers: it admits new client connections (a job
// connects with its first request), not inference calls; connected jobs keep being served. A
// refused job runs without the servers (its requests go straight to the client's fallback, or
// fail) and connects again with its first request `retry_after` later.
struct Admission {
  double rate = 0.0;   // token bucket: connections per second; 0: no bucket
  double burst = 1.0;  // connections the bucket holds; it starts full
  // A bucket refilled in lumps instead: `tokens_per_fill` at every multiple of `fill_interval`
  // (Envoy 1.30's timer-driven local rate limiter); 0: no such bucket.
  double fill_interval = 0.0;
  double tokens_per_fill = 1.0;
  // Refuse while an autoscaled pool's metric, as read at its last poll, is above its threshold.
  bool above_threshold = false;
  // Refuse while Triton's queue time per execution, as Prometheus would answer the query at the
  // moment the job connects, is above `threshold` (SuperSONIC's Lua filter): Prometheus scrapes
  // every `scrape_interval`, and the query is a rate over `window`. No answer (fewer than two
  // scrapes in the window, or no server running): refused, as the filter does.
  struct QueryGate {
    double threshold = 0.1;  // seconds of queue time per execution
    double window = 30.0;
    double scrape_interval = 5.0;
    bool operator==(const QueryGate&) const = default;
  };
  std::optional<QueryGate> refuse_above;
  double retry_after = 60.0;  // seconds
  // false: a refused job never connects again (CMSSW's TritonService asks a server for its
  // model index once, when the job starts, and skips a server that did not answer).
  bool reconnect = true;
  bool operator==(const Admission&) const = default;
};

// The load balancer as a machine that can saturate: every request and every response passes
// through it, first its worker threads (`per_message` of CPU each, `workers` at once, first come
// first served), then its NIC (bytes / `bandwidth`, one message at a time).
struct BalancerCapacity {
  double per_message = 0.0;  // seconds of CPU per message (request or response)
  int workers = 1;           // Envoy's worker threads (--concurrency)
  double bandwidth = 0.0;    // bytes per second of its NIC; 0: not limiting
  bool operator==(const BalancerCapacity&) const = default;
};

struct LoadBalancer {
  // How a model's requests are spread over the devices hosting it, as Envoy's policies do per
  // request: the chosen policy with its settings (include/sonicsim/balancing/, one header each).
  balancing::Settings policy;
  std::optional<Admission> admission;
  std::optional<BalancerCapacity> capacity;
  bool operator==(const LoadBalancer&) const = default;
};

// KEDA in front of a Kubernetes HorizontalPodAutoscaler, scaling one pool's Triton servers (one
// device each). At every poll (k x polling_interval, k >= 1) the metric is read over the last
// `window` seconds and HPA's algorithm runs on it, see docs/operations.md:
//   raw = ceil(current x value / threshold)   (target Value; AverageValue: ceil(value / threshold))
//   kept at current while |value / threshold - 1| <= tolerance (AverageValue: value / (threshold x
//   current)); then stabilized (scale up to the least raw of the last scale_up.stabilization_window
//   seconds, down to the largest of the last scale_down one), limited to `step` replicas added
//   (removed) within any `period` seconds, and clamped to [max(min_replicas, 1), max_replicas].
// `current` is the replicas asked for: starting and up, not draining. With min_replicas = 0, KEDA
// scales 1 -> 0 once no request reached the pool for `cooldown` seconds and 0 -> 1 at the first
// poll after a request found no server (never with wake_from_zero false).
struct Autoscaler {
  enum class Metric {
    QueueTime,    // Triton's queue time per execution: sum of the requests' queue times over the
                  // window / executions in it (SuperSONIC's KEDA query), seconds
    Utilization,  // mean busy fraction of the up replicas over the window
    QueueLength,  // requests queued on the pool's replicas at the poll, all models
  };
  enum class Target { Value, AverageValue };
  struct Behavior {                     // HPA's scaleUp / scaleDown
    double stabilization_window = 0.0;  // seconds
    int step = 1;                       // replicas per period (a Pods policy)
    double period = 15.0;               // seconds
    bool operator==(const Behavior&) const = default;
  };
  Metric metric = Metric::QueueTime;
  double threshold = 0.1;  // in the metric's unit (seconds, fraction, requests); > 0
  Target target = Target::Value;
  double window = 30.0;            // seconds; queue_time and utilization
  double polling_interval = 30.0;  // seconds, > 0
  double cooldown = 300.0;         // seconds; KEDA's cooldownPeriod (scale to zero only)
  // Whether a pool at zero wakes when requests find no server. KEDA wakes it when its trigger is
  // active; a metric read from the Triton servers themselves (SuperSONIC's default) has no value
  // while no server runs, so such a pool stays at zero (`wake_from_zero: false`).
  bool wake_from_zero = true;
  double tolerance = 0.1;    // HPA's default
  int min_replicas = 1;      // >= 0
  int max_replicas = 1;      // <= the pool's count (the loader defaults it to count)
  int initial_replicas = 1;  // in [min_replicas, max_replicas] (default min_replicas)
  Behavior scale_up{0.0, 1, 15.0};
  Behavior scale_down{300.0, 1, 15.0};
  bool operator==(const Autoscaler&) const = default;
};

struct ServerPool {
  std::string name;
  int count = 1;  // devices in the pool (with an autoscaler: the most replicas it can hold)
  std::string device;
  std::vector<std::string> models;
  // A server that starts (scaled up, or restarted after a crash) serves only this long after:
  // pod start plus model load.
  double startup_delay = 0.0;
  // Scaled down, a server takes no new requests and finishes those it holds; any left after
  // this long (Kubernetes' terminationGracePeriodSeconds) fail back to their clients.
  double drain_timeout = 30.0;
  std::optional<Autoscaler> autoscaler;
  std::size_t site = 0;  // index in Scenario::sites (0 without sites)
  // Direct-attached (`attached`, docs/sites.md): one device in each client node of workload
  // `*attached` (so `count` is its nodes), used by that node's threads without the network. They
  // send a request to the other pools only past the spill-over thresholds (`spill_queue_time`:
  // the device's expected queue time; `spill_in_flight`: the requests it holds), or while their
  // device is down; with neither threshold, only then.
  std::optional<std::size_t> attached;
  std::optional<double> spill_queue_time, spill_in_flight;
  // The machines the devices sit in (devices.hpp); unset: one device per host, host not modelled.
  std::optional<ServerHost> host;
  // Triton servers in the pool: one per host. Each has one server NIC (`server_nic`).
  int servers() const { return host ? count / host->devices : count; }
  // Which models a server holds loaded, and when it loads them (devices.hpp).
  ModelControl model_control = ModelControl::None;
  bool operator==(const ServerPool&) const = default;
};

enum class FlowModel { Auto, Flow, Analytic, SimGrid };

struct Network {
  std::optional<LinkSpec> client_nic, site_uplink, wan, server_nic;
  // auto: flows only where contention would change the remote part of an event (network +
  // queue + execution) by more than `auto_tolerance`; flow: every payload is a flow, shared as
  // SimGrid's CM02 model shares it and solved by sonicsim's max-min solver; simgrid: every
  // payload a flow of SimGrid's own engine (the reference, slower); analytic: every transfer
  // takes latency + size / its narrowest bandwidth.
  FlowModel flow_model = FlowModel::Auto;
  double auto_tolerance = 0.01;

  // Every request crosses the same links (client NIC, uplink, WAN, server NIC, those present):
  double path_latency() const;    // one way, sum of the links' latencies
  double path_bandwidth() const;  // narrowest link, +inf without links

  // A link class's spec, empty for a class the scenario leaves out.
  const std::optional<LinkSpec>& link(LinkClass c) const {
    switch (c) {
      case LinkClass::ClientNic:
        return client_nic;
      case LinkClass::SiteUplink:
        return site_uplink;
      case LinkClass::Wan:
        return wan;
      case LinkClass::ServerNic:
        break;
    }
    return server_nic;
  }
  std::optional<LinkSpec>& link(LinkClass c) {
    return const_cast<std::optional<LinkSpec>&>(std::as_const(*this).link(c));
  }
  bool operator==(const Network&) const = default;
};

// Things going wrong at given times or at random (`faults`), see docs/operations.md.
struct Faults {
  // Devices of a pool crash at `at` and start again `down_for` later (then startup_delay before
  // they serve); what they held fails back to the clients.
  struct Crash {
    std::size_t pool = 0;
    int device = -1;  // index in the pool; -1: every device of the pool
    double at = 0.0;
    double down_for = std::numeric_limits<double>::infinity();
    bool operator==(const Crash&) const = default;
  };
  // Each device of a pool alternates exponential times up (mean mtbf) and down (mean mttr).
  struct RandomCrashes {
    std::size_t pool = 0;
    double mtbf = 0.0, mttr = 0.0;  // seconds, > 0
    bool operator==(const RandomCrashes&) const = default;
  };
  // A link class's bandwidth times `bandwidth_factor` (0: an outage, transfers stall) from `at`
  // for `duration` seconds.
  // With sites, the link is a site's (`site`: its index) or a WAN link (`wan_link`: its index,
  // `link` then unused); without sites both are -1.
  struct LinkDegradation {
    LinkClass link = LinkClass::SiteUplink;
    double at = 0.0, duration = 0.0;
    double bandwidth_factor = 0.0;  // in [0, 1)
    int site = -1;
    int wan_link = -1;
    bool operator==(const LinkDegradation&) const = default;
  };
  // Batch-system preemption of client jobs: the job's events in progress are lost (their
  // requests still in flight are abandoned) and the job starts again `restart_after` later.
  struct Preemption {
    double at = 0.0;
    std::int64_t jobs = 0;  // the first `jobs` jobs running at `at`, in job order
    double restart_after = 0.0;
    bool operator==(const Preemption&) const = default;
  };
  struct RandomPreemption {
    double mtbf = 0.0;  // per running job, seconds
    double restart_after = 0.0;
    bool operator==(const RandomPreemption&) const = default;
  };
  std::vector<Crash> crashes;
  std::vector<RandomCrashes> random_crashes;
  std::vector<LinkDegradation> links;
  std::vector<Preemption> preemptions;
  std::optional<RandomPreemption> random_preemption;
  bool empty() const {
    return crashes.empty() && random_crashes.empty() && links.empty() && preemptions.empty() &&
           !random_preemption;
  }
  // A link class's bandwidth factor over time: (from, factor) steps, the first at time 0;
  // where windows overlap the smallest factor holds.
  std::vector<std::pair<double, double>> link_factors(LinkClass link) const;
  // The same for a site's link class, and for a WAN link (scenarios with sites).
  std::vector<std::pair<double, double>> site_link_factors(int site, LinkClass link) const;
  std::vector<std::pair<double, double>> wan_link_factors(int wan_link) const;
  bool operator==(const Faults&) const = default;
};

// The narrowest bandwidth over time of links in a row, each with its bandwidth factor steps
// (Faults::link_factors): (from, bytes per second) steps, the first at time 0.
struct DegradedLink {
  double bandwidth = 0.0;
  std::vector<std::pair<double, double>> factors;
};
std::vector<std::pair<double, double>> narrowest_bandwidth_steps(
    const std::vector<DegradedLink>& links);
// The same for the clients' path to the servers of a scenario without sites.
std::vector<std::pair<double, double>> path_bandwidth_steps(const Network& net,
                                                            const Faults& faults);

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  double duration = 0.0;  // seconds of simulated time, > 0
  double warmup = 0.0;    // seconds, < duration
  // At least one; several share the servers (their jobs follow each other: job and thread
  // numbers run through the workloads in order).
  std::vector<Workload> workloads{Workload{}};
  std::vector<Model> models;  // sorted by name
  // `devices`, and an entry of catalogue figures for each device a pool names that the device
  // catalogue knows (docs/devices.md); sorted by name.
  std::vector<DeviceSpec> devices;
  std::vector<ServerPool> servers;
  LoadBalancer load_balancer;
  Network network;
  // Empty: one site (`network` is its path). Else every workload and pool is at one of these,
  // and `routes` holds the WAN route between every pair of them (derive_routes).
  std::vector<Site> sites;
  Wan wan;
  SiteRouting routing;
  std::vector<std::vector<Route>> routes;
  Faults faults;
  // Time series of the run (`timeseries`), one sample per this many simulated seconds; 0: none.
  double timeseries_interval = 0.0;
  // `timeseries.replicas`: also each replica's (device's) Triton counters per model, as
  // `run --openmetrics` exports them.
  bool timeseries_replicas = false;

  std::string source_file;     // where it was loaded from ("" for scenarios built in code)
  std::string canonical_json;  // the effective scenario (after --set), canonical form
  // Files the scenario reads besides itself (calibrations, Triton configs), in the order met:
  // their contents are part of what is simulated, so they are part of `sha256`.
  struct ReferencedFile {
    std::string path;    // as written in the scenario
    std::string sha256;  // of the file's bytes
  };
  std::vector<ReferencedFile> referenced_files;
  std::string sha256;  // of canonical_json and each referenced file's path and sha256
  // Values the loader accepted but doubts: likely unit slips (src/scenario/plausibility.cpp), each
  // with its JSON path and a did-you-mean. Not part of the identity; `validate`, `run` and the
  // other commands print them on stderr (docs/scenario.md#plausibility-warnings).
  std::vector<Problem> warnings;
  // `prices` (power.hpp); unset: the results have no `cost`.
  std::optional<Prices> prices;

  // The one workload of a scenario that has one; the tools that model a single workload
  // (analytic formulas, plan, scan fits, compare) check single_workload() first.
  const Workload& workload() const { return workloads.front(); }
  Workload& workload() { return workloads.front(); }
  bool single_workload() const { return workloads.size() == 1; }
  // Over all workloads.
  std::int64_t total_jobs() const;
  std::int64_t total_threads() const;
  std::int64_t client_nodes() const;  // each workload's jobs on nodes of their own

  const Model* find_model(const std::string& name) const;
  const DeviceSpec* find_device(const std::string& name) const;  // nullptr: no entry
  int model_index(const std::string& name) const;                // -1 if absent
  // How a pool's device executes (its kind's hook, include/sonicsim/device_kinds/), and what the
  // kind is told of the pool: the engine and the formulas both ask here. A device without an
  // entry in `devices` is a plain gpu.
  device_kinds::PoolFacts device_facts(const ServerPool& pool) const;
  device_kinds::Execution execution_of(const ServerPool& pool) const;
  // Devices hosting the model across all pools (N_GPU for that model).
  // With `for_workload`: those it can use (devices attached to other workloads' nodes are not).
  int devices_hosting(const std::string& model,
                      std::optional<std::size_t> for_workload = std::nullopt) const;
  // The shortest time one of a workload's events can take with no CPU time per event: its
  // hosted requests one after the other, each its model's fastest execution (any batch, any
  // device) plus the network's round trip. It bounds how many events a thread can go through.
  double fastest_event_without_cpu(const Workload& w) const;
};

}  // namespace sonicsim::scenario
