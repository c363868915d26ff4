// The `workload` section (or `workloads`, named ones sharing the servers): client jobs and
// threads, the job flow, open-loop arrivals, the client policy and the requests of an event.
#include <cmath>
#include <limits>
#include <map>

#include "keys.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

// `workload` (one) or `workloads` (an array of named ones sharing the servers).
void Loader::workloads(const json& doc, Scenario& s) {
  const json* one = get(doc, keys::kWorkload);
  const json* many = get(doc, keys::kWorkloads);
  if (one && many) {
    add("workloads", "found both `workload` and `workloads`, expected one of them");
    return;
  }
  if (one) {
    workload(*one, "workload", s.workload());
  } else if (!many) {
    missing("workload",
            "an object with jobs, threads_per_job, cpu_time_per_event, ... (or `workloads`, an "
            "array of them)");
    return;
  } else if (!many->is_array() || many->empty()) {
    add("workloads", "found " + describe(*many) +
                         ", expected an array of at least one workload object, each with a name");
    return;
  } else if (many->size() > Limits::max_workloads) {
    add("workloads", "found " + std::to_string(many->size()) + " workloads, expected at most " +
                         std::to_string(Limits::max_workloads));
    return;
  } else {
    s.workloads.assign(many->size(), Workload{});
    std::map<std::string, std::string> names;  // name -> where
    for (std::size_t i = 0; i < many->size(); ++i) {
      const std::string path = index_path("workloads", i);
      const json& v = (*many)[i];
      workload(v, path, s.workloads[i]);
      if (!v.is_object()) continue;
      const std::string& name = s.workloads[i].name;
      if (!get(v, keys::kName)) {
        missing(key_path(path, keys::kName), "a name for the workload (e.g. \"reco\"), unique");
      } else if (!name.empty() && names.count(name)) {
        add(key_path(path, keys::kName),
            "found \"" + name + "\" again (first at " + names[name] + "), expected a unique name");
      } else if (!name.empty()) {
        names[name] = path;
      }
      if (many->size() > 1 && s.workloads[i].open_loop())
        add(key_path(path, keys::kArrivals),
            "found an open loop among " + std::to_string(many->size()) +
                " workloads, expected it alone: an open loop is a scenario's only workload");
    }
  }
  // The jobs as read, for preemption's bound.
  if (s.workloads.size() > 1 && s.total_threads() > Limits::max_threads)
    add("workloads", "found " + std::to_string(s.total_threads()) +
                         " client threads in all, expected at most " +
                         std::to_string(Limits::max_threads));
  if (ok()) jobs_ = s.total_jobs();
}

