#include <sonicsim/flows/max_min.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

namespace sonicsim::flows {

MaxMinFlows::MaxMinFlows(std::vector<double> capacity, std::size_t components, bool classes)
    : capacity_(std::move(capacity)),
      classes_(classes),
      crossing_(capacity_.size(), 0),
      load_(capacity_.size(), 0.0),
      component_of_(capacity_.size(), 0),
      agg_count_(capacity_.size(), 0),
      binds_(capacity_.size(), 0),
      version_(capacity_.size(), 0),
      agg_(capacity_.size(), 0.0),
      level_(capacity_.size(), 0.0),
      components_(components),
      count_(capacity_.size(), 0),
      begin_(capacity_.size(), 0),
      filled_(capacity_.size(), 0),
      unfixed_(capacity_.size(), 0),
      left_(capacity_.size(), 0.0),
      usage_(capacity_.size(), 0.0) {}

void MaxMinFlows::set_capacity(std::uint32_t constraint, double bytes_per_s) {
  capacity_[constraint] = bytes_per_s;
}

void MaxMinFlows::schedule(Component& k, std::uint32_t slot) {
  const Flow& f = flows_[slot];
  if (!(f.finish < kInf)) return;
  k.due.push_back({f.finish, slot, f.generation});
  std::push_heap(k.due.begin(), k.due.end(), std::greater<>());
}

bool MaxMinFlows::add(std::uint32_t component, const std::vector<std::uint32_t>& route,
                      double weight, double bytes, std::uint32_t token, double now,
                      bool solve_pending) {
  std::uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  Component& k = components_[component];
  Flow& f = flows_[slot];
  f.route.assign(route.begin(), route.end());
  f.inverse_weight = 1.0 / weight;
  f.remaining = bytes;
  f.since = now;
  f.rate = 0.0;
  f.total = bytes;
  f.logged = 0.0;
  f.rate_since = now;
  f.logged_rate = 0.0;
  f.finish = kInf;
  f.token = token;
  f.in_class = false;
  f.fixed_by = f.bound_by = route.empty() ? 0 : route.front();
  f.position = static_cast<std::uint32_t>(k.active.size());
  ++f.generation;
  k.active.push_back(slot);

  // Quiet when a link of its own bounds it and every link it shares has that much spare.
  double own = kInf;
  std::uint32_t own_by = f.fixed_by;
  bool quiet = !solve_pending;
  for (std::uint32_t c : route) component_of_[c] = component;
  if (quiet) {
    for (std::uint32_t c : route)
      if (crossing_[c] == 0 && capacity_[c] < own) {
        own = capacity_[c];
        own_by = c;
      }
    quiet = own < kInf;
    for (std::uint32_t c : route)
      if (quiet && crossing_[c] > 0 && !spare(c, own)) quiet = false;
  }
  for (std::uint32_t c : route) ++crossing_[c];
  if (!quiet) return !solve_pending && join_class(component, slot, now);
  ++counters_.quiet_changes;
  f.rate = own;
  f.logged_rate = own;
  f.fixed_by = own_by;
  ++binds_[own_by];
  for (std::uint32_t c : route) {
    load_[c] += own;
    load_changed(k.cls, c);
  }
  f.finish = own > 0.0 ? now + bytes / own : kInf;
  schedule(k, slot);
  return true;
}

bool MaxMinFlows::take_finished(std::uint32_t component, double t,
                                std::vector<std::uint32_t>& tokens) {
  Component& k = components_[component];
  bool quiet = true;
  while (!k.due.empty() && k.due.front().finish <= t) {
    const Due d = k.due.front();
    std::pop_heap(k.due.begin(), k.due.end(), std::greater<>());
    k.due.pop_back();
    Flow& f = flows_[d.slot];
    if (f.generation != d.generation) continue;
    tokens.push_back(f.token);
    log_delivery(f, f.finish, true);
    // Quiet when no link it shared was saturated: no one else was held back there.
    bool alone = true;
    for (std::uint32_t c : f.route)
      if (crossing_[c] >= 2 && !spare(c, 0.0)) alone = false;
    for (std::uint32_t c : f.route) {
      load_[c] = --crossing_[c] == 0 ? 0.0 : load_[c] - f.rate;
      load_changed(k.cls, c);
    }
    if (binds_[f.fixed_by] > 0) --binds_[f.fixed_by];
    if (alone) ++counters_.quiet_changes;
    quiet = quiet && alone;
    ++f.generation;
    k.active[f.position] = k.active.back();
    flows_[k.active[f.position]].position = f.position;
    k.active.pop_back();
    free_.push_back(d.slot);
  }
  return take_class_finished(k, t, tokens) && quiet;
}

void MaxMinFlows::log_delivery(Flow& f, double now, bool finished) {
  if (log_ != nullptr) {
    // The rate's bytes, bounded by what is left: rounding never logs more than the flow holds.
    const double bytes =
        finished ? f.total - f.logged
                 : std::min(f.total - f.logged, f.logged_rate * std::max(0.0, now - f.rate_since));
    if (bytes > 0.0) log_->push_back({f.token, f.rate_since, std::max(now, f.rate_since), bytes});
    f.logged += std::max(0.0, bytes);
  }
  f.rate_since = now;
}

void MaxMinFlows::flush(double now) {
  for (Component& k : components_)
    for (std::uint32_t slot : k.active) {
      Flow& f = flows_[slot];
      if (f.in_class) {
        log_class(f, k.cls, now, false);
      } else if (f.logged_rate > 0.0 && now > f.rate_since) {
        log_delivery(f, now, false);
      }
    }
}

double MaxMinFlows::next_finish(std::uint32_t component) {
  Component& k = components_[component];
  while (!k.due.empty() && flows_[k.due.front().slot].generation != k.due.front().generation) {
    std::pop_heap(k.due.begin(), k.due.end(), std::greater<>());
    k.due.pop_back();
  }
  return std::min(k.due.empty() ? kInf : k.due.front().finish, class_next_finish(k.cls));
}

// Progressive filling, as SimGrid's lmm solver does it: the constraint whose level (what is left
// of it over the inverse weights of its flows not yet fixed) is lowest fixes all its flows at
// that level; their rates leave the other constraints they cross. A flow's own bound is a
// constraint of its own, taken in the same order of levels. A constraint's level only rises as
// flows are fixed below it, so a level in the heap is a lower bound: a constraint whose level
// has risen since it was pushed goes back in.
void MaxMinFlows::solve(std::uint32_t component, double now) {
  Component& k = components_[component];
  const std::vector<std::uint32_t>& active = k.active;
  dissolve_class(k, now);
  for (std::uint32_t slot : active) {
    Flow& f = flows_[slot];
    if (f.rate > 0.0 && now > f.since)
      f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.since));
    f.since = now;
  }
  ++counters_.solves;
  ++solve_id_;
  touched_.clear();
  for (std::uint32_t slot : active) {
    const Flow& f = flows_[slot];
    for (std::uint32_t c : f.route)
      if (count_[c]++ == 0) touched_.push_back(c);
    counters_.flow_visits += static_cast<std::int64_t>(f.route.size());
  }
  counters_.link_visits += static_cast<std::int64_t>(touched_.size());
  std::uint32_t at = 0;
  for (std::uint32_t c : touched_) {
    if (count_[c] < 2) continue;
    begin_[c] = filled_[c] = at;
    at += count_[c];
    unfixed_[c] = count_[c];
    left_[c] = capacity_[c];
    usage_[c] = 0.0;
  }
  members_.resize(at);
  capped_.clear();
  for (std::uint32_t slot : active) {
    Flow& f = flows_[slot];
    f.bound = kInf;
    for (std::uint32_t c : f.route) {
      if (count_[c] < 2) {
        if (capacity_[c] < f.bound) {
          f.bound = capacity_[c];
          f.bound_by = c;
        }
      } else {
        members_[filled_[c]++] = slot;
        usage_[c] += f.inverse_weight;
      }
    }
    if (f.bound < kInf) capped_.emplace_back(f.bound / f.inverse_weight, slot);
  }
  std::sort(capped_.begin(), capped_.end());
  heap_.clear();
  for (std::uint32_t c : touched_)
    if (count_[c] >= 2) heap_.push_back({std::max(0.0, left_[c]) / usage_[c], c});
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());

  const auto fix = [&](Flow& f, double rate, std::uint32_t by) {
    f.fixed_at = solve_id_;
    f.rate = rate;
    f.fixed_by = by;
    for (std::uint32_t c : f.route) {
      if (count_[c] < 2) continue;
      left_[c] -= rate;
      if (--unfixed_[c] == 0) {
        usage_[c] = 0.0;
      } else {
        usage_[c] -= f.inverse_weight;
      }
    }
  };
  std::size_t next_capped = 0;
  while (true) {
    // The lowest constraint level, its heap entry brought up to date.
    double lambda = kInf;
    while (!heap_.empty()) {
      const Level top = heap_.front();
      if (unfixed_[top.constraint] != 0) {
        lambda = std::max(0.0, left_[top.constraint]) / usage_[top.constraint];
        if (lambda <= top.lambda) break;
      }
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      heap_.pop_back();
      if (unfixed_[top.constraint] != 0) {
        heap_.push_back({lambda, top.constraint});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
      }
      lambda = kInf;
    }
    while (next_capped < capped_.size() &&
           flows_[capped_[next_capped].second].fixed_at == solve_id_)
      ++next_capped;
    const bool capped_first = next_capped < capped_.size() && capped_[next_capped].first <= lambda;
    if (capped_first) {
      Flow& f = flows_[capped_[next_capped++].second];
      fix(f, f.bound, f.bound_by);
      continue;
    }
    if (heap_.empty()) break;
    const std::uint32_t c = heap_.front().constraint;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
    level_[c] = lambda;
    for (std::uint32_t i = begin_[c]; i < begin_[c] + count_[c]; ++i) {
      Flow& f = flows_[members_[i]];
      if (f.fixed_at != solve_id_) fix(f, lambda * f.inverse_weight, c);
    }
  }
  for (std::uint32_t c : touched_) {
    count_[c] = 0;
    load_[c] = 0.0;
  }
  k.due.clear();
  for (std::uint32_t slot : active) {
    Flow& f = flows_[slot];
    if (f.rate != f.logged_rate) {
      log_delivery(f, now, false);
      f.logged_rate = f.rate;
    }
    for (std::uint32_t c : f.route) load_[c] += f.rate;
    ++f.generation;
    f.finish = f.rate > 0.0 ? now + f.remaining / f.rate : kInf;
    if (f.finish < kInf) k.due.push_back({f.finish, slot, f.generation});
  }
  std::make_heap(k.due.begin(), k.due.end(), std::greater<>());
  if (classes_) build_class(component, now);
}

}  // namespace sonicsim::flows
