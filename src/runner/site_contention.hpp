// What the links of a scenario with sites carry, for the choice of transport (runner.cpp): each
// workload's traffic goes, from each site its nodes are at, to the site its routing chooses first
// (local_first: its own site when it hosts the model; least_latency: the nearest site hosting
// it; weighted: by weight; pinned: the pin). Spill-over and the queues are not foreseen: the
// choice is a first judgement, and `network.flow_model` overrides it.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::runner::detail {

// A workload's load by the formulas (runner.cpp).
struct Load {
  double events_per_s, remote_s, nodes, bytes[2];  // bytes per event [to servers, to clients]
};

// The links' contention: per workload and payload direction, the time the analytic path leaves
// out per event (S/B x rho/(1-rho) per link crossed), and the busiest link.
struct Contention {
  std::vector<std::array<double, 2>> excess;
  double worst_utilization = 0.0;
  std::string worst;   // "NAME (to servers)"
  std::string outage;  // a link with an outage among its faults
};

// For a scenario with sites; `loads` in workload order.
Contention site_contention(const scenario::Scenario& s, const std::vector<Load>& loads);

}  // namespace sonicsim::runner::detail
