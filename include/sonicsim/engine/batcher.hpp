// Triton's scheduler for one model on one device: which queued requests form the next execution.
//
// Dynamic batching follows Triton's dynamic batcher: requests are taken in arrival order while
// their items fit in `max_batch_size`; if the items taken reach a preferred batch size at a
// request boundary, the largest such size is executed at once; a batch that cannot grow (the
// cap is reached, or the next request does not fit) is executed at once; otherwise the batcher
// waits until the oldest request has waited `max_queue_delay`, then executes all it took.
// Without preferred sizes, `max_batch_size` is the size it waits for. Batches are only formed
// when a model instance is free, so under load requests pile up and batches grow, as in Triton.
// Without dynamic batching every request executes alone, in arrival order.
//
// The queue policy is Triton's too (default_queue_policy). An arrival that finds
// `max_queue_size` requests queued is rejected at once. Timeouts are applied lazily, the way
// Triton applies them while it forms a batch: only when an instance is free and the batcher looks
// at the queue does a request that has waited longer than `default_timeout` get rejected
// (REJECT) or moved behind every request that has not timed out (DELAY). All requests share one
// timeout, so the timed-out ones are always the oldest, at the front of the queue.
//
// Priority levels are Triton's too (priority_levels): level 1 is the highest. The queue reads
// level 1's requests (those in time, then the delayed ones), then level 2's, and so on; a batch
// takes requests in that order, so a lower level only gets what the higher ones leave. Each level
// has its own queue policy (priority_queue_policy, else the default one): its own max_queue_size
// and timeout. max_queue_delay runs from the oldest request of any level.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include <sonicsim/util/sim_time.hpp>

namespace sonicsim::engine {

struct LevelPolicy {
  std::int64_t max_queue_size = 0;  // 0: unlimited
  double default_timeout = 0.0;     // 0: none
  bool delay_timed_out = false;     // DELAY instead of REJECT
};

struct BatcherConfig {
  bool dynamic = false;
  int max_batch_size = 0;      // 0: unlimited
  std::vector<int> preferred;  // ascending
  double max_queue_delay = 0.0;
  std::int64_t max_queue_size = 0;  // the default queue policy; 0: unlimited
  double default_timeout = 0.0;     // 0: none
  bool delay_timed_out = false;     // DELAY instead of REJECT
  // Priority levels 1, 2, ... with their policies; empty: one level under the default policy.
  std::vector<LevelPolicy> levels;
};

class Batcher {
 public:
  struct Queued {
    std::uint32_t request;
    int items;
    Time enqueued;
  };

  explicit Batcher(BatcherConfig config, int instances);

  // False when the request can never run (more items than max_batch_size): the caller fails it.
  bool accepts(int items) const {
    return config_.max_batch_size == 0 || items <= config_.max_batch_size;
  }
  // Priority levels, at least 1; a request's `level` is 0-based (Triton's level 1 is 0).
  std::size_t levels() const { return 1 + more_levels_.size(); }
  // False when the level's queue is full: Triton rejects the request instead of queueing it.
  bool has_room(std::size_t level = 0) const {
    const Level& l = level_at(level);
    return l.policy.max_queue_size == 0 ||
           static_cast<std::int64_t>(l.queue.size() + l.delayed.size()) < l.policy.max_queue_size;
  }
  void enqueue(std::uint32_t request, int items, Time now, std::size_t level = 0) {
    level_at(level).queue.push_back({request, items, now});
    ++queued_;
  }

  // If a free instance and a ready batch exist, moves the batch's requests into `batch` (cleared
  // first), takes the instance and returns its items. Otherwise returns 0 and sets `wake_at` to
  // when a batch will be ready without further arrivals (never() if none, e.g. no free instance).
  // Requests rejected for their timeout on the way go to the rejected list (see take_rejected).
  int form(Time now, std::vector<Queued>& batch, Time& wake_at);
  // Moves the requests rejected since the last call into `out` (cleared first).
  void take_rejected(std::vector<Queued>& out) {
    out.clear();
    out.swap(rejected_);
  }

  // The server went away (crash, end of a drain): everything queued moves to `out` (appended),
  // and the instances its executions held are free again.
  void drop_all(std::vector<Queued>& out, int instances) {
    for (std::size_t i = 0; i < levels(); ++i) {
      Level& l = level_at(i);
      out.insert(out.end(), l.queue.begin(), l.queue.end());
      out.insert(out.end(), l.delayed.begin(), l.delayed.end());
      l.queue.clear();
      l.delayed.clear();
    }
    queued_ = 0;
    free_instances_ = instances;
  }

  void release_instance() { ++free_instances_; }
  int free_instances() const { return free_instances_; }
  int instances() const { return instances_; }  // all of them free: nothing in an execution
  // Delayed requests still wait in Triton's queue, so they count against max_queue_size.
  std::size_t queued() const { return queued_; }
  const BatcherConfig& config() const { return config_; }

 private:
  // A first-in first-out queue in one array, read from `head_` on: at ten thousand devices a
  // batcher's queue is rarely in cache, and a deque reaches its requests through a map of
  // blocks (two more misses) where this reads them in a row.
  class Fifo {
   public:
    bool empty() const { return head_ == items_.size(); }
    std::size_t size() const { return items_.size() - head_; }
    const Queued& front() const { return items_[head_]; }
    const Queued* begin() const { return items_.data() + head_; }
    const Queued* end() const { return items_.data() + items_.size(); }
    void push_back(const Queued& q) { items_.push_back(q); }
    void pop_front() { drop_front(1); }
    // Removes the first n (n <= size()).
    void drop_front(std::size_t n) {
      head_ += n;
      if (head_ == items_.size()) {
        items_.clear();
        head_ = 0;
      } else if (head_ >= 64 && 2 * head_ >= items_.size()) {
        // What was read is dropped once it is half of the array: each request moves once.
        items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
    }
    void clear() {
      items_.clear();
      head_ = 0;
    }

   private:
    std::vector<Queued> items_;
    std::size_t head_ = 0;
  };
  struct Level {
    LevelPolicy policy;
    Fifo queue;
    Fifo delayed;  // timed out under DELAY: served after `queue`
  };
  BatcherConfig config_;
  int instances_;
  int free_instances_;
  // Level 1 in the record itself, the others beside it: a request's way into its queue reads
  // the batcher's record and the queue's array, not a list of levels between them.
  Level first_level_;
  std::vector<Level> more_levels_;
  Level& level_at(std::size_t i) { return i == 0 ? first_level_ : more_levels_[i - 1]; }
  const Level& level_at(std::size_t i) const { return i == 0 ? first_level_ : more_levels_[i - 1]; }
  std::size_t queued_ = 0;
  bool timeouts_ = false;        // some level has a timeout
  std::vector<Fifo*> segments_;  // form()'s scratch: the queue in Triton's order
  std::vector<Queued> rejected_;

  void apply_timeouts(Time now);
};

}  // namespace sonicsim::engine
