// The analytic predictions of a scenario: the synchronous SONIC formulas (SPEC section 1) with a
// per-model and per-pool breakdown, and exact Mean Value Analysis of the same closed system.
//
// Every derivation from the scenario, and where the models stop being exact, is in
// docs/analytic.md. Times are seconds per event per thread unless named otherwise; a value that
// does not exist (a saturation point without coprocessors) is +inf here and null in JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/analytic/mva.hpp>
#include <sonicsim/analytic/mva_batched.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::analytic {

// One entry of workload.requests as the formulas see it.
struct RequestTerm {
  std::string model;
  int per_event = 1;
  double offload_fraction = 0.0;  // p_i
  bool served = false;            // some pool hosts the model; otherwise CPU fallback
  double mean_items = 1.0;        // E[items after rounding to an integer >= 1]
  double bytes_in = 0.0;          // one request, at mean_items
  double bytes_out = 0.0;
  double network_time_s = 0.0;     // one request's idle round trip with its request overheads
  double gpu_time_s = 0.0;         // one request's busy time, count-weighted harmonic over pools
  double routed_gpu_time_s = 0.0;  // one request's mean busy time under count-share routing
  double t_gpu_s = 0.0;            // per_event x gpu_time_s
  double t_latency_s = 0.0;        // per_event x network_time_s
  // Indexed like Scenario::servers: share of this kind's requests routed to the pool (count /
  // devices hosting the model) and one request's busy time on that pool's device.
  std::vector<double> pool_share;
  std::vector<double> pool_gpu_time_s;
};

// The request kinds of one model, summed.
struct ModelTerm {
  std::string name;
  bool served = false;
  double offload_fraction = 0.0;
  int per_event = 0;
  double mean_items = 0.0;  // per request, averaged over its kinds
  double t_gpu_s = 0.0;
  double t_gpu_routed_s = 0.0;
  double t_latency_s = 0.0;
  int n_gpu = 0;  // devices hosting it
  std::vector<std::string> pools;
  // Busy time per event if every execution ran at the full batch (full_batch_items): the capacity
  // dynamic batching can reach under load. Unset without dynamic batching.
  std::optional<double> t_gpu_full_batch_s;
  std::optional<double> mva_request_latency_s;  // mean request latency (queue + service + net)
};

struct PoolTerm {
  std::string name;
  std::string device;
  int count = 0;
  int servers = 0;                  // Triton servers (hosts), one server NIC each
  std::vector<std::string> models;  // the served models it hosts
  bool in_use = false;              // hosts at least one served model
  double demand_s = 0.0;            // busy time per event over the whole pool (routed share)
  double demand_per_device_s = 0.0;
  // Knee of this pool: n_cpu per device of this pool (t_ideal / demand_s) and in threads
  // (t_ideal / demand_per_device_s). +inf when unused.
  double saturation_n_cpu_per_gpu = 0.0;
  double saturation_n_cpu = 0.0;
  bool saturated = false;
  bool binding = false;      // the pool with the largest demand per device
  double utilization = 0.0;  // at the formula's throughput
  std::optional<double> demand_per_device_full_batch_s;
};

struct LinkTerm {
  scenario::LinkClass link_class = scenario::LinkClass::SiteUplink;
  std::string name;  // link_class_name(link_class)
  double bandwidth_Bps = 0.0;
  double latency_s = 0.0;
  // Both directions of the traffic crossing ONE such link (a client node's NIC, the uplink, one
  // server's NIC) at the formula's throughput, over its bandwidth.
  double load_Bps = 0.0;
  double utilization = 0.0;
};

struct MvaTerm {
  double think_time_s = 0.0;  // Z
  double throughput_per_s = 0.0;
  double time_per_event_s = 0.0;  // per thread: n_cpu / X
  // Indexed like Prediction::pools; per device of the pool.
  std::vector<double> device_utilization;
  std::vector<double> device_queue_length;
  std::vector<double> device_residence_s;  // per event
  ThroughputBounds bounds;
};

// With several sites: the formula for the threads at one site. Requests go where the routing
// sends them at light load (local_first: the local site if it hosts the model, else the nearest;
// least_latency: the nearest; pinned: its site; weighted: the weighted mean over the sites), so
// each site has its own t_latency; t_GPU and the queueing term are the whole run's.
struct SiteTerm {
  std::string name;
  std::int64_t threads = 0;
  double t_latency_s = 0.0;
  double t_sonic_s = 0.0;
  // Multi-class MVA's time per event of the site's threads (sync mode, sites whose t_latency
  // differ); unset otherwise.
  std::optional<double> mva_time_per_event_s;
};

// With worker nodes (`workload.node`, docs/nodes.md): the formula at the occupancy offloading
// leaves. A thread is busy (1 - p) t_CPU,eff of each t_event, so a node of n threads has
// B = n (1 - p) t_CPU,eff / t_event busy on average, and runs them at f(B) (the node's speed
// factor): t_CPU,eff = t_CPU / f(B). A mean-field fixed point (nodes.cpp), iterated from the full
// node's f(n), which it only ever raises. Sync mode, closed loops only.
struct NodeTerm {
  double threads_per_node = 0.0;           // n: the fullest node's
  double cpu_only_speed_factor = 0.0;      // f(n): every thread busy, as CPU-only
  double cpu_only_time_per_event_s = 0.0;  // t_CPU / f(n)
  double mean_busy_threads = 0.0;          // B
  double speed_factor = 0.0;               // f(B)
  double t_cpu_eff_s = 0.0;                // t_CPU / f(B)
  double t_sonic_s = 0.0;                  // the formula with t_CPU,eff
  double speedup_vs_cpu_only = 0.0;        // cpu_only_time_per_event_s / t_sonic_s
};

