// Jobs preempted by the batch system (faults.preemptions at set times, faults.random_preemption
// at random): which jobs lose their slot and when, and each job's random-preemption clock. What a
// preempted job loses (its events in progress and their requests) and redoes is the clients'
// business (Clients::lose_job). A new fault that hits the client jobs goes here.
#pragma once

#include <cstdint>
#include <vector>

#include <sonicsim/util/rng.hpp>

#include "context.hpp"

namespace sonicsim::engine {

class Clients;
class RequestPath;

class Preemption {
 public:
  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    Clients& clients;
    RequestPath& path;
  };

  Preemption(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses) {}
  // After the clients' threads and jobs: the planned preemptions and the random clocks.
  void build();
  bool on() const { return !jobs_.empty(); }

  // EventKind::Preemption.
  void on_preemption(std::uint32_t id, std::uint32_t stamp);
  // A thread of job j starts an event: a preempted job is back (and its clock runs again).
  void job_thread_starts(std::uint32_t j);

 private:
  // A job's preemptions, and its random-preemption clock (stamp: 1 | epoch << 1).
  struct JobRun {
    std::uint32_t epoch = 0;
    bool down = false;  // preempted, not started again yet
    Rng rng;
  };

  void arm_random_preemption(std::uint32_t j, Time from);
  bool job_running(std::uint32_t j) const;
  void preempt(std::uint32_t j, double restart_after);

  Context& ctx_;
  Uses parts_;
  std::vector<JobRun> jobs_;  // per job, with preemptions
};

}  // namespace sonicsim::engine
