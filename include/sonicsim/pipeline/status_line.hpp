// The progress line of a long command on a terminal: one line on stderr, redrawn in place (a bar,
// what is being done, the time elapsed and left). Nothing at all when stderr is not a terminal
// or the command was asked to be quiet: logs and pipes get no carriage returns, and no output
// byte depends on it. Sweeps, `run` and `plan` draw through it.
#pragma once

#include <chrono>
#include <string>

#include <sonicsim/engine/simulation.hpp>

namespace sonicsim::pipeline {

// "m:ss" or "h:mm:ss"; "--:--" when not known (negative) or absurd.
std::string clock_text(double seconds);

class StatusLine {
 public:
  // Shown only when `wanted` and stderr is a terminal.
  explicit StatusLine(bool wanted);
  bool on() const { return on_; }
  // A few redraws a second are enough for a person and cost a long run nothing.
  bool due() const;
  double elapsed_s() const;
  // `fraction` of the work done fills the bar; `eta_s` < 0 when not known yet.
  void show(double fraction, const std::string& text, double eta_s);
  // Ends the line: `keep` leaves the last state on the screen, else it is erased.
  void finish(bool keep);

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  bool drawn_ = false;
  Clock::time_point start_, last_draw_{};
};

// A simulation's progress on `line` (which must outlive the run): simulated time out of
// `total_s`, events per second and the time left.
engine::Watch simulation_watch(StatusLine& line, double total_s);

}  // namespace sonicsim::pipeline
