// The results file's key names (docs/results.md), each spelled once. The writers (results.cpp
// for the run, analytic::to_json through writer.hpp for the `analytic` block) write every key
// through these constants and every reader reads through them: the typed reader (reader.hpp), the
// sweep's flattened column names (sweep::flatten_metrics and the report's sweep charts) and plan's
// metric names. Renaming a key here renames it on both sides; removing one fails the build wherever
// it was used.
//
// One namespace per block of the document, holding the keys of one object of that block (an
// element of an array, a value of a map by name): keys::top for the top level, keys::server for
// an element of `servers`, keys::quantile for every distribution summary (`latency_s`, ...).
// The same text in two blocks is two constants, so that one can change without the other.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace sonicsim::results::keys {

// The top level, in the order the writer puts the keys.
namespace top {
inline constexpr char sonicsim_version[] = "sonicsim_version";
inline constexpr char scenario[] = "scenario";
inline constexpr char scenario_sha256[] = "scenario_sha256";
inline constexpr char scenario_files[] = "scenario_files";  // files the scenario refers to
inline constexpr char seed[] = "seed";
inline constexpr char simulated_time_s[] = "simulated_time_s";
inline constexpr char warmup_s[] = "warmup_s";
inline constexpr char events[] = "events";
inline constexpr char requests[] = "requests";
inline constexpr char workloads[] = "workloads";  // several workloads only
inline constexpr char sites[] = "sites";          // several sites only (docs/sites.md)
inline constexpr char egress[] = "egress";        // several sites only
inline constexpr char arrivals[] = "arrivals";    // open loop only
inline constexpr char jobs[] = "jobs";            // job flows only
inline constexpr char nodes[] = "nodes";          // workloads with `node` only
inline constexpr char modules[] = "modules";      // closed loops only
inline constexpr char load_balancer[] = "load_balancer";
inline constexpr char admission[] = "admission";
inline constexpr char preemptions[] = "preemptions";
inline constexpr char models[] = "models";    // by model name
inline constexpr char servers[] = "servers";  // one element per pool
inline constexpr char devices[] = "devices";  // a catalogue device's figures (docs/devices.md)
inline constexpr char energy[] = "energy";    // with some power given (docs/servers.md)
inline constexpr char cost[] = "cost";        // with `prices`
inline constexpr char links[] = "links";
inline constexpr char network[] = "network";
inline constexpr char analytic[] = "analytic";
inline constexpr char timeseries[] = "timeseries";
inline constexpr char perf[] = "perf";  // timings: the one block that differs run to run
}  // namespace top

// An element of `scenario_files`.
namespace file {
inline constexpr char path[] = "path";
inline constexpr char sha256[] = "sha256";
}  // namespace file

// A distribution's summary: time_per_event_s, latency_s, queue_time_s, wall_time_s, ...
// (p95 in latencies only).
namespace quantile {
inline constexpr char mean[] = "mean";
inline constexpr char p50[] = "p50";
inline constexpr char p90[] = "p90";
inline constexpr char p95[] = "p95";
inline constexpr char p99[] = "p99";
inline constexpr char max[] = "max";
inline constexpr char histogram[] = "histogram";  // requests.latency_s only
}  // namespace quantile

// requests.latency_s.histogram: log-spaced bins, edges one longer than counts.
namespace histogram {
inline constexpr char edges_s[] = "edges_s";
inline constexpr char counts[] = "counts";
}  // namespace histogram

// `events`, of the run and of each workload.
namespace events {
inline constexpr char completed[] = "completed";
inline constexpr char throughput_per_s[] = "throughput_per_s";
inline constexpr char per_job_throughput_per_s[] = "per_job_throughput_per_s";
inline constexpr char time_per_event_s[] = "time_per_event_s";  // quantiles
inline constexpr char thread_time_per_event_s[] = "thread_time_per_event_s";
}  // namespace events

// `requests`, of the run and of each workload.
namespace requests {
inline constexpr char sent[] = "sent";
inline constexpr char completed[] = "completed";
inline constexpr char failed[] = "failed";
inline constexpr char fallback[] = "fallback";
inline constexpr char in_flight_at_end[] = "in_flight_at_end";
inline constexpr char latency_s[] = "latency_s";  // quantiles
inline constexpr char resilience[] = "resilience";
inline constexpr char fallback_cpu_s[] = "fallback_cpu_s";  // a workload's only
}  // namespace requests

