// One simulation from a validated scenario to its metrics: chooses how the network is modelled,
// wires the event core to SimGrid when flows matter, and measures the run itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/engine/simulation.hpp>
#include <sonicsim/flows/max_min.hpp>
#include <sonicsim/runner/memory.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::runner {

// How transfers are modelled, and why (SPEC: flows where links are shared and loaded).
// Links are full duplex, so each direction is judged alone: the tiny responses of a loaded
// uplink need no flow model when nothing else crosses their direction.
// Who solves the flows' sharing: sonicsim's own max-min solver (flows/, the default) or SimGrid's
// (platform/, the reference it is checked against). Both give CM02's sharing.
enum class FlowSolver { MaxMin, SimGrid };
const char* flow_solver_name(FlowSolver s);  // "max-min", "simgrid"

struct TransportChoice {
  bool flow_to_servers = false;
  bool flow_to_clients = false;
  FlowSolver solver = FlowSolver::MaxMin;  // when any direction is a flow
  std::string reason;
  double worst_link_utilization = 0.0;  // predicted, busiest link and direction
  double predicted_error = 0.0;  // of the analytic path, relative to the remote time per event
  // `auto` only: the busiest link direction's utilization at the event rates the run had
  // (check_transport), and how many runs it took (a run its own loads contradicted is redone).
  std::optional<double> observed_link_utilization;
  int runs = 1;

  bool any_flow() const { return flow_to_servers || flow_to_clients; }
  static TransportChoice all_flows(FlowSolver solver = FlowSolver::MaxMin) {
    TransportChoice c;
    c.flow_to_servers = c.flow_to_clients = true;
    c.solver = solver;
    c.reason = "every payload a flow";
    return c;
  }
};

// The load comes from the analytic prediction, bounded towards more traffic: the largest
// throughput the formula, MVA and MVA's asymptotic bound allow, the shortest time per event, and
// the bytes per event. The error of the analytic path is judged against the remote part of an
// event (time per event less its CPU work): what requests experience, where contention shows
// first. Code: transport_choice.cpp.
TransportChoice choose_transport(const scenario::Scenario& s, const analytic::Prediction& p);

// `auto` after a run: the same judgement at the event rates the run had. When a direction the
// run kept analytic fails it there, `rerun` is the choice to run again with (those directions
// flows too); the run's figures must not be reported.
struct TransportCheck {
  std::optional<double> observed_utilization;  // busiest link direction; none unless `auto`
  std::optional<TransportChoice> rerun;
};
TransportCheck check_transport(const scenario::Scenario& s, const analytic::Prediction& p,
                               const TransportChoice& used, const engine::RunMetrics& m);

struct RunOutput {
  engine::RunMetrics metrics;
  // Runs on sonicsim's flows: what the solver did, the cost per flow event.
  std::optional<flows::MaxMinFlows::Counters> flow_solver;
  TransportChoice transport;
  double wall_time_s = 0.0;
  long peak_rss_bytes = 0;
  double estimated_peak_rss_bytes = 0.0;  // what the budget was checked against (memory.hpp)
  // Engine events: processed, and the estimate the time budget was checked against
  // (work_estimate.hpp).
  double events_processed = 0.0, estimated_events = 0.0;
};

// Runs the simulation. With SimGrid's flows it starts SimGrid's engine: one such run per process.
// `outputs`: the files the caller will build in memory from the run beyond its results (an
// OpenMetrics timeline), counted in the memory estimate checked before the engine allocates.
RunOutput simulate(const scenario::Scenario& s, const TransportChoice& transport,
                   const engine::TraceSettings& trace = {}, const engine::Watch& watch = {},
                   const std::vector<MemoryPart>& outputs = {});

// The run as `network.flow_model` asks: the choice above, the simulation, and with `auto` the
// check after it; a run that its own loads contradict is run again (at most twice, the second
// time with every payload a flow). The wall time is that of every run.
RunOutput run_checked(const scenario::Scenario& s, const analytic::Prediction& p,
                      const engine::TraceSettings& trace = {}, const engine::Watch& watch = {},
                      const std::vector<MemoryPart>& outputs = {});

long peak_rss_bytes();

}  // namespace sonicsim::runner
