// What a run measured, in engine terms: the counts, histograms and time series the engine fills
// while it runs and closes at the end. results/ turns them into the results file, so this is the
// engine's whole output; it stays apart from the engine's workings so that readers of results
// need not see them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sonicsim/metrics/histogram.hpp>

namespace sonicsim::engine {

// One request followed through the system, for a trace (simulated seconds; NaN for what it had
// not reached when the run ended).
struct RequestTrace {
  std::uint32_t model = 0, thread = 0, device = 0;
  int items = 0, batch_items = 0;  // its own items; its execution's
  double sent = 0.0;               // the client issues it
  double at_server = 0.0;          // queued (after send overhead, transfer, server overhead)
  double exec_start = 0.0, exec_end = 0.0;
  double back = 0.0;  // the response (or error) is back at the client
  bool failed = false;
};

// Which requests to trace: every `every`-th one issued after the warm-up, at most `max`.
struct TraceSettings {
  std::uint64_t every = 0;  // 0: no trace
  std::size_t max = 0;
};

// Everything a run measured, in engine terms; results/ turns it into the results file.
struct RunMetrics {
  double duration = 0.0, warmup = 0.0;
  std::uint64_t events_completed = 0;
  metrics::Histogram time_per_event;

  // A request counts unless it finished before the warm-up ended, so that
  // sent = completed + failed + fallback + in_flight_at_end holds exactly.
  std::uint64_t sent = 0, completed = 0, failed = 0, fallback = 0, in_flight_at_end = 0;
  std::uint64_t requests_simulated = 0;  // served requests finished over the whole run
  metrics::Histogram latency;  // completed requests, from their first try to their response

  // What happened to requests that met trouble (Triton refusals, no server, crashes, client
  // timeouts, preemption), counted like the identity above: when the client learns it, after
  // warm-up.
  struct Resilience {
    std::uint64_t tries = 0, retries = 0;  // tries sent: first tries and retries
    // Failed tries, by why.
    std::uint64_t refused = 0;         // by Triton: queue full, queue timeout, too large
    std::uint64_t no_server = 0;       // no server up for the model, or it was down on arrival
    std::uint64_t server_lost = 0;     // queued or executing when its server crashed or drained
    std::uint64_t client_timeout = 0;  // no response within the client's timeout
    std::uint64_t completed_after_retry = 0;
    std::uint64_t fallback_after_failure = 0;  // part of `fallback`
    double fallback_cpu_seconds = 0.0;         // client CPU those fallbacks took
    // Part of `failed`: requests of events lost when their job was preempted.
    std::uint64_t preempted = 0;
    // Tries the client gave up on (timeout, preemption) that the server may still work on.
    std::uint64_t abandoned = 0;
  };
  Resilience resilience;

  // Job flow (workload.flow) only; over the whole run, warm-up included: a job is one unit
  // from its start to its exit, whenever those fall.
  struct Jobs {
    std::uint64_t total = 0, started = 0, finished = 0;  // started - finished run at the end
    std::uint64_t peak_running = 0;
    metrics::Histogram wall_time;  // finished jobs: from their start to their last event's end
    double last_exit = 0.0;        // when the last finished job exited (0: none did)
    // Time-weighted over the measured span (after warm-up), unlike the counts above: the jobs
    // running on average (from a job's first event to its exit) and their threads. What the
    // formula's N_CPU stands for when jobs come and go (plan reads it).
    double mean_running = 0.0, mean_running_threads = 0.0;
  };

