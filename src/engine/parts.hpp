// The engine's parts, each reachable by name, so that they call each other directly (no
// virtual dispatch, no callbacks per event). While the parts move out of the old monolith, the
// code not yet moved lives here.
#pragma once

#include <sonicsim/engine/autoscaler.hpp>
#include <sonicsim/engine/batcher.hpp>
#include <sonicsim/engine/event_queue.hpp>
#include <sonicsim/engine/run_metrics.hpp>
#include <sonicsim/util/numbers.hpp>
#include <sonicsim/util/rng.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>

#include "accounting.hpp"
#include "context.hpp"
#include "network_path.hpp"
#include "preemption.hpp"
#include "request_path.hpp"
#include "sampling.hpp"
#include "server_pools.hpp"
#include "site_operations.hpp"

namespace sonicsim::engine {

inline int round_items(double x) {
  return std::max(1, static_cast<int>(std::lround(x)));
}

struct Parts : Context {
  NetworkPath network{*this, *this};
  Accounting accounting{*this};
  Sampling sampling{*this, *this};
  ServerPools servers{*this, *this};
  SiteOperations operations{*this, *this};
  Preemption preemption{*this, *this};
  RequestPath path{*this, *this};

  // ---- workload -------------------------------------------------------------------------
  struct Step {  // one request of an event, in the order a sync thread sends them
    std::uint16_t kind;
    std::uint32_t model;
  };
  // One workload's clients: its threads, jobs, nodes and async slots are ranges of the global
  // ones starting at the bases, in scenario order.
  struct Tenant {
    const scenario::Workload* w = nullptr;
    std::vector<Step> steps;  // served requests of one event, expanded by per_event
    std::uint64_t fallback_per_event = 0;
    double p_served = 0.0, p_unserved = 0.0;
    bool async = false, flow = false;
    double indep_fraction = 1.0;
    std::uint32_t slots_per_thread = 1, threads_per_job = 1;
    std::uint32_t thread_base = 0, job_base = 0, slot_base = 0, node_base = 0;
    std::vector<std::uint32_t> level;  // per model: the batcher's priority level (0-based)
    RunMetrics::Workload* tally = nullptr;
  };
  std::vector<Tenant> tenants;

  struct Thread {
    Rng rng;
    double event_start = 0.0;
    double t_cpu = 0.0;     // of the event in progress (sync): what a CPU fallback costs
    std::uint32_t job = 0;  // global job index
    std::uint32_t tenant = 0;
    std::uint32_t node = 0;
    std::uint32_t step = 0;
    std::uint32_t epoch = 0;  // its job's preemptions: older CPU events are stale
    bool in_event = false;    // sync: an event is in progress
    bool cpu_phase = false;   // sync: ... and its CPU work is not done
  };
  std::vector<Thread> threads;

  // Async: each thread holds several events (slots) and one CPU that runs one piece at a time.
  struct Slot {
    double event_start = 0.0, t_cpu = 0.0;
    std::uint32_t pending = 0;
    bool independent_done = false;
    bool in_event = false;
  };
  enum class PieceKind : std::uint8_t { Independent, Dependent, Fallback };
  struct Piece {
    std::uint32_t slot;
    PieceKind kind;
    double seconds;
    std::uint32_t request = 0;  // Fallback: whose local inference this is
  };
  struct AsyncCpu {
    std::deque<Piece> ready;
    Piece running{};
    bool busy = false;
  };
  std::vector<Slot> slots;  // see slot_of
  std::vector<AsyncCpu> cpus;

  // Job flow: each job's budget of events; its threads (and their slots) stop taking events
  // when it is spent, and the job exits when the last of them has finished its event.
  struct Job {
    double start = 0.0;
    std::int64_t events_left = 0;
    std::uint32_t busy_slots = 0;
    bool started = false;
  };
  std::vector<Job> jobs;
  std::uint64_t running_jobs = 0;

