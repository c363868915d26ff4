// The scenario's network for MVA with dynamic batching and links (mva_batched.hpp), solved into
// analytic.mva_batched. docs/analytic.md, "MVA with dynamic batching and links".
#include <algorithm>
#include <cmath>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/analytic/mva_batched.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::analytic {

// device_kinds.cpp.
double device_busy_time(const scenario::Scenario& sc, const scenario::ServerPool& pool,
                        const scenario::Model& model, double items, double time);

namespace {

// One pool's devices: a kind per request kind routed there.
BatchedStationGroup pool_station(const Prediction& pr, const scenario::Scenario& sc,
                                 std::size_t j) {
  const scenario::ServerPool& pool = sc.servers[j];
  BatchedStationGroup s;
  s.name = pr.pools[j].name;
  s.count = pool.count;
  const bool pipeline = sc.execution_of(pool).model == device_kinds::Execution::Model::Pipeline;
  for (const RequestTerm& t : pr.requests) {
    if (!t.served || t.pool_share[j] <= 0.0) continue;
    const scenario::Model* model = sc.find_model(t.model);
    BatchedKind k;
    k.model = t.model;
    k.visits = t.per_event * t.pool_share[j] / pool.count;
    k.items = t.mean_items;
    k.limit = full_batch_items(sc, t.model);
    k.instances = pipeline ? 1.0 : model->instances;
    const scenario::ServiceCurve* curve = &model->curve_for(pool.device);
    const double alone = t.pool_gpu_time_s[j];
    const double items = t.mean_items;
    const bool batches = k.limit > 0.0;
    k.busy_s = [&sc, &pool, model, curve, alone, items, batches](double b) {
      const double time = batches ? batched_request_time(*curve, items, b) : alone;
      return device_busy_time(sc, pool, *model, items, time);
    };
    s.kinds.push_back(std::move(k));
  }
  return s;
}

// A link station: `count` links, each customer's traffic crossing one of them.
BatchedStationGroup link_station(const std::string& name, double count, double bytes,
                                 double bandwidth) {
  BatchedStationGroup s;
  s.name = name;
  s.count = count;
  BatchedKind k;
  k.model = name;
  k.visits = 1.0 / count;
  const double d = bytes / bandwidth;
  k.busy_s = [d](double) { return d; };
  s.kinds.push_back(std::move(k));
  return s;
}

}  // namespace

void add_mva_batched(Prediction& pr, const scenario::Scenario& sc) {
  const scenario::Workload& w = sc.workload();
  BatchedNetwork net;
  std::vector<std::size_t> pool_of;  // station -> pool, for the pools' stations
  for (std::size_t j = 0; j < pr.pools.size() && j < sc.servers.size(); ++j) {
    if (!pr.pools[j].in_use) continue;
    net.stations.push_back(pool_station(pr, sc, j));
    pool_of.push_back(j);
  }
  const std::size_t devices = net.stations.size();

  // Each link carrying requests, its stations and the link of pr.links they belong to. With
  // flow_model analytic the simulation itself sends every transfer as if alone: no station.
  const double event_bytes = pr.bytes_in_per_event + pr.bytes_out_per_event;
  const bool shares = sc.network.flow_model != scenario::FlowModel::Analytic;
  std::vector<std::size_t> link_of;
  for (std::size_t l = 0; shares && l < pr.links.size(); ++l) {
    const LinkTerm& link = pr.links[l];
    if (!(link.bandwidth_Bps > 0.0) || std::isinf(link.bandwidth_Bps)) continue;
    if (link.link_class == scenario::LinkClass::ServerNic) {
      for (std::size_t j = 0; j < pr.pools.size(); ++j) {
        if (!pr.pools[j].in_use || pr.pools[j].servers <= 0) continue;
        double bytes = 0.0;
        for (const RequestTerm& t : pr.requests)
          if (t.served) bytes += t.per_event * t.pool_share[j] * (t.bytes_in + t.bytes_out);
        if (bytes <= 0.0) continue;
        net.stations.push_back(
            link_station(link.name, pr.pools[j].servers, bytes, link.bandwidth_Bps));
        link_of.push_back(l);
      }
      continue;
    }
    if (event_bytes <= 0.0) continue;
    double count = 1.0;  // site_uplink, wan: all the clients' traffic
    if (link.link_class == scenario::LinkClass::ClientNic) {
      const double per_node = static_cast<double>(w.jobs_per_node) * w.threads_per_job;
      count =
          per_node > 0.0 ? std::max(1.0, std::ceil(static_cast<double>(pr.n_cpu) / per_node)) : 1.0;
    }
    net.stations.push_back(link_station(link.name, count, event_bytes, link.bandwidth_Bps));
    link_of.push_back(l);
  }
  // t_latency already holds each transfer at the path's bandwidth; the link stations charge it
  // again, so the delay station gives up their unloaded demand: at light load the cycle is MVA's.
  double z = closed_network(pr).think_time_s;
  for (std::size_t i = devices; i < net.stations.size(); ++i) {
    const BatchedKind& k = net.stations[i].kinds.front();
    z -= net.stations[i].count * k.visits * k.busy_s(1.0);
  }
  net.think_time_s = std::max(z, 0.0);

  const BatchedSolution s = solve_mva_batched(net, pr.n_cpu);
  BatchedMvaTerm m;
  m.think_time_s = net.think_time_s;
  m.throughput_per_s = s.throughput;
  m.time_per_event_s = s.cycle_time_s;
  m.device_utilization.assign(pr.pools.size(), 0.0);
  m.mean_batch_items.assign(pr.pools.size(), 0.0);
  for (std::size_t i = 0; i < devices; ++i) {
    m.device_utilization[pool_of[i]] = s.utilization[i];
    m.mean_batch_items[pool_of[i]] = s.mean_batch_items[i];
  }
  // NaN: a link without a station (no bandwidth, no traffic, flow_model analytic), not listed.
  m.link_utilization.assign(pr.links.size(), std::nan(""));
  for (std::size_t i = devices; i < net.stations.size(); ++i) {
    double& u = m.link_utilization[link_of[i - devices]];
    u = std::isnan(u) ? s.utilization[i] : std::max(u, s.utilization[i]);
  }
  pr.mva_batched = std::move(m);
}

}  // namespace sonicsim::analytic