// requests.resilience: what the client's tries met.
namespace resilience {
inline constexpr char tries[] = "tries";
inline constexpr char retries[] = "retries";
inline constexpr char failed_tries[] = "failed_tries";
inline constexpr char completed_after_retry[] = "completed_after_retry";
inline constexpr char fallback_after_failure[] = "fallback_after_failure";
inline constexpr char fallback_cpu_s[] = "fallback_cpu_s";
inline constexpr char preempted[] = "preempted";
inline constexpr char abandoned_tries[] = "abandoned_tries";
}  // namespace resilience

// requests.resilience.failed_tries, by why.
namespace failed_tries {
inline constexpr char refused[] = "refused";
inline constexpr char no_server[] = "no_server";
inline constexpr char server_lost[] = "server_lost";
inline constexpr char client_timeout[] = "client_timeout";
}  // namespace failed_tries

// An element of `workloads`.
namespace workload {
inline constexpr char name[] = "name";
inline constexpr char priority[] = "priority";
inline constexpr char jobs[] = "jobs";
inline constexpr char threads[] = "threads";
inline constexpr char mode[] = "mode";
inline constexpr char events[] = "events";      // keys::events
inline constexpr char requests[] = "requests";  // keys::requests
inline constexpr char job_flow[] = "job_flow";  // keys::jobs, its flow's jobs alone
}  // namespace workload

// An element of `sites`: the figures of the client nodes at the site (all workloads), and the
// bytes that left and entered it over the WAN.
namespace site {
inline constexpr char name[] = "name";
inline constexpr char client_nodes[] = "client_nodes";
inline constexpr char threads[] = "threads";
inline constexpr char devices[] = "devices";
inline constexpr char events[] = "events";      // keys::events
inline constexpr char requests[] = "requests";  // keys::requests
inline constexpr char bytes_out[] = "bytes_out";
inline constexpr char bytes_in[] = "bytes_in";
inline constexpr char egress_cost[] = "egress_cost";  // null without egress_price_per_gb
}  // namespace site

// An element of `egress`: bytes from one site to another over the WAN (requests and responses).
namespace egress {
inline constexpr char from[] = "from";
inline constexpr char to[] = "to";
inline constexpr char bytes[] = "bytes";
inline constexpr char cost[] = "cost";  // null without the sender's egress_price_per_gb
}  // namespace egress

namespace arrivals {
inline constexpr char rate_per_s[] = "rate_per_s";
inline constexpr char distribution[] = "distribution";
inline constexpr char max_in_flight[] = "max_in_flight";
inline constexpr char arrived[] = "arrived";
inline constexpr char offered_per_s[] = "offered_per_s";
inline constexpr char dropped[] = "dropped";
inline constexpr char requests_sent[] = "requests_sent";
inline constexpr char peak_in_flight[] = "peak_in_flight";
inline constexpr char backlog_growth_per_s[] = "backlog_growth_per_s";
inline constexpr char backlog_growing[] = "backlog_growing";
}  // namespace arrivals

namespace jobs {
inline constexpr char total[] = "total";
inline constexpr char started[] = "started";
inline constexpr char finished[] = "finished";
inline constexpr char running_at_end[] = "running_at_end";
inline constexpr char not_started[] = "not_started";
inline constexpr char peak_running[] = "peak_running";
inline constexpr char mean_running[] = "mean_running";  // time-weighted, after warm-up
inline constexpr char mean_running_threads[] = "mean_running_threads";
inline constexpr char wall_time_s[] = "wall_time_s";  // quantiles
inline constexpr char last_exit_s[] = "last_exit_s";
}  // namespace jobs

// An element of `nodes`: one workload's worker nodes (docs/nodes.md).
namespace nodes {
inline constexpr char workload[] = "workload";  // its name ("" for the single `workload`)
inline constexpr char count[] = "count";
inline constexpr char hardware_threads[] = "hardware_threads";            // per node
inline constexpr char mean_busy_threads[] = "mean_busy_threads";          // per node, time-weighted
inline constexpr char mean_occupancy[] = "mean_occupancy";                // busy / hardware threads
inline constexpr char mean_speed_factor[] = "mean_speed_factor";          // over busy thread time
inline constexpr char cpu_only_speed_factor[] = "cpu_only_speed_factor";  // a full node's
inline constexpr char cpu_only_throughput_per_s[] = "cpu_only_throughput_per_s";
inline constexpr char speedup_vs_cpu_only[] = "speedup_vs_cpu_only";  // null with a job flow
}  // namespace nodes

