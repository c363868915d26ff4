// The class solver of MaxMinFlows (max_min.hpp): the flows a solve fixed at the component's
// most shared bottleneck kept as one class with a virtual clock, and the joins and leaves there
// absorbed by solving the class level alone when that provably gives the max-min allocation.
//
// Why it is exact. A weighted max-min allocation is the one where every link is within its
// bandwidth and every flow has a bottleneck: a full link where no flow has a higher level (rate
// over inverse weight). The class keeps these invariants between solves:
// - its members' bottleneck is the class link U, which they fill with the flows outside the
//   class (whose rates a class change leaves as they are);
// - no link a member crosses, other than U, is any outside flow's bottleneck (`binds_` is 0
//   there), so a level change moves no one outside the class;
// - no outside flow crossing U has a level above the class level (the `others` heap);
// - no other link a member crosses is over its bandwidth (the `headroom` heap: the level at
//   which each would be full).
// A join that keeps them lowers the level; a leave raises it; either is O(route + log n). A
// change that would break one is left to the solve, flow by flow, which builds the class again.
#include <sonicsim/flows/max_min.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

namespace sonicsim::flows {

void MaxMinFlows::set_level(FlowClass& k, double now, double level) {
  if (now > k.since) {
    k.v = clock(k, now);
    k.since = now;
  }
  if (level == k.level) return;
  k.level = level;
  k.history.push_back({k.since, k.v, level});
  // The history matters only from the oldest member's join: drop what is before it, once it
  // outgrows the class (amortised O(1) per change).
  if (k.history.size() > 4096 && k.history.size() > 4 * static_cast<std::size_t>(k.members)) {
    std::uint32_t oldest = static_cast<std::uint32_t>(k.history.size());
    for (const Keyed& e : k.tags) oldest = std::min(oldest, flows_[e.id].class_k0);
    k.history.erase(k.history.begin(), k.history.begin() + oldest);
    for (const Keyed& e : k.tags) flows_[e.id].class_k0 -= oldest;
  }
}

void MaxMinFlows::push_headroom(FlowClass& k, std::uint32_t c) {
  if (c == k.constraint || agg_count_[c] == 0) return;
  k.headroom.push_back({(capacity_[c] - load_[c]) / agg_[c], c, version_[c]});
  std::push_heap(k.headroom.begin(), k.headroom.end(), std::greater<>());
  // Stale entries pile up at every change: once they outnumber the live ones, drop them.
  if (k.headroom.size() > 64 + 8 * static_cast<std::size_t>(k.members)) {
    std::erase_if(k.headroom, [&](const Keyed& e) {
      return version_[e.id] != e.generation || agg_count_[e.id] == 0;
    });
    std::make_heap(k.headroom.begin(), k.headroom.end(), std::greater<>());
  }
}

bool MaxMinFlows::join_class(std::uint32_t component, std::uint32_t slot, double now) {
  Component& comp = components_[component];
  FlowClass& k = comp.cls;
  if (!k.live) return false;
  Flow& f = flows_[slot];
  const std::uint32_t u = k.constraint;
  bool crosses = false;
  for (std::uint32_t c : f.route) {
    if (c == u) {
      crosses = true;
    } else if (binds_[c] > 0) {
      return false;  // a lower level there would move the flows it binds
    }
  }
  if (!crosses) return false;
  const double iw = f.inverse_weight;
  const double usage = k.usage + iw;
  const double level = std::max(0.0, capacity_[u] - load_[u]) / usage;
  // No outside flow at U may rise above the new level.
  while (!k.others.empty() &&
         flows_[k.others.front().id].generation != k.others.front().generation) {
    std::pop_heap(k.others.begin(), k.others.end(), std::greater<>());
    k.others.pop_back();
  }
  if (!k.others.empty() && -k.others.front().key > level) return false;
  // Its own links must carry it at that level (the members' rates only fall).
  for (std::uint32_t c : f.route)
    if (c != u && load_[c] + level * (agg_[c] + iw) > capacity_[c]) return false;

  set_level(k, now, level);
  k.usage = usage;
  ++k.members;
  f.in_class = true;
  f.fixed_by = u;
  f.rate = f.logged_rate = level * iw;
  f.rate_since = now;
  f.tag = k.v + f.remaining / iw;
  f.class_t0 = now;
  f.class_v0 = k.v;
  f.class_k0 = static_cast<std::uint32_t>(k.history.size() - 1);
  k.tags.push_back({f.tag, slot, f.generation});
  std::push_heap(k.tags.begin(), k.tags.end(), std::greater<>());
  for (std::uint32_t c : f.route) {
    ++agg_count_[c];
    agg_[c] += iw;
    load_changed(k, c);
  }
  ++counters_.class_changes;
  return true;
}

double MaxMinFlows::class_next_finish(FlowClass& k) {
  if (!k.live || k.tags.empty() || !(k.level > 0.0)) return kInf;
  return k.since + (k.tags.front().key - k.v) / k.level;
}

void MaxMinFlows::leave_class_links(const Flow& f) {
  for (std::uint32_t c : f.route) {
    if (--agg_count_[c] == 0) {
      agg_[c] = 0.0;
    } else {
      agg_[c] -= f.inverse_weight;
    }
    if (--crossing_[c] == 0) load_[c] = 0.0;
    ++version_[c];
  }
}

bool MaxMinFlows::take_class_finished(Component& comp, double t,
                                      std::vector<std::uint32_t>& tokens) {
  FlowClass& k = comp.cls;
  bool quiet = true;
  while (k.live && !k.tags.empty()) {
    const double at = class_next_finish(k);
    if (!(at <= t)) break;
    const Keyed top = k.tags.front();
    std::pop_heap(k.tags.begin(), k.tags.end(), std::greater<>());
    k.tags.pop_back();
    Flow& f = flows_[top.id];
    set_level(k, at, k.level);
    tokens.push_back(f.token);
    log_class(f, k, at, true);
    leave_class_links(f);
    f.in_class = false;
    ++f.generation;
    comp.active[f.position] = comp.active.back();
    flows_[comp.active[f.position]].position = f.position;
    comp.active.pop_back();
    free_.push_back(top.id);
    if (--k.members == 0) {
      // The link is no one's bottleneck any more: solve (rare) rather than reason about it.
      k.usage = 0.0;
      set_level(k, at, 0.0);
      quiet = false;
      break;
    }
    k.usage -= f.inverse_weight;
    for (std::uint32_t c : f.route) push_headroom(k, c);
    const double level = std::max(0.0, capacity_[k.constraint] - load_[k.constraint]) / k.usage;
    // The members' rates rise: every other link they cross must still carry them.
    while (!k.headroom.empty()) {
      const Keyed& h = k.headroom.front();
      if (version_[h.id] == h.generation && agg_count_[h.id] > 0) break;
      std::pop_heap(k.headroom.begin(), k.headroom.end(), std::greater<>());
      k.headroom.pop_back();
    }
    const bool fits = k.headroom.empty() || k.headroom.front().key >= level;
    set_level(k, at, level);
    if (fits) {
      ++counters_.class_changes;
    } else {
      quiet = false;  // the solve at `t` finds who the freed bandwidth goes to
    }
  }
  return quiet;
}

double MaxMinFlows::clock_at(const FlowClass& k, double t) {
  if (t >= k.since) return clock(k, t);
  auto it = std::upper_bound(k.history.begin(), k.history.end(), t,
                             [](double x, const FlowClass::Piece& p) { return x < p.t; });
  if (it != k.history.begin()) --it;
  return it->v + it->level * std::max(0.0, t - it->t);
}

double MaxMinFlows::next_boundary(double t) const {
  double next = kInf;
  for (const auto& [origin, length] : grids_) {
    if (!(length > 0.0)) continue;
    double b = t < origin ? origin : origin + length * (std::floor((t - origin) / length) + 1.0);
    if (b <= t) b += length;
    next = std::min(next, b);
  }
  return next;
}

void MaxMinFlows::log_class(Flow& f, const FlowClass& k, double now, bool finished) {
  if (log_ != nullptr) {
    double t0 = f.class_t0, v0 = f.class_v0;
    const auto piece = [&](double t1, double v1, bool last) {
      const double bytes = last && finished
                               ? f.total - f.logged
                               : std::min(f.total - f.logged, (v1 - v0) * f.inverse_weight);
      if (bytes > 0.0 && (t1 > t0 || last)) {
        log_->push_back({f.token, t0, std::max(t1, t0), bytes});
        f.logged += bytes;
      }
      t0 = std::max(t0, t1);
      v0 = std::max(v0, v1);
    };
    if (grids_.empty()) {
      // One delivery per level the flow ran at, as the per-flow solver logs one per rate.
      for (std::size_t i = f.class_k0 + 1; i < k.history.size() && k.history[i].t <= now; ++i)
        piece(k.history[i].t, k.history[i].v, false);
    } else {
      // One per window it spans: within a window only the total counts, and O(1) per flow
      // (per level it would be O(members) per change again).
      for (double b = next_boundary(t0); b < now; b = next_boundary(b))
        piece(b, clock_at(k, b), false);
    }
    piece(now, clock(k, now), true);
  }
  f.class_t0 = now;
  f.class_v0 = clock(k, now);
  f.class_k0 = static_cast<std::uint32_t>(k.history.size() - 1);
  f.rate_since = now;
}

void MaxMinFlows::dissolve_class(Component& comp, double now) {
  FlowClass& k = comp.cls;
  if (!k.live) return;
  const double v = clock(k, now);
  for (std::uint32_t slot : comp.active) {
    Flow& f = flows_[slot];
    if (!f.in_class) continue;
    log_class(f, k, now, false);
    f.remaining = std::max(0.0, (f.tag - v) * f.inverse_weight);
    f.since = now;
    f.rate = f.logged_rate = k.level * f.inverse_weight;
    f.in_class = false;
    for (std::uint32_t c : f.route) {
      agg_count_[c] = 0;
      agg_[c] = 0.0;
      ++version_[c];
    }
  }
  k = FlowClass{};
}

void MaxMinFlows::build_class(std::uint32_t component, double now) {
  Component& comp = components_[component];
  FlowClass& k = comp.cls;
  for (std::uint32_t c : touched_) binds_[c] = 0;
  for (std::uint32_t slot : comp.active) ++binds_[flows_[slot].fixed_by];
  // The class link: the shared link that fixed the most flows.
  std::uint32_t u = 0, most = 1;
  for (std::uint32_t c : touched_)
    if (crossing_[c] >= 2 && binds_[c] > most && level_[c] > 0.0) {
      u = c;
      most = binds_[c];
    }
  if (most < 2) return;
  // Its members may cross no link that binds anyone else.
  for (std::uint32_t slot : comp.active) {
    const Flow& f = flows_[slot];
    if (f.fixed_by != u) continue;
    for (std::uint32_t c : f.route)
      if (c != u && binds_[c] > 0) return;
  }
  k.live = true;
  k.constraint = u;
  k.level = level_[u];
  k.v = 0.0;
  k.since = now;
  k.history.push_back({now, 0.0, k.level});
  binds_[u] = 0;
  for (std::uint32_t slot : comp.active) {
    Flow& f = flows_[slot];
    for (std::uint32_t c : f.route) load_[c] = 0.0;
  }
  for (std::uint32_t slot : comp.active) {
    Flow& f = flows_[slot];
    if (f.fixed_by != u) {
      ++binds_[f.fixed_by];
      for (std::uint32_t c : f.route) load_[c] += f.rate;
      continue;
    }
    // The bytes of its rate so far (a rate the solve left as it was is not logged yet).
    if (f.logged_rate > 0.0 && now > f.rate_since) log_delivery(f, now, false);
    ++k.members;
    k.usage += f.inverse_weight;
    f.in_class = true;
    ++f.generation;  // its entry in the component's heap is stale
    f.tag = f.remaining / f.inverse_weight;
    f.class_t0 = now;
    f.class_v0 = 0.0;
    f.class_k0 = 0;
    f.rate_since = now;
    k.tags.push_back({f.tag, slot, f.generation});
    for (std::uint32_t c : f.route) {
      ++agg_count_[c];
      agg_[c] += f.inverse_weight;
      ++version_[c];
    }
  }
  std::make_heap(k.tags.begin(), k.tags.end(), std::greater<>());
  for (std::uint32_t slot : comp.active) {
    const Flow& f = flows_[slot];
    if (f.in_class) continue;
    if (std::find(f.route.begin(), f.route.end(), u) != f.route.end())
      k.others.push_back({-f.rate / f.inverse_weight, slot, f.generation});
  }
  std::make_heap(k.others.begin(), k.others.end(), std::greater<>());
  for (std::uint32_t c : touched_) push_headroom(k, c);
  ++counters_.class_builds;
  counters_.flows_moved += k.members;
}

}  // namespace sonicsim::flows
