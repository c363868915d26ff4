// Simulated instants: whole nanoseconds since the run started.
//
// A double of seconds loses the clock's 1 ns resolution past 2^23 s (97 days: its spacing there
// is 1.9 ns) and at 10 years, the longest run the scenario allows, it is 60 ns: a 1 us pipeline
// interval is then off by 6%, and an execution whose remaining work is below half the spacing
// is rescheduled at the same instant forever (the hang of issue 35 past 2^24 s). Integer
// nanoseconds keep the same resolution at every instant, to 292 years, and order events by an
// integer compare. Durations stay doubles of seconds: only instants are Time, and the type
// keeps the two apart (an instant plus a duration is an instant rounded to the nanosecond, the
// difference of two instants is an exact duration; nothing converts silently).
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace sonicsim {

class Time {
 public:
  static constexpr double kTicksPerSecond = 1e9;

  constexpr Time() = default;
  static constexpr Time from_ns(std::int64_t ns) { return Time(ns); }
  // Rounded to the nearest nanosecond; +inf, and whatever lies past 292 years, is never().
  static Time from_seconds(double s) { return Time(ticks_of(s)); }
  // Later than every instant a run reaches: "not scheduled".
  static constexpr Time never() { return Time(kNever); }
  static constexpr Time zero() { return Time(0); }

  constexpr std::int64_t ns() const { return ns_; }
  constexpr bool is_never() const { return ns_ == kNever; }
  // For figures and messages; never() is +inf.
  double seconds() const {
    return is_never() ? std::numeric_limits<double>::infinity()
                      : static_cast<double>(ns_) / kTicksPerSecond;
  }

  // An instant plus a duration: rounded to the nanosecond, never() stays never(), a sum past
  // the range is never(). On every event's path: one multiply, one conversion, one add.
  friend Time operator+(Time t, double seconds) {
    const std::int64_t d = ticks_of(seconds);
    std::int64_t sum;
    if (t.is_never() || d == kNever || d == -kNever || __builtin_add_overflow(t.ns_, d, &sum))
        [[unlikely]]
      return t.is_never() || d == kNever || d > 0 ? never() : Time(-kNever);
    return Time(sum);
  }
  friend Time operator-(Time t, double seconds) { return t + (-seconds); }
  Time& operator+=(double seconds) { return *this = *this + seconds; }
  // The exact duration between two instants, in seconds (+inf from never()).
  friend double operator-(Time a, Time b) {
    if (a.is_never()) return b.is_never() ? 0.0 : std::numeric_limits<double>::infinity();
    return static_cast<double>(a.ns_ - b.ns_) / kTicksPerSecond;
  }
  friend constexpr auto operator<=>(Time, Time) = default;

 private:
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  constexpr explicit Time(std::int64_t ns) : ns_(ns) {}
  // Rounded half to even, as nearbyint (a libm call without SSE4.1) would: adding 2^52 leaves
  // no bits below the unit, so the FPU's own rounding does it in two adds. From 2^52 on a double
  // is a whole number already; past +-2^63 ns, and nan, saturate.
  static std::int64_t ticks_of(double s) {
    const double t = s * kTicksPerSecond;
    if (t >= 0.0 && t < 0x1p52) [[likely]]
      return static_cast<std::int64_t>((t + 0x1p52) - 0x1p52);
    if (t < 0.0 && t > -0x1p52) return static_cast<std::int64_t>((t - 0x1p52) + 0x1p52);
    if (t < 0x1p63 && t > -0x1p63) return static_cast<std::int64_t>(t);
    return t > 0.0 || std::isnan(t) ? kNever : -kNever;
  }

  std::int64_t ns_ = 0;
};

}  // namespace sonicsim
