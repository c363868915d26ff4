#include "worker_nodes.hpp"

#include <algorithm>

namespace sonicsim::engine {

namespace {
// Later pieces sink: the heap's top is the earliest target, the first started among equals.
bool later(const auto& a, const auto& b) {
  return a.target != b.target ? a.target > b.target : a.seq > b.seq;
}
}  // namespace

void WorkerNodes::build(std::uint32_t nodes, const std::vector<Group>& groups) {
  on_ = !groups.empty();
  if (!on_) return;
  nodes_.resize(nodes);
  speed_.resize(groups.size());
  totals_.assign(groups.size(), Totals{});
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Group& gr = groups[g];
    // A node's busy count never exceeds its threads: one piece at a time per thread.
    auto& table = speed_[g];
    table.resize(gr.threads_per_node + 1);
    for (std::uint32_t b = 0; b <= gr.threads_per_node; ++b)
      table[b] = gr.spec->speed_factor(static_cast<double>(std::max(b, 1u)));
    for (std::uint32_t k = 0; k < gr.count; ++k)
      nodes_[gr.first + k].group = static_cast<std::uint32_t>(g);
  }
}

void WorkerNodes::advance(Node& n) {
  const Time now = ctx_.now;
  if (now <= n.since) return;
  const double s = speed(n);
  n.clock += s * (now - n.since);
  if (n.busy > 0) {
    const Time from = std::max(n.since, ctx_.warmup), to = std::min(now, ctx_.end);
    if (to > from) {
      const double busy = n.busy * (to - from);
      Totals& t = totals_[n.group];
      t.busy_seconds += busy;
      t.work_seconds += busy * s;
    }
  }
  n.since = now;
}

void WorkerNodes::start(std::uint32_t node, const Work& w, double work) {
  Node& n = nodes_[node];
  advance(n);
  ++n.busy;
  n.heap.push_back({n.clock + work, seq_++, w});
  std::push_heap(n.heap.begin(), n.heap.end(), later<Piece, Piece>);
  if (dispatching_ != node) plan(n, node);
}

void WorkerNodes::cancel(std::uint32_t node, std::uint32_t thread) {
  Node& n = nodes_[node];
  advance(n);
  const auto gone = std::remove_if(n.heap.begin(), n.heap.end(),
                                   [&](const Piece& p) { return p.work.thread == thread; });
  const auto removed = static_cast<std::uint32_t>(n.heap.end() - gone);
  if (removed == 0) return;
  n.heap.erase(gone, n.heap.end());
  std::make_heap(n.heap.begin(), n.heap.end(), later<Piece, Piece>);
  n.busy -= removed;
  plan(n, node);
}

const std::vector<WorkerNodes::Work>& WorkerNodes::due(std::uint32_t node, std::uint32_t stamp) {
  due_.clear();
  Node& n = nodes_[node];
  if (stamp != n.plan) return due_;
  n.pending = Time::never();
  if (n.heap.empty()) return due_;
  advance(n);
  // The clock may read a tick short of a target its event was planned for (instants are whole
  // nanoseconds), so pieces within two ticks of work end with it.
  const double eps = 2e-9 * std::max(1.0, speed(n));
  if (n.heap.front().target > n.clock + eps) {  // planned before the node slowed down
    plan(n, node);
    return due_;
  }
  do {
    std::pop_heap(n.heap.begin(), n.heap.end(), later<Piece, Piece>);
    due_.push_back(n.heap.back().work);
    n.heap.pop_back();
  } while (!n.heap.empty() && n.heap.front().target <= n.clock + eps);
  n.busy -= static_cast<std::uint32_t>(due_.size());
  dispatching_ = node;
  return due_;
}

void WorkerNodes::replan(std::uint32_t node) {
  dispatching_ = kNobody;
  plan(nodes_[node], node);
}

// A node that slows down (a thread starts work) moves its next end later: its pending event
// stays, and when it fires finds nothing due and plans again. Only an earlier end (a thread
// stops, the node speeds up; a shorter piece) needs a new event, which makes the pending one
// stale. So a piece costs about one new event, not one per change of the busy count.
void WorkerNodes::plan(Node& n, std::uint32_t node) {
  if (n.heap.empty()) return;
  const double left = std::max(0.0, n.heap.front().target - n.clock);
  const Time at = ctx_.now + left / speed(n);
  if (at >= n.pending) return;
  n.plan = (n.plan + 1) & EventQueue::kStampMask;
  n.pending = at;
  ctx_.queue.push(at, EventKind::NodeCpuDone, node, n.plan);
}

void WorkerNodes::finish() {
  if (!on_) return;
  for (Node& n : nodes_) advance(n);
}

}  // namespace sonicsim::engine
