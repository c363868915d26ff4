// Numbers as text, for people and for machines, written one way across sonicsim.
//
// For machines: integral values as integers, the rest with enough digits to round-trip a double;
// and numbers read back from text cells. For people: quantities with the unit that keeps three
// significant digits ("1.20 ms", "4.70 MB", "10.0 Gbps"), percentages, and any printf format of
// one number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sonicsim::util {

std::string exact_number(double v);

// Length of the decimal number `s` starts with (optional sign, digits, fraction, exponent, as
// JSON and people write them), 0 if none. No leading blanks, "inf", "nan" or hexadecimal: strtod
// takes those, and a cell of "0x9" or "infinity" is a mistake, not a number.
std::size_t decimal_prefix(std::string_view s);

// The whole text as a finite decimal number (decimal_prefix's syntax); none when it is empty,
// has anything after the number, or no double holds it. Every numeric cell of a text input
// (measurement tables, perf_analyzer CSVs) is read here.
std::optional<double> parse_number(std::string_view text);

// The whole text as a whole number written in digits (an optional sign, no point, no exponent),
// within [lo, hi]; none otherwise. For counts: "1.5", "1e18" and "0x9" are not counts.
std::optional<std::int64_t> parse_whole_number(std::string_view text, std::int64_t lo,
                                               std::int64_t hi);

// One number through a printf conversion such as "%.3g" or "%+.1f%%".
std::string formatted(const char* printf_format, double v);

// 100 x `fraction` through `number_format` (a printf conversion), then "%": percent(0.052) is
// "5.2%", percent(0.052, "%+.2f") "+5.20%". "-" when the number is not finite.
std::string percent(double fraction, const char* number_format = "%.1f");
// The same for a number already in percentage points.
std::string percent_points(double points, const char* number_format = "%.1f");

// Human-readable quantities for summaries, three significant digits with the unit that fits:
// 0.0012 -> "1.20 ms", 4.7e6 -> "4.70 MB", 1.25e9 B/s -> "10.0 Gbps"; "inf", "nan" as such.
// "1,000,000": a whole count a person reads at a glance (rounded to a whole number).
std::string format_count(double n);
std::string format_time(double seconds);
std::string format_bytes(double bytes);
// In powers of 1024 ("16.0 MiB", "7.50 GiB"): limits and budgets, which are set that way.
std::string format_binary_bytes(double bytes);
std::string format_bandwidth(double bytes_per_second);

}  // namespace sonicsim::util
