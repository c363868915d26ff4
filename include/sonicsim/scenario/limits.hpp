// Hard limits on a scenario's sizes, checked by the loader before anything is allocated, so that
// a typo (jobs: 1e12) is refused with a message instead of exhausting memory mid-run. Tools that
// build inputs for the engine themselves (calibration's emulated perf_analyzer) hold to them too.
#pragma once

#include <cstddef>
#include <cstdint>

#include <sonicsim/util/files.hpp>

namespace sonicsim::scenario {

// With the input caps of util (file sizes, JSON nesting): one struct of every limit, for the
// layers that see the scenario; util and triton, below it, read InputLimits directly.
struct Limits : InputLimits {
  static constexpr std::int64_t max_threads = 10'000'000;
  static constexpr std::int64_t max_devices = 1'000'000;
  // workload.flow.running: points of a measured profile (a year at 30 s is about 1.05e6).
  static constexpr std::size_t max_profile_points = 2'000'000;
  static constexpr int max_items = 1'000'000;
  // Time-series windows of one run (timeseries.interval, run --openmetrics, compare's history):
  // a sample holds a few numbers per device, and a million of them is past any plot.
  static constexpr double max_timeseries_windows = 1e6;
  static constexpr double max_duration_s = 10.0 * 365 * 24 * 3600;
  static constexpr int max_instances = 1000;                 // model instances per device
  static constexpr int max_host_cores = 100'000;             // cores of one server host
  static constexpr int max_devices_per_host = 1000;          // devices behind one Triton server
  static constexpr int max_events_in_flight = 1000;          // per thread, async mode
  static constexpr std::int64_t max_priority_levels = 1000;  // Triton priority levels
  static constexpr std::size_t max_workloads = 64;
  static constexpr std::size_t max_sites = 500;  // also the WAN's routers
  static constexpr std::size_t max_wan_links = 10000;
  static constexpr std::size_t max_request_kinds = 1000;  // entries of one workload's requests
  // Every quantity with a unit (scenario/units.hpp) lies in a range the engine represents: the
  // sums and products it forms of them (a round trip, bytes over a bandwidth, a rate's period)
  // stay finite and keep their precision. A time beyond max_time_s is longer than the longest run
  // (max_duration_s) three times over, so it can still say "never within the run"; the smallest
  // bandwidth is 1 bit per second and the smallest rate one event in max_time_s. 0 is left to
  // each key's own rule.
  static constexpr double max_time_s = 1e9;
  static constexpr double max_size_bytes = 1e15;              // 1 PB
  static constexpr double min_bandwidth_Bps = 1.0 / 8;        // 1 bps
  static constexpr double max_bandwidth_Bps = 1e15;           // 8 Pbps
  static constexpr double min_rate_per_s = 1.0 / max_time_s;  // events per second
  static constexpr double max_arrival_rate = 1e9;             // per second, also any rate
  static constexpr double max_power_W = 1e9;                  // 1 GW: a power plant, not a server
  // A distribution's cv, when not 0: below, no spread a sampler can tell from none (a gamma's
  // shape 1/cv^2 overflows); above, nearly all of the mass sits at 0 with rare huge draws.
  static constexpr double min_cv = 1e-6, max_cv = 100.0;
  static constexpr std::int64_t max_in_flight = 100'000'000;  // requests, open loop
  // SimGrid's clock resolution. A time that recurs (a period, a CPU time per event, a mean time
  // between failures) shorter than this cannot advance the simulated clock: it is refused as the
  // unit mistake it is ("1e-300", "1ns" meant as "1s").
  static constexpr double clock_tick_s = 1e-9;
  // Events a run may be expected to process (client events, open-loop arrivals, autoscaler
  // polls, random crashes and preemptions, time-series samples): at the engine's ten million
  // events per second or so, 1e12 is more than a day of wall time, so a scenario expected to
  // need more is a mistake to refuse up front, not a run to start.
  static constexpr double max_expected_events = 1e12;
  // The engine's safety net: this many events in a row within one clock tick (more for a
  // scenario whose own population could act in one instant, see engine/simulation.cpp) stop the
  // run: simulated time has stopped advancing.
  static constexpr std::int64_t min_stalled_events = 10'000'000;
  // Values whose products with other inputs must stay finite: a site's share of the weighted
  // policy (sums over every site), an egress price (times the bytes of a run, at most 1 PB a
  // link-second over 10 years, still far below the double's range).
  static constexpr double max_site_weight = 1e9;
  static constexpr double max_price_per_gb = 1e6;  // dollars (or any currency) per GB
};

}  // namespace sonicsim::scenario
