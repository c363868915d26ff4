#include <sonicsim/runner/work_estimate.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::runner {

namespace {

// Engine events a remote request adds to its event: it reaches the server, its batch executes,
// the answer is back, the thread's CPU work resumes (a batcher's wake and a balancer's stages
// are rarer). scripts/work-estimate.sh measures the ratio on every shipped scenario.
constexpr double kEventsPerRequest = 4.0;

std::string n_text(double n) {
  return util::formatted("%.3g", n);
}

// Whether a request can fail without waiting for anything: no server up (faults, an autoscaler),
// the balancer's admission or capacity, or Triton's queue policy refusing it.
bool fails_fast(const scenario::Scenario& s) {
  if (!s.faults.empty() || s.load_balancer.admission || s.load_balancer.capacity) return true;
  for (const auto& p : s.servers)
    if (p.autoscaler) return true;
  const auto limits = [](const scenario::QueuePolicy& q) {
    return q.max_queue_size > 0 || q.default_timeout > 0.0;
  };
  for (const auto& m : s.models)
    if (const auto& b = m.dynamic_batching) {
      if (limits(b->queue_policy)) return true;
      for (const auto& [level, q] : b->priority_queue_policy)
        if (limits(q)) return true;
    }
  return false;
}

// The shortest the remote part of an event can be: each request's fastest round trip, or, when
// it can fail, its fastest failure: at once when it can fail fast, else after the client's
// timeout, plus what the client policy's last resort takes of the client's CPU
// (client_policies::cpu_seconds: the request's share of it when the client falls back to the
// CPU). A run whose WAN takes hours still has events of t_CPU each when its requests time out
// into the fallback.
double fastest_remote(const scenario::Scenario& s, const scenario::Workload& w, double t_cpu,
                      bool fast) {
  double total = 0.0;
  scenario::Workload one = w;
  for (const auto& r : w.requests) {
    if (s.devices_hosting(r.model) == 0) continue;
    one.requests = {r};
    const double served = s.fastest_event_without_cpu(one);
    const double wait = fast                   ? 0.0
                        : w.client.timeout > 0 ? r.per_event * w.client.timeout
                                               : std::numeric_limits<double>::infinity();
    total += std::min(
        served, wait + client_policies::cpu_seconds(w.client.fallback, r.offload_fraction * t_cpu));
  }
  return total;
}

}  // namespace

std::string WorkEstimate::largest(std::size_t n) const {
  std::string out;
  for (std::size_t i = 0; i < terms.size() && i < n; ++i) {
    if (terms[i].events <= 0.0) break;
    if (!out.empty()) out += "; ";
    out += terms[i].what + " = " + n_text(terms[i].events) + " events";
  }
  return out;
}

