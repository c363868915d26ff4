// Wall-clock instants as users write them on the command line: seconds since the Unix epoch
// (`1732665600`, `1732665600.5`) or RFC 3339 (`2026-11-27T00:00:00Z`,
// `2026-11-27T01:00:00.250+01:00`), as Prometheus' HTTP API takes them. Simulated time 0 is put
// on such an instant when a run is exported for Prometheus, and measured histories are cut by them.
#pragma once

#include <optional>
#include <string>

namespace sonicsim::util {

// Seconds since the epoch; nullopt when `text` is neither form (or a field is out of range).
std::optional<double> parse_wall_time(const std::string& text);

// RFC 3339 in UTC with milliseconds when they are not zero: "2026-11-27T00:00:00Z".
std::string format_wall_time(double unix_seconds);

}  // namespace sonicsim::util