// An element of `modules`: the module behind one request kind, `workload.requests[i]`.
namespace module {
inline constexpr char workload[] = "workload";  // its workload's name ("" for the single one)
inline constexpr char request[] = "request";    // i
inline constexpr char model[] = "model";
inline constexpr char served[] = "served";  // false: no server hosts it (inference on the CPU)
inline constexpr char requests_per_event[] = "requests_per_event";
inline constexpr char wait_s[] = "wait_s";  // quantiles, per event
inline constexpr char module_cpu_time_s[] = "module_cpu_time_s";
inline constexpr char module_time_s[] = "module_time_s";  // quantiles: wait + module_cpu_time
}  // namespace module

namespace load_balancer {
inline constexpr char messages[] = "messages";
inline constexpr char cpu_utilization[] = "cpu_utilization";
inline constexpr char nic_utilization[] = "nic_utilization";
inline constexpr char wait_s[] = "wait_s";  // quantiles
}  // namespace load_balancer

namespace admission {
inline constexpr char connections[] = "connections";
inline constexpr char refused[] = "refused";
inline constexpr char requests_not_admitted[] = "requests_not_admitted";
}  // namespace admission

namespace preemptions {
inline constexpr char jobs[] = "jobs";
inline constexpr char events_lost[] = "events_lost";
}  // namespace preemptions

// A value of `models` (keyed by the model's name).
namespace model {
inline constexpr char inferences_per_s[] = "inferences_per_s";
inline constexpr char requests[] = "requests";
inline constexpr char rejected[] = "rejected";
inline constexpr char rejected_by[] = "rejected_by";
inline constexpr char executions[] = "executions";
inline constexpr char mean_batch_size[] = "mean_batch_size";
inline constexpr char queue_time_s[] = "queue_time_s";      // quantiles
inline constexpr char compute_time_s[] = "compute_time_s";  // quantiles
inline constexpr char latency_s[] = "latency_s";            // quantiles
}  // namespace model

// models.NAME.rejected_by, by why.
namespace rejected_by {
inline constexpr char queue_full[] = "queue_full";
inline constexpr char timeout[] = "timeout";
inline constexpr char above_max_batch_size[] = "above_max_batch_size";
}  // namespace rejected_by

// An element of `servers`: one pool.
namespace server {
inline constexpr char name[] = "name";
inline constexpr char device[] = "device";
inline constexpr char count[] = "count";
inline constexpr char utilization[] = "utilization";
inline constexpr char executions[] = "executions";
inline constexpr char utilization_min[] = "utilization_min";
inline constexpr char utilization_max[] = "utilization_max";
// Pools with an autoscaler or faults only:
inline constexpr char utilization_per_device[] = "utilization_per_device";
inline constexpr char replicas[] = "replicas";
inline constexpr char scaling[] = "scaling";
// Pools whose hosts have cores (`servers[i].host.cores`) only:
inline constexpr char host[] = "host";
// Pools whose device overlaps executions or is a pipeline only (docs/servers.md):
inline constexpr char mean_executions[] = "mean_executions";
// Pools that use device memory, model load times or explicit model control only:
inline constexpr char memory_used_bytes[] = "memory_used_bytes";
inline constexpr char memory_capacity_bytes[] = "memory_capacity_bytes";  // null: no limit
inline constexpr char model_loads[] = "model_loads";
inline constexpr char model_unloads[] = "model_unloads";
inline constexpr char load_time_s[] = "load_time_s";
}  // namespace server

// servers[i].host: the machines the pool's devices sit in (docs/servers.md).
namespace server_host {
inline constexpr char hosts[] = "hosts";
inline constexpr char cores[] = "cores";
inline constexpr char devices_per_host[] = "devices_per_host";
inline constexpr char utilization[] = "utilization";          // busy cores / cores, mean over hosts
inline constexpr char utilization_max[] = "utilization_max";  // of the busiest host
// A request's mean time on its host (queue and work, before the batcher, before its execution,
// after it), after the warm-up.
inline constexpr char time_per_request_s[] = "time_per_request_s";
}  // namespace server_host