  // Each workload's share of the figures above, counted the same way (its requests are those
  // its threads issue); the totals above are their sums.
  struct Workload {
    std::string name;
    std::uint64_t events_completed = 0;
    metrics::Histogram time_per_event;
    std::uint64_t sent = 0, completed = 0, failed = 0, fallback = 0, in_flight_at_end = 0;
    metrics::Histogram latency;         // completed requests
    double fallback_cpu_seconds = 0.0;  // CPU fallbacks after failure
    // Seconds its client threads' cores spent on CPU work after warm-up (the event's own work,
    // CPU fallbacks), all threads together: what their cores' energy is counted from. Kept per
    // workload only (not per site); counted only when some workload has `core_power` (else 0).
    double cpu_busy_seconds = 0.0;
    // Its job flow, when it has one: an analyst's jobs, whose last exit is the time to insight.
    std::optional<Jobs> jobs;
    // Its worker nodes (`workload.node`), when it has them: how busy they were and how fast their
    // threads ran, and what the same nodes would do running every event on the CPU.
    struct Nodes {
      std::uint64_t count = 0;    // nodes
      int hardware_threads = 0;   // per node
      double busy_seconds = 0.0;  // hardware-thread seconds busy after warm-up, all nodes
      double work_seconds = 0.0;  // the work they did, in seconds at speed factor 1
      // CPU-only on the same nodes: every thread busy all the time (events per second).
      double cpu_only_events_per_s = 0.0;
      double cpu_only_speed_factor = 0.0;  // of the fullest node
    };
    std::optional<Nodes> nodes;
  };
  std::vector<Workload> workloads;  // scenario order
  // With several sites: the same figures for the client nodes of each site (all workloads), in
  // scenario order; and the bytes that left site a for site b over the WAN, egress_bytes[a][b]
  // (requests towards their servers, responses back to their clients).
  std::vector<Workload> sites;
  std::vector<std::vector<double>> egress_bytes;

  struct Model {
    std::string name;
    std::uint64_t executions = 0, items = 0, requests = 0;
    metrics::Histogram queue_time, compute_time, latency;
    // Per request rather than per execution, as Triton's statistics and perf_analyzer report
    // them: each request is charged its whole execution's time and batch.
    std::uint64_t executed_requests = 0;
    double executed_request_seconds = 0.0, executed_request_items = 0.0;
    // Requests Triton refused, counted like RunMetrics::failed (when the error gets back to the
    // client, after warm-up), by reason; they sum to this model's share of `failed`.
    std::uint64_t rejected_queue_full = 0;  // arrived with max_queue_size requests queued
    std::uint64_t rejected_timeout = 0;     // waited beyond default_timeout under REJECT
    std::uint64_t rejected_too_large = 0;   // more items than max_batch_size
    std::uint64_t rejected() const {
      return rejected_queue_full + rejected_timeout + rejected_too_large;
    }
    double mean_batch_size() const {
      return executions ? static_cast<double>(items) / static_cast<double>(executions) : 0.0;
    }
  };
  std::vector<Model> models;  // scenario order

  // The module behind each request kind (`workload.requests[i]` of a closed loop): per event, the
  // time it waited for that kind's requests, from the first one's send to the last one's end
  // (completed, failed or computed locally), after warm-up. Events lost to preemption are not
  // counted.
  struct Module {
    std::uint32_t workload = 0, request = 0;  // indices into workloads and its requests
    metrics::Histogram wait;
  };
  std::vector<Module> modules;  // one per request kind of a closed loop, scenario order

  struct Pool {
    std::string name, device;
    std::vector<double> utilization;  // per device, after warm-up
    std::uint64_t executions = 0;
    double mean_utilization() const;
    // Server hosts with cores (`servers[i].host`): a request's mean time in the host stage
    // (queue and work, before the batcher, before its execution and after it).
    double host_seconds_per_request = 0.0;
    int host_cores = 0;

