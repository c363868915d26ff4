#include "preemption.hpp"

#include "clients.hpp"
#include "request_path.hpp"

namespace sonicsim::engine {

void Preemption::build() {
  const auto& sc = ctx_.sc;
  const auto& f = sc.faults;
  if (f.preemptions.empty() && !f.random_preemption) return;
  jobs_.resize(static_cast<std::size_t>(sc.total_jobs()));
  for (std::size_t i = 0; i < f.preemptions.size(); ++i)
    ctx_.queue.push(Time::from_seconds(f.preemptions[i].at), EventKind::Preemption,
                    static_cast<std::uint32_t>(i), 0);
  if (!f.random_preemption) return;
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    jobs_[j].rng.reseed(derive_seed(sc.seed, kPreemptStream, j));
    const auto job = static_cast<std::uint32_t>(j);
    arm_random_preemption(job, parts_.clients.job_start(job));
  }
}

void Preemption::arm_random_preemption(std::uint32_t j, Time from) {
  JobRun& jr = jobs_[j];
  const Time at = from + jr.rng.exponential(ctx_.sc.faults.random_preemption->mtbf);
  if (at <= ctx_.end)
    ctx_.queue.push(at, EventKind::Preemption, j, 1u | ((jr.epoch << 1) & EventQueue::kStampMask));
}

void Preemption::job_thread_starts(std::uint32_t j) {
  JobRun& jr = jobs_[j];
  if (!jr.down) return;
  jr.down = false;
  if (ctx_.sc.faults.random_preemption) arm_random_preemption(j, ctx_.now);
}

bool Preemption::job_running(std::uint32_t j) const {
  if (jobs_[j].down) return false;
  return parts_.clients.job_active(j);
}

void Preemption::on_preemption(std::uint32_t id, std::uint32_t stamp) {
  const auto& f = ctx_.sc.faults;
  if ((stamp & 1u) == 0) {
    const auto& p = f.preemptions[id];
    std::int64_t done = 0;
    for (std::uint32_t j = 0; j < jobs_.size() && done < p.jobs; ++j)
      if (job_running(j)) {
        preempt(j, p.restart_after);
        ++done;
      }
    return;
  }
  if ((stamp >> 1) != ((jobs_[id].epoch << 1) & EventQueue::kStampMask) >> 1) return;
  if (job_running(id)) return preempt(id, f.random_preemption->restart_after);
  // Not running (waiting for its start, or done): a running job's clock only.
  if (parts_.clients.job_waiting(id)) arm_random_preemption(id, ctx_.now);
}

// The batch system takes the job's slot back: its events in progress are lost with their requests
// (counted as failed, `preempted`), and it starts again `restart_after` later, redoing them.
void Preemption::preempt(std::uint32_t j, double restart_after) {
  JobRun& jr = jobs_[j];
  jr.down = true;
  parts_.path.disconnect(j);  // a new slot connects anew
  jr.epoch = (jr.epoch + 1) & (EventQueue::kStampMask >> 1);
  ++ctx_.metrics.preemptions.jobs;
  ctx_.metrics.preemptions.events_lost += parts_.clients.lose_job(j, restart_after);
}

}  // namespace sonicsim::engine
