// The engine's clock: its timed events and the queue that hands them out in order.
//
// Simultaneous events pop in payload order, a fixed total order, so the same scenario and seed
// always replay the same sequence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

#include <sonicsim/engine/bucket_queue.hpp>
#include <sonicsim/engine/event_heap.hpp>
#include <sonicsim/util/sim_time.hpp>

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
  NodeCpuDone,    // id: worker node; its earliest CPU work ends; stale unless `stamp` matches
};

// Every kind's facts, one line each, in the enum's order: what the stall net names when a run's
// clock stops on it (simulation.cpp), and whether it waits in the far queue (the client threads'
// CPU work, one pending per thread) or the near one. A new timer is a line here and in the enum,
// and a case in Simulation::Impl::handle; nothing else.
struct EventKindFacts {
  EventKind kind;
  bool far;
  const char* meaning;
};
inline constexpr EventKindFacts kEventKinds[] = {
    {EventKind::CpuDone, true, "client events (workload.cpu_time_per_event)"},
    {EventKind::TransferDone, false, "transfers (network latencies, request_overhead)"},
    {EventKind::BatcherWake, false, "batcher wake-ups (dynamic_batching.max_queue_delay)"},
    {EventKind::ExecutionDone, false, "executions (models' service_time)"},
    {EventKind::EventStart, true, "client events (workload.cpu_time_per_event)"},
    {EventKind::Arrival, false, "open-loop arrivals (workload.arrivals.rate)"},
    {EventKind::Sample, false, "time-series samples (timeseries.interval)"},
    {EventKind::Operation, false, "site operations (autoscaler polls, crashes)"},
    {EventKind::ClientTimeout, false, "client timeouts (workload.client.timeout)"},
    {EventKind::Retry, false, "retries (workload.client.retry_delay)"},
    {EventKind::FallbackDone, false,
     "CPU fallbacks (offload_fraction x workload.cpu_time_per_event)"},
    {EventKind::Preemption, false, "preemptions (faults)"},
    {EventKind::BalancerDone, false, "load-balancer messages (load_balancer.capacity.per_message)"},
    {EventKind::HostWorkDone, false, "server host work (models' host_cost)"},
    {EventKind::NodeCpuDone, true, "client events on worker nodes (workload.cpu_time_per_event)"},
};
inline constexpr std::size_t kEventKindCount = std::size(kEventKinds);
constexpr const EventKindFacts& facts_of(EventKind k) {
  return kEventKinds[static_cast<std::size_t>(k)];
}
constexpr bool event_kinds_in_order() {
  for (std::size_t i = 0; i < kEventKindCount; ++i)
    if (static_cast<std::size_t>(kEventKinds[i].kind) != i) return false;
  return true;
}
static_assert(event_kinds_in_order(),
              "kEventKinds lists every EventKind once, in the enum's order");
static_assert(facts_of(EventKind::NodeCpuDone).kind == EventKind::NodeCpuDone &&
                  kEventKindCount == static_cast<std::size_t>(EventKind::NodeCpuDone) + 1,
              "a new EventKind needs its line in kEventKinds");

struct Event {
  Time time;
  std::uint32_t id;
  std::uint32_t stamp;  // 24 bits kept (EventQueue::kStampMask)
  EventKind kind;
};

// Two ring-of-buckets queues (bucket_queue.hpp). One pending CPU completion per client thread
// lives in `far_` (up to a million entries, each touched once per event; its bucket width
// follows the event time). The short-lived transfer, batcher and execution events live in
// `near_`, whose 10 us buckets keep the heap it pops from a few dozen events deep (measured on
// latency-bound-1m, paired runs: 10 us beat 2 us and 50 us by 5-12%, a plain heap by 14%). Pops
// take the earlier top of the two, so the order is the same total order as one heap's.
class EventQueue {
 public:
  // An event's 64-bit key after its time: kind (8 bits), stamp (24), id (32). Simultaneous events
  // pop in this order; the kind's 8 bits leave room for 256 kinds.
  static constexpr std::uint32_t kStampMask = (1u << 24) - 1;
  static constexpr int kKindShift = 56;
  static_assert(kEventKindCount <= 256, "EventKind no longer fits in 8 bits");
  static constexpr double kNearWidth = 1e-5;

  // `far_width`: seconds per bucket of the far queue (the speed, not the order, depends on it).
  explicit EventQueue(double far_width = 1e-3) : near_(kNearWidth), far_(far_width) {}

  void push(Time time, EventKind kind, std::uint32_t id, std::uint32_t stamp = 0) {
    const std::uint64_t payload = (static_cast<std::uint64_t>(kind) << kKindShift) |
                                  (static_cast<std::uint64_t>(stamp & kStampMask) << 32) | id;
    if (facts_of(kind).far)
      far_.push({time.ns(), payload});
    else
      near_.push({time.ns(), payload});
  }
  bool empty() const { return near_.empty() && far_.empty(); }
  // Not empty: the earliest event's time, that event, and the event pop() gives next.
  Time top_time() const { return Time::from_ns(first_ring(*this)->top().time); }
  Event pop() { return decode(first_ring(*this)->pop()); }
  Event peek() const { return decode(first_ring(*this)->top()); }
  // The engine's loop in two calls an event, each comparing the two rings' heads once: the next
  // event, if it is due at or before `limit`, into `out` (false: none is); then the one after it
  // (false: the queue is empty).
  bool pop_through(Time limit, Event& out) {
    BucketQueue* first = first_ring(*this);
    if (first == nullptr || first->top().time > limit.ns()) return false;
    out = decode(first->pop());
    return true;
  }
  bool peek(Event& out) const {
    const BucketQueue* first = first_ring(*this);
    if (first == nullptr) return false;
    out = decode(first->top());
    return true;
  }

 private:
  static Event decode(const EventHeap::Entry& e) {
    return {Time::from_ns(e.time), static_cast<std::uint32_t>(e.payload),
            static_cast<std::uint32_t>(e.payload >> 32) & kStampMask,
            static_cast<EventKind>(e.payload >> kKindShift)};
  }
  // The ring whose head is the earliest event, nullptr when both are empty (const or not).
  template <class Self>
  static auto first_ring(Self& q) -> decltype(&q.near_) {
    if (q.far_.empty()) return q.near_.empty() ? nullptr : &q.near_;
    return q.near_.empty() || EventHeap::before(q.far_.top(), q.near_.top()) ? &q.far_ : &q.near_;
  }
  BucketQueue near_;
  BucketQueue far_;
};

}  // namespace sonicsim::engine
