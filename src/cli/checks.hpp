// Checks of numeric flags with messages a person reads ("found 1e999, expected a finite number
// >= 0"), where CLI11's own ranges print both ends to six decimals (the largest double has 309
// digits) and let nan through. Every numeric flag of sonicsim goes through one of these.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

namespace sonicsim::cli {

namespace check_detail {

inline std::string found(const std::string& text) {
  return "found \"" + (text.size() > 40 ? text.substr(0, 40) + "..." : text) + "\"";
}

// The whole text as a finite double.
inline bool finite_number(const std::string& text, double& v) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  return r.ec == std::errc() && r.ptr == end && std::isfinite(v);
}

// A finite number >= 0, or > 0 when zero is not allowed.
inline CLI::Validator finite_from_zero(bool zero_allowed) {
  const std::string bound = zero_allowed ? ">= 0" : "> 0";
  return CLI::Validator(
      [zero_allowed, bound](std::string& text) -> std::string {
        double v = 0.0;
        if (finite_number(text, v) && (v > 0.0 || (zero_allowed && v == 0.0))) return {};
        return found(text) + ", expected a finite number " + bound;
      },
      "NUMBER " + bound);
}

}  // namespace check_detail

// A finite number >= 0 (nan, inf and overflows refused).
inline CLI::Validator non_negative() {
  return check_detail::finite_from_zero(true);
}

// A finite number > 0.
inline CLI::Validator positive() {
  return check_detail::finite_from_zero(false);
}

// A whole number from `lo` to `hi` (written in decimal digits: no sign unless negative, no
// fraction, no exponent, no overflow).
inline CLI::Validator whole_number(std::int64_t lo, std::int64_t hi) {
  const std::string expected =
      "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, expected](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto r = std::from_chars(text.data(), end, v);
        if (r.ec == std::errc() && r.ptr == end && v >= lo && v <= hi) return {};
        return check_detail::found(text) + ", " + expected;
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

}  // namespace sonicsim::cli
