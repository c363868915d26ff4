// Sequential stopping of replications (sequential.hpp).
#include "sequential.hpp"

#include <algorithm>
#include <cmath>

#include "questions.hpp"

namespace sonicsim::plan::detail {

int first_replications(const Options& o) {
  const int most = std::max(1, o.replications);
  if (!o.sequential) return most;
  return std::clamp(o.min_replications, 1, most);
}

std::vector<Replicated> replicate(const Options& o, std::int64_t base_seed,
                                  const std::vector<double>& values, const Simulate& simulate,
                                  const Decided& decided,
                                  const std::vector<scenario::Override>& extra) {
  const int most = std::max(1, o.replications);
  std::vector<Replicated> out(values.size());
  // Each round: `want[i]` more seeds for value i, all of the round's runs in one call.
  std::vector<int> want(values.size(), first_replications(o));
  for (;;) {
    std::vector<std::vector<scenario::Override>> sets;
    std::vector<std::size_t> owner;
    for (std::size_t i = 0; i < values.size(); ++i)
      for (int k = 0; k < want[i]; ++k) {
        const auto seed = base_seed + static_cast<std::int64_t>(out[i].results.size()) + k;
        sets.push_back(point_overrides(o, values[i], seed));
        sets.back().insert(sets.back().end(), extra.begin(), extra.end());
        owner.push_back(i);
      }
    if (sets.empty()) break;
    auto results = simulate(sets);
    for (std::size_t j = 0; j < owner.size(); ++j)
      out[owner[j]].results.push_back(std::move(results.at(j)));
    std::fill(want.begin(), want.end(), 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const int have = static_cast<int>(out[i].results.size());
      if (have >= most) continue;
      if (decided(values[i], out[i].results))
        out[i].stopped = "certain";
      else
        want[i] = 1;
    }
  }
  return out;
}

ShortRun short_run_of(const Options& o, const scenario::Scenario& base) {
  ShortRun s;
  if (!(o.short_run > 0.0)) {
    s.off = "not asked";
    return s;
  }
  if (o.question == Question::Cost) {
    s.off = "cost has no threshold to judge a shorter run against";
    return s;
  }
  for (const auto& w : base.workloads)
    if (w.flow) {
      s.off = "a job flow: its load changes over the run";
      return s;
    }
  for (const auto& pool : base.servers)
    if (pool.autoscaler) {
      s.off = "an autoscaler: its devices change over the run";
      return s;
    }
  if (!base.faults.empty()) {
    s.off = "faults: the system changes over the run";
    return s;
  }
  s.duration_s = base.warmup + o.short_run * (base.duration - base.warmup);
  return s;
}

bool short_decides(const Options& o, const Point& p, double threshold) {
  if (!p.certain || !std::isfinite(p.metric.mean)) return p.certain;
  const double near_end =
      p.ok == lower_is_better(o) ? p.metric.mean + p.metric.ci95 : p.metric.mean - p.metric.ci95;
  return std::abs(near_end - threshold) >= o.short_margin * std::abs(threshold);
}

}  // namespace sonicsim::plan::detail
