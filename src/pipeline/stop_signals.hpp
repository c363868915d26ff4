// Ctrl-C and SIGTERM during a sweep: while a StopSignals lives they only raise a flag, so that
// the sweep finishes its files (whole lines, the hint to --resume) before it exits 130 instead
// of dying mid-write. The flag stays raised after restore(), for the caller to read.
#pragma once

#include <signal.h>

#include <csignal>

namespace sonicsim::pipeline {

class StopSignals {
 public:
  StopSignals();  // lowers the flag and installs the handler
  ~StopSignals() { restore(); }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // The previous handlers come back (once; also when this goes).
  void restore();

  // The flag the handler raises, for run_in_children_streaming's hooks.stop.
  static const volatile std::sig_atomic_t* flag();
  static bool raised() { return *flag() != 0; }

 private:
  struct sigaction old_int_ {
  }, old_term_{};
  bool restored_ = false;
};

}  // namespace sonicsim::pipeline
