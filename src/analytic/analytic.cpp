#include <sonicsim/analytic/analytic.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::analytic {

// sites.cpp: each site's t_latency (and the threads' mean as the run's), then its t_SONIC.
void add_site_latencies(Prediction& pr, const scenario::Scenario& sc);
void finish_sites(Prediction& pr);
// The links of the sites and the WAN at the formula's throughput (pr.links), after it is known.
void add_site_links(Prediction& pr, const scenario::Scenario& sc);
// hosts.cpp: a note when a pool's host cores, not its devices, bind at the formula's throughput.
void add_host_notes(Prediction& pr, const scenario::Scenario& sc);
// nodes.cpp: with worker nodes, the formula at the occupancy offloading leaves (pr.node).
void add_node_term(Prediction& pr, const scenario::Workload& w);

// mva_batched_network.cpp: MVA with dynamic batching and link stations (pr.mva_batched).
void add_mva_batched(Prediction& pr, const scenario::Scenario& sc);

// A figure in the notes: four significant digits.
std::string note_number(double x) {
  std::ostringstream s;
  s.precision(4);
  s << x;
  return s.str();
}
// device_kinds.cpp: a device's busy time for a request that takes `time` there alone (a
// pipeline's entry, an overlapping device's share), and the notes on what t_GPU means there.
double device_busy_time(const scenario::Scenario& sc, const scenario::ServerPool& pool,
                        const scenario::Model& model, double items, double time);
void add_device_kind_notes(Prediction& pr, const scenario::Scenario& sc);

