#include <sonicsim/scenario/units.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/text.hpp>

namespace sonicsim::scenario {
namespace {

// Case matters: "Mbps" is bits and "MBps" bytes, and "mB" would be a milli-byte. The parser, the
// units message and the did-you-mean of a slip all read these tables, so a spelling the parser
// accepts is one the message lists. Within a family, the first spelling of a factor is the one
// suggestions use.
constexpr UnitSpelling kTimeUnits[] = {{"ns", 1e-9, ""}, {"us", 1e-6, ""}, {"\u00b5s", 1e-6, ""},
                                       {"ms", 1e-3, ""}, {"s", 1.0, ""},   {"min", 60.0, ""},
                                       {"h", 3600.0, ""}};
constexpr UnitSpelling kSizeUnits[] = {{"B", 1.0, "powers of 1000"},
                                       {"kB", 1e3, "powers of 1000"},
                                       {"MB", 1e6, "powers of 1000"},
                                       {"GB", 1e9, "powers of 1000"},
                                       {"TB", 1e12, "powers of 1000"},
                                       {"KiB", 1024.0, "powers of 1024"},
                                       {"MiB", 1024.0 * 1024, "powers of 1024"},
                                       {"GiB", 1024.0 * 1024 * 1024, "powers of 1024"},
                                       {"TiB", 1024.0 * 1024 * 1024 * 1024, "powers of 1024"}};
constexpr const char* kBits = "bits per second";
constexpr const char* kBytes = "bytes per second";
constexpr UnitSpelling kBandwidthUnits[] = {
    {"bps", 1.0 / 8, kBits},   {"kbps", 1e3 / 8, kBits},  {"Mbps", 1e6 / 8, kBits},
    {"Gbps", 1e9 / 8, kBits},  {"Tbps", 1e12 / 8, kBits}, {"b/s", 1.0 / 8, kBits},
    {"kb/s", 1e3 / 8, kBits},  {"Mb/s", 1e6 / 8, kBits},  {"Gb/s", 1e9 / 8, kBits},
    {"Tb/s", 1e12 / 8, kBits}, {"B/s", 1.0, kBytes},      {"kB/s", 1e3, kBytes},
    {"MB/s", 1e6, kBytes},     {"GB/s", 1e9, kBytes},     {"TB/s", 1e12, kBytes},
    {"Bps", 1.0, kBytes},      {"kBps", 1e3, kBytes},     {"MBps", 1e6, kBytes},
    {"GBps", 1e9, kBytes},     {"TBps", 1e12, kBytes}};
// Rates are counts per unit of time ("500/s", "30/min") or a frequency ("2kHz").
constexpr UnitSpelling kRateUnits[] = {
    {"/s", 1.0, ""},        {"/ms", 1e3, ""}, {"/us", 1e6, ""}, {"/min", 1.0 / 60, ""},
    {"/h", 1.0 / 3600, ""}, {"Hz", 1.0, ""},  {"kHz", 1e3, ""}, {"MHz", 1e6, ""}};
constexpr UnitSpelling kPowerUnits[] = {
    {"mW", 1e-3, ""}, {"W", 1.0, ""}, {"kW", 1e3, ""}, {"MW", 1e6, ""}};

std::optional<double> unit_factor(std::string_view unit, Quantity kind) {
  for (const UnitSpelling& u : unit_spellings(kind))
    if (u.name == unit) return u.factor;
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

std::span<const UnitSpelling> unit_spellings(Quantity kind) {
  switch (kind) {
    case Quantity::Time:
      return kTimeUnits;
    case Quantity::Size:
      return kSizeUnits;
    case Quantity::Bandwidth:
      return kBandwidthUnits;
    case Quantity::Rate:
      return kRateUnits;
    case Quantity::Power:
      return kPowerUnits;
  }
  return {};
}

std::string accepted_units(Quantity kind) {
  std::string out;
  std::string_view family;
  for (const UnitSpelling& u : unit_spellings(kind)) {
    if (!out.empty() && u.family != family) {
      out += " (" + std::string(family) + "); ";
    } else if (!out.empty()) {
      out += ", ";
    }
    out += u.name;
    family = u.family;
  }
  if (!family.empty()) out += " (" + std::string(family) + ")";
  return out;
}

std::string with_unit(double si, Quantity kind) {
  // Times up to seconds (a bare 3600 was meant as "3600s", not "60min"), sizes in powers of 1000,
  // bandwidths in bits; each factor by its first spelling.
  const UnitSpelling* chosen = nullptr;
  for (const UnitSpelling& u : unit_spellings(kind)) {
    if (kind == Quantity::Time && u.factor > 1.0) continue;
    if (kind == Quantity::Size && u.family != "powers of 1000") continue;
    if (kind == Quantity::Bandwidth && u.family != "bits per second") continue;
    const auto first = [&](const UnitSpelling& v) { return v.factor == u.factor; };
    if (&*std::find_if(unit_spellings(kind).begin(), unit_spellings(kind).end(), first) != &u)
      continue;  // "b/s" after "bps", "µs" after "us"
    if (!chosen || si >= u.factor * (1 - 1e-9)) chosen = &u;
  }
  if (!chosen) return util::exact_number(si);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", si / chosen->factor);
  return std::string(buf) + std::string(chosen->name);
}

bool written_bare(const nlohmann::json& value) {
  if (value.is_number()) return true;
  if (!value.is_string()) return false;
  const std::string_view s = util::trim(value.get_ref<const std::string&>());
  const std::size_t n = util::decimal_prefix(s);
  return n > 0 && n == s.size();
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
