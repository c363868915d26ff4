// Transfers in their data phase sharing link directions max-min fairly, weighted as SimGrid's
// CM02 model weights them: a flow of sharing weight w gets lambda / w of a link where lambda is
// the link's level, so at a shared bottleneck the rates are in inverse proportion to the
// weights (equal weights: equal shares). The allocation is the one SimGrid's lmm solver finds
// (progressive filling), solved exactly; progress too: between two changes every flow moves at
// its rate, and its finish time is its remaining bytes over its rate.
//
// Most changes move no other flow, and cost O(route + log n) instead of a solve:
// - a flow that joins where it has a link direction of its own (its NIC, most of the time) and
//   every link it shares keeps at least that bandwidth spare: it runs at its own link's
//   bandwidth, and no one else's bottleneck is touched;
// - a flow that leaves when every link it shared had bandwidth spare: no one was held there.
// Anything else (a flow joining a saturated link, a link's bandwidth changing) solves its
// component again.
//
// Flows are kept by component: a set of link directions that no flow of another component
// crosses (the topology knows them: with one site, requests and responses never meet). A
// change in one component leaves the others as they are.
//
// At a saturated link (an uplink most flows share) every join and leave moves everyone there.
// The class solver (flow_classes.cpp, the default) keeps the flows that a solve fixed at the
// component's most shared bottleneck as one class: their rates are the class level times their
// inverse weights, their progress a virtual clock V (the integral of the level), their finishes
// tags in V that a level change leaves as they are. A join or leave there that provably keeps
// the max-min structure (every other flow keeps its rate, no link of the class's flows is over
// its bandwidth or binds anyone else, no other flow at the bottleneck rises above the level)
// costs O(route + log n): the level is solved again from the class's aggregates. Anything else
// solves the component flow by flow, as the reference solver (`classes = false`) always does,
// and builds the class again.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <sonicsim/util/numbers.hpp>

namespace sonicsim::flows {

class MaxMinFlows {
 public:
  // `classes`: the class solver (above); false: the per-flow reference, solved at every change
  // that moves others.
  MaxMinFlows(std::vector<double> capacity, std::size_t components, bool classes = true);

  // Takes effect at the component's next solve(); 0 holds every flow that crosses it.
  void set_capacity(std::uint32_t constraint, double bytes_per_s);

  // A flow of `component` (the one of every constraint of `route`) that starts sharing at time
  // `now`. Returns true when it moves no one else (it runs already); false when the component
  // must be solved (its rate is 0 until then). `solve_pending`: the component will be solved
  // anyway, try nothing.
  bool add(std::uint32_t component, const std::vector<std::uint32_t>& route, double weight,
           double bytes, std::uint32_t token, double now, bool solve_pending);

  // Removes the component's flows whose finish time is at or before `t`, appending their
  // tokens. Returns true when their leaving moves no one else.
  bool take_finished(std::uint32_t component, double t, std::vector<std::uint32_t>& tokens);

  // The max-min allocation of the component's flows at time `now`, and each flow's finish time.
  void solve(std::uint32_t component, double now);

  // The component's earliest finish time, +inf when none of its flows moves.
  double next_finish(std::uint32_t component);

  // Bytes as they pass: a flow's bytes between two changes of its rate, (token, from, to,
  // bytes), appended to `log` (when set) as each rate ends: at a solve that changes it, when the
  // flow finishes, and at flush(). A link's delivered bytes in any interval are then exact, and
  // never more than its bandwidth allows (links count them: engine/network_path.cpp).
  struct Delivery {
    std::uint32_t token;
    double from, to, bytes;
  };
  // `grids` ((origin, length) of the windows the log's reader counts bytes in): the class solver
  // then logs a flow's bytes once per window it spans rather than once per level it ran at,
  // exact per window. Empty: once per level.
  void set_delivery_log(std::vector<Delivery>* log,
                        std::vector<std::pair<double, double>> grids = {}) {
    log_ = log;
    grids_ = std::move(grids);
  }
  // The end of the run: every flow's bytes through `now`, logged.
  void flush(double now);

