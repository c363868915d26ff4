#include <sonicsim/engine/batcher.hpp>

#include <algorithm>

namespace sonicsim::engine {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// SimGrid's clock has 1 ns resolution: a delay that expires within it has expired.
constexpr double kTimeEps = 1e-9;
}  // namespace

Batcher::Batcher(BatcherConfig config, int instances)
    : config_(std::move(config)), free_instances_(instances) {
  if (config_.levels.empty())
    levels_.push_back(
        {{config_.max_queue_size, config_.default_timeout, config_.delay_timed_out}, {}, {}});
  for (const LevelPolicy& p : config_.levels) levels_.push_back({p, {}, {}});
}

void Batcher::apply_timeouts(double now) {
  for (Level& l : levels_) {
    const LevelPolicy& p = l.policy;
    if (p.default_timeout <= 0.0) continue;
    while (!l.queue.empty() && now > l.queue.front().enqueued + p.default_timeout + kTimeEps) {
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

int Batcher::form(double now, std::vector<Queued>& batch, double& wake_at) {
  batch.clear();
  wake_at = kInf;
  if (free_instances_ == 0) return 0;
  apply_timeouts(now);
  if (queued_ == 0) return 0;

  // Triton's queue reads level by level, each as its requests in time, then its delayed ones.
  std::size_t take = 0;
  int items = 0;
  if (!config_.dynamic) {
    take = 1;
    for (const Level& l : levels_) {
      if (l.queue.empty() && l.delayed.empty()) continue;
      items = (l.queue.empty() ? l.delayed : l.queue).front().items;
      break;
    }
  } else {
    const int cap = config_.max_batch_size;
    std::size_t count = 0, preferred_count = 0;
    int total = 0, preferred_items = 0;
    bool full = false;
    double oldest = kInf;
    // Takes q if it fits; false when the batch cannot grow any further.
    const auto grow = [&](const Queued& q) {
      if (cap > 0 && total + q.items > cap) {
        full = true;
        return false;
      }
      total += q.items;
      ++count;
      if (std::binary_search(config_.preferred.begin(), config_.preferred.end(), total)) {
        preferred_count = count;
        preferred_items = total;
      }
      full = cap > 0 && total == cap;
      return !full;
    };
    bool growing = true;
    for (const Level& l : levels_) {
      if (!l.queue.empty()) oldest = std::min(oldest, l.queue.front().enqueued);
      if (!l.delayed.empty()) oldest = std::min(oldest, l.delayed.front().enqueued);
      for (const auto* d : {&l.queue, &l.delayed})
        for (auto it = d->begin(); growing && it != d->end(); ++it) growing = grow(*it);
    }
    if (preferred_count > 0) {
      take = preferred_count;
      items = preferred_items;
    } else if (full || now + kTimeEps >= oldest + config_.max_queue_delay) {
      take = count;
      items = total;
    } else {
      wake_at = oldest + config_.max_queue_delay;
      return 0;
    }
  }
  std::size_t left = take;
  for (Level& l : levels_)
    for (auto* d : {&l.queue, &l.delayed}) {
      const auto n = static_cast<std::ptrdiff_t>(std::min(left, d->size()));
      batch.insert(batch.end(), d->begin(), d->begin() + n);
      d->erase(d->begin(), d->begin() + n);
      left -= static_cast<std::size_t>(n);
    }
  queued_ -= take;
  --free_instances_;
  return items;
}

}  // namespace sonicsim::engine
