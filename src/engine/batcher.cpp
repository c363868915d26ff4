#include <sonicsim/engine/batcher.hpp>

#include <algorithm>

#include <sonicsim/util/numbers.hpp>

namespace sonicsim::engine {

namespace {
// SimGrid's clock has 1 ns resolution: a delay that expires within it has expired. (The same
// tolerance as context.hpp's kTimeEps, which this public part of the engine does not include.)
constexpr double kBatcherTimeEps = 1e-9;
}  // namespace

Batcher::Batcher(BatcherConfig config, int instances)
    : config_(std::move(config)), instances_(instances), free_instances_(instances) {
  if (config_.levels.empty()) {
    first_level_.policy = {config_.max_queue_size, config_.default_timeout,
                           config_.delay_timed_out};
  } else {
    first_level_.policy = config_.levels.front();
    for (std::size_t i = 1; i < config_.levels.size(); ++i)
      more_levels_.push_back({config_.levels[i], {}, {}});
  }
  for (std::size_t i = 0; i < levels(); ++i)
    timeouts_ = timeouts_ || level_at(i).policy.default_timeout > 0.0;
  segments_.reserve(2 * levels());
}

void Batcher::apply_timeouts(Time now) {
  for (std::size_t i = 0; i < levels(); ++i) {
    Level& l = level_at(i);
    const LevelPolicy& p = l.policy;
    if (p.default_timeout <= 0.0) continue;
    while (!l.queue.empty() &&
           now - l.queue.front().enqueued > p.default_timeout + kBatcherTimeEps) {
      if (p.delay_timed_out) {
        l.delayed.push_back(l.queue.front());
      } else {
        rejected_.push_back(l.queue.front());
        --queued_;
      }
      l.queue.pop_front();
    }
  }
}

int Batcher::form(Time now, std::vector<Queued>& batch, Time& wake_at) {
  batch.clear();
  wake_at = Time::never();
  if (free_instances_ == 0) return 0;
  if (timeouts_) apply_timeouts(now);
  if (queued_ == 0) return 0;

  // Triton's queue reads level by level, each as its requests in time, then its delayed ones:
  // the non-empty parts in that order.
  segments_.clear();
  for (std::size_t i = 0; i < levels(); ++i) {
    Level& l = level_at(i);
    if (!l.queue.empty()) segments_.push_back(&l.queue);
    if (!l.delayed.empty()) segments_.push_back(&l.delayed);
  }
  std::size_t take = 0;
  int items = 0;
  if (!config_.dynamic) {
    take = 1;
    items = segments_.front()->front().items;
  } else {
    const int cap = config_.max_batch_size;
    std::size_t count = 0, preferred_count = 0;
    int total = 0, preferred_items = 0;
    bool full = false;
    Time oldest = Time::never();
    // The items taken only grow (a request has at least one), so the preferred sizes (ascending)
    // are passed once, not searched at every request.
    const int* preferred = config_.preferred.data();
    const int* const preferred_end = preferred + config_.preferred.size();
    for (const auto* d : segments_) {
      oldest = std::min(oldest, d->front().enqueued);
      for (auto it = d->begin(); !full && it != d->end(); ++it) {
        if (cap > 0 && total + it->items > cap) {
          full = true;
          break;
        }
        total += it->items;
        ++count;
        while (preferred != preferred_end && *preferred < total) ++preferred;
        if (preferred != preferred_end && *preferred == total) {
          preferred_count = count;
          preferred_items = total;
        }
        full = cap > 0 && total == cap;
      }
    }
    if (preferred_count > 0) {
      take = preferred_count;
      items = preferred_items;
    } else if (full || now - oldest + kBatcherTimeEps >= config_.max_queue_delay) {
      take = count;
      items = total;
    } else {
      wake_at = oldest + config_.max_queue_delay;
      return 0;
    }
  }
  std::size_t left = take;
  for (auto* d : segments_) {
    if (left == 0) break;
    const std::size_t n = std::min(left, d->size());
    batch.insert(batch.end(), d->begin(), d->begin() + n);
    d->drop_front(n);
    left -= n;
  }
  queued_ -= take;
  --free_instances_;
  return items;
}

}  // namespace sonicsim::engine