  // What the flows cost: changes that moved no one else, solves, and the flows and links those
  // visited (the benchmark's counts per flow event).
  struct Counters {
    std::int64_t quiet_changes = 0, solves = 0, flow_visits = 0, link_visits = 0;
    // The class solver: joins and leaves its class level absorbed (no solve), classes built
    // after a solve, and flows moved into or out of a class.
    std::int64_t class_changes = 0, class_builds = 0, flows_moved = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  struct Flow {
    std::vector<std::uint32_t> route;
    double inverse_weight = 1.0;
    double remaining = 0.0;  // bytes, as of `since`
    double since = 0.0;
    double rate = 0.0;
    // Delivery: bytes logged so far of `total`, and the current rate's start and value.
    double total = 0.0, logged = 0.0, rate_since = 0.0, logged_rate = 0.0;
    double finish = kInf;
    std::uint32_t token = 0;
    std::uint32_t position = 0;    // in its component's `active`
    std::uint32_t generation = 0;  // bumped when its finish changes or it leaves
    std::uint64_t fixed_at = 0;    // the solve that fixed its rate
    // Of one solve: the narrowest link direction this flow has to itself.
    double bound = kInf;
    // The constraint that fixed its rate (its own narrowest link when that bound it).
    std::uint32_t fixed_by = 0, bound_by = 0;
    // In its component's class: its finish tag in the class's V, and where it joined (time, V,
    // and the first level change after it in the class's history).
    bool in_class = false;
    double tag = 0.0, class_t0 = 0.0, class_v0 = 0.0;
    std::uint32_t class_k0 = 0;
  };
  struct Due {
    double finish;
    std::uint32_t slot, generation;
    bool operator>(const Due& o) const {
      return finish > o.finish || (finish == o.finish && slot > o.slot);
    }
  };
  // (key, slot or constraint, generation or version): the class's lazy heaps.
  struct Keyed {
    double key;
    std::uint32_t id, generation;
    bool operator>(const Keyed& o) const { return key > o.key || (key == o.key && id > o.id); }
  };
  // The flows a solve fixed at `constraint`, sharing its level (flow_classes.cpp).
  struct FlowClass {
    bool live = false;
    std::uint32_t constraint = 0, members = 0;
    double level = 0.0, usage = 0.0;  // usage: the members' summed inverse weights
    double v = 0.0, since = 0.0;      // V at `since`, the last level change
    std::vector<Keyed> tags;          // min-heap of the members' finish tags
    // Max-heap (keys negated) of the levels of the other flows crossing `constraint`.
    std::vector<Keyed> others;
    // Min-heap of each other link's headroom: the level at which it would be full.
    std::vector<Keyed> headroom;
    // (time, V, level from then) at each level change, from the piece the oldest member joined.
    struct Piece {
      double t, v, level;
    };
    std::vector<Piece> history;
  };
  struct Component {
    std::vector<std::uint32_t> active;  // slots in the data phase
    std::vector<Due> due;               // min-heap by finish; stale entries skipped
    FlowClass cls;
  };
  void schedule(Component& k, std::uint32_t slot);
  // Logs f's bytes from its rate's start to `now` (all that is left when it finishes).
  void log_delivery(Flow& f, double now, bool finished);
  // Whether `c` has bandwidth spare beyond `more` (within rounding: a saturated link never
  // counts as spare).
  bool spare(std::uint32_t c, double more) const {
    return capacity_[c] - load(c) - more > 1e-9 * capacity_[c];
  }
  // A constraint's load: the flows outside the class, and the class's at its level.
  double load(std::uint32_t c) const {
    const FlowClass& k = components_[component_of_[c]].cls;
    return agg_count_[c] == 0 ? load_[c] : load_[c] + k.level * agg_[c];
  }

  // The class solver (flow_classes.cpp).
  // The class's V at `now`.
  static double clock(const FlowClass& k, double now) {
    return k.v + k.level * std::max(0.0, now - k.since);
  }
  void set_level(FlowClass& k, double now, double level);
  // Joins `slot` (already in `active`) to the class when that provably keeps every other rate.
  bool join_class(std::uint32_t component, std::uint32_t slot, double now);
  // The class's flows finished by `t`; false when a leave needs a solve.
  bool take_class_finished(Component& k, double t, std::vector<std::uint32_t>& tokens);
  double class_next_finish(FlowClass& k);
  void push_headroom(FlowClass& k, std::uint32_t c);
  // `c`'s load or the class's share of it changed: older headroom entries of `c` go stale, and
  // a live class gets the new one.
  void load_changed(FlowClass& k, std::uint32_t c) {
    ++version_[c];
    if (k.live) push_headroom(k, c);
  }
  // Logs a class member's bytes from its join (or last log) to `now`, piece by piece of level.
  void log_class(Flow& f, const FlowClass& k, double now, bool finished);
  // The class's V at `t` (a time since the oldest member's join), from its history.
  static double clock_at(const FlowClass& k, double t);
  // The first window boundary of grids_ after `t`, +inf when none.
  double next_boundary(double t) const;
  // Before a solve: every member's remaining bytes and rate as of `now`, the class dissolved.
  void dissolve_class(Component& k, double now);
  // After a solve: the flows fixed at the most shared bottleneck become the class.
  void build_class(std::uint32_t component, double now);
  void leave_class_links(const Flow& f);

  std::vector<double> capacity_;
  bool classes_ = true;
  // Per constraint, between changes: the flows that cross it and the sum of their rates (of the
  // flows outside the class).
  std::vector<std::uint32_t> crossing_;
  std::vector<double> load_;
  // Per constraint: its component, the class members crossing it and their summed inverse
  // weights, the flows outside the class it binds (their `fixed_by`), the solve's level there,
  // and a version (the headroom heap's entries go stale).
  std::vector<std::uint32_t> component_of_, agg_count_, binds_, version_;
  std::vector<double> agg_, level_;
  std::vector<Flow> flows_;          // slots, reused
  std::vector<std::uint32_t> free_;  // free slots
  std::vector<Component> components_;

  // Per constraint, scratch of one solve: flows crossing it (a range of members_), what is
  // left of its capacity, the summed inverse weights and count of its flows not yet fixed.
  // Only constraints that two flows or more cross are solved as constraints: one that a single
  // flow crosses is a bound on that flow's rate (the same allocation, at a fraction of the cost:
  // most NICs carry one transfer at a time).
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
  std::vector<std::pair<double, std::uint32_t>> capped_;  // (bound level, slot), ascending
  std::uint64_t solve_id_ = 0;
  Counters counters_;
  std::vector<Delivery>* log_ = nullptr;
  std::vector<std::pair<double, double>> grids_;
};

}  // namespace sonicsim::flows