void Loader::workload(const json& v, const std::string& path, Workload& w) {
  if (!expect_object(v, path, "an object with jobs, threads_per_job, cpu_time_per_event, ..."))
    return;
  check_keys(v, path,
             {keys::kName, keys::kPriority, keys::kJobs, keys::kThreadsPerJob, keys::kJobsPerNode,
              keys::kMode, keys::kAsync, keys::kCpuTimePerEvent, keys::kRequests, keys::kArrivals,
              keys::kFlow, keys::kClient, keys::kSite, keys::kSites, keys::kRouting,
              keys::kCorePower, keys::kNode, keys::kStart});
  if (const json* x = get(v, keys::kName)) {
    if (auto n = string(*x, key_path(path, keys::kName))) w.name = *n;
  }
  if (const json* x = get(v, keys::kPriority); x && !x->is_null()) {
    if (auto n = integer(*x, key_path(path, keys::kPriority), 1, Limits::max_priority_levels,
                         "Triton request priority, 1 the highest"))
      w.priority = static_cast<std::uint64_t>(*n);
  }
  if (const json* x = get(v, keys::kArrivals); x && !x->is_null()) {
    if (const json* c = get(v, keys::kCorePower); c && !c->is_null())
      add(key_path(path, keys::kCorePower),
          "found a client core's power next to `arrivals`, expected none: an open loop has no "
          "client threads whose cores draw power");
    for (const char* k : {keys::kNode, keys::kStart})
      if (const json* c = get(v, k); c && !c->is_null())
        add(key_path(path, k), std::string("found `") + k +
                                   "` next to `arrivals`, expected none: an open loop has no "
                                   "client jobs to place on nodes or start");
    if (const json* f = get(v, keys::kFlow); f && !f->is_null())
      add(key_path(path, keys::kFlow),
          "found a job flow next to `arrivals`, expected one of them: an open loop has no jobs "
          "to come and go");
    arrivals(v, *x, path, w);
    requests(v, path, w);
    if (const json* c = get(v, keys::kClient); c && !c->is_null()) client(*c, path, w);
    return;
  }
  const std::string jobs_path = key_path(path, keys::kJobs);
  const std::string threads_path = key_path(path, keys::kThreadsPerJob);
  std::optional<std::int64_t> jobs, threads;
  // A measured profile of running jobs (flow.running) says how many jobs there are.
  const json* fv = get(v, keys::kFlow);
  const bool profile =
      fv && fv->is_object() && get(*fv, "running") && !get(*fv, "running")->is_null();
  if (const json* x = get(v, keys::kJobs); x && !(profile && x->is_null())) {
    jobs = integer(*x, jobs_path, 1, Limits::max_threads, "client jobs");
  } else if (!profile) {
    missing(jobs_path, "an integer >= 1 (client jobs)");
  }
  if (const json* x = get(v, keys::kThreadsPerJob)) {
    threads = integer(*x, threads_path, 1, Limits::max_threads, "threads per client job");
  } else {
    missing(threads_path, "an integer >= 1 (threads per client job)");
  }
  if (jobs) w.jobs = *jobs;
  if (threads) w.threads_per_job = static_cast<int>(*threads);
  // Both are at most 1e7, so the product cannot overflow 64 bits.
  if (jobs && threads && *jobs * *threads > Limits::max_threads) {
    add(jobs_path, "found jobs x threads_per_job = " + std::to_string(*jobs) + " x " +
                       std::to_string(*threads) + " = " + std::to_string(*jobs * *threads) +
                       " client threads, expected at most " + std::to_string(Limits::max_threads));
  }
  if (const json* x = get(v, keys::kJobsPerNode)) {
    if (auto n = integer(*x, key_path(path, keys::kJobsPerNode), 1, Limits::max_threads))
      w.jobs_per_node = static_cast<int>(*n);
  }
  if (const json* x = get(v, keys::kMode)) {
    if (auto m = choice(*x, key_path(path, keys::kMode), {"sync", "async"}))
      w.mode = *m == "async" ? Mode::Async : Mode::Sync;
  }
  if (const json* x = get(v, keys::kAsync); x && !x->is_null()) {
    const std::string apath = key_path(path, keys::kAsync);
    if (expect_object(*x, apath, "an object with independent_work_fraction, events_in_flight")) {
      check_keys(*x, apath, {keys::kIndependentWorkFraction, keys::kEventsInFlight});
      if (const json* f = get(*x, keys::kIndependentWorkFraction)) {
        if (auto r =
                number(*f, key_path(apath, keys::kIndependentWorkFraction), Range::closed(0, 1)))
          w.async.independent_work_fraction = *r;
      }
      if (const json* e = get(*x, keys::kEventsInFlight)) {
        if (auto r = integer(*e, key_path(apath, keys::kEventsInFlight), 1,
                             Limits::max_events_in_flight))
          w.async.events_in_flight = static_cast<int>(*r);
      }
    }
  }
  if (const json* x = get(v, keys::kCpuTimePerEvent)) {
    const std::string cpath = key_path(path, keys::kCpuTimePerEvent);
    const RoleScope role(*this, Role::CpuTime, path);
    if (auto d = distribution(*x, cpath, kTimeDist)) {
      // A distribution may draw shorter times than a tick; its mean is what the clock sees.
      const double mean = d->expected();
      if (at_least_tick(x->is_object() ? "a mean of " + format_number(mean) + " s" : describe(*x),
                        cpath, mean))
        w.cpu_time_per_event = *d;
    }
  } else {
    missing(key_path(path, keys::kCpuTimePerEvent),
            "a time (t_CPU, e.g. \"1.03s\") or a distribution of times");
  }
  if (const json* x = get(v, keys::kFlow); x && !x->is_null()) flow(*x, path, w);
  if (profile && w.flow && w.flow->start == JobFlow::Start::Running) {
    const auto starts = static_cast<std::int64_t>(w.flow->start_times.size());
    if (jobs && *jobs != starts)
      add(jobs_path, "found " + std::to_string(*jobs) + ", but flow.running starts " +
                         std::to_string(starts) + " jobs: leave `jobs` out or set it to " +
                         std::to_string(starts));
    else if (starts * w.threads_per_job > Limits::max_threads)
      add(key_path(key_path(path, keys::kFlow), "running"),
          "starts " + std::to_string(starts) + " jobs of " + std::to_string(w.threads_per_job) +
              " threads, expected at most " + std::to_string(Limits::max_threads) +
              " client threads in all");
    else
      w.jobs = std::max<std::int64_t>(starts, 1);
  }
  if (const json* x = get(v, keys::kCorePower); x && !x->is_null())
    w.core_power = power(*x, key_path(path, keys::kCorePower));
  if (const json* x = get(v, keys::kNode); x && !x->is_null()) node(*x, path, w);
  if (const json* x = get(v, keys::kStart); x && !x->is_null()) start_pattern(*x, path, w);
  requests(v, path, w);
  if (const json* x = get(v, keys::kClient); x && !x->is_null()) client(*x, path, w);
}

