// Small text helpers shared by the readers of flags, units and tables.
#pragma once

#include <string_view>

namespace sonicsim::util {

// `s` without leading and trailing characters of `blanks` (by default spaces and tabs; table
// readers add "\r\n").
inline std::string_view trim(std::string_view s, std::string_view blanks = " \t") {
  const auto b = s.find_first_not_of(blanks);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(blanks) - b + 1);
}

}  // namespace sonicsim::util
