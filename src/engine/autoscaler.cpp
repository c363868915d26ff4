#include <sonicsim/engine/autoscaler.hpp>

#include <algorithm>
#include <cmath>

namespace sonicsim::engine {

Autoscaler::Autoscaler(const scenario::Autoscaler& cfg) : cfg_(cfg) {}

double Autoscaler::usage_ratio(double metric, int current) const {
  if (cfg_.target == scenario::Autoscaler::Target::AverageValue)
    return metric / (cfg_.threshold * static_cast<double>(std::max(current, 1)));
  return metric / cfg_.threshold;
}

// HPA's replica calculator for one external metric (Kubernetes'
// pkg/controller/podautoscaler/replica_calculator.go): a Value target scales the *ready* pods,
// ceil(ratio x ready) in getUsageRatioReplicaCount, so replicas still starting count for nothing
// and a pool whose new pods are not ready yet is recommended fewer replicas than it asked for;
// an AverageValue target divides the metric by the target per pod and ignores readiness.
int Autoscaler::recommend(const Poll& p) const {
  const bool average = cfg_.target == scenario::Autoscaler::Target::AverageValue;
  const double ratio = usage_ratio(p.metric, p.current);
  if (std::fabs(ratio - 1.0) <= cfg_.tolerance) return p.current;
  // Clamped before the conversion: a huge ratio (a tiny threshold) converted to int was
  // undefined, and came out as INT_MIN: the pool never scaled up. limit_rate clamps to the bounds.
  const double want = average ? std::ceil(p.metric / cfg_.threshold)
                              : std::ceil(ratio * static_cast<double>(p.ready));
  return static_cast<int>(std::clamp(std::isnan(want) ? 0.0 : want, 0.0, 1e9));
}

// HPA's stabilization: scale up no further than the least recommendation of the scale-up window,
// down no further than the largest of the scale-down window (entries strictly inside a window).
int Autoscaler::stabilize(Time now, int raw, int current) {
  int up = raw, down = raw;
  for (const Sample& s : recommendations_) {
    if (now - s.time < cfg_.scale_up.stabilization_window) up = std::min(up, s.replicas);
    if (now - s.time < cfg_.scale_down.stabilization_window) down = std::max(down, s.replicas);
  }
  recommendations_.push_back({now, raw});
  const double keep =
      std::max(cfg_.scale_up.stabilization_window, cfg_.scale_down.stabilization_window);
  while (!recommendations_.empty() && now - recommendations_.front().time >= keep)
    recommendations_.pop_front();
  int r = current;
  if (r < up) r = up;
  if (r > down) r = down;
  return r;
}

// HPA's Pods policy: at most `step` replicas added (removed) within any `period`, counted from
// the replicas the pool had when the period began.
int Autoscaler::limit_rate(Time now, int desired, int current) const {
  const int lowest = std::max(cfg_.min_replicas, 1);
  if (desired > current) {
    int added = 0;
    for (const Sample& c : changes_)
      if (now - c.time < cfg_.scale_up.period && c.replicas > 0) added += c.replicas;
    const int limit = std::max(current - added + cfg_.scale_up.step, current);
    desired = std::min({desired, limit, cfg_.max_replicas});
  } else if (desired < current) {
    int removed = 0;
    for (const Sample& c : changes_)
      if (now - c.time < cfg_.scale_down.period && c.replicas < 0) removed -= c.replicas;
    const int limit = std::min(current + removed - cfg_.scale_down.step, current);
    desired = std::max({desired, limit, lowest});
  }
  return std::clamp(desired, lowest, cfg_.max_replicas);
}

Autoscaler::Decision Autoscaler::decide(const Poll& p) {
  Decision d;
  if (p.active || p.refused) last_active_ = p.time;
  // KEDA itself moves a pool between zero and one replica; the HPA only sees 1 and above.
  if (p.current == 0) {
    // KEDA wakes the pool when its trigger is active; a metric the servers export has no value
    // while none runs (wake_from_zero false), so nothing wakes it.
    const bool wake = cfg_.wake_from_zero && (p.refused || p.active);
    d.replicas = d.raw = wake ? std::max(1, cfg_.min_replicas) : 0;
    d.why = wake                  ? "activated: requests found no server"
            : cfg_.wake_from_zero ? "idle at zero"
            : (p.refused || p.active)
                ? "at zero: requests found no server, but the metric has no value without one"
                : "idle at zero";
  } else if (cfg_.min_replicas == 0 && p.time - last_active_ >= cfg_.cooldown) {
    d.replicas = d.raw = 0;
    d.why = "no requests for the cooldown period: scaled to zero";
    recommendations_.clear();
  } else {
    d.raw = recommend(p);
    const int stable = stabilize(p.time, d.raw, p.current);
    d.replicas = limit_rate(p.time, stable, p.current);
    if (d.raw == p.current)
      d.why = "metric within tolerance of the threshold";
    else if (stable != d.raw)
      d.why = "held by the stabilization window";
    else if (d.replicas != stable)
      d.why = "limited by the scaling policy or the replica bounds";
    else
      d.why = d.raw > p.current ? "metric above threshold" : "metric below threshold";
  }
  if (d.replicas != p.current) changes_.push_back({p.time, d.replicas - p.current});
  const double keep = std::max(cfg_.scale_up.period, cfg_.scale_down.period);
  while (!changes_.empty() && p.time - changes_.front().time >= keep) changes_.pop_front();
  return d;
}

}  // namespace sonicsim::engine