struct Prediction {
  std::string scenario;
  scenario::Mode mode = scenario::Mode::Sync;

  // The SPEC `analytic` block.
  double t_cpu_s = 0.0;
  double p = 0.0;  // offload fraction of the served requests only
  double t_gpu_s = 0.0;
  double t_latency_s = 0.0;
  std::int64_t n_cpu = 0;
  std::int64_t n_gpu = 0;
  double t_ideal_s = 0.0;
  double t_sonic_s = 0.0;
  bool saturated = false;
  double saturation_n_cpu_per_gpu = 0.0;  // +inf without coprocessors

  double p_fallback = 0.0;        // offload fraction of requests no pool serves
  double throughput_per_s = 0.0;  // n_cpu / t_sonic
  int binding_pool = -1;          // index into pools, -1 without coprocessors
  double bytes_in_per_event = 0.0;
  double bytes_out_per_event = 0.0;
  double round_trip_latency_s = 0.0;  // 2 x sum of the path's latencies
  double path_bandwidth_Bps = 0.0;    // narrowest link on the path, +inf without links

  // Open loop (workload.arrivals): events arrive at this rate whatever the responses, so there is
  // no N_CPU, no knee and no MVA. The pools carry the rate until the binding one is fully busy
  // (at saturation_rate_per_s, each request executing alone); t_SONIC is then the unloaded event
  // time t_ideal below saturation (queueing aside) and +inf past it, throughput the rate carried.
  std::optional<double> arrival_rate_per_s;
  double saturation_rate_per_s = 0.0;

  std::vector<RequestTerm> requests;  // like workload.requests
  std::vector<ModelTerm> models;      // the requested models, in order of first request
  std::vector<PoolTerm> pools;        // like Scenario::servers
  std::vector<LinkTerm> links;        // the links present, in path order
  std::optional<MvaTerm> mva;         // sync mode only
  // MVA with dynamic batching and the links as stations (mva_batched.hpp): sync closed loops.
  std::optional<BatchedMvaTerm> mva_batched;
  std::vector<SiteTerm> sites;     // several sites only (t_latency_s is their threads' mean)
  std::optional<NodeTerm> node;    // with `workload.node`, sync closed loops
  std::vector<std::string> notes;  // caveats for this scenario (async, batching, network...)
};

// E[max(1, round(X))] for empirical and constant items; max(1, round(E[X])) otherwise.
double expected_items(const scenario::Distribution& items);

// All predictions for a validated scenario.
Prediction predict(const scenario::Scenario& scenario);

// The items of a full batch of `model` (docs/analytic.md, section 3): Triton's bound (the
// largest preferred_batch_size, else max_batch_size); without one (max_batch_size 0, no
// preferred size), the most items the clients can have waiting at once for one instance of the
// devices hosting it. 0 without dynamic batching.
double full_batch_items(const scenario::Scenario& scenario, const std::string& model);

// Busy time one request of `items` costs when it shares a batch of `batch` items: its share of
// the batch's execution on `curve` (a request larger than the batch runs alone).
double batched_request_time(const scenario::ServiceCurve& curve, double items, double batch);

// Section 2's formula with t_GPU taken as given and every other input the prediction's.
struct FormulaPoint {
  double t_gpu_s = 0.0;
  double t_ideal_s = 0.0;
  double t_sonic_s = 0.0;
  bool saturated = false;
  double saturation_n_cpu_per_gpu = 0.0;  // +inf without coprocessors
};
// `t_gpu_binding_s` is N_GPU x the binding pool's demand per device (the t_GPU the knee is
// taken at); with one pool whose devices are busy for a request's whole time, t_gpu_s itself.
FormulaPoint sonic_formula(const Prediction& prediction, double t_gpu_s, double t_gpu_binding_s);

// A model's executions after the warm-up, and their items.
struct ModelBatches {
  std::string model;
  double executions = 0.0;
  double items = 0.0;
};

// The formula at the batches a run formed (docs/analytic.md, "At the batches a run formed"):
// each request of a model with dynamic batching costs its items' share of an execution of the
// model's mean batch (items / executions) on the curve of each device hosting it.
struct FormedBatches {
  double mean_batch_size = 0.0;  // items per execution over the models with dynamic batching
  FormulaPoint formula;
};
// Unset where one figure would mislead: no model with dynamic batching executed, no
// coprocessors, an open loop, a job flow or several workloads (the formula speaks of one fixed
// population of threads).
std::optional<FormedBatches> at_formed_batches(const scenario::Scenario& scenario,
                                               const Prediction& prediction,
                                               const std::vector<ModelBatches>& run);

// The closed network MVA solves: Z and one station group per pool in use (count devices, demand
// per device). Use with mva_throughput_curve() for X(n) plots.
ClosedNetwork closed_network(const Prediction& prediction);

// The SPEC `analytic` block plus the extensions documented in docs/analytic.md; a run adds
// the formula at the batches it formed (`formed_batches`).
nlohmann::json to_json(const Prediction& prediction,
                       const std::optional<FormedBatches>& formed = std::nullopt);

// Terminal summary for `sonicsim analytic`.
std::string to_text(const Prediction& prediction);

}  // namespace sonicsim::analytic