namespace {

// What the engine does with a sampled item count (engine/parts.hpp: round_items).
double rounded_items(double x) {
  return std::max(1.0, std::round(x));
}

bool hosts(const scenario::ServerPool& pool, const std::string& model) {
  return pool.count > 0 &&
         std::find(pool.models.begin(), pool.models.end(), model) != pool.models.end();
}

// Whether the predicted workload's (the first's) nodes hold devices of `model` (a pool
// `attached` to it): its requests are then served there, without the network.
bool in_nodes(const scenario::Scenario& sc, const std::string& model) {
  for (const auto& pool : sc.servers)
    if (pool.attached == std::optional<std::size_t>(0) && hosts(pool, model)) return true;
  return false;
}

// Whether `pool` serves the predicted workload's requests of `model`: its nodes' own devices
// when it has some (`local`; spill-over is not in the formulas), else the pools not attached.
bool serves(const scenario::ServerPool& pool, const std::string& model, bool local) {
  return hosts(pool, model) &&
         (local ? pool.attached == std::optional<std::size_t>(0) : !pool.attached.has_value());
}

// The largest execution Triton's batcher forms from a long queue; +inf when nothing bounds it.
double triton_batch_limit(const scenario::Model& model) {
  const auto& preferred = model.dynamic_batching->preferred_batch_size;
  double b = preferred.empty() ? 0.0 : *std::max_element(preferred.begin(), preferred.end());
  if (b <= 0.0) b = model.max_batch_size > 0 ? model.max_batch_size : kInf;
  if (model.max_batch_size > 0) b = std::min<double>(b, model.max_batch_size);
  return b;
}

// The most requests for `model` the predicted workload can have waiting at once, and their mean
// items. A sync thread waits for each response before its next request; an async one sends all
// the requests of its events in flight at once; an open loop stops at max_in_flight.
struct ClientBacklog {
  double requests = 0.0;
  double mean_items = 0.0;
};
ClientBacklog client_backlog(const scenario::Workload& w, const std::string& model) {
  double per_event = 0.0, items = 0.0;
  for (const scenario::RequestSpec& r : w.requests)
    if (r.model == model) {
      per_event += r.per_event;
      items += r.per_event * expected_items(r.items);
    }
  ClientBacklog b;
  b.mean_items = per_event > 0.0 ? items / per_event : 0.0;
  if (w.open_loop())
    b.requests = static_cast<double>(w.arrivals->max_in_flight);
  else if (w.mode == scenario::Mode::Async)
    b.requests = static_cast<double>(w.n_threads()) * w.async.events_in_flight * per_event;
  else
    b.requests = static_cast<double>(w.n_threads());
  return b;
}

std::string number(double x) {
  return note_number(x);
}

void apply_open_loop(Prediction& pr, double rate) {
  pr.arrival_rate_per_s = rate;
  pr.n_cpu = 0;
  const double binding =
      pr.binding_pool >= 0 ? pr.pools[static_cast<std::size_t>(pr.binding_pool)].demand_per_device_s
                           : 0.0;
  pr.saturation_rate_per_s = binding > 0.0 ? 1.0 / binding : kInf;
  // At exactly the saturation rate the queue is already unstable.
  pr.saturated = rate >= pr.saturation_rate_per_s;
  pr.throughput_per_s = std::min(rate, pr.saturation_rate_per_s);
  pr.t_sonic_s = pr.saturated ? kInf : pr.t_ideal_s;
  pr.saturation_n_cpu_per_gpu = kInf;
  for (PoolTerm& pool : pr.pools) {
    if (!pool.in_use) continue;
    pool.saturation_n_cpu_per_gpu = pool.saturation_n_cpu = kInf;
    pool.saturated = rate * pool.demand_per_device_s >= 1.0;
    pool.utilization = std::min(1.0, pr.throughput_per_s * pool.demand_per_device_s);
  }
}

// What predict() gathers over the requests besides the Prediction: per pool (indexed like
// Scenario::servers) and per model (indexed like Prediction::models).
struct RequestTotals {
  explicit RequestTotals(std::size_t n_pools)
      : full_batch_demand(n_pools, 0.0), pool_batches(n_pools, false), server_bytes(n_pools, 0.0) {}
  std::vector<double> full_batch_demand;
  std::vector<bool> pool_batches;
  std::vector<double> server_bytes;  // per event, over the pool
  std::map<std::string, std::size_t> model_slot;
  std::vector<std::vector<std::string>> mixed_devices;  // per model, for a note
  bool busy_not_time = false;  // a pool's device is busy less than a request's time there
};

// The workload's own terms, the links of the request path and a blank term per pool.
Prediction blank_prediction(const scenario::Scenario& sc) {
  Prediction pr;
  const scenario::Workload& w = sc.workload();
  pr.scenario = sc.name;
  pr.mode = w.mode;
  pr.t_cpu_s = w.cpu_time_per_event.expected();
  pr.n_cpu = w.n_threads();

  // The request path, in the order the SPEC lists it.
  for (scenario::LinkClass c : scenario::kLinkClasses)
    if (const auto& l = sc.network.link(c))
      pr.links.push_back({c, scenario::link_class_name(c), l->bandwidth, l->latency, 0.0, 0.0});
  pr.path_bandwidth_Bps = sc.network.path_bandwidth();
  pr.round_trip_latency_s = 2.0 * sc.network.path_latency();

  for (const scenario::ServerPool& pool : sc.servers) {
    PoolTerm t;
    t.name = pool.name;
    t.device = pool.device;
    t.count = pool.count;
    t.servers = pool.servers();
    pr.pools.push_back(std::move(t));
  }
  return pr;
}

// The index of the model's term in pr.models, the term created at the model's first request.
std::size_t model_term_slot(Prediction& pr, RequestTotals& totals, const std::string& model) {
  auto [slot, fresh] = totals.model_slot.try_emplace(model, pr.models.size());
  if (fresh) {
    ModelTerm m;
    m.name = model;
    pr.models.push_back(std::move(m));
    totals.mixed_devices.emplace_back();
  }
  return slot->second;
}

// Requests per second the devices hosting a model complete together, each request alone and at
// the full batch.
struct HostingCapacity {
  double alone = 0.0;
  double batched = 0.0;
  bool zero_time = false;  // some hosting device serves the request in no time
};

// Routes a served request kind to the pools hosting its model, each its count share, and adds
// its busy time to their demand.
HostingCapacity route_to_pools(Prediction& pr, RequestTotals& totals, const scenario::Scenario& sc,
                               const scenario::RequestSpec& r, const scenario::Model& model,
                               double hosting, double batch, std::size_t slot, RequestTerm& t) {
  ModelTerm& m = pr.models[slot];
  HostingCapacity c;
  const bool local = in_nodes(sc, r.model);
  for (std::size_t j = 0; j < sc.servers.size(); ++j) {
    const scenario::ServerPool& pool = sc.servers[j];
    if (!serves(pool, r.model, local)) continue;
    const scenario::ServiceCurve& curve = model.curve_for(pool.device);
    const double s = curve.at(t.mean_items);
    const double share = pool.count / hosting;
    t.pool_share[j] = share;
    t.pool_gpu_time_s[j] = s;
    t.routed_gpu_time_s += share * s;
    if (s > 0.0)
      c.alone += pool.count / s;
    else
      c.zero_time = true;
    const double busy = device_busy_time(sc, pool, model, t.mean_items, s);
    if (busy != s) totals.busy_not_time = true;
    pr.pools[j].demand_s += r.per_event * share * busy;
    totals.server_bytes[j] += r.per_event * share * (t.bytes_in + t.bytes_out);
    const double sb =
        device_busy_time(sc, pool, model, t.mean_items,
                         batch > 0.0 ? batched_request_time(curve, t.mean_items, batch) : s);
    if (batch > 0.0) totals.pool_batches[j] = true;
    totals.full_batch_demand[j] += r.per_event * share * sb;
    if (sb > 0.0) c.batched += pool.count / sb;
    if (std::find(m.pools.begin(), m.pools.end(), pool.name) == m.pools.end()) {
      m.pools.push_back(pool.name);
      m.n_gpu += pool.count;
    }
    auto& devices = totals.mixed_devices[slot];
    if (std::find(devices.begin(), devices.end(), pool.device) == devices.end())
      devices.push_back(pool.device);
    auto& hosted = pr.pools[j].models;
    if (std::find(hosted.begin(), hosted.end(), r.model) == hosted.end()) hosted.push_back(r.model);
    pr.pools[j].in_use = true;
  }
  return c;
}

// One entry of workload.requests: its term, its share of its model's term and of the totals,
// and its demand on the pools that serve it.
void add_request(Prediction& pr, RequestTotals& totals, const scenario::Scenario& sc,
                 const scenario::RequestSpec& r) {
  RequestTerm t;
  t.model = r.model;
  t.per_event = r.per_event;
  t.offload_fraction = r.offload_fraction;
  t.mean_items = expected_items(r.items);
  t.pool_share.assign(sc.servers.size(), 0.0);
  t.pool_gpu_time_s.assign(sc.servers.size(), 0.0);

  const scenario::Model* model = sc.find_model(r.model);
  double hosting = 0.0;
  const bool local = in_nodes(sc, r.model);
  for (const scenario::ServerPool& pool : sc.servers)
    if (serves(pool, r.model, local)) hosting += pool.count;
  t.served = hosting > 0.0 && model != nullptr;
  if (model) {
    t.bytes_in = t.mean_items * model->input_bytes_per_item;
    t.bytes_out = t.mean_items * model->output_bytes_per_item;
  }

  const std::size_t slot = model_term_slot(pr, totals, r.model);
  ModelTerm& m = pr.models[slot];
  m.offload_fraction += r.offload_fraction;
  m.mean_items += r.per_event * t.mean_items;  // divided by per_event in predict()
  m.per_event += r.per_event;

  if (!t.served) {
    pr.p_fallback += r.offload_fraction;
    pr.requests.push_back(std::move(t));
    return;
  }
  pr.p += r.offload_fraction;
  m.served = true;
  const double transfer =
      std::isinf(pr.path_bandwidth_Bps) ? 0.0 : (t.bytes_in + t.bytes_out) / pr.path_bandwidth_Bps;
  // Overheads are linear in items (piecewise, with a measured table), so their mean is the
  // overhead at the mean item count: exact for fixed-size requests.
  const double overhead = model->overhead.total(t.mean_items);
  // A device in the node: no network, no gRPC (engine/attached_devices.hpp).
  t.network_time_s = local ? 0.0 : pr.round_trip_latency_s + transfer + overhead;
  if (local) t.bytes_in = t.bytes_out = 0.0;

  const double batch = full_batch_items(sc, r.model);
  const HostingCapacity capacity =
      route_to_pools(pr, totals, sc, r, *model, hosting, batch, slot, t);
  // Harmonic: the per-device time that gives the hosting devices their combined capacity.
  t.gpu_time_s = capacity.zero_time ? 0.0 : hosting / capacity.alone;
  t.t_gpu_s = r.per_event * t.gpu_time_s;
  t.t_latency_s = r.per_event * t.network_time_s;
  pr.t_gpu_s += t.t_gpu_s;
  pr.t_latency_s += t.t_latency_s;
  pr.bytes_in_per_event += r.per_event * t.bytes_in;
  pr.bytes_out_per_event += r.per_event * t.bytes_out;
  m.t_gpu_s += t.t_gpu_s;
  m.t_gpu_routed_s += r.per_event * t.routed_gpu_time_s;
  m.t_latency_s += t.t_latency_s;
  if (batch > 0.0 && capacity.batched > 0.0)
    m.t_gpu_full_batch_s =
        m.t_gpu_full_batch_s.value_or(0.0) + r.per_event * hosting / capacity.batched;
  if (model->max_batch_size > 0 && t.mean_items > model->max_batch_size)
    pr.notes.push_back("requests for `" + r.model + "` carry " + number(t.mean_items) +
                       " items on average, above max_batch_size " +
                       std::to_string(model->max_batch_size) +
                       ": the simulator fails such requests, the formulas do not");
  pr.requests.push_back(std::move(t));
}

struct BindingPool {
  double demand_per_device_s = 0.0;
  int pools_in_use = 0;
  bool busy_not_time = false;  // RequestTotals::busy_not_time
};

// Each pool in use's demand per device, and the binding pool: the largest, the first on ties.
BindingPool find_binding_pool(Prediction& pr, const RequestTotals& totals) {
  BindingPool b;
  b.busy_not_time = totals.busy_not_time;
  for (std::size_t j = 0; j < pr.pools.size(); ++j) {
    PoolTerm& pool = pr.pools[j];
    if (!pool.in_use) continue;
    ++b.pools_in_use;
    pr.n_gpu += pool.count;
    pool.demand_per_device_s = pool.demand_s / pool.count;
    if (totals.pool_batches[j])
      pool.demand_per_device_full_batch_s = totals.full_batch_demand[j] / pool.count;
    if (pr.binding_pool < 0 || pool.demand_per_device_s > b.demand_per_device_s) {
      pr.binding_pool = static_cast<int>(j);
      b.demand_per_device_s = pool.demand_per_device_s;
    }
  }
  return b;
}

// The t_GPU that makes the SPEC formula saturate where the binding pool does: n_gpu devices
// all as loaded as the binding one. With one pool it is t_GPU itself (taken as is, so that the
// result is the SPEC formula to the last bit). A pipeline or overlapping device is busy less
// than a request's time there: its demand, not t_GPU, is what saturates.
double binding_t_gpu(double t_gpu_s, double n_gpu, double binding_demand_per_device_s,
                     const BindingPool& binding) {
  return binding.pools_in_use == 1 && !binding.busy_not_time ? t_gpu_s
                                                             : n_gpu * binding_demand_per_device_s;
}

// t_ideal, t_SONIC, the knee and the throughput of the closed loop.
void apply_sonic_formula(Prediction& pr, const BindingPool& binding) {
  const double n_cpu = static_cast<double>(pr.n_cpu);
  const double n_gpu = static_cast<double>(pr.n_gpu);
  const FormulaPoint f = sonic_formula(
      pr, pr.t_gpu_s, binding_t_gpu(pr.t_gpu_s, n_gpu, binding.demand_per_device_s, binding));
  pr.t_ideal_s = f.t_ideal_s;
  pr.t_sonic_s = f.t_sonic_s;
  pr.saturated = f.saturated;
  pr.saturation_n_cpu_per_gpu = f.saturation_n_cpu_per_gpu;
  pr.throughput_per_s = pr.t_sonic_s > 0.0 ? n_cpu / pr.t_sonic_s : kInf;
}

// Each pool's own knee and its utilization at the formula's throughput.
void apply_pool_knees(Prediction& pr) {
  const double n_cpu = static_cast<double>(pr.n_cpu);
  for (std::size_t j = 0; j < pr.pools.size(); ++j) {
    PoolTerm& pool = pr.pools[j];
    pool.binding = static_cast<int>(j) == pr.binding_pool;
    if (!pool.in_use || pool.demand_s <= 0.0) {
      pool.saturation_n_cpu_per_gpu = pool.saturation_n_cpu = kInf;
      continue;
    }
    pool.saturation_n_cpu_per_gpu = pr.t_ideal_s / pool.demand_s;
    pool.saturation_n_cpu = pr.t_ideal_s / pool.demand_per_device_s;
    pool.saturated = n_cpu > pool.saturation_n_cpu;
    // At saturation X d is 1 up to rounding; a 1.0000000000000002 would only confuse.
    pool.utilization = std::min(1.0, pr.throughput_per_s * pool.demand_per_device_s);
  }
}

// Link loads at the formula's throughput, one instance of each link. `n_cpu` is the workload's
// thread count (apply_open_loop() zeroes pr.n_cpu).
void apply_link_loads(Prediction& pr, const scenario::Workload& w,
                      const std::vector<double>& server_bytes, double n_cpu) {
  const double event_bytes = pr.bytes_in_per_event + pr.bytes_out_per_event;
  double busiest_server = 0.0;
  for (std::size_t j = 0; j < pr.pools.size(); ++j)
    if (pr.pools[j].in_use)
      busiest_server = std::max(busiest_server, server_bytes[j] / pr.pools[j].servers);
  const double threads_per_node =
      std::min<double>(n_cpu, static_cast<double>(w.jobs_per_node) * w.threads_per_job);
  for (LinkTerm& l : pr.links) {
    double bytes = event_bytes;  // site_uplink, wan: all client traffic
    // The open loop's one client sends it all.
    if (l.link_class == scenario::LinkClass::ClientNic && !w.open_loop())
      bytes = n_cpu > 0 ? event_bytes * threads_per_node / n_cpu : 0.0;
    if (l.link_class == scenario::LinkClass::ServerNic) bytes = busiest_server;
    l.load_Bps = std::isinf(pr.throughput_per_s) ? 0.0 : pr.throughput_per_s * bytes;
    l.utilization = l.bandwidth_Bps > 0.0 ? l.load_Bps / l.bandwidth_Bps : 0.0;
  }
}

// With sites whose t_latency differ, a class of threads per site, each with its own think time:
// false when one class does (then solve_mva is the same and exact).
bool classed_by_site(Prediction& pr, const ClosedNetwork& net, MvaSolution& out) {
  std::vector<double> think;
  std::vector<std::int64_t> threads;
  std::vector<std::size_t> site_of;
  bool differ = false;
  for (std::size_t i = 0; i < pr.sites.size(); ++i) {
    const SiteTerm& site = pr.sites[i];
    if (site.threads <= 0) continue;
    think.push_back(net.think_time_s - pr.t_latency_s + site.t_latency_s);
    threads.push_back(site.threads);
    site_of.push_back(i);
    differ = differ || site.t_latency_s != pr.sites[site_of.front()].t_latency_s;
  }
  if (!differ) return false;
  const ClassedSolution c = solve_mva_classes(net, think, threads);
  for (std::size_t k = 0; k < site_of.size(); ++k)
    pr.sites[site_of[k]].mva_time_per_event_s = c.cycle_time_s[k];
  out = c.total;
  pr.notes.push_back(
      std::string("MVA with a class of threads per site (think time (1-p) t_CPU + the site's "
                  "t_latency): ") +
      (c.exact ? "exact over every population vector"
               : "Schweitzer's approximation, the population vectors being too many for the "
                 "exact recursion") +
      "; analytic.sites[].mva_time_per_event_s");
  return true;
}

// Exact MVA of the synchronous closed system, per pool and per model.
void add_mva(Prediction& pr, const std::map<std::string, std::size_t>& model_slot) {
  const std::size_t n_pools = pr.pools.size();
  const ClosedNetwork net = closed_network(pr);
  MvaSolution s;
  if (!classed_by_site(pr, net, s)) s = solve_mva(net, pr.n_cpu);
  MvaTerm mva;
  mva.think_time_s = net.think_time_s;
  mva.throughput_per_s = s.throughput;
  mva.time_per_event_s = s.cycle_time_s;
  mva.bounds = throughput_bounds(net, pr.n_cpu);
  mva.device_utilization.assign(n_pools, 0.0);
  mva.device_queue_length.assign(n_pools, 0.0);
  mva.device_residence_s.assign(n_pools, 0.0);
  std::vector<double> arrival(n_pools, 0.0);
  std::size_t g = 0;  // closed_network() lists the pools in use in order
  for (std::size_t j = 0; j < n_pools; ++j) {
    if (!pr.pools[j].in_use) continue;
    mva.device_utilization[j] = s.utilization[g];
    mva.device_queue_length[j] = s.queue_length[g];
    mva.device_residence_s[j] = s.residence_s[g];
    arrival[j] = s.arrival_queue[g];
    ++g;
  }
  // A request of service time s at a processor-sharing device takes s (1 + Q(N-1)).
  std::vector<double> latency_sum(pr.models.size(), 0.0), weight(pr.models.size(), 0.0);
  for (const RequestTerm& t : pr.requests) {
    if (!t.served) continue;
    double lat = t.network_time_s;
    for (std::size_t j = 0; j < n_pools; ++j)
      lat += t.pool_share[j] * t.pool_gpu_time_s[j] * (1.0 + arrival[j]);
    const std::size_t k = model_slot.at(t.model);
    latency_sum[k] += t.per_event * lat;
    weight[k] += t.per_event;
  }
  for (std::size_t k = 0; k < pr.models.size(); ++k)
    if (weight[k] > 0.0) pr.models[k].mva_request_latency_s = latency_sum[k] / weight[k];
  pr.mva = std::move(mva);
}

// Caveats, most consequential first (after those add_request() raised).
void add_caveats(Prediction& pr, const scenario::Scenario& sc,
                 const std::vector<std::vector<std::string>>& mixed_devices, int pools_in_use) {
  const scenario::Workload& w = sc.workload();
  if (!sc.single_workload())
    pr.notes.push_back("several workloads (" + std::to_string(sc.workloads.size()) +
                       "): these formulas are for the first one, `" + w.name +
                       "`, as if it had the servers to itself; the simulation shares them");
  for (const auto& pool : sc.servers) {
    if (pool.attached != std::optional<std::size_t>(0)) continue;
    bool elsewhere = false;  // a pool that its spill-over, or a crash, would send requests to
    for (const auto& other : sc.servers)
      for (const auto& m : pool.models)
        elsewhere = elsewhere || (!other.attached && hosts(other, m));
    if (elsewhere)
      pr.notes.push_back("pool `" + pool.name +
                         "` is in the client nodes (attached): the formulas serve its models "
                         "there alone; requests that spill over or outlive a crash to the other "
                         "pools are in the simulation only");
  }
  if (pr.arrival_rate_per_s)
    pr.notes.push_back(
        "open loop (workload.arrivals): no client threads, so the closed-loop knee and MVA do not "
        "apply; the pools saturate at " +
        number(pr.saturation_rate_per_s) +
        " arrivals/s with each request executing alone (dynamic batching raises it), and past "
        "saturation the queues grow for as long as the run lasts unless Triton's queue policy "
        "rejects");
  if (pr.mode == scenario::Mode::Async)
    pr.notes.insert(pr.notes.begin(),
                    "mode async: the formulas are the synchronous ones (overlap hides latency, "
                    "so expect the async time per event at or below t_SONIC, with the same "
                    "saturated limit); MVA of async mode is not modelled");
  for (const LinkTerm& l : pr.links)
    if (l.utilization > 0.5)
      pr.notes.push_back(l.name + " carries " + util::percent(l.utilization, "%.4g") +
                         " of its bandwidth at the predicted throughput: the formulas and MVA "
                         "ignore bandwidth sharing (mva_batched has the links as stations), "
                         "simulate to see its effect");
  for (const ModelTerm& m : pr.models)
    if (!m.served)
      pr.notes.push_back("no pool hosts `" + m.name +
                         "`: its requests fall back to the CPU (their p_i stays in t_CPU)");
  for (std::size_t k = 0; k < pr.models.size(); ++k)
    if (mixed_devices[k].size() > 1)
      pr.notes.push_back("`" + pr.models[k].name +
                         "` runs on several device types: its t_GPU is the count-weighted "
                         "harmonic mean over them, while each pool gets its count share of the "
                         "requests (per_pool, MVA)");
  for (const ModelTerm& m : pr.models)
    if (m.t_gpu_full_batch_s) {
      pr.notes.push_back(
          "dynamic batching is not in the formulas or MVA (each request costs its own "
          "execution): they are conservative; t_gpu_full_batch_s is the capacity bound at full "
          "batches, and mva_batched (approximate) forms the batches the queues allow");
      break;
    }
  if (pools_in_use > 1)
    pr.notes.push_back("several pools: saturation and t_SONIC follow the binding pool `" +
                       pr.pools[static_cast<std::size_t>(pr.binding_pool)].name +
                       "` (largest demand per device)");
}

}  // namespace

