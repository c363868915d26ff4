#include <sonicsim/engine/batcher.hpp>

#include <algorithm>

namespace sonicsim::engine {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// SimGrid's clock has 1 ns resolution: a delay that expires within it has expired.
constexpr double kTimeEps = 1e-9;
}  // namespace

int Batcher::form(double now, std::vector<Queued>& batch, double& wake_at) {
  batch.clear();
  wake_at = kInf;
  if (queue_.empty() || free_instances_ == 0) return 0;

  std::size_t take = 0;
  int items = 0;
  if (!config_.dynamic) {
    take = 1;
    items = queue_.front().items;
  } else {
    const int cap = config_.max_batch_size;
    std::size_t count = 0, preferred_count = 0;
    int total = 0, preferred_items = 0;
    bool full = false;
    for (const Queued& q : queue_) {
      if (cap > 0 && total + q.items > cap) {
        full = true;
        break;
      }
      total += q.items;
      ++count;
      if (std::binary_search(config_.preferred.begin(), config_.preferred.end(), total)) {
        preferred_count = count;
        preferred_items = total;
      }
      if (cap > 0 && total == cap) {
        full = true;
        break;
      }
    }
    if (preferred_count > 0) {
      take = preferred_count;
      items = preferred_items;
    } else if (full || now + kTimeEps >= queue_.front().enqueued + config_.max_queue_delay) {
      take = count;
      items = total;
    } else {
      wake_at = queue_.front().enqueued + config_.max_queue_delay;
      return 0;
    }
  }
  batch.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
  --free_instances_;
  return items;
}

}  // namespace sonicsim::engine