// The open loop's keys (`workload` is the workload object, `v` its `arrivals`). Every closed-loop
// key is refused next to them: it would describe client threads that do not exist.
void Loader::arrivals(const json& workload, const json& v, const std::string& wpath, Workload& w) {
  const std::string path = key_path(wpath, keys::kArrivals);
  if (!expect_object(v, path,
                     "an object {\"rate\": \"500/s\", \"distribution\": \"constant\"} (an open "
                     "loop), or null"))
    return;
  check_keys(v, path, {keys::kRate, keys::kDistribution, keys::kMaxInFlight});
  Arrivals a;
  if (const json* x = get(v, keys::kRate)) {
    if (auto r = quantity(*x, key_path(path, keys::kRate), Quantity::Rate,
                          Range{0.0, Limits::max_arrival_rate, true, false}))
      a.rate = *r;
  } else {
    missing(key_path(path, keys::kRate),
            "arrivals per second, a rate > 0 such as \"500/s\" or 500");
  }
  if (const json* x = get(v, keys::kDistribution)) {
    if (auto d = choice(*x, key_path(path, keys::kDistribution), {"constant", "poisson"}))
      a.distribution =
          *d == "poisson" ? Arrivals::Distribution::Poisson : Arrivals::Distribution::Constant;
  }
  if (const json* x = get(v, keys::kMaxInFlight)) {
    if (auto n = integer(*x, key_path(path, keys::kMaxInFlight), 1, Limits::max_in_flight,
                         "requests outstanding at once"))
      a.max_in_flight = *n;
  }
  w.arrivals = a;
  w.cpu_time_per_event = Distribution::constant(0.0);
  for (const char* key : {keys::kJobs, keys::kThreadsPerJob, keys::kJobsPerNode, keys::kMode,
                          keys::kAsync, keys::kCpuTimePerEvent}) {
    const json* x = get(workload, key);
    if (!x || x->is_null()) continue;
    add(key_path(wpath, key),
        "found " + describe(*x) + " next to `arrivals`, expected no `" + key +
            "` (or null): an open loop has no client jobs, threads or CPU time, each arrival "
            "sends the event's requests at once and nobody waits for the replies; remove `" +
            key + "`, or remove `arrivals` for a closed loop");
  }
}

