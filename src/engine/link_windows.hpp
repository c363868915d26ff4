// What a link carried per window when a transfer's bytes pass it at a steady rate: the links'
// peak windows (network_path.cpp) and the time series (sampling.cpp) count bytes as they are
// delivered, not when they are sent, so that flows never show more than a link's bandwidth.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace sonicsim::engine {

// The part of [from, to] inside [lo, hi]: a share of the bytes that pass evenly over it (an
// instant counts whole where it falls).
inline double share_within(double from, double to, double lo, double hi) {
  if (!(to > from)) return from >= lo && from <= hi ? 1.0 : 0.0;
  return std::max(0.0, std::min(to, hi) - std::max(from, lo)) / (to - from);
}

// Adds `bytes`, passing evenly over [from, to], to windows of `width` that start at `origin`;
// what falls outside the windows is left out.
inline void spread_over_windows(std::vector<double>& windows, double origin, double width,
                                double from, double to, double bytes) {
  if (windows.empty() || !(bytes > 0.0)) return;
  const double last = origin + width * static_cast<double>(windows.size());
  if (!(to > from)) {
    if (from >= origin && from < last)
      windows[std::min(windows.size() - 1, static_cast<std::size_t>((from - origin) / width))] +=
          bytes;
    return;
  }
  const double rate = bytes / (to - from);
  const double a = std::max(from, origin), b = std::min(to, last);
  if (!(b > a)) return;
  auto k = std::min(windows.size() - 1, static_cast<std::size_t>((a - origin) / width));
  for (double at = a; at < b && k < windows.size(); ++k) {
    const double window_end = std::min(b, origin + width * static_cast<double>(k + 1));
    if (window_end > at) windows[k] += rate * (window_end - at);
    at = std::max(at, window_end);
  }
}

}  // namespace sonicsim::engine
