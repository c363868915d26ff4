#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace sonicsim::pipeline {

std::string clock_text(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  char buffer[32];
  if (s >= 3600)
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld", s / 60, s % 60);
  return buffer;
}

Progress::Progress(std::size_t points, std::size_t runs)
    : tty_(::isatty(2)), points_(points), runs_(runs), start_(Clock::now()) {}

void Progress::point_done(bool failed) {
  ++points_done_;
  failed_ += failed ? 1 : 0;
  draw();
}

void Progress::tick() {
  // A terminal needs the clock to move, not a redraw per pipe read.
  if (tty_ && Clock::now() - last_draw_ > std::chrono::milliseconds(200)) draw();
}

void Progress::finish() {
  if (tty_ && drawn_) std::cerr << "\n";
}

void Progress::draw() {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double eta = runs_done_ ? elapsed / static_cast<double>(runs_done_) *
                                      static_cast<double>(runs_ - runs_done_)
                                : -1;
  const std::size_t percent = runs_ ? runs_done_ * 100 / runs_ : 100;
  std::string failed = failed_ ? ", " + std::to_string(failed_) + " failed" : "";
  if (tty_) {
    const std::size_t width = 30, full = runs_ ? runs_done_ * width / runs_ : width;
    std::cerr << "\r[" << std::string(full, '#') << std::string(width - full, '.') << "] "
              << points_done_ << "/" << points_ << " points" << failed << "  "
              << clock_text(elapsed) << " elapsed, ETA " << clock_text(eta) << "\033[K"
              << std::flush;
    drawn_ = true;
    last_draw_ = Clock::now();
  } else if (percent / 10 > last_decile_ || points_done_ == points_) {
    last_decile_ = percent / 10;
    std::cerr << "sweep: " << points_done_ << "/" << points_ << " points (" << percent << "%)"
              << failed << ", " << clock_text(elapsed) << " elapsed, ETA " << clock_text(eta)
              << "\n";
  }
}

}  // namespace sonicsim::pipeline
