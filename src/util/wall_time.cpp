#include <sonicsim/util/wall_time.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

#include <sonicsim/util/format.hpp>

namespace sonicsim::util {

namespace {

// Reads exactly `digits` digits at text[at], advancing `at`.
bool digits(const std::string& text, std::size_t& at, int count, int& out) {
  out = 0;
  for (int i = 0; i < count; ++i, ++at) {
    if (at >= text.size() || !std::isdigit(static_cast<unsigned char>(text[at]))) return false;
    out = out * 10 + (text[at] - '0');
  }
  return true;
}

bool expect(const std::string& text, std::size_t& at, const char* options) {
  if (at >= text.size()) return false;
  for (const char* c = options; *c; ++c)
    if (text[at] == *c) {
      ++at;
      return true;
    }
  return false;
}

std::optional<double> rfc3339(const std::string& text) {
  std::size_t at = 0;
  int year, month, day, hour, minute, second;
  if (!digits(text, at, 4, year) || !expect(text, at, "-") || !digits(text, at, 2, month) ||
      !expect(text, at, "-") || !digits(text, at, 2, day) || !expect(text, at, "Tt ") ||
      !digits(text, at, 2, hour) || !expect(text, at, ":") || !digits(text, at, 2, minute) ||
      !expect(text, at, ":") || !digits(text, at, 2, second))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  double fraction = 0.0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    double scale = 0.1;
    const std::size_t first = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
      fraction += scale * (text[at] - '0');
      scale /= 10.0;
      ++at;
    }
    if (at == first) return std::nullopt;
  }
  int offset = 0;  // seconds east of UTC
  if (expect(text, at, "Zz")) {
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    const int sign = text[at] == '-' ? -1 : 1;
    ++at;
    int oh, om;
    if (!digits(text, at, 2, oh) || !expect(text, at, ":") || !digits(text, at, 2, om) || oh > 23 ||
        om > 59)
      return std::nullopt;
    offset = sign * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t t = ::timegm(&tm);
  if (tm.tm_mday != day) return std::nullopt;  // 2026-02-30 rolled over
  const double unix_seconds = static_cast<double>(t) - offset + fraction;
  if (!is_wall_time(unix_seconds)) return std::nullopt;
  return unix_seconds;
}

}  // namespace

std::string wall_time_range(bool milliseconds) {
  const double scale = milliseconds ? 1000.0 : 1.0;
  const std::string u = milliseconds ? " ms" : "";
  return "from " + exact_number(kMinWallTime * scale) + u + " (" + format_wall_time(kMinWallTime) +
         ") to " + exact_number(kMaxWallTime * scale) + u + " (" + format_wall_time(kMaxWallTime) +
         ")";
}

std::optional<double> parse_wall_time(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text.find('-', 1) != std::string::npos || text.find('T') != std::string::npos ||
      text.find('t') != std::string::npos)
    return rfc3339(text);
  // Decimal only, as every numeric flag: strtod would also take " 5", "0x9" and "infinity".
  const auto v = parse_number(text);
  if (!v || !is_wall_time(*v)) return std::nullopt;
  return v;
}

std::string format_wall_time(double unix_seconds) {
  const double whole = std::floor(unix_seconds);
  const auto t = static_cast<std::time_t>(whole);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[96];  // the widest years tm_year can hold
  const int ms = static_cast<int>(std::lround((unix_seconds - whole) * 1000.0));
  if (ms > 0 && ms < 1000)
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
  else
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

}  // namespace sonicsim::util