double expected_items(const scenario::Distribution& items) {
  using Kind = scenario::Distribution::Kind;
  if (items.kind == Kind::Constant) return rounded_items(items.mean);
  if (items.kind == Kind::Empirical && !items.values.empty()) {
    const bool weighted = items.weights.size() == items.values.size();
    double sum = 0.0, total = 0.0;
    for (std::size_t i = 0; i < items.values.size(); ++i) {
      const double w = weighted ? items.weights[i] : 1.0;
      sum += w * rounded_items(items.values[i]);
      total += w;
    }
    if (total > 0.0) return sum / total;
  }
  return rounded_items(items.expected());
}

double batched_request_time(const scenario::ServiceCurve& curve, double items, double batch) {
  const double b = std::max(batch, items);  // a request larger than the batch runs alone
  return items * curve.at(b) / b;
}

double full_batch_items(const scenario::Scenario& sc, const std::string& name) {
  const scenario::Model* model = sc.find_model(name);
  if (!model || !model->dynamic_batching) return 0.0;
  // Triton's bound is a property of the model and its devices, whatever the population (the
  // gallery's reproductions take it for the papers' batched t_GPU); only without one do the
  // clients bound the batch.
  const double limit = triton_batch_limit(*model);
  if (!std::isinf(limit)) return limit;
  // The instances taking batches from the queue at once, over every device hosting the model;
  // a pipeline has one entry whatever the model's instances.
  const bool local = in_nodes(sc, name);
  double instances = 0.0;
  for (const scenario::ServerPool& pool : sc.servers)
    if (serves(pool, name, local))
      instances +=
          pool.count * (sc.execution_of(pool).model == device_kinds::Execution::Model::Pipeline
                            ? 1
                            : model->instances);
  if (instances <= 0.0) return 0.0;
  const ClientBacklog backlog = client_backlog(sc.workload(), name);
  return backlog.requests * backlog.mean_items / instances;
}