    // Site operations (autoscaler, crashes); after warm-up unless said otherwise.
    bool operated = false;            // the pool has an autoscaler or faults: fields below set
    double replica_seconds_up = 0.0;  // device-seconds serving (GPU-hours x 3600)
    double mean_replicas_up = 0.0;    // time-weighted
    int peak_replicas = 0;            // asked for, whole run
    std::uint64_t crashes = 0;        // whole run
    // Every change of the replicas asked for, whole run, and why.
    struct Scaling {
      double time = 0.0;
      int from = 0, to = 0, raw = 0;
      double metric = 0.0;
      std::string why;
    };
    std::vector<Scaling> scaling;
    std::vector<double> host_utilization;  // per host, after warm-up; empty: host not modelled
    // Devices that overlap executions or are pipelines only (else empty): per device, the time
    // average of the executions running on it (a pipeline: the requests inside it).
    std::vector<double> mean_executions;
    // Device memory and model loading (models.M.memory, load_time, servers[i].model_control).
    bool memory_tracked = false;     // the pool uses them: fields below set
    double memory_used_bytes = 0.0;  // the most one device held loaded (or loading), whole run
    std::optional<double> memory_capacity_bytes;       // devices.D.memory; unset: no limit
    std::uint64_t model_loads = 0, model_unloads = 0;  // after warm-up, when they end
    double load_time_s = 0.0;                          // the loads' load_time, summed
  };
  std::vector<Pool> pools;

  struct Link {
    std::string name;
    int count = 1;  // NIC classes aggregate one link per node or device
    double bandwidth = 0.0, latency = 0.0;
    // Links are full duplex: each direction has the whole bandwidth, so loads are per direction.
    // [0]: towards the servers, [1]: towards the clients. After warm-up, all links of the class.
    // With several sites a link between sites carries both in each direction, so there [0] is
    // its forward direction (a site uplink: leaving the site; a WAN link: from its first end to
    // its second) and `payload` keeps what went towards the servers and the clients.
    double bytes[2] = {0.0, 0.0};
    double payload[2] = {0.0, 0.0};
    double busiest_bytes = 0.0;  // the busiest direction of the busiest single link of the class
    double window = 1.0;
    std::vector<double> window_bytes[2];  // bytes per window, class total
    // `bytes`, `payload`, `busiest_bytes` and `window_bytes` are carried: counted as they pass
    // (with flows, as the flows deliver them; so never more than the bandwidth allows). What
    // was offered, counted when sent (the demand, which the analytic transport lets through
    // whole): the same per direction and window.
    double offered[2] = {0.0, 0.0};
    std::vector<double> offered_window_bytes[2];
    // The class's bandwidth factor over the whole run, (from, factor) steps from time 0, when
    // `faults` degrade it (empty otherwise): the report names the outages that shaped a run.
    std::vector<std::pair<double, double>> bandwidth_factors;

    double total_bytes() const { return bytes[0] + bytes[1]; }
    // Busiest window of the busier direction, over the class's capacity: carried, offered.
    double peak_utilization() const;
    double offered_peak_utilization() const;
    double busiest_utilization(double span) const { return busiest_bytes / (span * bandwidth); }
  };
  std::vector<Link> links;

  std::string transport;  // "analytic", "flow", or "flow to servers, analytic back" etc.

  std::vector<RequestTrace> trace;  // the sample TraceSettings asked for, in issue order

