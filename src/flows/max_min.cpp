#include <sonicsim/flows/max_min.hpp>
#include <sonicsim/util/numbers.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

namespace sonicsim::flows {

MaxMinFlows::MaxMinFlows(std::vector<double> capacity)
    : capacity_(std::move(capacity)),
      count_(capacity_.size(), 0),
      begin_(capacity_.size(), 0),
      filled_(capacity_.size(), 0),
      unfixed_(capacity_.size(), 0),
      left_(capacity_.size(), 0.0),
      usage_(capacity_.size(), 0.0) {}

void MaxMinFlows::set_capacity(std::uint32_t constraint, double bytes_per_s) {
  capacity_[constraint] = bytes_per_s;
}

void MaxMinFlows::add(const std::vector<std::uint32_t>& route, double weight, double bytes,
                      std::uint32_t token) {
  std::uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  Flow& f = flows_[slot];
  f.route.assign(route.begin(), route.end());
  f.inverse_weight = 1.0 / weight;
  f.remaining = bytes;
  f.rate = 0.0;
  f.finish = kInf;
  f.token = token;
  active_.push_back(slot);
}

void MaxMinFlows::advance(double now) {
  const double dt = now - now_;
  if (!(dt > 0.0)) return;
  for (std::uint32_t slot : active_) {
    Flow& f = flows_[slot];
    if (f.rate > 0.0) f.remaining = std::max(0.0, f.remaining - f.rate * dt);
  }
  now_ = now;
}

// Progressive filling, as SimGrid's lmm solver does it: the constraint whose level (what is left
// of it over the inverse weights of its flows not yet fixed) is lowest fixes all its flows at
// that level; their rates leave the other constraints they cross. A constraint's level only
// rises as others fix its flows, so a level in the heap is a lower bound: a popped constraint
// whose level has risen goes back in.
void MaxMinFlows::solve() {
  ++counters_.solves;
  ++solve_id_;
  touched_.clear();
  for (std::uint32_t slot : active_) {
    const Flow& f = flows_[slot];
    for (std::uint32_t c : f.route) {
      if (count_[c]++ == 0) {
        touched_.push_back(c);
        usage_[c] = 0.0;
      }
      usage_[c] += f.inverse_weight;
    }
    counters_.flow_visits += static_cast<std::int64_t>(f.route.size());
  }
  counters_.constraint_visits += static_cast<std::int64_t>(touched_.size());
  std::uint32_t at = 0;
  heap_.clear();
  for (std::uint32_t c : touched_) {
    begin_[c] = at;
    filled_[c] = at;
    at += count_[c];
    unfixed_[c] = count_[c];
    left_[c] = capacity_[c];
    heap_.push_back({std::max(0.0, left_[c]) / usage_[c], c});
  }
  members_.resize(at);
  for (std::uint32_t slot : active_)
    for (std::uint32_t c : flows_[slot].route) members_[filled_[c]++] = slot;
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());

  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const Level top = heap_.back();
    heap_.pop_back();
    const std::uint32_t c = top.constraint;
    if (unfixed_[c] == 0) continue;
    const double lambda = std::max(0.0, left_[c]) / usage_[c];
    if (lambda > top.lambda) {
      heap_.push_back({lambda, c});
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
      continue;
    }
    for (std::uint32_t i = begin_[c]; i < begin_[c] + count_[c]; ++i) {
      Flow& f = flows_[members_[i]];
      if (f.fixed_at == solve_id_) continue;
      f.fixed_at = solve_id_;
      f.rate = lambda * f.inverse_weight;
      for (std::uint32_t other : f.route) {
        left_[other] -= f.rate;
        if (--unfixed_[other] == 0) {
          usage_[other] = 0.0;
        } else {
          usage_[other] -= f.inverse_weight;
        }
      }
    }
  }
  for (std::uint32_t c : touched_) count_[c] = 0;

  for (std::uint32_t slot : active_) {
    Flow& f = flows_[slot];
    if (f.route.empty()) {  // crosses no link: nothing holds it back
      f.rate = kInf;
      f.finish = now_;
    } else {
      f.finish = f.rate > 0.0 ? now_ + f.remaining / f.rate : kInf;
    }
  }
}

double MaxMinFlows::next_finish() const {
  double next = kInf;
  for (std::uint32_t slot : active_) next = std::min(next, flows_[slot].finish);
  return next;
}

void MaxMinFlows::take_finished(double t, std::vector<std::uint32_t>& tokens) {
  const std::size_t first = tokens.size();
  for (std::size_t i = 0; i < active_.size();) {
    const std::uint32_t slot = active_[i];
    Flow& f = flows_[slot];
    if (f.finish <= t) {
      tokens.push_back(f.token);
      active_[i] = active_.back();
      active_.pop_back();
      free_.push_back(slot);
    } else {
      ++i;
    }
  }
  std::sort(tokens.begin() + static_cast<std::ptrdiff_t>(first), tokens.end());
}

}  // namespace sonicsim::flows