// servers[i].replicas.
namespace replicas {
inline constexpr char mean_up[] = "mean_up";
inline constexpr char peak[] = "peak";
inline constexpr char device_hours_up[] = "device_hours_up";
inline constexpr char crashes[] = "crashes";
}  // namespace replicas

// An element of servers[i].scaling: one change of the replica count.
namespace scaling {
inline constexpr char t_s[] = "t_s";
inline constexpr char from[] = "from";
inline constexpr char to[] = "to";
inline constexpr char recommended[] = "recommended";
inline constexpr char metric[] = "metric";
inline constexpr char why[] = "why";
}  // namespace scaling

// devices.NAME: the memory and power a device named NAME (a pool's `device`) had in the run, and
// where each came from (keys::figure_source; null: the device has none).
namespace device {
inline constexpr char catalogue[] = "catalogue";  // the catalogue entry, null: none
inline constexpr char memory_bytes[] = "memory_bytes";
inline constexpr char memory_from[] = "memory_from";
inline constexpr char power_idle_w[] = "power_idle_w";
inline constexpr char power_idle_from[] = "power_idle_from";
inline constexpr char power_busy_w[] = "power_busy_w";
inline constexpr char power_busy_from[] = "power_busy_from";
}  // namespace device

// The values of devices.NAME.*_from.
namespace figure_source {
inline constexpr char scenario[] = "scenario";
inline constexpr char catalogue[] = "catalogue";
// The catalogue's idle power, which no vendor publishes: an estimate by its rule.
inline constexpr char catalogue_estimate[] = "catalogue-estimate";
}  // namespace figure_source

// `energy`: joules over the measured period (after warm-up).
namespace energy {
inline constexpr char joules[] = "joules";
inline constexpr char per_event_j[] = "per_event_j";  // null without events
inline constexpr char mean_power_w[] = "mean_power_w";
inline constexpr char components[] = "components";  // keys::energy_component
}  // namespace energy

// energy.components: joules by what drew them.
namespace energy_component {
inline constexpr char devices[] = "devices";
inline constexpr char hosts[] = "hosts";
inline constexpr char client_cores[] = "client_cores";
}  // namespace energy_component

// `cost`: in the currency of `prices`.
namespace cost {
inline constexpr char per_event[] = "per_event";                    // null without events
inline constexpr char per_million_events[] = "per_million_events";  // null without events
inline constexpr char hourly[] = "hourly";
inline constexpr char components[] = "components";  // keys::cost_component, per hour
}  // namespace cost

// cost.components: the hourly cost by what it pays for; they sum to cost.hourly.
namespace cost_component {
inline constexpr char devices[] = "devices";
inline constexpr char hosts[] = "hosts";
inline constexpr char client_cores[] = "client_cores";
inline constexpr char energy[] = "energy";
inline constexpr char egress[] = "egress";
}  // namespace cost_component

// An element of `links`: one link class.
namespace link {
inline constexpr char name[] = "name";
inline constexpr char count[] = "count";
inline constexpr char bandwidth_Bps[] = "bandwidth_Bps";
inline constexpr char latency_s[] = "latency_s";
inline constexpr char bytes[] = "bytes";
inline constexpr char bytes_to_servers[] = "bytes_to_servers";
inline constexpr char bytes_to_clients[] = "bytes_to_clients";
inline constexpr char mean_bandwidth_Bps[] = "mean_bandwidth_Bps";
inline constexpr char mean_utilization[] = "mean_utilization";
inline constexpr char peak_utilization[] = "peak_utilization";
inline constexpr char peak_window_s[] = "peak_window_s";
inline constexpr char busiest_utilization[] = "busiest_utilization";
inline constexpr char offered_mean_utilization[] = "offered_mean_utilization";
inline constexpr char offered_peak_utilization[] = "offered_peak_utilization";
// Scenarios with link faults only: seconds after the warm-up at a reduced bandwidth (outages
// included), and at none.
inline constexpr char degraded_s[] = "degraded_s";
inline constexpr char outage_s[] = "outage_s";
}  // namespace link

