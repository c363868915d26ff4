// The engine's clock: a 4-ary min-heap of timed events.
//
// Entries are 16 bytes (time + packed payload) because the heap holds one pending event per
// client thread: at 100k threads the sift-down cache misses are the engine's main cost, and a
// 4-ary heap halves the levels they touch. Simultaneous events pop in payload order, a fixed
// total order, so the same scenario and seed always replay the same sequence.
#pragma once

#include <cstdint>
#include <vector>

namespace sonicsim::engine {

enum class EventKind : std::uint8_t {
  CpuDone,        // id: thread (its current CPU work ends); stale unless `stamp` is its epoch
  TransferDone,   // id: request; direction in the request
  BatcherWake,    // id: batcher (max_queue_delay expired)
  ExecutionDone,  // id: device; stale unless `stamp` matches the device's
  EventStart,     // id: thread; its first event (or its job's restart); stamp: its epoch
  Arrival,        // open loop: the next event arrives (one pending at a time)
  Sample,         // the time series takes its next sample
  Operation,      // id: pool or device; stamp: what happens (site operations: scaling, faults)
  ClientTimeout,  // id: request; stale unless `stamp` matches the request's try
  Retry,          // id: request; its next try is due
  FallbackDone,   // id: request; its local CPU inference (sync thread) ends
  Preemption,     // id: job (or a random-preemption draw)
  BalancerDone,   // id: request; its message leaves a stage of the load balancer (stamp: stage)
  HostWorkDone,   // id: a server host's job (server_hosts.hpp); stale unless `stamp` matches
};

// The queue packs the kind in 4 bits.
static_assert(static_cast<int>(EventKind::HostWorkDone) < 16, "EventKind no longer fits in 4 bits");

struct Event {
  double time;
  std::uint32_t id;
  std::uint32_t stamp;  // 24 bits kept
  EventKind kind;
};

// A 4-ary min-heap of 16-byte entries (time + packed payload).
class EventHeap {
 public:
  struct Entry {
    double time;
    std::uint64_t payload;
  };
  static bool before(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.payload < b.payload);
  }
  bool empty() const { return heap_.empty(); }
  const Entry& top() const { return heap_.front(); }
  // Inlined everywhere: it is on every event's path, and GCC's choice flipped with the unity
  // batches.
  [[gnu::always_inline]] void push(const Entry& e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }
  Entry pop() {
    const Entry top = heap_.front();
    const Entry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return top;
  }

 private:
  void sift_up(std::size_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Moves `e` down from the root into the hole left by the popped minimum.
  void sift_down(const Entry& e) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    while (true) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }
  std::vector<Entry> heap_;
};

// Two heaps: one pending CPU completion per client thread lives in `far_` (tens of thousands of
// entries, touched once per event), while the short-lived transfer, batcher and execution events
// stay in `near_`, small enough to remain in cache. Pops take the earlier top of the two, so the
// order is the same total order as one heap's.
class EventQueue {
 public:
  static constexpr std::uint32_t kStampMask = (1u << 24) - 1;

  void push(double time, EventKind kind, std::uint32_t id, std::uint32_t stamp = 0) {
    const std::uint64_t payload = (static_cast<std::uint64_t>(kind) << 60) |
                                  (static_cast<std::uint64_t>(stamp & kStampMask) << 32) | id;
    const bool client = kind == EventKind::CpuDone || kind == EventKind::EventStart;
    (client ? far_ : near_).push({time, payload});
  }
  bool empty() const { return near_.empty() && far_.empty(); }
  double top_time() const { return first().top().time; }
  Event pop() {
    const EventHeap::Entry top = first().pop();
    return {top.time, static_cast<std::uint32_t>(top.payload),
            static_cast<std::uint32_t>(top.payload >> 32) & kStampMask,
            static_cast<EventKind>(top.payload >> 60)};
  }

 private:
  EventHeap& first() {
    if (far_.empty()) return near_;
    if (near_.empty()) return far_;
    return EventHeap::before(far_.top(), near_.top()) ? far_ : near_;
  }
  const EventHeap& first() const { return const_cast<EventQueue*>(this)->first(); }
  EventHeap near_, far_;
};

}  // namespace sonicsim::engine
