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

// The shares of `bytes`, passing evenly over [from, to], that fall in each of `size` windows of
// `width` starting at `origin`: add(k, share) for each window k they touch, in increasing k;
// what falls outside the windows is left out. Several links with the same windows (one site's
// path) take the same shares: worked out once, added to each.
template <class Add>
inline void for_each_window_share(std::size_t size, double origin, double width, double from,
                                  double to, double bytes, Add&& add) {
  if (size == 0 || !(bytes > 0.0)) return;
  const double last = origin + width * static_cast<double>(size);
  if (!(to > from)) {
    if (from >= origin && from < last)
      add(std::min(size - 1, static_cast<std::size_t>((from - origin) / width)), bytes);
    return;
  }
  const double rate = bytes / (to - from);
  const double a = std::max(from, origin), b = std::min(to, last);
  if (!(b > a)) return;
  auto k = std::min(size - 1, static_cast<std::size_t>((a - origin) / width));
  for (double at = a; at < b && k < size; ++k) {
    const double window_end = std::min(b, origin + width * static_cast<double>(k + 1));
    if (window_end > at) add(k, rate * (window_end - at));
    at = std::max(at, window_end);
  }
}

// Adds those shares to `windows`.
inline void spread_over_windows(std::vector<double>& windows, double origin, double width,
                                double from, double to, double bytes) {
  for_each_window_share(windows.size(), origin, width, from, to, bytes,
                        [&windows](std::size_t k, double share) { windows[k] += share; });
}

}  // namespace sonicsim::engine
