// Quantities with units (SPEC section 2): "250us", "4.7MB", "10Gbps", "500/s", "70W", or plain SI
// numbers.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace sonicsim::scenario {

enum class Quantity { Time, Size, Bandwidth, Rate, Power };  // Rate: events per second; Power: W

// Parses a number (already SI) or a string with a unit. On failure returns nullopt and sets
// `error` to what was wrong and which units are accepted.
std::optional<double> parse_quantity(const nlohmann::json& value, Quantity kind,
                                     std::string& error);

// "ns, us, ms, s, min, h" etc., for messages.
const char* accepted_units(Quantity kind);

// (Writing quantities back for people is util/format.hpp's format_time, format_bytes and
// format_bandwidth.)

}  // namespace sonicsim::scenario
