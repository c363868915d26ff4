// Many simulations, each in its own forked child process.
//
// SimGrid allows one engine per process, so a scan, a comparison, a plan or a sweep runs every
// simulation in a child (fork, no exec): the child does its work (load a scenario with the
// point's overrides, simulate it, render its results JSON) and hands back the text through a
// pipe, then _exit()s. The parent never starts a SimGrid engine. A child that fails (an override
// the scenario rejects, a crash) is reported with its error; it never takes the parent down.
// What the children run is the caller's: points.hpp and the sweeps give them one scenario each.
// This layer knows no simulator (the engine sits above it), so the layers that only choose
// points and read results (plan, compare, calibration, gallery) need not link one.
#pragma once

#include <csignal>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace sonicsim::points {

// What one child produced.
struct ChildOutcome {
  bool ok = false;
  std::string output;        // the work function's return value, when ok
  std::string error;         // otherwise: the exception's message or how the child died
  bool input_error = false;  // the work threw InputError (bad input, exit code 2)
};

// What a child that ran out of memory reports (std::bad_alloc), when the process can say more
// than "memory ran out": the CLI sets the runner's, which names the run's memory estimate.
void set_out_of_memory_message(std::string (*message)());

// Cores this process may run on (its CPU affinity), at least 1.
int default_workers();

// Runs work(i) for i = 0..n-1, each in its own forked child, at most `workers` children at a
// time (<= 0: default_workers()). Outcomes are indexed like i. The child keeps the parent's
// memory (no exec) and leaves with _exit(), so it neither flushes the parent's stdio buffers nor
// runs its atexit handlers. Throws std::runtime_error only when the parent cannot fork or pipe.
std::vector<ChildOutcome> run_in_children(std::size_t n,
                                          const std::function<std::string(std::size_t)>& work,
                                          int workers = 0);

// Streaming form for long sweeps: on_done(i, outcome) is called in the parent as each child
// ends, in completion order, so results can be written as they come. `indices` says which work
// items to run, in launch order. When *stop becomes non-zero (a SIGINT handler sets it) the
// running children are killed (SIGKILL) and reaped, no further on_done is called and the
// function returns false; true when every item ran. on_tick, when set, is called about four
// times a second while children run (a progress bar's clock).
struct StreamHooks {
  std::function<void(std::size_t, ChildOutcome&&)> on_done;
  std::function<void()> on_tick;
  const volatile std::sig_atomic_t* stop = nullptr;
};
bool run_in_children_streaming(const std::vector<std::size_t>& indices,
                               const std::function<std::string(std::size_t)>& work,
                               const StreamHooks& hooks, int workers = 0);

}  // namespace sonicsim::points