FormulaPoint sonic_formula(const Prediction& pr, double t_gpu_s, double t_gpu_binding_s) {
  FormulaPoint f;
  f.t_gpu_s = t_gpu_s;
  f.t_ideal_s = (1.0 - pr.p) * pr.t_cpu_s + t_gpu_s + pr.t_latency_s;
  const double n_cpu = static_cast<double>(pr.n_cpu);
  const double n_gpu = static_cast<double>(pr.n_gpu);
  if (pr.n_gpu == 0 || t_gpu_binding_s <= 0.0) {
    f.t_sonic_s = f.t_ideal_s;
    f.saturation_n_cpu_per_gpu = kInf;
    return f;
  }
  const double knee = f.t_ideal_s / t_gpu_binding_s;
  f.t_sonic_s = (1.0 - pr.p) * pr.t_cpu_s + t_gpu_s +
                t_gpu_binding_s * std::max(0.0, n_cpu / n_gpu - knee) + pr.t_latency_s;
  f.saturated = n_cpu / n_gpu > knee;
  f.saturation_n_cpu_per_gpu = knee;
  return f;
}

std::optional<FormedBatches> at_formed_batches(const scenario::Scenario& sc, const Prediction& pr,
                                               const std::vector<ModelBatches>& run) {
  const scenario::Workload& w = sc.workload();
  if (pr.n_gpu == 0 || w.open_loop() || w.flow || !sc.single_workload()) return std::nullopt;
  // The mean batch of each served model with dynamic batching that executed; the others' requests
  // keep their own executions, as in the formula.
  std::map<std::string, double> batch;
  double executions = 0.0, items = 0.0;
  for (const ModelBatches& b : run) {
    const scenario::Model* model = sc.find_model(b.model);
    const bool served = std::any_of(pr.models.begin(), pr.models.end(), [&](const ModelTerm& m) {
      return m.name == b.model && m.served;
    });
    if (!served || !model || !model->dynamic_batching || b.executions <= 0.0) continue;
    batch[b.model] = b.items / b.executions;
    executions += b.executions;
    items += b.items;
  }
  if (batch.empty()) return std::nullopt;

  // route_to_pools() and add_request() over again, each request at its model's mean batch.
  std::vector<double> demand(pr.pools.size(), 0.0);
  double t_gpu = 0.0;
  BindingPool binding;
  for (const RequestTerm& t : pr.requests) {
    if (!t.served) continue;
    const scenario::Model& model = *sc.find_model(t.model);
    const auto formed = batch.find(t.model);
    double hosting = 0.0, capacity = 0.0;
    bool zero_time = false;
    for (std::size_t j = 0; j < pr.pools.size(); ++j) {
      if (t.pool_share[j] <= 0.0) continue;
      const scenario::ServerPool& pool = sc.servers[j];
      const double s = formed == batch.end() ? t.pool_gpu_time_s[j]
                                             : batched_request_time(model.curve_for(pool.device),
                                                                    t.mean_items, formed->second);
      hosting += pool.count;
      if (s > 0.0)
        capacity += pool.count / s;
      else
        zero_time = true;
      const double busy = device_busy_time(sc, pool, model, t.mean_items, s);
      binding.busy_not_time = binding.busy_not_time || busy != s;
      demand[j] += t.per_event * t.pool_share[j] * busy;
    }
    t_gpu += t.per_event * (zero_time ? 0.0 : hosting / capacity);
  }
  for (std::size_t j = 0; j < pr.pools.size(); ++j) {
    if (!pr.pools[j].in_use) continue;
    ++binding.pools_in_use;
    binding.demand_per_device_s =
        std::max(binding.demand_per_device_s, demand[j] / pr.pools[j].count);
  }
  FormedBatches f;
  f.mean_batch_size = items / executions;
  f.formula = sonic_formula(
      pr, t_gpu,
      binding_t_gpu(t_gpu, static_cast<double>(pr.n_gpu), binding.demand_per_device_s, binding));
  return f;
}

