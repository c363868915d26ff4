// What a running sweep shows on stderr: a bar with an ETA on a terminal (status_line.hpp), a line
// per tenth of the sweep otherwise (logs and batch jobs keep a readable history instead of
// carriage returns).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include <sonicsim/pipeline/status_line.hpp>

namespace sonicsim::pipeline {

class Progress {
 public:
  Progress(std::size_t points, std::size_t runs);
  void run_done() { ++runs_done_; }
  void point_done(bool failed);
  void tick();    // the clock moves on a terminal, between results
  void finish();  // ends the bar's line

 private:
  using Clock = std::chrono::steady_clock;
  void draw();
  StatusLine line_;
  std::size_t points_, runs_, points_done_ = 0, runs_done_ = 0, failed_ = 0;
  std::size_t last_decile_ = 0;
  Clock::time_point start_;
};

}  // namespace sonicsim::pipeline
