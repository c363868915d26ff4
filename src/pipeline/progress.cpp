#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <sonicsim/util/format.hpp>

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

StatusLine::StatusLine(bool wanted) : on_(wanted && ::isatty(2)), start_(Clock::now()) {}

bool StatusLine::due() const {
  return on_ && (!drawn_ || Clock::now() - last_draw_ > std::chrono::milliseconds(200));
}

double StatusLine::elapsed_s() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void StatusLine::show(double fraction, const std::string& text, double eta_s) {
  if (!on_) return;
  const std::size_t width = 30;
  const double f = fraction >= 0.0 ? (fraction <= 1.0 ? fraction : 1.0) : 0.0;
  const auto full = static_cast<std::size_t>(f * static_cast<double>(width) + 1e-9);
  std::cerr << "\r[" << std::string(full, '#') << std::string(width - full, '.') << "] " << text
            << "  " << clock_text(elapsed_s()) << " elapsed, ETA " << clock_text(eta_s) << "\033[K"
            << std::flush;
  drawn_ = true;
  last_draw_ = Clock::now();
}

void StatusLine::finish(bool keep) {
  if (!on_ || !drawn_) return;
  std::cerr << (keep ? "\n" : "\r\033[K") << std::flush;
  drawn_ = false;
}

engine::Watch simulation_watch(StatusLine& line, double total_s) {
  return [&line, total_s](double now, std::int64_t events) {
    if (!line.due()) return;
    const double elapsed = line.elapsed_s();
    const double rate = elapsed > 0.0 ? static_cast<double>(events) / elapsed : 0.0;
    const double eta = now > 0.0 ? elapsed * (total_s - now) / now : -1.0;
    line.show(now / total_s,
              "simulated " + util::format_time(now) + " of " + util::format_time(total_s) + ", " +
                  util::formatted("%.3g", rate) + " events/s",
              eta);
  };
}

Progress::Progress(std::size_t points, std::size_t runs)
    : line_(true), points_(points), runs_(runs), start_(Clock::now()) {}

void Progress::point_done(bool failed) {
  ++points_done_;
  failed_ += failed ? 1 : 0;
  draw();
}

void Progress::tick() {
  // A terminal needs the clock to move, not a redraw per pipe read.
  if (line_.due()) draw();
}

void Progress::finish() {
  line_.finish(true);
}

void Progress::draw() {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double eta = runs_done_ ? elapsed / static_cast<double>(runs_done_) *
                                      static_cast<double>(runs_ - runs_done_)
                                : -1;
  const std::size_t percent = runs_ ? runs_done_ * 100 / runs_ : 100;
  std::string failed = failed_ ? ", " + std::to_string(failed_) + " failed" : "";
  if (line_.on()) {
    line_.show(runs_ ? static_cast<double>(runs_done_) / static_cast<double>(runs_) : 1.0,
               std::to_string(points_done_) + "/" + std::to_string(points_) + " points" + failed,
               eta);
  } else if (percent / 10 > last_decile_ || points_done_ == points_) {
    last_decile_ = percent / 10;
    std::cerr << "sweep: " << points_done_ << "/" << points_ << " points (" << percent << "%)"
              << failed << ", " << clock_text(elapsed) << " elapsed, ETA " << clock_text(eta)
              << "\n";
  }
}

}  // namespace sonicsim::pipeline
