#include "workload_flow.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::plan::detail {

namespace {

using scenario::JobFlow;

// Per-job sums over more jobs than this take every k-th job and scale: the estimate needs no
// more, and the analytic searches call it at up to a million jobs.
constexpr std::int64_t kJobsSummed = 100'000;

// Seconds of [from, to] inside the measured span [a, b].
double overlap(double from, double to, double a, double b) {
  return std::max(0.0, std::min(to, b) - std::max(from, a));
}

}  // namespace

std::string describe_flow(const JobFlow& f) {
  switch (f.start) {
    case JobFlow::Start::Together:
      return "every job starting at 0";
    case JobFlow::Start::Waves:
      return "waves of " + std::to_string(f.wave_size) + " jobs every " +
             util::format_time(f.wave_every) +
             (f.first > 0.0 ? " from " + util::format_time(f.first) : std::string());
    case JobFlow::Start::Ramp:
      return "a ramp of starts over " + util::format_time(f.ramp_over);
    case JobFlow::Start::Times:
      return std::to_string(f.start_times.size()) + " given start times";
    case JobFlow::Start::Running:
      return "a measured profile of running jobs";
  }
  return "a job flow";
}

std::int64_t starts_in_run(const scenario::Workload& w, double duration_s) {
  if (!w.flow) return w.jobs;
  const JobFlow& f = *w.flow;
  if (const auto most = most_starts(w, duration_s)) return std::min(w.jobs, *most);
  if (f.start == JobFlow::Start::Together) return duration_s > 0.0 ? w.jobs : 0;
  if (f.start == JobFlow::Start::Ramp) {
    if (f.ramp_over <= duration_s) return w.jobs;
    // job j starts at over x j / jobs: those with j < jobs x duration / over.
    const double n = std::ceil(static_cast<double>(w.jobs) * duration_s / f.ramp_over);
    return std::min(w.jobs, static_cast<std::int64_t>(n));
  }
  std::int64_t n = 0;
  for (double t : f.start_times) n += t < duration_s ? 1 : 0;
  return n;
}

std::optional<std::int64_t> most_starts(const scenario::Workload& w, double duration_s) {
  if (!w.flow || w.flow->start != JobFlow::Start::Waves) return std::nullopt;
  const JobFlow& f = *w.flow;
  if (f.first >= duration_s) return 0;
  // Wave k starts at first + k x every; those before the end start.
  const double waves = f.wave_every > 0.0 ? std::ceil((duration_s - f.first) / f.wave_every)
                                          : std::numeric_limits<double>::infinity();
  const double most = waves * static_cast<double>(f.wave_size);
  if (!(most < 9e18)) return std::nullopt;
  return static_cast<std::int64_t>(most);
}

double mean_running_jobs(const scenario::Scenario& s, double thread_time_s) {
  const scenario::Workload& w = s.workload();
  const double a = s.warmup, b = s.duration, span = b - a;
  if (!w.flow || !(span > 0.0)) return static_cast<double>(w.jobs);
  const JobFlow& f = *w.flow;
  // Each thread begins its first event within one mean event time of its job's start.
  const double delay = w.cpu_time_per_event.expected() / 2.0;
  const double lifetime = std::max(1.0, f.events_per_job.expected()) /
                          static_cast<double>(w.threads_per_job) * thread_time_s;
  const auto runs = [&](double start) {
    return overlap(start + delay, start + delay + lifetime, a, b);
  };
  double job_seconds = 0.0;
  switch (f.start) {
    case JobFlow::Start::Together:
      job_seconds = static_cast<double>(w.jobs) * runs(0.0);
      break;
    case JobFlow::Start::Waves:
      for (std::int64_t first_job = 0; first_job < w.jobs; first_job += f.wave_size) {
        const double start = f.start_of(first_job, w.jobs);
        if (start >= b) break;
        job_seconds += static_cast<double>(std::min(f.wave_size, w.jobs - first_job)) * runs(start);
      }
      break;
    default: {
      const std::int64_t stride = std::max<std::int64_t>(1, w.jobs / kJobsSummed);
      for (std::int64_t j = 0; j < w.jobs; j += stride) {
        const double start = f.start_of(j, w.jobs);
        double seconds = 0.0;
        if (f.start == JobFlow::Start::Running) {
          const double end = f.end_times.at(static_cast<std::size_t>(j));
          seconds = overlap(start, std::isfinite(end) ? end : b, a, b);
        } else {
          seconds = runs(start);
        }
        job_seconds += seconds * static_cast<double>(std::min(stride, w.jobs - j));
      }
    }
  }
  return job_seconds / span;
}

FlowEquivalent flow_equivalent(const scenario::Scenario& s) {
  FlowEquivalent e{s, {}};
  const scenario::Workload& w = s.workload();
  e.load.jobs = w.jobs;
  e.load.starts = starts_in_run(w, s.duration);
  e.load.most_starts = most_starts(w, s.duration);
  if (w.flow) e.load.rule = describe_flow(*w.flow);
  if (!w.flow) {
    e.load.mean_running_jobs = static_cast<double>(w.jobs);
    e.load.mean_running_threads = static_cast<double>(w.n_threads());
    return e;
  }
  scenario::Workload& fixed = e.scenario.workload();
  fixed.flow.reset();
  const auto population = [&](double mean_jobs) {
    return std::clamp<std::int64_t>(std::llround(mean_jobs), 1, std::max<std::int64_t>(1, w.jobs));
  };
  fixed.jobs = 1;
  double t = analytic::predict(e.scenario).t_ideal_s;  // no queueing yet: the shortest jobs
  double mean = mean_running_jobs(s, t);
  for (int round = 0; round < 60; ++round) {
    const std::int64_t n = population(mean);
    if (n == fixed.jobs && round > 0) break;
    fixed.jobs = n;
    t = analytic::predict(e.scenario).t_sonic_s;
    if (!std::isfinite(t)) break;
    mean = mean_running_jobs(s, t);
  }
  fixed.jobs = population(mean);
  e.load.job_lifetime_s =
      std::max(1.0, w.flow->events_per_job.expected()) / static_cast<double>(w.threads_per_job) * t;
  if (w.flow->start == JobFlow::Start::Running) e.load.job_lifetime_s = 0.0;  // the profile's
  e.load.mean_running_jobs = mean;
  e.load.mean_running_threads = mean * static_cast<double>(w.threads_per_job);
  return e;
}

}  // namespace sonicsim::plan::detail
