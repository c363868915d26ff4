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
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace sonicsim::engine {

struct BatcherConfig {
  bool dynamic = false;
  int max_batch_size = 0;      // 0: unlimited
  std::vector<int> preferred;  // ascending
  double max_queue_delay = 0.0;
};

class Batcher {
 public:
  struct Queued {
    std::uint32_t request;
    int items;
    double enqueued;
  };

  explicit Batcher(BatcherConfig config, int instances)
      : config_(std::move(config)), free_instances_(instances) {}

  // False when the request can never run (more items than max_batch_size): the caller fails it.
  bool accepts(int items) const {
    return config_.max_batch_size == 0 || items <= config_.max_batch_size;
  }
  void enqueue(std::uint32_t request, int items, double now) {
    queue_.push_back({request, items, now});
  }

  // If a free instance and a ready batch exist, moves the batch's requests into `batch` (cleared
  // first), takes the instance and returns its items. Otherwise returns 0 and sets `wake_at` to
  // when a batch will be ready without further arrivals (+inf if never, e.g. no free instance).
  int form(double now, std::vector<Queued>& batch, double& wake_at);

  void release_instance() { ++free_instances_; }
  int free_instances() const { return free_instances_; }
  std::size_t queued() const { return queue_.size(); }
  const BatcherConfig& config() const { return config_; }

 private:
  BatcherConfig config_;
  int free_instances_;
  std::deque<Queued> queue_;
};

}  // namespace sonicsim::engine
