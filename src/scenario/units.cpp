#include <sonicsim/scenario/units.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/text.hpp>

namespace sonicsim::scenario {
namespace {

struct Unit {
  std::string_view name;
  double factor;  // to SI base units
};

// Case matters: "Mbps" is bits and "MBps" bytes, and "mB" would be a milli-byte.
constexpr Unit kTimeUnits[] = {{"ns", 1e-9}, {"us", 1e-6},  {"\u00b5s", 1e-6}, {"ms", 1e-3},
                               {"s", 1.0},   {"min", 60.0}, {"h", 3600.0}};
constexpr Unit kSizeUnits[] = {{"B", 1.0},
                               {"kB", 1e3},
                               {"MB", 1e6},
                               {"GB", 1e9},
                               {"TB", 1e12},
                               {"KiB", 1024.0},
                               {"MiB", 1024.0 * 1024},
                               {"GiB", 1024.0 * 1024 * 1024},
                               {"TiB", 1024.0 * 1024 * 1024 * 1024}};
constexpr Unit kBandwidthUnits[] = {
    {"bps", 1.0 / 8}, {"kbps", 1e3 / 8}, {"Mbps", 1e6 / 8}, {"Gbps", 1e9 / 8}, {"Tbps", 1e12 / 8},
    {"b/s", 1.0 / 8}, {"kb/s", 1e3 / 8}, {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8}, {"Tb/s", 1e12 / 8},
    {"Bps", 1.0},     {"kBps", 1e3},     {"MBps", 1e6},     {"GBps", 1e9},     {"TBps", 1e12},
    {"B/s", 1.0},     {"kB/s", 1e3},     {"MB/s", 1e6},     {"GB/s", 1e9},     {"TB/s", 1e12}};
// Rates are counts per unit of time ("500/s", "30/min") or a frequency ("2kHz").
constexpr Unit kRateUnits[] = {{"/s", 1.0},        {"/ms", 1e3}, {"/us", 1e6}, {"/min", 1.0 / 60},
                               {"/h", 1.0 / 3600}, {"Hz", 1.0},  {"kHz", 1e3}, {"MHz", 1e6}};
constexpr Unit kPowerUnits[] = {{"mW", 1e-3}, {"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}};

template <std::size_t N>
std::optional<double> factor_of(std::string_view unit, const Unit (&table)[N]) {
  for (const Unit& u : table)
    if (u.name == unit) return u.factor;
  return std::nullopt;
}

std::optional<double> unit_factor(std::string_view unit, Quantity kind) {
  switch (kind) {
    case Quantity::Time:
      return factor_of(unit, kTimeUnits);
    case Quantity::Size:
      return factor_of(unit, kSizeUnits);
    case Quantity::Bandwidth:
      return factor_of(unit, kBandwidthUnits);
    case Quantity::Rate:
      return factor_of(unit, kRateUnits);
    case Quantity::Power:
      return factor_of(unit, kPowerUnits);
  }
  return std::nullopt;
}

const char* noun(Quantity kind) {
  switch (kind) {
    case Quantity::Time:
      return "a time";
    case Quantity::Size:
      return "a size";
    case Quantity::Bandwidth:
      return "a bandwidth";
    case Quantity::Rate:
      return "a rate";
    case Quantity::Power:
      return "a power";
  }
  return "a quantity";
}

const char* example(Quantity kind) {
  switch (kind) {
    case Quantity::Time:
      return "\"2.5ms\"";
    case Quantity::Size:
      return "\"4.7MB\"";
    case Quantity::Bandwidth:
      return "\"10Gbps\"";
    case Quantity::Rate:
      return "\"500/s\"";
    case Quantity::Power:
      return "\"70W\"";
  }
  return "";
}

const char* base_unit(Quantity kind) {
  switch (kind) {
    case Quantity::Time:
      return "seconds";
    case Quantity::Size:
      return "bytes";
    case Quantity::Bandwidth:
      return "bytes per second";
    case Quantity::Rate:
      return "events per second";
    case Quantity::Power:
      return "watts";
  }
  return "";
}

std::string expectation(Quantity kind) {
  return std::string(noun(kind)) + ": a number of " + base_unit(kind) + " or a string such as " +
         example(kind) + " with one of the units " + accepted_units(kind);
}

std::string quote_text(std::string_view s) {
  std::string text(s.substr(0, 60));
  if (s.size() > 60) text += "...";
  return "\"" + text + "\"";
}

struct Bounds {
  double lo, hi;  // lo applies to values other than 0
  const char* words;
};

Bounds bounds_of(Quantity kind) {
  switch (kind) {
    case Quantity::Time:
      return {0.0, Limits::max_time_s, "at most 1e9 s (about 32 years)"};
    case Quantity::Size:
      return {0.0, Limits::max_size_bytes, "at most 1e15 bytes (1 PB)"};
    case Quantity::Bandwidth:
      return {Limits::min_bandwidth_Bps, Limits::max_bandwidth_Bps,
              "from 1 bps to 8 Pbps (0.125 to 1e15 bytes per second)"};
    case Quantity::Rate:
      return {Limits::min_rate_per_s, Limits::max_arrival_rate,
              "from 1e-9 to 1e9 events per second"};
    case Quantity::Power:
      return {0.0, Limits::max_power_W, "at most 1e9 W (1 GW)"};
  }
  return {0.0, 0.0, ""};
}

// A finite, non-negative value the engine cannot represent (a round trip of two 1e308 s
// latencies is infinite) is refused here, once for every key of its kind.
std::optional<double> within_bounds(double v, Quantity kind, const std::string& found,
                                    std::string& error) {
  const Bounds b = bounds_of(kind);
  if (v == 0.0 || (v >= b.lo && v <= b.hi)) return v;
  error = "found " + found + ", expected " + noun(kind) + " " + b.words;
  return std::nullopt;
}

}  // namespace

const char* accepted_units(Quantity kind) {
  switch (kind) {
    case Quantity::Time:
      return "ns, us, ms, s, min, h";
    case Quantity::Size:
      return "B, kB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB (powers of 1024)";
    case Quantity::Bandwidth:
      return "bps, kbps, Mbps, Gbps, Tbps (bits per second), Bps, kBps, MBps, GBps, TBps (bytes "
             "per second)";
    case Quantity::Rate:
      return "/s, /ms, /us, /min, /h, Hz, kHz, MHz";
    case Quantity::Power:
      return "mW, W, kW, MW";
  }
  return "";
}

std::optional<double> parse_quantity(const nlohmann::json& value, Quantity kind,
                                     std::string& error) {
  if (value.is_number()) {
    const double v = value.get<double>();
    if (!std::isfinite(v)) {
      error = std::string("found ") +
              (std::isnan(v) ? "NaN"
               : v > 0       ? "inf"
                             : "-inf") +
              ", expected a finite " + (noun(kind) + 2);
      return std::nullopt;
    }
    if (v < 0) {
      error = "found " + value.dump() + ", expected a non-negative " + (noun(kind) + 2);
      return std::nullopt;
    }
    return within_bounds(v, kind, util::exact_number(v), error);
  }
  if (!value.is_string()) {
    std::string found = value.is_null()      ? "null"
                        : value.is_boolean() ? value.dump()
                        : value.is_array()   ? "an array"
                                             : "an object";
    error = "found " + found + ", expected " + expectation(kind);
    return std::nullopt;
  }
  const std::string& text = value.get_ref<const std::string&>();
  const std::string_view s = util::trim(text);
  const std::size_t n = util::decimal_prefix(s);
  if (n == 0) {
    error = "found " + quote_text(text) + ", expected " + expectation(kind);
    return std::nullopt;
  }
  std::string_view digits = s.substr(0, n);
  const bool negative = digits.front() == '-';
  if (digits.front() == '+' || digits.front() == '-') digits.remove_prefix(1);
  double magnitude = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  const std::string_view unit = util::trim(s.substr(n));
  std::optional<double> factor = unit.empty() ? 1.0 : unit_factor(unit, kind);
  if (!factor) {
    error = "found " + quote_text(text) + ": unknown unit " + quote_text(unit) + ", expected " +
            expectation(kind);
    return std::nullopt;
  }
  const double v = magnitude * *factor;
  if (ec == std::errc::result_out_of_range || end != digits.data() + digits.size() ||
      !std::isfinite(v)) {
    error = "found " + quote_text(text) + ", expected a finite " + (noun(kind) + 2);
    return std::nullopt;
  }
  if (negative && v != 0.0) {
    error = "found " + quote_text(text) + ", expected a non-negative " + (noun(kind) + 2);
    return std::nullopt;
  }
  return within_bounds(v, kind, quote_text(text), error);
}

}  // namespace sonicsim::scenario
