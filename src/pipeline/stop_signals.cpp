#include "stop_signals.hpp"

namespace sonicsim::pipeline {

namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int) {
  g_stop = 1;
}

}  // namespace

StopSignals::StopSignals() {
  g_stop = 0;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &old_int_);
  ::sigaction(SIGTERM, &action, &old_term_);
}

void StopSignals::restore() {
  if (restored_) return;
  restored_ = true;
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

const volatile std::sig_atomic_t* StopSignals::flag() {
  return &g_stop;
}

}  // namespace sonicsim::pipeline