  // Open loop: one client (thread 0, for its random stream and node) that never waits. Each
  // arrival is an event whose requests carry its index in Request::slot.
  struct Arrival {
    double start;
    std::uint32_t pending;  // requests not back yet
  };
  bool open = false;
  std::vector<Arrival> arrivals;
  std::vector<std::uint32_t> free_arrivals;
  Rng arrival_rng;
  bool poisson = false;
  double arrival_interval = 0.0;  // mean time between arrivals
  std::uint64_t arrival_count = 0;
  std::uint64_t max_in_flight = 0;

  std::uint64_t live_fallbacks = 0;

  using State = ServerPools::State;
  std::uint64_t orphans = 0;  // tries abandoned by their client, still on their way

  explicit Parts(const scenario::Scenario& s) : Context(s) {
    accounting.build();
    build_workload();
    servers.build();
    path.build();
    network.build(servers.device_count());
    operations.build();
    if (open) {
      start_arrivals();
    } else {
      start_threads();
      preemption.build();
    }
    if (sc.timeseries_interval > 0.0) sampling.start();
  }

  // ---- construction ---------------------------------------------------------------------
  void build_workload() {
    open = sc.workload().open_loop();  // the loader keeps an open loop alone
    tenants.resize(sc.workloads.size());
    std::uint32_t thread_base = 0, job_base = 0, slot_base = 0, node_base = 0;
    for (std::size_t i = 0; i < sc.workloads.size(); ++i) {
      const auto& w = sc.workloads[i];
      Tenant& tn = tenants[i];
      tn.w = &w;
      tn.tally = &accounting.workload(i);
      tn.async = w.mode == scenario::Mode::Async;
      tn.flow = w.flow.has_value();
      tn.indep_fraction = w.async.independent_work_fraction;
      tn.slots_per_thread = tn.async ? static_cast<std::uint32_t>(w.async.events_in_flight) : 1;
      tn.threads_per_job = static_cast<std::uint32_t>(w.threads_per_job);
      tn.thread_base = thread_base;
      tn.job_base = job_base;
      tn.slot_base = slot_base;
      tn.node_base = node_base;
      const auto threads = static_cast<std::uint32_t>(w.n_threads());
      thread_base += threads;
      job_base += static_cast<std::uint32_t>(w.jobs);
      if (tn.async) slot_base += threads * tn.slots_per_thread;
      node_base += static_cast<std::uint32_t>(w.n_nodes());
      for (const auto& r : w.requests) {
        const auto k = static_cast<std::uint16_t>(requests.kinds.size());
        const int model = sc.model_index(r.model);
        const bool served = sc.devices_hosting(r.model) > 0;
        requests.kinds.push_back({static_cast<std::uint32_t>(model), served, &r});
        if (served) {
          tn.p_served += r.offload_fraction;
          for (int rep = 0; rep < r.per_event; ++rep)
            tn.steps.push_back({k, static_cast<std::uint32_t>(model)});
        } else {
          tn.p_unserved += r.offload_fraction;
          tn.fallback_per_event += static_cast<std::uint64_t>(r.per_event);
        }
      }
      // Triton's priority: the level this workload's requests wait at, per model.
      tn.level.assign(sc.models.size(), 0);
      for (std::size_t mi = 0; mi < sc.models.size(); ++mi)
        if (const auto& db = sc.models[mi].dynamic_batching; db && db->priority_levels > 0)
          tn.level[mi] = static_cast<std::uint32_t>(db->level_of(w.priority) - 1);
    }
  }

  Tenant& tenant_of(std::uint32_t thread) { return tenants[threads[thread].tenant]; }
  const Tenant& tenant_of(std::uint32_t thread) const { return tenants[threads[thread].tenant]; }
  RunMetrics::Workload& tally_of(std::uint32_t thread) { return *tenant_of(thread).tally; }
  Tenant& tenant_of_job(std::uint32_t job) {
    std::size_t i = tenants.size() - 1;
    while (tenants[i].job_base > job) --i;
    return tenants[i];
  }
  std::uint32_t first_thread_of_job(std::uint32_t job) {
    const Tenant& tn = tenant_of_job(job);
    return tn.thread_base + (job - tn.job_base) * tn.threads_per_job;
  }
  // Async: slot k of thread t.
  std::size_t slot_index(std::uint32_t t, std::uint32_t k) const {
    const Tenant& tn = tenant_of(t);
    return tn.slot_base + static_cast<std::size_t>(t - tn.thread_base) * tn.slots_per_thread + k;
  }
  Slot& slot_of(std::uint32_t t, std::uint32_t k) { return slots[slot_index(t, k)]; }
  const Slot& slot_of(std::uint32_t t, std::uint32_t k) const { return slots[slot_index(t, k)]; }
  const scenario::ClientPolicy& policy_of(std::uint32_t thread) const {
    return tenant_of(thread).w->client;
  }
  const scenario::ClientPolicy& client_of(const Request& rq) const {
    return tenant_of(rq.thread).w->client;
  }
  bool flows(std::uint32_t job) { return tenant_of_job(job).flow; }