namespace network {
inline constexpr char transport[] = "transport";
inline constexpr char reason[] = "reason";
inline constexpr char flow_solver[] = "flow_solver";
inline constexpr char predicted_busiest_link_utilization[] = "predicted_busiest_link_utilization";
inline constexpr char observed_busiest_link_utilization[] = "observed_busiest_link_utilization";
inline constexpr char runs[] = "runs";
}  // namespace network

// `analytic`: the formulas' and MVA's prediction (docs/analytic.md), written by
// analytic::to_json (src/analytic/report.cpp) through these keys. Unordered: the block is
// written as a plain JSON object, so its keys come out sorted.
namespace analytic {
inline constexpr char mode[] = "mode";
inline constexpr char t_cpu_s[] = "t_cpu_s";
inline constexpr char p[] = "p";
inline constexpr char p_fallback[] = "p_fallback";
inline constexpr char t_gpu_s[] = "t_gpu_s";
inline constexpr char t_latency_s[] = "t_latency_s";
inline constexpr char n_cpu[] = "n_cpu";
inline constexpr char n_gpu[] = "n_gpu";
inline constexpr char t_ideal_s[] = "t_ideal_s";
inline constexpr char t_sonic_s[] = "t_sonic_s";
inline constexpr char saturated[] = "saturated";
inline constexpr char saturation_n_cpu_per_gpu[] = "saturation_n_cpu_per_gpu";
inline constexpr char throughput_per_s[] = "throughput_per_s";
inline constexpr char binding_pool[] = "binding_pool";  // null when no pool binds
inline constexpr char network[] = "network";
inline constexpr char per_model[] = "per_model";      // by model name
inline constexpr char per_pool[] = "per_pool";        // one element per pool
inline constexpr char mva[] = "mva";                  // null in async mode
inline constexpr char mva_batched[] = "mva_batched";  // null where mva is
inline constexpr char arrivals[] = "arrivals";        // open loop only
inline constexpr char sites[] = "sites";              // several sites only
inline constexpr char node[] = "node";                // with workload.node, sync closed loops
inline constexpr char notes[] = "notes";
// A run of a closed loop with dynamic batching only (not `sonicsim analytic`).
inline constexpr char formed_batches[] = "formed_batches";
}  // namespace analytic

// analytic.node: the formula at the occupancy offloading leaves on a worker node.
namespace analytic_node {
inline constexpr char threads_per_node[] = "threads_per_node";
inline constexpr char cpu_only_speed_factor[] = "cpu_only_speed_factor";
inline constexpr char cpu_only_time_per_event_s[] = "cpu_only_time_per_event_s";
inline constexpr char mean_busy_threads[] = "mean_busy_threads";
inline constexpr char speed_factor[] = "speed_factor";
inline constexpr char t_cpu_eff_s[] = "t_cpu_eff_s";
inline constexpr char t_sonic_s[] = "t_sonic_s";
inline constexpr char speedup_vs_cpu_only[] = "speedup_vs_cpu_only";
}  // namespace analytic_node

// analytic.formed_batches: the formula at the batches the run formed.
namespace analytic_formed {
inline constexpr char mean_batch_size[] = "mean_batch_size";
inline constexpr char t_gpu_s[] = "t_gpu_s";
inline constexpr char t_ideal_s[] = "t_ideal_s";
inline constexpr char t_sonic_s[] = "t_sonic_s";
inline constexpr char saturated[] = "saturated";
inline constexpr char saturation_n_cpu_per_gpu[] = "saturation_n_cpu_per_gpu";
}  // namespace analytic_formed

// analytic.network: the path one event's requests take.
namespace analytic_network {
inline constexpr char bytes_in_per_event[] = "bytes_in_per_event";
inline constexpr char bytes_out_per_event[] = "bytes_out_per_event";
inline constexpr char round_trip_latency_s[] = "round_trip_latency_s";
inline constexpr char path_bandwidth_Bps[] = "path_bandwidth_Bps";
inline constexpr char links[] = "links";
}  // namespace analytic_network

// An element of analytic.network.links.
namespace analytic_link {
inline constexpr char name[] = "name";
inline constexpr char bandwidth_Bps[] = "bandwidth_Bps";
inline constexpr char latency_s[] = "latency_s";
inline constexpr char load_Bps[] = "load_Bps";
inline constexpr char utilization[] = "utilization";
}  // namespace analytic_link

