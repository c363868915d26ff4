#include <sonicsim/engine/batcher.hpp>

#include <algorithm>

#include <sonicsim/util/numbers.hpp>

namespace sonicsim::engine {

namespace {
// SimGrid's clock has 1 ns resolution: a delay that expires within it has expired. (Named apart
// from simulation.cpp's kTimeEps: a unity build compiles both files as one.)
constexpr double kBatcherTimeEps = 1e-9;
}  // namespace

void Batcher::apply_timeouts(double now) {
  if (config_.default_timeout <= 0.0) return;
  while (!queue_.empty() &&
         now > queue_.front().enqueued + config_.default_timeout + kBatcherTimeEps) {
    if (config_.delay_timed_out)
      delayed_.push_back(queue_.front());
    else
      rejected_.push_back(queue_.front());
    queue_.pop_front();
  }
}

int Batcher::form(double now, std::vector<Queued>& batch, double& wake_at) {
  batch.clear();
  wake_at = kInf;
  if (free_instances_ == 0) return 0;
  apply_timeouts(now);
  if (queue_.empty() && delayed_.empty()) return 0;

  // Triton's queue reads as the requests in time, then the delayed ones.
  const std::size_t n = queue_.size() + delayed_.size();
  const auto at = [&](std::size_t i) -> const Queued& {
    return i < queue_.size() ? queue_[i] : delayed_[i - queue_.size()];
  };
  const double oldest = std::min(queue_.empty() ? kInf : queue_.front().enqueued,
                                 delayed_.empty() ? kInf : delayed_.front().enqueued);
  std::size_t take = 0;
  int items = 0;
  if (!config_.dynamic) {
    take = 1;
    items = at(0).items;
  } else {
    const int cap = config_.max_batch_size;
    std::size_t count = 0, preferred_count = 0;
    int total = 0, preferred_items = 0;
    bool full = false;
    for (std::size_t i = 0; i < n; ++i) {
      const Queued& q = at(i);
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
    } else if (full || now + kBatcherTimeEps >= oldest + config_.max_queue_delay) {
      take = count;
      items = total;
    } else {
      wake_at = oldest + config_.max_queue_delay;
      return 0;
    }
  }
  const auto from_queue = static_cast<std::ptrdiff_t>(std::min(take, queue_.size()));
  const auto from_delayed = static_cast<std::ptrdiff_t>(take) - from_queue;
  batch.assign(queue_.begin(), queue_.begin() + from_queue);
  batch.insert(batch.end(), delayed_.begin(), delayed_.begin() + from_delayed);
  queue_.erase(queue_.begin(), queue_.begin() + from_queue);
  delayed_.erase(delayed_.begin(), delayed_.begin() + from_delayed);
  --free_instances_;
  return items;
}

}  // namespace sonicsim::engine