  void start_threads() {
    const auto n = static_cast<std::size_t>(sc.total_threads());
    threads.resize(n);
    std::size_t n_slots = 0;
    for (const Tenant& tn : tenants)
      if (tn.async) n_slots += static_cast<std::size_t>(tn.w->n_threads()) * tn.slots_per_thread;
    if (n_slots > 0) {
      slots.resize(n_slots);
      cpus.resize(n);
    }
    for (const Tenant& tn : tenants)
      if (tn.flow) start_jobs(tn);
    for (std::uint32_t i = 0; i < tenants.size(); ++i) {
      const Tenant& tn = tenants[i];
      const auto& w = *tn.w;
      // Jobs do not start in lock-step: each thread's first event starts at a uniformly random
      // offset within one mean event time, so the closed loop begins in its steady state.
      const double spread = w.cpu_time_per_event.expected();
      const auto tpj = tn.threads_per_job;
      const auto jpn = static_cast<std::uint32_t>(w.jobs_per_node);
      for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(w.n_threads()); ++k) {
        const std::uint32_t t = tn.thread_base + k;
        Thread& th = threads[t];
        th.rng.reseed(derive_seed(sc.seed, kThreadStream, t));
        th.tenant = i;
        th.job = tn.job_base + k / tpj;
        th.node = tn.node_base + (k / tpj) / jpn;
        const double at = (tn.flow ? jobs[th.job].start : 0.0) + spread * th.rng.uniform01();
        if (at <= end) queue.push(at, EventKind::EventStart, t);
      }
    }
  }

  void start_jobs(const Tenant& tn) {
    const auto& f = *tn.w->flow;
    const std::int64_t n = tn.w->jobs;
    jobs.resize(static_cast<std::size_t>(sc.total_jobs()));
    for (std::int64_t k = 0; k < n; ++k) {
      const std::uint64_t j = tn.job_base + static_cast<std::uint64_t>(k);
      Rng rng(derive_seed(sc.seed, kJobStream, j));
      Job& job = jobs[j];
      job.start = f.start_of(k, n);
      job.events_left = std::max<std::int64_t>(1, std::llround(f.events_per_job.sample(rng)));
      job.busy_slots = tn.threads_per_job * tn.slots_per_thread;
    }
    if (!metrics.jobs) metrics.jobs.emplace();
    metrics.jobs->total += static_cast<std::uint64_t>(n);
  }

  // Job flow: whether thread t's slot begins another event; if not, the slot retires, and the
  // job exits with its last slot.
  bool take_event(std::uint32_t t) {
    Job& job = jobs[threads[t].job];
    auto& mj = *metrics.jobs;
    if (!job.started) {
      job.started = true;
      ++mj.started;
      mj.peak_running = std::max(mj.peak_running, ++running_jobs);
    }
    if (job.events_left > 0) {
      --job.events_left;
      return true;
    }
    if (--job.busy_slots == 0) {
      ++mj.finished;
      --running_jobs;
      mj.wall_time.add(now - job.start);
      mj.last_exit = now;
    }
    return false;
  }

  void start_arrivals() {
    const auto& a = *sc.workload().arrivals;
    threads.resize(1);
    threads[0].rng.reseed(derive_seed(sc.seed, kThreadStream, 0));
    arrival_rng.reseed(derive_seed(sc.seed, kArrivalStream, 0));
    poisson = a.distribution == scenario::Arrivals::Distribution::Poisson;
    arrival_interval = 1.0 / a.rate;
    max_in_flight = static_cast<std::uint64_t>(a.max_in_flight);
    metrics.open_loop.emplace();
    // perf_analyzer's constant schedule sends its first request at once; a Poisson stream's
    // first arrival is as random as the others.
    const double first = poisson ? arrival_rng.exponential(arrival_interval) : 0.0;
    if (first <= end) queue.push(first, EventKind::Arrival, 0);
  }