Prediction predict(const scenario::Scenario& sc) {
  const scenario::Workload& w = sc.workload();
  Prediction pr = blank_prediction(sc);
  RequestTotals totals(sc.servers.size());
  for (const scenario::RequestSpec& r : w.requests) add_request(pr, totals, sc, r);
  for (ModelTerm& m : pr.models)
    if (m.per_event > 0) m.mean_items /= m.per_event;

  const BindingPool binding = find_binding_pool(pr, totals);
  if (!sc.sites.empty()) add_site_latencies(pr, sc);
  apply_sonic_formula(pr, binding);
  if (!sc.sites.empty()) finish_sites(pr);
  apply_pool_knees(pr);
  const double n_cpu = static_cast<double>(pr.n_cpu);
  if (w.open_loop()) apply_open_loop(pr, w.arrivals->rate);
  apply_link_loads(pr, w, totals.server_bytes, n_cpu);
  if (!sc.sites.empty()) add_site_links(pr, sc);
  if (pr.mode == scenario::Mode::Sync && !w.open_loop()) {
    add_mva(pr, totals.model_slot);
    add_mva_batched(pr, sc);
  }
  add_caveats(pr, sc, totals.mixed_devices, binding.pools_in_use);
  add_host_notes(pr, sc);
  add_device_kind_notes(pr, sc);
  add_node_term(pr, w);
  return pr;
}

ClosedNetwork closed_network(const Prediction& pr) {
  ClosedNetwork net;
  // Served requests replace their CPU share; fallback requests keep theirs inside (1 - p).
  net.think_time_s = (1.0 - pr.p) * pr.t_cpu_s + pr.t_latency_s;
  for (const PoolTerm& pool : pr.pools)
    if (pool.in_use) net.stations.push_back({pool.demand_per_device_s, pool.count});
  return net;
}

}  // namespace sonicsim::analytic
