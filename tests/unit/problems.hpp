// Helpers for the loader tests: the problems a refused scenario reports, printed and searched.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <sonicsim/scenario/loader.hpp>

namespace test {

inline std::string dump(const std::vector<sonicsim::scenario::Problem>& problems) {
  std::ostringstream out;
  for (const auto& p : problems) out << "  [" << p.path << "] " << p.message << "\n";
  return out.str();
}

// Whether a problem at exactly `path` has every fragment in its message.
inline bool has_problem(const std::vector<sonicsim::scenario::Problem>& problems,
                        const std::string& path, const std::vector<std::string>& fragments) {
  for (const auto& p : problems) {
    if (p.path != path) continue;
    bool all = true;
    for (const auto& f : fragments) all = all && p.message.find(f) != std::string::npos;
    if (all) return true;
  }
  return false;
}

// What a refused input says: the message of the InputError `call` throws, "" when it returns.
template <class Call>
std::string refusal_of(Call&& call) {
  try {
    call();
  } catch (const sonicsim::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace test