  // ---- preemption -----------------------------------------------------------------------
  // Job j's start (0 outside a job flow), and whether it is running or waiting for its start.
  double job_start(std::uint32_t j) { return flows(j) ? jobs[j].start : 0.0; }
  bool job_active(std::uint32_t j) {
    return !flows(j) || (jobs[j].started && jobs[j].busy_slots > 0);
  }
  bool job_waiting(std::uint32_t j) { return flows(j) && !jobs[j].started; }
  // Job j is preempted: its events in progress are lost with their requests, and its threads
  // start again `restart_after` later, redoing them. Returns how many events it lost.
  std::uint64_t lose_job(std::uint32_t j, double restart_after) {
    const Tenant& tn = tenant_of_job(j);
    const std::uint32_t first = first_thread_of_job(j), last = first + tn.threads_per_job;
    std::uint64_t lost = 0;
    for (std::uint32_t t = first; t < last; ++t) {
      Thread& th = threads[t];
      th.epoch = (th.epoch + 1) & EventQueue::kStampMask;  // its CPU work is stale
      if (!tn.async) {
        if (th.in_event) {
          ++lost;
          if (th.cpu_phase) drop_fallbacks(tn);
        }
        th.in_event = th.cpu_phase = false;
        continue;
      }
      for (std::uint32_t k = 0; k < tn.slots_per_thread; ++k) {
        Slot& s = slot_of(t, k);
        if (!s.in_event) continue;
        ++lost;
        drop_fallbacks(tn);
        s.in_event = false;
      }
      cpus[t].ready.clear();
      cpus[t].busy = false;
    }
    for (std::uint32_t r = 0; r < requests.size(); ++r) {
      const Request& rq = requests[r];
      if (rq.live && !rq.orphan && threads[rq.thread].job == j) drop_request(r);
    }
    if (tn.flow) {
      jobs[j].events_left += static_cast<std::int64_t>(lost);
      jobs[j].busy_slots = tn.threads_per_job * tn.slots_per_thread;
    }
    for (std::uint32_t t = first; t < last; ++t)
      if (now + restart_after <= end)
        queue.push(now + restart_after, EventKind::EventStart, t, threads[t].epoch);
    return lost;
  }

  // The unserved models' CPU inference of an event lost to preemption.
  void drop_fallbacks(const Tenant& tn) {
    live_fallbacks -= tn.fallback_per_event;
    accounting.requests_preempted(*tn.tally, tn.fallback_per_event);
  }

  void drop_request(std::uint32_t r) {
    if (auto* tr = traced(r)) {
      tr->back = now;
      tr->failed = true;
    }
    --requests.live;
    accounting.requests_preempted(tally_of(requests[r].thread), 1);
    // A try on its way goes on without a client; one waiting to retry or computing locally
    // just ends (its timers are stale with it).
    if (requests[r].out)
      abandon(r);
    else
      requests.release(r);
  }

  // ---- open loop ------------------------------------------------------------------------
  void on_arrival() {
    // The k-th constant arrival is at k x interval, not a running sum: no drift over long runs.
    const double next = poisson ? now + arrival_rng.exponential(arrival_interval)
                                : static_cast<double>(++arrival_count) * arrival_interval;
    if (next <= end) queue.push(next, EventKind::Arrival, 0);

    const bool measured = counts(now);
    RunMetrics::OpenLoop& ol = *metrics.open_loop;
    const Tenant& tn = tenants[0];
    const auto& steps = tn.steps;
    if (measured) ++ol.arrivals;
    if (requests.live + steps.size() > max_in_flight) {
      if (measured) ++ol.dropped;
      return;
    }
    if (measured) {
      ol.requests_sent += steps.size() + tn.fallback_per_event;
      // Unserved models fall back to the client's CPU, which the open loop does not model: their
      // requests finish on arrival.
      accounting.issued(*tn.tally, tn.fallback_per_event);
      accounting.fallbacks_done(*tn.tally, tn.fallback_per_event);
    }
    if (steps.empty()) return complete_event(*tn.tally, now);
    std::uint32_t a;
    if (!free_arrivals.empty()) {
      a = free_arrivals.back();
      free_arrivals.pop_back();
    } else {
      a = static_cast<std::uint32_t>(arrivals.size());
      arrivals.emplace_back();
    }
    arrivals[a] = {now, static_cast<std::uint32_t>(steps.size())};
    for (const Step& st : steps) issue_request(0, a, st);
    if (measured) ol.peak_in_flight = std::max(ol.peak_in_flight, requests.live);
  }