  // The run in windows of `interval` simulated seconds from time 0, warm-up included (the
  // scenario's `timeseries`); window k ends at t[k]. Rates are per second of the window.
  struct TimeSeries {
    double interval = 0.0;
    std::vector<double> t;
    std::vector<double> events_per_s;  // events completed
    struct Device {
      std::uint32_t pool = 0, index = 0;  // index within its pool
      std::vector<double> utilization;    // busy fraction of the window
      std::vector<double> queue_length;   // requests queued at the window's end, all models
      std::vector<std::uint8_t> serving;  // 1: up or draining at the window's end
      // With timeseries.replicas only (not in the results; what Triton's nv_gpu_memory_used_bytes
      // shows): bytes of the models loaded or loading at the window's end.
      std::vector<double> memory_used;
    };
    std::vector<Device> devices;
    struct Model {
      std::vector<double> inferences_per_s, executions_per_s, mean_batch_size;  // 0: none
      std::vector<double> latency_p50_s, latency_p99_s;  // completed requests; 0: none
      // Requests completed at their clients and their latencies summed (what a proxy in front
      // of the servers counts; not in the results file).
      std::vector<double> completed, latency_sum_s;
    };
    std::vector<Model> models;  // scenario order
    struct Link {
      std::vector<double> bytes_per_s[2];  // class total: [0] to the servers, [1] back
      std::vector<double> utilization;     // busier direction, over the class's capacity
    };
    std::vector<Link> links;           // like `links`
    std::vector<double> running_jobs;  // job flow only: jobs running at the window's end
    struct Pool {
      std::vector<double> replicas;  // asked for, at the window's end
      std::vector<double> ready;     // up and serving, at the window's end
    };
    std::vector<Pool> pools;  // operated pools only (others: empty vectors)
    struct Workload {
      std::vector<double> events_per_s;
      std::vector<double> latency_p50_s, latency_p99_s;  // completed requests; 0: none
    };
    std::vector<Workload> workloads;  // like RunMetrics::workloads
    // What Triton's per-model counters (nv_inference_*) grew by in each window, on the servers
    // of one pool (`servers`: every pool and model it hosts) or on one server (`replicas`: with
    // `timeseries.replicas`, every device and model its pool hosts). Requests succeed and are
    // charged their queue and compute time when their execution ends, as Triton counts them;
    // failures are the requests Triton refuses (queue full, queue timeout, too large).
    struct Counters {
      std::uint32_t pool = 0, model = 0;
      std::int32_t replica = -1;  // the device's index in its pool; -1: the whole pool
      std::vector<double> requests, failures, inferences, executions;
      std::vector<double> queue_s, compute_s;  // summed over the requests
    };
    std::vector<Counters> servers, replicas;
  };
  // The engine engages these optional blocks with emplace(T{}), not emplace(): clang 14 (the
  // Fuzz build) takes a nested struct with default member initializers as not default
  // constructible inside its enclosing class, and std::optional::emplace() then fails to compile.
  std::optional<TimeSeries> timeseries;

  // Open loop (workload.arrivals) only; counts after warm-up.
  struct OpenLoop {
    std::uint64_t arrivals = 0;  // dropped ones included
    std::uint64_t dropped = 0;   // found max_in_flight requests outstanding: not sent
    std::uint64_t requests_sent = 0;
    std::uint64_t peak_in_flight = 0;  // requests outstanding at once
  };
  std::optional<OpenLoop> open_loop;

  std::optional<Jobs> jobs;  // all workloads with a flow together
  // Preemption (faults); whole run.
  struct Preemptions {
    std::uint64_t jobs = 0;         // preemptions of a job
    std::uint64_t events_lost = 0;  // events in progress when their job was preempted
  };
  Preemptions preemptions;
  // Admission (load_balancer.admission); whole run.
  struct Admission {
    std::uint64_t connections = 0;  // admitted
    std::uint64_t refused = 0;      // connection attempts refused
    std::uint64_t requests = 0;     // requests of jobs not admitted (after warm-up), part of
                                    // fallback or failed
  };
  std::optional<Admission> admission;
  // The load balancer as a server (load_balancer.capacity); after warm-up.
  struct Balancer {
    std::uint64_t messages = 0;    // requests and responses through it
    double cpu_utilization = 0.0;  // busy workers / workers, time-averaged
    double nic_utilization = 0.0;  // its NIC's busy fraction
    metrics::Histogram wait;       // per message: arrival to leaving the NIC, minus service
  };
  std::optional<Balancer> balancer;

  // Requests in flight gained per second over the measured span (sent minus finished): about 0
  // while the servers keep up, the excess of the offered rate over what they finish past
  // saturation. Open loop only (a closed loop cannot grow its backlog).
  double backlog_growth_per_s() const;
  // Open loop past saturation: arrivals were dropped at max_in_flight, or the backlog grew by more
  // than 1% of the request rate sent (count noise stays far below that).
  bool backlog_growing() const;

  double span() const { return duration - warmup; }  // the measured part of the run
  double throughput() const { return static_cast<double>(events_completed) / span(); }
  // N_CPU / throughput: what t_SONIC predicts, in sync and async mode alike.
  double thread_time_per_event(std::int64_t threads) const {
    return events_completed ? static_cast<double>(threads) / throughput() : 0.0;
  }
};

}  // namespace sonicsim::engine
