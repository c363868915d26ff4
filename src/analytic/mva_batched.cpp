// MVA with dynamic batching and link stations (mva_batched.hpp); the scenario's network of it in
// mva_batched_network.cpp.
#include <sonicsim/analytic/mva_batched.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include <sonicsim/util/numbers.hpp>

namespace sonicsim::analytic {

namespace {

// Per station, the kinds of one model (they share its queue and so its batches).
struct ModelQueues {
  std::vector<std::size_t> group;  // [kind] -> its model's slot
  std::vector<double> items;       // [slot] mean items per request, visit-weighted
  std::size_t slots = 0;
};

ModelQueues model_queues(const BatchedStationGroup& s) {
  ModelQueues q;
  std::map<std::string, std::size_t> slot;
  std::vector<double> visits;
  for (const BatchedKind& k : s.kinds) {
    auto [it, fresh] = slot.try_emplace(k.model, q.slots);
    if (fresh) {
      ++q.slots;
      q.items.push_back(0.0);
      visits.push_back(0.0);
    }
    q.group.push_back(it->second);
    q.items[it->second] += k.visits * k.items;
    visits[it->second] += k.visits;
  }
  for (std::size_t m = 0; m < q.slots; ++m)
    q.items[m] = visits[m] > 0.0 ? q.items[m] / visits[m] : 1.0;
  return q;
}

// The batch (items) a request of kind `k` joins when `waiting` requests of its model are at the
// station: its own items and, per instance taking batches, its share of the others', up to the
// limit; a request larger than the limit runs alone.
double joined_batch(const BatchedKind& k, double model_items, double waiting) {
  if (!(k.limit > 0.0)) return k.items;
  const double b = k.items + model_items * waiting / std::max(k.instances, 1.0);
  return std::max(k.items, std::min(b, k.limit));
}

}  // namespace

BatchedSolution solve_mva_batched(const BatchedNetwork& network, std::int64_t customers) {
  const std::size_t g = network.stations.size();
  std::vector<ModelQueues> models;
  for (const BatchedStationGroup& s : network.stations) models.push_back(model_queues(s));

  BatchedSolution out;
  out.customers = std::max<std::int64_t>(customers, 0);
  out.utilization.assign(g, 0.0);
  out.queue_length.assign(g, 0.0);
  out.residence_s.assign(g, 0.0);
  out.mean_batch_items.assign(g, 0.0);
  out.batch_items.resize(g);
  // Q_i(n-1) per station and per (station, kind): what an arrival finds.
  std::vector<double> queue(g, 0.0);
  std::vector<std::vector<double>> kind_queue(g);
  // Per cycle, at the current batches.
  std::vector<std::vector<double>> demand(g);
  for (std::size_t i = 0; i < g; ++i) {
    const std::size_t k = network.stations[i].kinds.size();
    kind_queue[i].assign(k, 0.0);
    demand[i].assign(k, 0.0);
    out.batch_items[i].assign(k, 0.0);
  }
  std::vector<double> station_demand(g, 0.0), model_waiting;
  const double z = std::max(network.think_time_s, 0.0);
  double x = 0.0;
  for (std::int64_t n = 1; n <= out.customers; ++n) {
    double cycle = z;
    for (std::size_t i = 0; i < g; ++i) {
      const BatchedStationGroup& s = network.stations[i];
      const ModelQueues& mq = models[i];
      // Of the requests an arrival finds, those in the executing batch are not joinable: the
      // device is busy on the model's batches X D of the time, b / items requests each (the
      // previous population's).
      model_waiting.assign(mq.slots, 0.0);
      for (std::size_t k = 0; k < s.kinds.size(); ++k) {
        const double in_service = std::isfinite(x) && s.kinds[k].limit > 0.0
                                      ? x * demand[i][k] * out.batch_items[i][k] / s.kinds[k].items
                                      : 0.0;
        model_waiting[mq.group[k]] += kind_queue[i][k] - in_service;
      }
      for (double& w : model_waiting) w = std::max(w, 0.0);
      double d = 0.0;
      for (std::size_t k = 0; k < s.kinds.size(); ++k) {
        const BatchedKind& kind = s.kinds[k];
        const std::size_t m = mq.group[k];
        const double b = joined_batch(kind, mq.items[m], model_waiting[m]);
        out.batch_items[i][k] = b;
        const double busy = kind.busy_s(b);
        demand[i][k] = kind.visits * busy;
        d += demand[i][k];
      }
      station_demand[i] = d;
      // R = D (1 + Q), D at the batches: every request ahead costs its items' share of its
      // batch, and so does the arrival. The companions it found are in Q already; its batch's
      // execution beyond its share is those companions' shares (those arriving after it are
      // left out: where the model is optimistic, docs/analytic.md).
      out.residence_s[i] = d * (1.0 + queue[i]);
      cycle += s.count * out.residence_s[i];
    }
    x = cycle > 0.0 ? static_cast<double>(n) / cycle : kInf;
    for (std::size_t i = 0; i < g; ++i) {
      queue[i] = std::isinf(x) ? 0.0 : x * out.residence_s[i];
      for (std::size_t k = 0; k < kind_queue[i].size(); ++k)
        kind_queue[i][k] = std::isinf(x) ? 0.0 : x * demand[i][k] * (1.0 + queue[i]);
    }
  }
  out.throughput = x;
  out.cycle_time_s = out.customers > 0 && std::isfinite(x) && x > 0.0
                         ? static_cast<double>(out.customers) / x
                         : 0.0;
  for (std::size_t i = 0; i < g; ++i) {
    out.queue_length[i] = queue[i];
    out.utilization[i] = std::isfinite(x) ? x * station_demand[i] : 0.0;
    // Executions per cycle are visits x items / batch; items per execution their ratio.
    double items = 0.0, executions = 0.0;
    const auto& kinds = network.stations[i].kinds;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      const double b = out.customers > 0 ? out.batch_items[i][k] : kinds[k].items;
      items += kinds[k].visits * kinds[k].items;
      executions += b > 0.0 ? kinds[k].visits * kinds[k].items / b : 0.0;
    }
    out.mean_batch_items[i] = executions > 0.0 ? items / executions : 0.0;
  }
  return out;
}

}  // namespace sonicsim::analytic