// A value of analytic.per_model.
namespace analytic_model {
inline constexpr char served[] = "served";
inline constexpr char offload_fraction[] = "offload_fraction";
inline constexpr char requests_per_event[] = "requests_per_event";
inline constexpr char mean_items[] = "mean_items";
inline constexpr char t_gpu_s[] = "t_gpu_s";
inline constexpr char t_gpu_routed_s[] = "t_gpu_routed_s";
inline constexpr char t_latency_s[] = "t_latency_s";
inline constexpr char n_gpu[] = "n_gpu";
inline constexpr char pools[] = "pools";
inline constexpr char t_gpu_full_batch_s[] = "t_gpu_full_batch_s";
inline constexpr char mva_request_latency_s[] = "mva_request_latency_s";
}  // namespace analytic_model

// An element of analytic.per_pool.
namespace analytic_pool {
inline constexpr char name[] = "name";
inline constexpr char device[] = "device";
inline constexpr char count[] = "count";
inline constexpr char models[] = "models";
inline constexpr char in_use[] = "in_use";
inline constexpr char demand_s[] = "demand_s";
inline constexpr char demand_per_device_s[] = "demand_per_device_s";
inline constexpr char demand_per_device_full_batch_s[] = "demand_per_device_full_batch_s";
inline constexpr char saturation_n_cpu_per_gpu[] = "saturation_n_cpu_per_gpu";
inline constexpr char saturation_n_cpu[] = "saturation_n_cpu";
inline constexpr char saturated[] = "saturated";
inline constexpr char binding[] = "binding";
inline constexpr char utilization[] = "utilization";
}  // namespace analytic_pool

// analytic.arrivals (open loop).
namespace analytic_arrivals {
inline constexpr char rate_per_s[] = "rate_per_s";
inline constexpr char saturation_rate_per_s[] = "saturation_rate_per_s";
}  // namespace analytic_arrivals

// An element of analytic.sites.
namespace analytic_site {
inline constexpr char name[] = "name";
inline constexpr char threads[] = "threads";
inline constexpr char t_latency_s[] = "t_latency_s";
inline constexpr char t_sonic_s[] = "t_sonic_s";
inline constexpr char mva_time_per_event_s[] = "mva_time_per_event_s";  // with MVA only
}  // namespace analytic_site

// analytic.mva: exact mean value analysis (sync mode). The per-pool maps hold pools in use.
namespace mva {
inline constexpr char throughput_per_s[] = "throughput_per_s";
inline constexpr char time_per_event_s[] = "time_per_event_s";
inline constexpr char think_time_s[] = "think_time_s";
inline constexpr char device_utilization[] = "device_utilization";    // by pool name
inline constexpr char device_queue_length[] = "device_queue_length";  // by pool name
inline constexpr char device_residence_s[] = "device_residence_s";    // by pool name
inline constexpr char request_latency_s[] = "request_latency_s";      // by model name
inline constexpr char bounds[] = "bounds";
}  // namespace mva

// analytic.mva_batched: MVA with dynamic batching and the links as stations (sync mode). The
// per-pool maps hold pools in use; link_utilization the links with a station (a bandwidth and
// traffic, and network.flow_model not analytic).
namespace mva_batched {
inline constexpr char throughput_per_s[] = "throughput_per_s";
inline constexpr char time_per_event_s[] = "time_per_event_s";
inline constexpr char think_time_s[] = "think_time_s";
inline constexpr char device_utilization[] = "device_utilization";  // by pool name
inline constexpr char mean_batch_items[] = "mean_batch_items";      // by pool name
inline constexpr char link_utilization[] = "link_utilization";      // by link name
}  // namespace mva_batched

// analytic.mva.bounds: balanced-job and asymptotic bounds on the throughput.
namespace mva_bounds {
inline constexpr char throughput_upper_per_s[] = "throughput_upper_per_s";
inline constexpr char throughput_lower_per_s[] = "throughput_lower_per_s";
inline constexpr char throughput_asymptotic_upper_per_s[] = "throughput_asymptotic_upper_per_s";
inline constexpr char knee_n_cpu[] = "knee_n_cpu";
}  // namespace mva_bounds