// `workload.client`: what a client does when a request fails (CMSSW's SonicClient: retries, then
// the fallback). Called after `arrivals` is read, so w.open_loop() is known.
void Loader::client(const json& v, const std::string& wpath, Workload& w) {
  const std::string path = key_path(wpath, keys::kClient);
  if (!expect_object(v, path,
                     "an object {\"timeout\": \"1s\", \"allowed_tries\": 3, \"retry_delay\": "
                     "\"0s\", \"fallback\": \"cpu\"}, or null"))
    return;
  std::vector<std::string_view> allowed{keys::kTimeout, keys::kAllowedTries, keys::kRetryDelay,
                                        keys::kFallback};
  for (std::string_view key : client_policies::List::key_names()) allowed.push_back(key);
  check_keys(v, path, allowed);
  ClientPolicy& c = w.client;
  if (const json* x = get(v, keys::kTimeout)) {
    const std::string tpath = key_path(path, keys::kTimeout);
    if (auto t = quantity(*x, tpath, Quantity::Time, Range::at_least(0));
        t && at_least_tick(describe(*x), tpath, *t))
      c.timeout = *t;
  }
  if (const json* x = get(v, keys::kAllowedTries)) {
    if (auto n = integer(*x, key_path(path, keys::kAllowedTries), 1, 100,
                         "tries per request in all, the first one included"))
      c.allowed_tries = static_cast<int>(*n);
  }
  if (const json* x = get(v, keys::kRetryDelay)) {
    if (auto t =
            quantity(*x, key_path(path, keys::kRetryDelay), Quantity::Time, Range::at_least(0)))
      c.retry_delay = *t;
  }
  if (const json* x = get(v, keys::kFallback)) fallback(*x, key_path(path, keys::kFallback), w);
  entry_keys<client_policies::List>(v, path, keys::kFallback, c.fallback);
}

// `workload.client.fallback`: the name of a client policy of the table
// (include/sonicsim/client_policies/policies.hpp), one an open loop may use with `arrivals`.
void Loader::fallback(const json& v, const std::string& path, Workload& w) {
  const auto name = choice(v, path, client_policies::names());
  if (!name) return;
  const client_policies::Settings chosen = *client_policies::settings_named(*name);
  if (const std::string_view why = client_policies::open_loop_refusal(chosen);
      !why.empty() && w.open_loop()) {
    std::string expected;
    for (std::string_view n : client_policies::open_loop_names())
      expected += (expected.empty() ? "\"" : " or \"") + std::string(n) + "\"";
    add(path, "found \"" + *name + "\" next to `workload.arrivals`, expected " + expected + ": " +
                  std::string(why));
    return;
  }
  w.client.fallback = chosen;
}

// `workload.flow.running`: {"t": [times], "jobs": [counts]}, the jobs running from each time on
// (a measured client load). Where the count rises, new jobs start; where it falls, the oldest
// running jobs end (they take no new event and exit when their threads finish the one they
// hold).
void Loader::running_profile(const json& v, const std::string& path, JobFlow& f) {
  if (!expect_object(v, path,
                     "an object {\"t\": [\"0s\", \"10min\", ...], \"jobs\": [100, 250, ...]}"))
    return;
  check_keys(v, path, {"t", keys::kJobs});
  const json* t = get(v, "t");
  const json* n = get(v, keys::kJobs);
  if (!t || !n) {
    missing(key_path(path, t ? "jobs" : "t"),
            t ? "the jobs running from each time on, integers >= 0"
              : "the times the counts start at, increasing");
    return;
  }
  if (!t->is_array() || !n->is_array() || t->size() != n->size() || t->empty()) {
    add(path, "found t of " + describe(*t) + " and jobs of " + describe(*n) +
                  ", expected two arrays of the same length, at least one point");
    return;
  }
  if (t->size() > Limits::max_profile_points) {
    add(key_path(path, "t"), "found " + std::to_string(t->size()) + " points, expected at most " +
                                 std::to_string(Limits::max_profile_points));
    return;
  }
  f.start = JobFlow::Start::Running;
  f.start_times.clear();
  f.end_times.clear();
  std::vector<std::size_t> running;  // job indices, oldest first
  std::size_t oldest = 0;            // running[oldest..] are still running
  double previous = -1.0;
  for (std::size_t i = 0; i < t->size(); ++i) {
    const auto at =
        quantity((*t)[i], index_path(key_path(path, "t"), i), Quantity::Time, Range::at_least(0));
    const auto count = integer((*n)[i], index_path(key_path(path, keys::kJobs), i), 0,
                               Limits::max_threads, "jobs");
    if (!at || !count) return;
    if (*at <= previous) {
      add(index_path(key_path(path, "t"), i), "found " + format_number(*at) + " s after " +
                                                  format_number(previous) +
                                                  " s, expected strictly increasing times");
      return;
    }
    previous = *at;
    const auto now_running = static_cast<std::int64_t>(running.size() - oldest);
    for (std::int64_t k = now_running; k < *count; ++k) {
      if (f.start_times.size() >= static_cast<std::size_t>(Limits::max_threads)) {
        add(key_path(path, keys::kJobs), "starts more than " + std::to_string(Limits::max_threads) +
                                             " jobs, expected at most that many");
        return;
      }
      running.push_back(f.start_times.size());
      f.start_times.push_back(*at);
      f.end_times.push_back(std::numeric_limits<double>::infinity());
    }
    for (std::int64_t k = *count; k < now_running; ++k) f.end_times[running[oldest++]] = *at;
  }
}

