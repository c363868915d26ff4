// A station of k identical servers taking customers first come first served: the load
// balancer's worker threads and its NIC (request_path.hpp), a server host's CPU cores
// (server_hosts.hpp). It keeps who waits and how many serve, and the busy servers x seconds after
// the warm-up; its owner plans each service's end (the event kind and stamp are the owner's).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>

#include <sonicsim/engine/event_queue.hpp>

namespace sonicsim::engine {

class Station {
 public:
  explicit Station(int servers = 1) : servers_(servers) {}

  int servers() const { return servers_; }
  // Busy servers x seconds after `warmup`, up to the last change (account brings it to now).
  double busy_area() const { return busy_area_; }

  // `who` arrives: true when a free server takes it now (the owner plans its end), false when
  // it waits.
  bool arrive(std::uint32_t who, Time now, Time warmup) {
    if (busy_ < servers_) {
      begin(now, warmup);
      return true;
    }
    waiting_.push_back(who);
    return false;
  }
  // A service ended: its server takes the next waiting customer, `start(next)` planning its end.
  template <class Start>
  void done(Time now, Time warmup, Start&& start) {
    account(now, warmup);
    --busy_;
    serve_waiting(now, warmup, start);
  }
  // Customers that leave for good (their server went away): those waiting for whom `gone(who)`
  // holds leave the queue.
  template <class Gone>
  void leave_queue(Gone&& gone) {
    std::erase_if(waiting_, gone);
  }
  // After customers left: `busy` services are still running, and free servers take the next
  // waiting customers.
  template <class Start>
  void recount(int busy, Time now, Time warmup, Start&& start) {
    account(now, warmup);
    busy_ = busy;
    serve_waiting(now, warmup, start);
  }
  std::size_t waiting() const { return waiting_.size(); }

  void account(Time now, Time warmup) {
    const Time from = std::max(last_, warmup);
    if (now > from) busy_area_ += busy_ * (now - from);
    last_ = now;
  }

 private:
  void begin(Time now, Time warmup) {
    account(now, warmup);
    ++busy_;
  }
  template <class Start>
  void serve_waiting(Time now, Time warmup, Start& start) {
    while (busy_ < servers_ && !waiting_.empty()) {
      const std::uint32_t next = waiting_.front();
      waiting_.pop_front();
      begin(now, warmup);
      start(next);
    }
  }

  int servers_ = 1, busy_ = 0;
  std::deque<std::uint32_t> waiting_;
  double busy_area_ = 0.0;
  Time last_;
};

}  // namespace sonicsim::engine
