// The engine's clock: a binary heap of timed events, ties broken by insertion order so that
// the same scenario and seed always replay the same sequence.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace sonicsim::engine {

enum class EventKind : std::uint8_t {
  CpuDone,        // id: thread (sync) or thread CPU (async)
  TransferDone,   // id: request; direction in the request
  BatcherWake,    // id: batcher (max_queue_delay expired)
  ExecutionDone,  // id: device; stale unless `stamp` matches the device's
  EventStart,     // id: thread; staggered start of the first event
};

struct Event {
  double time;
  std::uint64_t seq;
  std::uint32_t id;
  std::uint32_t stamp;
  EventKind kind;
};

class EventQueue {
 public:
  void push(double time, EventKind kind, std::uint32_t id, std::uint32_t stamp = 0) {
    heap_.push(Event{time, seq_++, id, stamp, kind});
  }
  bool empty() const { return heap_.empty(); }
  const Event& top() const { return heap_.top(); }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  std::size_t size() const { return heap_.size(); }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time > b.time || (a.time == b.time && a.seq > b.seq);
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace sonicsim::engine
