// Wall-clock instants as users write them on the command line: seconds since the Unix epoch
// (`1732665600`, `1732665600.5`) or RFC 3339 (`2026-11-27T00:00:00Z`,
// `2026-11-27T01:00:00.250+01:00`), as Prometheus' HTTP API takes them. Simulated time 0 is put
// on such an instant when a run is exported for Prometheus, and measured histories are cut by them.
#pragma once

#include <optional>
#include <string>

namespace sonicsim::util {

// The instants sonicsim reads, whatever their form (a flag, an export's sample, a measurements
// file's start): 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z, the years RFC 3339's four digits
// write, so that every instant read prints back as it was read. Outside, a double still holds
// the number but the calendar does not: 1e19 s printed as the year -219246529.
constexpr double kMinWallTime = 0.0;
constexpr double kMaxWallTime = 253402300799.0;
inline bool is_wall_time(double unix_seconds) {
  return unix_seconds >= kMinWallTime && unix_seconds <= kMaxWallTime;
}
// "from 0 (1970-01-01T00:00:00Z) to 253402300799 (9999-12-31T23:59:59Z)" for messages; in
// milliseconds "from 0 ms (...) to 253402300799000 ms (...)".
std::string wall_time_range(bool milliseconds = false);

// Seconds since the epoch; nullopt when `text` is neither form, a field is out of range, or the
// instant is outside [kMinWallTime, kMaxWallTime] (in either form: "0000-01-01T00:00:00Z" and
// "9999-12-31T23:59:59-01:00" too).
std::optional<double> parse_wall_time(const std::string& text);

// RFC 3339 in UTC with milliseconds when they are not zero: "2026-11-27T00:00:00Z".
std::string format_wall_time(double unix_seconds);

}  // namespace sonicsim::util