  // ---- client threads -------------------------------------------------------------------
  void start_event(std::uint32_t t, std::uint32_t slot) {
    const Tenant& tn = tenant_of(t);
    if (tn.flow && !take_event(t)) return;
    Thread& th = threads[t];
    const double t_cpu = tn.w->cpu_time_per_event.sample(th.rng);
    // Fallback requests are issued and served on the CPU.
    accounting.issued(*tn.tally, tn.fallback_per_event);
    live_fallbacks += tn.fallback_per_event;
    if (!tn.async) {
      th.event_start = now;
      th.t_cpu = t_cpu;
      th.step = 0;
      th.in_event = th.cpu_phase = true;
      queue.push(now + (1.0 - tn.p_served) * t_cpu, EventKind::CpuDone, t, th.epoch);
      return;
    }
    Slot& s = slot_of(t, slot);
    s.event_start = now;
    s.t_cpu = t_cpu;
    s.independent_done = false;
    s.in_event = true;
    s.pending = static_cast<std::uint32_t>(tn.steps.size());
    for (const Step& st : tn.steps) issue_request(t, slot, st);
    push_piece(t, {slot, PieceKind::Independent,
                   tn.indep_fraction * (1.0 - tn.p_served - tn.p_unserved) * t_cpu});
  }

  // The CPU fallback of unserved models ends with the event's CPU work: count those requests.
  void finish_fallbacks(const Tenant& tn) {
    live_fallbacks -= tn.fallback_per_event;
    accounting.fallbacks_done(*tn.tally, tn.fallback_per_event);
  }

  void complete_event(RunMetrics::Workload& tally, double started) {
    sampling.event_completed(static_cast<std::size_t>(&tally - metrics.workloads.data()));
    accounting.event_completed(tally, started);
  }

  void on_cpu_done(std::uint32_t t) {
    const Tenant& tn = tenant_of(t);
    if (tn.async) return on_piece_done(t);
    threads[t].cpu_phase = false;
    finish_fallbacks(tn);
    next_step(t);
  }

  // Sync: after the CPU work, the event's requests go out one after another.
  void next_step(std::uint32_t t) {
    Thread& th = threads[t];
    const Tenant& tn = tenant_of(t);
    if (th.step < tn.steps.size()) {
      // The step moves on first: a request that ends at once (a refused connection) comes
      // straight back here for the next one.
      ++th.step;
      issue_request(t, 0, tn.steps[th.step - 1]);
      return;
    }
    th.in_event = false;
    complete_event(*tn.tally, th.event_start);
    start_event(t, 0);
  }

  void push_piece(std::uint32_t t, Piece p) {
    AsyncCpu& cpu = cpus[t];
    if (cpu.busy) {
      cpu.ready.push_back(p);
      return;
    }
    cpu.busy = true;
    cpu.running = p;
    queue.push(now + p.seconds, EventKind::CpuDone, t, threads[t].epoch);
  }

