// MVA of the synchronous closed system with Triton's dynamic batching and the network links
// (docs/analytic.md, "MVA with dynamic batching and links"): each device is a station whose cost
// per request falls as the batch it can form grows, and each link carrying requests is a
// processor-sharing station of demand bytes / bandwidth.
//
// The batch a request joins is taken from the queue it finds on arrival (the arrival theorem's
// Q(n - 1)), so the exact MVA recursion carries over population by population with a demand that
// depends on the previous population's queues: O(N x stations), no marginal probabilities, stable
// at any load. With no batching and no link it is exactly the recursion of mva.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sonicsim::analytic {

// The requests of one request kind at ONE station of a group.
struct BatchedKind {
  std::string model;    // kinds of one model share its queue, and so its batches
  double visits = 0.0;  // requests per customer cycle to one station of the group
  double items = 1.0;   // per request
  // Largest batch in items (the Triton bound, or the clients' backlog without one); 0: the
  // model does not batch and each request costs busy_s(items).
  double limit = 0.0;
  double instances = 1.0;  // executions taking batches from the model's queue at once
  // Busy time of the station for one request when its batch has `b` >= items items.
  std::function<double(double b)> busy_s;
};

struct BatchedStationGroup {
  std::string name;
  double count = 1.0;  // identical stations; each customer visits one of them at random
  std::vector<BatchedKind> kinds;
};

struct BatchedNetwork {
  double think_time_s = 0.0;
  std::vector<BatchedStationGroup> stations;
};

// Indexed like BatchedNetwork::stations, per station of the group; batch_items per kind.
struct BatchedSolution {
  std::int64_t customers = 0;
  double throughput = 0.0;  // X(N), +inf when nothing takes time
  double cycle_time_s = 0.0;
  std::vector<double> utilization;
  std::vector<double> queue_length;
  std::vector<double> residence_s;
  std::vector<double> mean_batch_items;          // items per execution over the station's kinds
  std::vector<std::vector<double>> batch_items;  // [station][kind]: the batch an arrival joins
};

BatchedSolution solve_mva_batched(const BatchedNetwork& network, std::int64_t customers);

// The Prediction's view (analytic.mva_batched): per pool (indexed like Prediction::pools) and per
// link (indexed like Prediction::links; a server NIC: the busiest server's; NaN for a link
// without a station: no bandwidth or traffic, or network.flow_model analytic).
struct BatchedMvaTerm {
  double think_time_s = 0.0;  // Z less the links' unloaded transfer, which their stations charge
  double throughput_per_s = 0.0;
  double time_per_event_s = 0.0;
  std::vector<double> device_utilization;
  std::vector<double> mean_batch_items;  // items per execution on one device of the pool
  std::vector<double> link_utilization;
};

}  // namespace sonicsim::analytic
