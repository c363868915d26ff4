// Transfers in their data phase sharing link directions max-min fairly, weighted as SimGrid's
// CM02 model weights them: a flow of sharing weight w gets lambda / w of a link where lambda is
// the link's level, so at a shared bottleneck the rates are in inverse proportion to the
// weights (equal weights: equal shares). The allocation is the one SimGrid's lmm solver finds
// (progressive filling), solved exactly.
//
// Progress is exact too: between two solves every flow moves at its rate, and a flow's finish
// time is its remaining bytes over its rate. The owner (fluid_network.cpp) advances the flows to
// each event time, adds and removes flows, and solves once per event time.
#pragma once

#include <cstdint>
#include <vector>

#include <sonicsim/util/numbers.hpp>

namespace sonicsim::flows {

class MaxMinFlows {
 public:
  explicit MaxMinFlows(std::vector<double> capacity);

  // Takes effect at the next solve(); 0 holds every flow that crosses it.
  void set_capacity(std::uint32_t constraint, double bytes_per_s);
  double capacity(std::uint32_t constraint) const { return capacity_[constraint]; }

  // A flow that starts sharing at the current time (advance() has reached it). Its rate is 0
  // until the next solve().
  void add(const std::vector<std::uint32_t>& route, double weight, double bytes,
           std::uint32_t token);

  // Moves every flow on at its rate up to `now` (not before the last time).
  void advance(double now);

  // The max-min allocation for the flows present, and each flow's finish time from now.
  void solve();

  // The earliest finish time, +inf when no flow moves.
  double next_finish() const;

  // Removes the flows whose finish time is at or before `t` (advance(t) done), appending their
  // tokens in ascending order.
  void take_finished(double t, std::vector<std::uint32_t>& tokens);

  std::size_t size() const { return active_.size(); }
  double now() const { return now_; }
  // Solves so far, and the flows and constraints they touched: the solver's cost, for the
  // benchmark's counts.
  struct Counters {
    std::int64_t solves = 0, flow_visits = 0, constraint_visits = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  struct Flow {
    std::vector<std::uint32_t> route;
    double inverse_weight = 1.0;
    double remaining = 0.0;
    double rate = 0.0;
    double finish = kInf;
    std::uint32_t token = 0;
    std::uint64_t fixed_at = 0;  // the solve that fixed its rate
  };
  std::vector<double> capacity_;
  std::vector<Flow> flows_;            // slots, reused
  std::vector<std::uint32_t> free_;    // free slots
  std::vector<std::uint32_t> active_;  // slots in the data phase
  double now_ = 0.0;

  // Per constraint, scratch of one solve: flows crossing it (a range of members_), what is
  // left of its capacity, the summed inverse weights and count of its flows not yet fixed.
  std::vector<std::uint32_t> count_, begin_, filled_, unfixed_;
  std::vector<double> left_, usage_;
  std::vector<std::uint32_t> touched_, members_;
  struct Level {
    double lambda;
    std::uint32_t constraint;
    bool operator>(const Level& o) const {
      return lambda > o.lambda || (lambda == o.lambda && constraint > o.constraint);
    }
  };
  std::vector<Level> heap_;
  std::uint64_t solve_id_ = 0;
  Counters counters_;
};

}  // namespace sonicsim::flows