// `workload.flow`: when the jobs start (one of waves, ramp, start_times; none: all at 0) and how
// many events each processes before it exits.
void Loader::flow(const json& v, const std::string& wpath, Workload& w) {
  const std::string path = key_path(wpath, keys::kFlow);
  if (!expect_object(v, path,
                     "an object {\"events_per_job\": 1000, \"waves\": {\"size\": 50, "
                     "\"every\": \"10min\"}} (or ramp, start_times), or null"))
    return;
  check_keys(v, path, {"events_per_job", "waves", "ramp", "start_times", "running"});
  JobFlow f;
  if (const json* x = get(v, "running"); x && !x->is_null()) {
    for (const char* key : {"events_per_job", "waves", "ramp", "start_times"})
      if (const json* other = get(v, key); other && !other->is_null())
        add(key_path(path, key),
            "found next to `running`, expected it alone: the measured profile says when jobs "
            "start and when they end");
    running_profile(*x, key_path(path, "running"), f);
    w.flow = std::move(f);
    return;
  }
  if (const json* x = get(v, "events_per_job")) {
    if (auto d = distribution(*x, key_path(path, "events_per_job"),
                              DistSpec{false, 1.0, "a number of events"}))
      f.events_per_job = *d;
  } else {
    missing(key_path(path, "events_per_job"),
            "events each job processes before it exits: a number >= 1 or a distribution");
  }
  int starts = 0;
  for (const char* key : {"waves", "ramp", "start_times"}) {
    const json* x = get(v, key);
    starts += x && !x->is_null() ? 1 : 0;
  }
  if (starts > 1)
    add(path,
        "found more than one of waves, ramp and start_times, expected at most one (none: "
        "every job starts at time 0)");
  if (const json* x = get(v, "waves"); x && !x->is_null()) {
    const std::string p = key_path(path, "waves");
    if (expect_object(*x, p, "an object {\"size\": 50, \"every\": \"10min\", \"first\": \"0s\"}")) {
      check_keys(*x, p, {"size", "every", "first"});
      f.start = JobFlow::Start::Waves;
      if (const json* n = get(*x, "size")) {
        if (auto k = integer(*n, key_path(p, "size"), 1, Limits::max_threads, "jobs per wave"))
          f.wave_size = *k;
      } else {
        missing(key_path(p, "size"), "jobs per wave, an integer >= 1");
      }
      if (const json* t = get(*x, "every")) {
        if (auto d = quantity(*t, key_path(p, "every"), Quantity::Time, Range::at_least(0)))
          f.wave_every = *d;
      } else {
        missing(key_path(p, "every"), "the time between waves, e.g. \"10min\"");
      }
      if (const json* t = get(*x, "first")) {
        if (auto d = quantity(*t, key_path(p, "first"), Quantity::Time, Range::at_least(0)))
          f.first = *d;
      }
    }
  }
  if (const json* x = get(v, "ramp"); x && !x->is_null()) {
    const std::string p = key_path(path, "ramp");
    if (expect_object(*x, p, "an object {\"over\": \"30min\"}")) {
      check_keys(*x, p, {"over"});
      f.start = JobFlow::Start::Ramp;
      if (const json* t = get(*x, "over")) {
        if (auto d = quantity(*t, key_path(p, "over"), Quantity::Time, Range::at_least(0)))
          f.ramp_over = *d;
      } else {
        missing(key_path(p, "over"), "the time over which the jobs start, evenly, e.g. \"30min\"");
      }
    }
  }
  if (const json* x = get(v, "start_times"); x && !x->is_null()) {
    const std::string p = key_path(path, "start_times");
    if (!x->is_array()) {
      add(p, "found " + describe(*x) + ", expected an array of times, one per job");
    } else {
      f.start = JobFlow::Start::Times;
      for (std::size_t i = 0; i < x->size(); ++i)
        if (auto d = quantity((*x)[i], index_path(p, i), Quantity::Time, Range::at_least(0)))
          f.start_times.push_back(*d);
      if (static_cast<std::int64_t>(x->size()) != w.jobs)
        add(p, "found " + std::to_string(x->size()) + " start times for " + std::to_string(w.jobs) +
                   " jobs, expected one per job");
    }
  }
  w.flow = std::move(f);
}

