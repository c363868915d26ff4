// The client side's worker nodes (`workload.node`, docs/nodes.md): the CPU work of a node's
// threads runs at the per-thread speed its busy count allows at each moment
// (include/sonicsim/scenario/node.hpp), so a thread waiting on a remote call speeds up the
// threads still working beside it.
//
// Every busy thread of a node advances at the same speed, so one work clock per node serves them
// all: W(t), the work one busy thread has done since the start, grows at the node's speed and
// changes slope only when the busy count changes. A piece of work of w seconds started when the
// clock read W0 ends when it reads W0 + w. The node keeps its pieces in a heap by that target and
// one event pending, no later than the earliest end (its stamp is the node's plan number: older
// ones are stale). A change of busy count that brings the end forward plans a new event; one that
// pushes it back leaves the pending event, which plans again when it fires early. Cost per
// piece: two operations on the node's own heap (tens of entries) and about one event, as without
// nodes, plus an early firing now and then.
#pragma once

#include <cstdint>
#include <vector>

#include "context.hpp"

namespace sonicsim::engine {

class WorkerNodes {
 public:
  // A piece of CPU work on a node, and what its owner does when it ends: a client thread's own
  // CPU work (its event's, or an async piece: `id` the thread, `stamp` its epoch), or a sync
  // thread's CPU fallback (`id` the request, `stamp` its generation).
  enum class WorkKind : std::uint8_t { ThreadCpu, Fallback };
  struct Work {
    WorkKind kind;
    std::uint32_t thread;  // whose hardware thread it loads
    std::uint32_t id, stamp;
  };
  // One workload's nodes: consecutive node indices from `first`, each with its speed model, and
  // the most threads one of them holds.
  struct Group {
    const scenario::NodeSpec* spec;
    std::uint32_t first, count, threads_per_node;
  };

  explicit WorkerNodes(Context& ctx) : ctx_(ctx) {}

  // `nodes`: every client node of the scenario; groups: the workloads' nodes that have a model
  // (the others never call start).
  void build(std::uint32_t nodes, const std::vector<Group>& groups);
  bool on() const { return on_; }

  // `work` seconds (at speed factor 1) begin now on `node`.
  void start(std::uint32_t node, const Work& w, double work);
  // The pieces of `thread` on `node` end unfinished (its job was preempted).
  void cancel(std::uint32_t node, std::uint32_t thread);
  // The node's pending event (kind NodeCpuDone) fired: the pieces that end now, in the order they
  // started among equal ends; empty when the event was stale. Call `replan` after handling them.
  const std::vector<Work>& due(std::uint32_t node, std::uint32_t stamp);
  void replan(std::uint32_t node);

  // Per group, over the measured span (after warm-up): busy hardware-thread seconds, and the work
  // they did in seconds at speed factor 1 (their ratio is the mean speed factor).
  struct Totals {
    double busy_seconds = 0.0, work_seconds = 0.0;
  };
  // Brings every node's integrals to the end of the run; the totals of group g.
  void finish();
  const Totals& totals(std::size_t group) const { return totals_[group]; }

 private:
  struct Piece {
    double target;      // the node's work clock when it ends
    std::uint64_t seq;  // start order: equal targets end first in, first out
    Work work;
  };
  struct Node {
    std::vector<Piece> heap;  // earliest target on top
    double clock = 0.0;       // work per busy thread since the start, up to `since`
    Time since;
    std::uint32_t busy = 0;
    std::uint32_t plan = 0;        // the stamp of the pending event
    Time pending = Time::never();  // when it fires; never: none pending
    std::uint32_t group = 0;
  };
  // The per-thread speed factor with `busy` threads on a node of group g (a table by count).
  double speed(const Node& n) const {
    const auto& t = speed_[n.group];
    return t[std::min<std::size_t>(n.busy, t.size() - 1)];
  }
  void advance(Node& n);  // the clock and the integrals up to now, at the current speed
  void plan(Node& n, std::uint32_t node);  // the node's one pending event, for its top piece

  Context& ctx_;
  bool on_ = false;
  // The node between due and replan: work it starts meanwhile is planned once, at the end.
  std::uint32_t dispatching_ = kNobody;
  static constexpr std::uint32_t kNobody = ~0u;
  std::uint64_t seq_ = 0;
  std::vector<Node> nodes_;
  std::vector<std::vector<double>> speed_;  // per group, by busy count
  std::vector<Totals> totals_;
  std::vector<Work> due_;
};

}  // namespace sonicsim::engine
