#include <sonicsim/util/format.hpp>

#include <cerrno>
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

std::optional<double> parse_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
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

}  // namespace sonicsim::util