  void on_piece_done(std::uint32_t t) {
    AsyncCpu& cpu = cpus[t];
    const Piece done = cpu.running;
    // The CPU counts as busy while the finished piece's consequences are queued, so that new
    // pieces go behind those already waiting (first come, first served; no starvation).
    Slot& s = slot_of(t, done.slot);
    switch (done.kind) {
      case PieceKind::Independent:
        s.independent_done = true;
        if (s.pending == 0) queue_dependent(t, done.slot);
        break;
      case PieceKind::Dependent:
        s.in_event = false;
        finish_fallbacks(tenant_of(t));
        complete_event(tally_of(t), s.event_start);
        start_event(t, done.slot);
        break;
      case PieceKind::Fallback:
        on_fallback_done(done.request, requests[done.request].gen);
        break;
    }
    if (cpu.ready.empty()) {
      cpu.busy = false;
      return;
    }
    cpu.running = cpu.ready.front();
    cpu.ready.pop_front();
    queue.push(now + cpu.running.seconds, EventKind::CpuDone, t, threads[t].epoch);
  }

  void queue_dependent(std::uint32_t t, std::uint32_t slot) {
    const Slot& s = slot_of(t, slot);
    const Tenant& tn = tenant_of(t);
    const double work = (1.0 - tn.indep_fraction) * (1.0 - tn.p_served - tn.p_unserved) * s.t_cpu +
                        tn.p_unserved * s.t_cpu;
    push_piece(t, {slot, PieceKind::Dependent, work});
  }

  void issue_request(std::uint32_t t, std::uint32_t slot, const Step& st) {
    const std::uint32_t r = requests.add();
    ++requests.live;
    Request& rq = requests[r];
    rq.first_sent = now;
    rq.thread = t;
    rq.slot = slot;
    rq.kind = st.kind;
    rq.tries = 0;
    rq.orphan = false;
    rq.live = true;
    rq.routed = false;
    rq.items = round_items(requests.kinds[st.kind].spec->items.sample(threads[t].rng));
    rq.trace = sampling.trace(st.model, t, rq.items);
    accounting.issued(tally_of(t), 1);
    path.send_try(r);
  }

  // A try is back at the client: done, or failed (then retried, computed locally, or failed).
  void request_back(std::uint32_t r) {
    Request& rq = requests[r];
    if (rq.orphan) {  // its client gave up on it: nobody waits for this answer
      --orphans;
      return requests.release(r);
    }
    rq.out = false;
    if (rq.failed) return try_failed(r);
    finish_request(r, Outcome::Completed);
  }

  void try_failed(std::uint32_t r) {
    Request& rq = requests[r];
    accounting.try_failed(rq.why, requests.kinds[rq.kind].model);
    const auto& client = client_of(rq);
    if (rq.tries < client.allowed_tries) {
      if (client.retry_delay <= 0.0) return path.send_try(r);
      queue.push(now + client.retry_delay, EventKind::Retry, r, rq.gen);
      return;
    }
    give_up(r);
  }

  // The client policy's last resort: the request's share of the event on the client's CPU, or
  // a failure.
  void give_up(std::uint32_t r) {
    if (client_of(requests[r]).fallback == scenario::ClientPolicy::Fallback::Cpu)
      return start_fallback(r);
    finish_request(r, Outcome::Failed);
  }

  // The client gives up on a try that is still out; the try goes on as an orphan (its bytes
  // still move, the server still works on it) and the request continues in a new record.
  void on_client_timeout(std::uint32_t r, std::uint32_t gen) {
    if (requests[r].gen != gen || !requests[r].out || requests[r].orphan) return;
    const std::uint32_t r2 = requests.add();
    requests[r2] = requests[r];
    abandon(r);
    Request& rq = requests[r2];
    rq.out = false;
    rq.failed = true;
    rq.why = Rejection::ClientTimeout;
    try_failed(r2);
  }

  void abandon(std::uint32_t r) {
    requests[r].orphan = true;
    requests[r].trace = kUntraced;
    ++orphans;
    accounting.try_abandoned();
  }

  // Local inference on the job's CPU: this request's share of the event's CPU time, blocking
  // the thread (an async thread's CPU runs it as one more piece, in turn).
  void start_fallback(std::uint32_t r) {
    const Request& rq = requests[r];
    const double seconds = fallback_seconds(r);
    if (!tenant_of(rq.thread).async) {
      queue.push(now + seconds, EventKind::FallbackDone, r, rq.gen);
      return;
    }
    push_piece(rq.thread, {rq.slot, PieceKind::Fallback, seconds, r});
  }

