// Infinity ("no limit", "never") and quiet NaN ("no value") under one name for the whole code.
//
// They live in namespace sonicsim, so every sonicsim::* namespace finds them without a
// using-declaration. One definition for all sources rather than a copy in each .cpp's anonymous
// namespace: copies clash when a unity build compiles several .cpp files as one.
#pragma once

#include <limits>

namespace sonicsim {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace sonicsim
