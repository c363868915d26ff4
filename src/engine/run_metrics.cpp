#include <sonicsim/engine/run_metrics.hpp>

#include <algorithm>

namespace sonicsim::engine {

double RunMetrics::backlog_growth_per_s() const {
  if (!open_loop) return 0.0;
  const double finished = static_cast<double>(completed + failed + fallback);
  return (static_cast<double>(open_loop->requests_sent) - finished) / span();
}

bool RunMetrics::backlog_growing() const {
  if (!open_loop) return false;
  const double sent_per_s = static_cast<double>(open_loop->requests_sent) / span();
  return open_loop->dropped > 0 || backlog_growth_per_s() > 0.01 * sent_per_s;
}

double RunMetrics::Pool::mean_utilization() const {
  double sum = 0.0;
  for (double u : utilization) sum += u;
  return utilization.empty() ? 0.0 : sum / static_cast<double>(utilization.size());
}

namespace {
double peak_of(const std::vector<double> (&windows)[2], const RunMetrics::Link& l) {
  double peak = 0.0;
  for (const auto& dir : windows)
    for (double b : dir) peak = std::max(peak, b);
  // A class with no link (a server NIC when no pool has a device) carried nothing.
  return l.count > 0 ? peak / (l.window * l.bandwidth * l.count) : 0.0;
}
}  // namespace

double RunMetrics::Link::peak_utilization() const {
  return peak_of(window_bytes, *this);
}

double RunMetrics::Link::offered_peak_utilization() const {
  return peak_of(offered_window_bytes, *this);
}

}  // namespace sonicsim::engine