  // p_i x t_CPU of the request's event, split evenly over its kind's per_event requests.
  double fallback_seconds(std::uint32_t r) const {
    const Request& rq = requests[r];
    const auto& spec = *requests.kinds[rq.kind].spec;
    const double t_cpu =
        tenant_of(rq.thread).async ? slot_of(rq.thread, rq.slot).t_cpu : threads[rq.thread].t_cpu;
    return spec.offload_fraction / spec.per_event * t_cpu;
  }

  void on_fallback_done(std::uint32_t r, std::uint32_t gen) {
    if (requests[r].gen != gen || requests[r].orphan) return;
    finish_request(r, Outcome::Fallback);
  }

  // The request's last word: counted (after the warm-up) and its client goes on.
  void finish_request(std::uint32_t r, Outcome outcome) {
    Request& rq = requests[r];
    const std::uint32_t model = requests.kinds[rq.kind].model;
    const double latency = now - rq.first_sent;
    if (outcome == Outcome::Completed)
      sampling.request_completed(model, threads[rq.thread].tenant, latency);
    if (auto* tr = traced(r)) {
      tr->back = now;
      tr->failed = outcome != Outcome::Completed;
    }
    --requests.live;
    auto& tally = tally_of(rq.thread);
    accounting.request_finished(tally, model, outcome, latency, rq.tries > 1,
                                outcome == Outcome::Fallback ? fallback_seconds(r) : 0.0);
    const std::uint32_t t = rq.thread, slot = rq.slot;
    requests.release(r);
    if (open) {
      Arrival& a = arrivals[slot];
      if (--a.pending == 0) {
        complete_event(tally, a.start);
        free_arrivals.push_back(slot);
      }
      return;
    }
    if (!tenant_of(t).async) return next_step(t);
    Slot& s = slot_of(t, slot);
    if (--s.pending == 0 && s.independent_done) queue_dependent(t, slot);
  }

  // ---- dispatch -------------------------------------------------------------------------
  void handle(const Event& e) {
    now = e.time;
    switch (e.kind) {
      case EventKind::EventStart:
        if (e.stamp != threads[e.id].epoch) break;  // its job was preempted since
        if (preemption.on()) preemption.job_thread_starts(threads[e.id].job);
        start_event(e.id, 0);
        for (std::uint32_t s = 1; s < tenant_of(e.id).slots_per_thread; ++s) start_event(e.id, s);
        break;
      case EventKind::CpuDone:
        if (e.stamp != threads[e.id].epoch) break;  // its job was preempted since
        on_cpu_done(e.id);
        break;
      case EventKind::TransferDone:
        if (requests[e.id].dir != Direction::ToServer)
          request_back(e.id);
        else
          path.delivered(e.id);
        break;
      case EventKind::BalancerDone:
        path.on_balancer_done(e.id, static_cast<int>(e.stamp));
        break;
      case EventKind::BatcherWake:
        servers.on_batcher_wake(e.id);
        break;
      case EventKind::ExecutionDone:
        servers.on_execution_done(e.id, e.stamp);
        break;
      case EventKind::Arrival:
        on_arrival();
        break;
      case EventKind::Sample:
        sampling.on_sample();
        break;
      case EventKind::Operation:
        operations.on_operation(e.id, e.stamp);
        break;
      case EventKind::ClientTimeout:
        on_client_timeout(e.id, e.stamp);
        break;
      case EventKind::Retry:
        if (requests[e.id].gen == e.stamp && !requests[e.id].out && !requests[e.id].orphan)
          path.send_try(e.id);
        break;
      case EventKind::FallbackDone:
        on_fallback_done(e.id, e.stamp);
        break;
      case EventKind::Preemption:
        preemption.on_preemption(e.id, e.stamp);
        break;
    }
  }

  void process_through(double until) {
    limit = std::min(until, end);
    while (!queue.empty() && queue.top_time() <= limit) handle(queue.pop());
  }

  RunMetrics finish() {
    now = end;
    accounting.finish(requests.live + live_fallbacks);
    path.finish();
    operations.finish();
    servers.finish();
    network.finish();
    return std::move(metrics);
  }
};

}  // namespace sonicsim::engine
