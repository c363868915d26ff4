// The table of requests in flight, which every part of the engine reads: a client issues a
// request, the request path routes it, the network moves it, a server pool queues and executes
// it, site operations may lose it. One record per try, reused once the try is over, so that the
// hot path allocates nothing; events name a request by its index in the table.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include <sonicsim/engine/event_queue.hpp>
#include <sonicsim/engine/free_list.hpp>
#include <sonicsim/engine/transport.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::engine {

// A request spec of some workload; Request::kind indexes all of them, in scenario order.
struct RequestKind {
  std::uint32_t model;
  bool served;
  const scenario::RequestSpec* spec;
  scenario::PreparedDistribution items;  // spec->items, drawn once per request
};

// Why a try failed.
enum class Rejection : std::uint8_t {
  QueueFull,
  Timeout,   // Triton's queue timeout (REJECT)
  TooLarge,  // items > max_batch_size
  NoServer,  // no server up for the model, or it was not serving when the try arrived
  Lost,      // queued or executing when its server crashed or ended its drain
  ClientTimeout,
};

// A request's last word.
enum class Outcome : std::uint8_t { Completed, Failed, Fallback };

inline constexpr std::uint32_t kUntraced = std::numeric_limits<std::uint32_t>::max();

// One try of a request. A request that retries reuses its record once the failed try is back;
// a try the client gives up on (timeout, preemption) stays behind as an orphan, still moving
// through the network and the server, and the request goes on in a new record.
struct Request {
  Time sent, enqueued;
  Time first_sent;        // the request's first try: latency runs from here
  Time lb_in;             // its message entered the load balancer
  double lb_bytes = 0.0;  // and its size
  std::uint32_t thread = 0, slot = 0, device = 0, batcher = 0;
  // Of its thread, copied here when it is issued: the server and the way back read them
  // without touching the thread's record, which a million threads keep out of the cache.
  std::uint32_t node = 0;   // the client's node
  std::uint16_t level = 0;  // the batcher's priority level (0-based) it waits at
  std::uint32_t gen = 0;    // changes with every try: stale client timeouts are ignored
  std::uint16_t kind = 0;
  std::uint16_t tries = 0;
  int items = 1;
  Direction dir = Direction::ToServer;
  bool failed = false;
  bool orphan = false;
  bool live = false;                     // in use (orphans included)
  bool out = false;                      // the try is on its way (not back at the client)
  bool routed = false;                   // sent to `device` (counted in `active` until it responds)
  Rejection why = Rejection::QueueFull;  // when failed
  std::uint32_t trace = kUntraced;       // index in RunMetrics::trace
};

class RequestTable {
 public:
  std::vector<RequestKind> kinds;
  std::uint64_t live = 0;  // requests issued and not finished (orphans aside)

  Request& operator[](std::uint32_t r) { return records_[r]; }
  const Request& operator[](std::uint32_t r) const { return records_[r]; }
  std::uint32_t size() const { return records_.size(); }
  std::uint32_t model_of(std::uint32_t r) const { return kinds[records_[r].kind].model; }

  std::uint32_t add() { return records_.add(); }
  void release(std::uint32_t r) {
    records_[r].gen = (records_[r].gen + 1) & EventQueue::kStampMask;  // its timers go stale
    records_[r].live = false;
    records_.release(r);
  }

 private:
  FreeList<Request> records_;
};

}  // namespace sonicsim::engine
