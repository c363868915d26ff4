#include <sonicsim/util/format.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sonicsim::util {

std::string exact_number(double v) {
  char buf[64];
  if (v == std::floor(v) && std::abs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::size_t decimal_prefix(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    std::size_t exp_digits = 0;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j, ++exp_digits;
    if (exp_digits > 0) i = j;
  }
  return i;
}

std::optional<double> parse_number(std::string_view text) {
  if (text.empty() || decimal_prefix(text) != text.size()) return std::nullopt;
  // from_chars takes no '+'; the syntax is already checked, so the sign is all that is left.
  const bool negative = text.front() == '-';
  if (text.front() == '+' || negative) text.remove_prefix(1);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return negative ? -v : v;
}

std::optional<std::int64_t> parse_whole_number(std::string_view text, std::int64_t lo,
                                               std::int64_t hi) {
  if (!text.empty() && text.front() == '+' && text.size() > 1 && text[1] != '-')
    text.remove_prefix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    return std::nullopt;
  return v;
}

std::string formatted(const char* printf_format, double v) {
  char buf[128];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

std::string percent_points(double points, const char* number_format) {
  return std::isfinite(points) ? formatted(number_format, points) + "%" : "-";
}

std::string percent(double fraction, const char* number_format) {
  return percent_points(100.0 * fraction, number_format);
}

namespace {

struct Unit {
  const char* name;
  double factor;
};

// Three significant digits, keeping trailing zeros ("1.20", "10.0", "250").
std::string three_digits(double v) {
  const double a = std::fabs(v);
  return formatted(a >= 99.95 ? "%.0f" : a >= 9.995 ? "%.1f" : "%.2f", v);
}

template <std::size_t N>
std::string format_scaled(double v, const Unit (&table)[N], const char* zero_unit) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0.0) return std::string("0 ") + zero_unit;
  const Unit* chosen = &table[0];
  for (const Unit& u : table)
    if (std::fabs(v) >= u.factor * 0.9995) chosen = &u;
  return three_digits(v / chosen->factor) + " " + chosen->name;
}

}  // namespace

std::string format_time(double seconds) {
  constexpr Unit table[] = {{"ns", 1e-9}, {"us", 1e-6},  {"ms", 1e-3},
                            {"s", 1.0},   {"min", 60.0}, {"h", 3600.0}};
  return format_scaled(seconds, table, "s");
}

std::string format_bytes(double bytes) {
  constexpr Unit table[] = {{"B", 1.0}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
  return format_scaled(bytes, table, "B");
}

std::string format_binary_bytes(double bytes) {
  constexpr Unit table[] = {
      {"B", 1.0}, {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40}};
  return format_scaled(bytes, table, "B");
}

std::string format_bandwidth(double bytes_per_second) {
  constexpr Unit table[] = {
      {"bps", 1.0}, {"kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9}, {"Tbps", 1e12}};
  return format_scaled(bytes_per_second * 8.0, table, "bps");
}

std::string format_count(double n) {
  const std::string digits = formatted("%.0f", n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && digits[i - 1] != '-' && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace sonicsim::util
