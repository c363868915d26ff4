// What the scenario targets do with a scenario the loader accepted: the admission gate every run
// passes (runner/work_estimate.hpp, runner/memory.hpp) must give finite, non-negative figures,
// whatever the scenario (a NaN estimate passes every budget check, and an infinite one refuses a
// run for no reason), and a run short enough to be cheap must end without throwing anything but
// InputError. Header-only: the sites and hosts targets include it (the Fuzz build links the runner
// layer into them alone).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sonicsim/runner/memory.hpp>
#include <sonicsim/runner/runner.hpp>
#include <sonicsim/runner/work_estimate.hpp>
#include <sonicsim/scenario/scenario.hpp>

#include "support.hpp"

namespace sonicsim::fuzz {

// Above this many estimated engine events (or bytes), a run costs more than an input may.
inline constexpr double kAdmissionMaxEvents = 5'000.0;
inline constexpr double kAdmissionMaxBytes = 256.0 * 1024 * 1024;

inline bool admission_figure_ok(double x) {
  return std::isfinite(x) && x >= 0.0;
}

// Checks both estimates; runs the scenario (analytic transport, then with `flows` every payload
// on sonicsim's max-min flows) when the estimates say it is small.
inline void check_admission(const char* target, const scenario::Scenario& s, bool flows) {
  runner::WorkEstimate work;
  runner::MemoryEstimate memory;
  expect_contract(target, Where::Anywhere, [&] {
    work = runner::estimate_work(s);
    memory = runner::estimate_memory(s);
  });
  if (!admission_figure_ok(work.events) || !admission_figure_ok(work.wall_seconds))
    finding(target, "work estimate not finite and >= 0: " + std::to_string(work.events) +
                        " events, " + std::to_string(work.wall_seconds) + " s");
  for (const auto& t : work.terms)
    if (!admission_figure_ok(t.events))
      finding(target,
              "work term not finite and >= 0: " + t.what + " = " + std::to_string(t.events));
  if (!admission_figure_ok(memory.bytes))
    finding(target, "memory estimate not finite and >= 0: " + std::to_string(memory.bytes));
  for (const auto& p : memory.parts)
    if (!admission_figure_ok(p.bytes))
      finding(target,
              "memory part not finite and >= 0: " + p.what + " = " + std::to_string(p.bytes));
  if (std::getenv("SONICSIM_FUZZ_VERBOSE"))
    std::fprintf(stderr, "%s: accepted: %.0f events, %.0f bytes estimated\n", target, work.events,
                 memory.bytes);
  if (work.events > kAdmissionMaxEvents || memory.bytes > kAdmissionMaxBytes) return;
  expect_contract(target, Where::Anywhere, [&] { runner::simulate(s, runner::TransportChoice{}); });
  if (flows)
    expect_contract(target, Where::Anywhere, [&] {
      runner::simulate(s, runner::TransportChoice::all_flows(runner::FlowSolver::MaxMin));
    });
}

}  // namespace sonicsim::fuzz