WorkEstimate estimate_work(const scenario::Scenario& s) {
  WorkEstimate e;
  const double duration = s.duration;
  const std::string dur = util::format_time(duration);
  // A term that is not a number (0 x inf from ranges that should exclude it) is counted as
  // infinite: the gate refuses the run, naming it, instead of dropping the term unseen.
  auto add = [&](std::string what, double events) {
    if (std::isnan(events)) events = std::numeric_limits<double>::infinity();
    if (events > 0.0) e.terms.push_back({std::move(what), events});
  };
  const bool many = s.workloads.size() > 1;
  const bool fast = fails_fast(s);
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const auto& w = s.workloads[i];
    const std::string name = many ? "workload `" + w.name + "`" : "the workload";
    double requests = 0.0;
    for (const auto& r : w.requests)
      if (s.devices_hosting(r.model) > 0) requests += r.per_event;
    const double per_event = 1.0 + kEventsPerRequest * requests;
    const std::string times = requests > 0.0 ? " x (1 + " + n_text(kEventsPerRequest) + " x " +
                                                   n_text(requests) + " requests)"
                                             : "";
    if (w.open_loop()) {
      add(name + "'s arrivals: (1 + " + n_text(w.arrivals->rate) + "/s x " + dur + ")" + times,
          (1.0 + w.arrivals->rate * duration) * per_event);
      continue;
    }
    // The shortest an event can be: the CPU time its offloaded parts do not replace, then its
    // requests' fastest round trips (a thread's events follow one another).
    double p_remote = 0.0;
    for (const auto& r : w.requests)
      if (s.devices_hosting(r.model) > 0) p_remote += r.offload_fraction;
    const double t_cpu = w.cpu_time_per_event.expected();
    const double t_event =
        std::max(std::max(0.0, 1.0 - p_remote) * t_cpu + fastest_remote(s, w, t_cpu, fast), 1e-9);
    const std::string why =
        t_cpu > 0.0 ? "the fastest event " + util::format_time(t_event) + " ((1 - p) x t_CPU " +
                          util::format_time(t_cpu) + " + fastest round trips" +
                          (fast || w.client.timeout > 0.0 ? " or failures)" : ")")
                    : "no CPU time, so the fastest round trip " + util::format_time(t_event);
    const double slots =
        static_cast<double>(w.n_threads()) * static_cast<double>(w.async.events_in_flight);
    // A slot's events in the run: at most duration / mean + E[X^2] / E[X]^2 (Lorden's bound on
    // a renewal process). The second term is 1 for constant times: the event every slot begins
    // at the start, however short the run. Spread CPU times add their own: with a CV of 27, a
    // minute holds hundreds of short events per thread, where the mean predicts a few.
    const double spread =
        t_cpu > 0.0 ? std::max(1.0, w.cpu_time_per_event.second_moment() / (t_cpu * t_cpu)) : 1.0;
    add(name + "'s client events: " + n_text(slots) + " threads x (" +
            (spread > 1.0001 ? n_text(spread) + " (1 + CV^2 of t_CPU)" : std::string("1")) + " + " +
            dur + " / " + why + ")" + times,
        slots * (spread + duration / t_event) * per_event);
  }
  double devices = 0.0;
  for (const auto& p : s.servers) devices += p.count;
  for (std::size_t i = 0; i < s.servers.size(); ++i)
    if (const auto& a = s.servers[i].autoscaler)
      add("autoscaler polls of pool `" + s.servers[i].name + "`: 2 x (1 + " + dur + " / " +
              util::format_time(a->polling_interval) + ")",
          2.0 * (1.0 + duration / a->polling_interval));
  if (const auto& a = s.load_balancer.admission; a && a->refuse_above)
    add("Prometheus scrapes: 1 + " + dur + " / " +
            util::format_time(a->refuse_above->scrape_interval),
        1.0 + duration / a->refuse_above->scrape_interval);
  for (const auto& r : s.faults.random_crashes) {
    const double n = s.servers[r.pool].count;
    add("random crashes of pool `" + s.servers[r.pool].name + "`: " + n_text(n) +
            " devices x (1 + 2 x " + dur +
            " / (mtbf + mttr = " + util::format_time(r.mtbf + r.mttr) + "))",
        n * (1.0 + 2.0 * duration / (r.mtbf + r.mttr)));
  }
  if (const auto& r = s.faults.random_preemption) {
    // Each preemption looks through the requests in flight for its job's (about one per slot).
    double slots = 0.0;
    for (const auto& w : s.workloads)
      slots += static_cast<double>(w.n_threads()) * static_cast<double>(w.async.events_in_flight);
    const double jobs = static_cast<double>(s.total_jobs());
    add("random preemptions: " + n_text(jobs) + " jobs x (1 + " + dur +
            " / (mtbf + restart_after = " + util::format_time(r->mtbf + r->restart_after) +
            ")) x " + n_text(slots) + " requests in flight",
        jobs * (1.0 + duration / (r->mtbf + r->restart_after)) * std::max(1.0, slots));
  }
  // Faults at given times: a crash and a restart per device hit, a preemption per job hit and
  // the requests it looks through, a change at each edge of a link's window.
  double planned = 0.0;
  for (const auto& c : s.faults.crashes)
    planned += 2.0 * (c.device < 0 ? static_cast<double>(s.servers[c.pool].count) : 1.0);
  for (const auto& p : s.faults.preemptions) {
    double slots = 0.0, jobs = 0.0;
    for (const auto& w : s.workloads) {
      slots += static_cast<double>(w.n_threads()) * static_cast<double>(w.async.events_in_flight);
      jobs += static_cast<double>(w.jobs);
    }
    planned += static_cast<double>(p.jobs) * (2.0 + slots / std::max(1.0, jobs));
  }
  planned += 2.0 * static_cast<double>(s.faults.links.size());
  add("faults at given times: " + n_text(planned) + " devices, jobs and link edges hit", planned);
  if (s.timeseries_interval > 0.0) {
    const double series =
        1.0 + devices +
        static_cast<double>(s.models.size() + s.workloads.size() + s.servers.size());
    add("time-series samples: (1 + " + dur + " / " + util::format_time(s.timeseries_interval) +
            ") x " + n_text(series) + " series",
        (1.0 + duration / s.timeseries_interval) * series);
  }
  std::sort(e.terms.begin(), e.terms.end(),
            [](const WorkTerm& a, const WorkTerm& b) { return a.events > b.events; });
  for (const auto& t : e.terms) e.events += t.events;
  e.wall_seconds = e.events / kEngineEventsPerSecond;
  return e;
}

Budget& time_budget() {
  static Budget budget({"--time-budget", scenario::Quantity::Time, 1.0,
                        "a wall time of at least 1s such as 30min or 6h",
                        [] { return kDefaultTimeBudget; }});
  return budget;
}

void check_time_budget(const scenario::Scenario& s, const WorkEstimate& estimate) {
  const double budget = time_budget().value();
  if (estimate.wall_seconds <= budget) return;
  throw InputError(
      s.source_file.empty() ? s.name : s.source_file,
      {{"", "the run would take about " + util::format_time(estimate.wall_seconds) +
                " of wall time (" + n_text(estimate.events) + " engine events at about " +
                n_text(kEngineEventsPerSecond) + " per second), above the time budget of " +
                util::format_time(budget) + "; the largest terms: " + estimate.largest() +
                ". Lower these counts or rates (a unit mistake?), or raise the budget with "
                "--time-budget DURATION (e.g. 12h, or unlimited) (docs/limits.md)"}});
}

}  // namespace sonicsim::runner