// `timeseries`: the run in windows, when the scenario asks for it.
namespace timeseries {
inline constexpr char interval_s[] = "interval_s";
inline constexpr char t_s[] = "t_s";  // each window's end
inline constexpr char events_per_s[] = "events_per_s";
inline constexpr char running_jobs[] = "running_jobs";  // job flows only
inline constexpr char workloads[] = "workloads";        // several workloads only, by name
inline constexpr char devices[] = "devices";
inline constexpr char pools[] = "pools";    // pools with an autoscaler or faults only
inline constexpr char models[] = "models";  // by model name
inline constexpr char links[] = "links";
inline constexpr char servers[] = "servers";    // Triton's counters per pool and model
inline constexpr char replicas[] = "replicas";  // ... per replica and model (timeseries.replicas)

// An element of `servers` or `replicas`: rates per second of the window; times per request
// (0: no request in the window).
namespace server {
inline constexpr char pool[] = "pool";
inline constexpr char replica[] = "replica";  // `replicas` only: the device's index in its pool
inline constexpr char model[] = "model";
inline constexpr char requests_per_s[] = "requests_per_s";
inline constexpr char failures_per_s[] = "failures_per_s";
inline constexpr char inferences_per_s[] = "inferences_per_s";
inline constexpr char executions_per_s[] = "executions_per_s";
inline constexpr char queue_time_s[] = "queue_time_s";
inline constexpr char compute_time_s[] = "compute_time_s";
}  // namespace server

namespace workload {
inline constexpr char events_per_s[] = "events_per_s";
inline constexpr char latency_p50_s[] = "latency_p50_s";
inline constexpr char latency_p99_s[] = "latency_p99_s";
}  // namespace workload

namespace device {
inline constexpr char pool[] = "pool";
inline constexpr char index[] = "index";
inline constexpr char utilization[] = "utilization";
inline constexpr char queue_length[] = "queue_length";
}  // namespace device

namespace pool {
inline constexpr char pool[] = "pool";
inline constexpr char replicas[] = "replicas";
inline constexpr char ready[] = "ready";
}  // namespace pool

namespace model {
inline constexpr char inferences_per_s[] = "inferences_per_s";
inline constexpr char executions_per_s[] = "executions_per_s";
inline constexpr char mean_batch_size[] = "mean_batch_size";
inline constexpr char latency_p50_s[] = "latency_p50_s";
inline constexpr char latency_p99_s[] = "latency_p99_s";
}  // namespace model

namespace link {
inline constexpr char name[] = "name";
inline constexpr char bytes_per_s_to_servers[] = "bytes_per_s_to_servers";
inline constexpr char bytes_per_s_to_clients[] = "bytes_per_s_to_clients";
inline constexpr char utilization[] = "utilization";
}  // namespace link
}  // namespace timeseries

namespace perf {
inline constexpr char wall_time_s[] = "wall_time_s";
inline constexpr char simulated_requests[] = "simulated_requests";
inline constexpr char simulated_requests_per_wall_s[] = "simulated_requests_per_wall_s";
inline constexpr char peak_rss_bytes[] = "peak_rss_bytes";
inline constexpr char estimated_peak_rss_bytes[] = "estimated_peak_rss_bytes";
inline constexpr char engine_events[] = "engine_events";
inline constexpr char estimated_engine_events[] = "estimated_engine_events";
inline constexpr char flow_solver[] = "flow_solver";
inline constexpr char quiet_changes[] = "quiet_changes";
inline constexpr char solves[] = "solves";
inline constexpr char flow_visits[] = "flow_visits";
inline constexpr char link_visits[] = "link_visits";
inline constexpr char class_changes[] = "class_changes";
inline constexpr char class_builds[] = "class_builds";
inline constexpr char flows_moved[] = "flows_moved";
}  // namespace perf

}  // namespace sonicsim::results::keys

namespace sonicsim::results {

// A key path's flattened name, the one a sweep CSV column carries (before its `.mean` or
// `.ci95`) and plan reports its metric by: the keys joined by kColumnSeparator, an array element
// by its index. column({top::events, events::throughput_per_s}) is "events.throughput_per_s";
// an empty part leaves the separator alone, for prefixes and suffixes: column({top::servers,
// ""}) is "servers.", column({"", server::utilization}) is ".utilization".
inline constexpr char kColumnSeparator = '.';
std::string column(std::initializer_list<std::string_view> path);

}  // namespace sonicsim::results
