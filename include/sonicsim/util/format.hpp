// Numbers written for machines to read back: integral values as integers, the rest with enough
// digits to round-trip a double; and numbers read back from text cells.
#pragma once

#include <optional>
#include <string>

namespace sonicsim::util {

std::string exact_number(double v);

// The whole text as a finite number in strtod's syntax; none when it is empty, has anything
// after the number, overflows, or is inf or nan. (The cells of measurement tables and
// perf_analyzer CSVs.)
std::optional<double> parse_number(const std::string& text);

}  // namespace sonicsim::util
