// Numbers written for machines to read back: integral values as integers, the rest with enough
// digits to round-trip a double.
#pragma once

#include <string>

namespace sonicsim::util {

std::string exact_number(double v);

}  // namespace sonicsim::util
