// Quantities with units (SPEC section 2): "250us", "4.7MB", "10Gbps", "500/s", "70W", or plain SI
// numbers.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sonicsim::scenario {

enum class Quantity { Time, Size, Bandwidth, Rate, Power };  // Rate: events per second; Power: W

// Parses a number (already SI) or a string with a unit. On failure returns nullopt and sets
// `error` to what was wrong and which units are accepted.
std::optional<double> parse_quantity(const nlohmann::json& value, Quantity kind,
                                     std::string& error);

// One spelling of a unit: its factor to SI base units and its family ("bits per second"; empty
// for a kind with one family). The parser accepts exactly these, in this order.
struct UnitSpelling {
  std::string_view name;
  double factor;
  std::string_view family;
};
std::span<const UnitSpelling> unit_spellings(Quantity kind);

// Every spelling of unit_spellings(kind), by family ("ns, us, µs, ms, s, min, h"), for messages.
std::string accepted_units(Quantity kind);

// `si` written with the largest unit it is at least one of ("5ms", "100Gbps", "4.7MB"; times up to
// seconds, bandwidths in bits), six significant digits: what a message suggests writing.
std::string with_unit(double si, Quantity kind);

// A JSON number, or a string holding only a number ("0.5"): read in SI base units.
bool written_bare(const nlohmann::json& value);

// (Writing quantities back for people is util/format.hpp's format_time, format_bytes and
// format_bandwidth.)

}  // namespace sonicsim::scenario