void Loader::requests(const json& v, const std::string& path, Workload& w) {
  const std::string rpath = key_path(path, keys::kRequests);
  const json* x = get(v, keys::kRequests);
  if (!x) {
    if (w.open_loop())
      missing(rpath, "at least one request: each arrival sends the workload's requests");
    return;
  }
  if (!x->is_array()) {
    add(rpath, "found " + describe(*x) + ", expected an array of request objects");
    return;
  }
  if (x->size() > Limits::max_request_kinds) {
    add(rpath, "found " + std::to_string(x->size()) + " requests, expected at most " +
                   std::to_string(Limits::max_request_kinds) + " (per_event repeats a request)");
    return;
  }
  if (x->empty() && w.open_loop())
    add(rpath,
        "found an empty array next to `arrivals`, expected at least one request (each "
        "arrival sends the workload's requests)");
  w.requests.resize(x->size());
  for (std::size_t i = 0; i < x->size(); ++i) request((*x)[i], index_path(rpath, i), w.requests[i]);
}

void Loader::request(const json& v, const std::string& path, RequestSpec& r) {
  if (!expect_object(v, path, "a request object {\"model\": ..., \"offload_fraction\": ...}"))
    return;
  check_keys(
      v, path,
      {keys::kModel, keys::kOffloadFraction, keys::kPerEvent, keys::kItems, keys::kModuleCpuTime});
  if (const json* x = get(v, keys::kModel)) {
    if (auto m = string(*x, key_path(path, keys::kModel))) r.model = *m;
  } else {
    missing(key_path(path, keys::kModel), "the name of a model defined in `models`");
  }
  if (const json* x = get(v, keys::kOffloadFraction)) {
    if (auto p = number(*x, key_path(path, keys::kOffloadFraction), Range::closed(0, 1)))
      r.offload_fraction = *p;
  }
  if (const json* x = get(v, keys::kPerEvent)) {
    if (auto n = integer(*x, key_path(path, keys::kPerEvent), 1, Limits::max_items))
      r.per_event = static_cast<int>(*n);
  }
  if (const json* x = get(v, keys::kModuleCpuTime); x && !x->is_null()) {
    if (auto t = quantity(*x, key_path(path, keys::kModuleCpuTime), Quantity::Time,
                          Range{0.0, Limits::max_duration_s, false, false}))
      r.module_cpu_time = *t;
  }
  if (const json* x = get(v, keys::kItems)) {
    const std::string ipath = key_path(path, keys::kItems);
    if (auto d = distribution(*x, ipath, kItemsDist)) {
      const double hi = d->upper_bound();
      if (d->expected() > Limits::max_items) {
        add(ipath, "found a mean of " + format_number(d->expected()) + " items, expected at most " +
                       std::to_string(Limits::max_items) + " per request");
      } else if (std::isfinite(hi) && hi > Limits::max_items) {
        add(ipath, "found items up to " + format_number(hi) + ", expected at most " +
                       std::to_string(Limits::max_items) + " per request");
      } else {
        r.items = *d;
      }
    }
  }
}

}  // namespace sonicsim::scenario::detail
