#include "clients.hpp"

#include <algorithm>
#include <cmath>

#include "accounting.hpp"
#include "request_path.hpp"
#include "sampling.hpp"
#include "sites.hpp"

namespace sonicsim::engine {

void Clients::build() {
  const auto& sc = ctx_.sc;
  open_ = sc.workload().open_loop();  // the loader keeps an open loop alone
  by_site_ = !sc.sites.empty();
  tenants_.resize(sc.workloads.size());
  std::uint32_t thread_base = 0, job_base = 0, slot_base = 0, node_base = 0;
  for (std::size_t i = 0; i < sc.workloads.size(); ++i) {
    const auto& w = sc.workloads[i];
    Tenant& tn = tenants_[i];
    tn.w = &w;
    tn.cpu_time = scenario::PreparedDistribution(w.cpu_time_per_event);
    tn.tally = parts_.accounting.workload(i);
    tn.async = w.mode == scenario::Mode::Async;
    tn.flow = w.flow.has_value();
    tn.indep_fraction = w.async.independent_work_fraction;
    tn.slots_per_thread = tn.async ? static_cast<std::uint32_t>(w.async.events_in_flight) : 1;
    tn.threads_per_job = static_cast<std::uint32_t>(w.threads_per_job);
    tn.jobs_per_node = static_cast<std::uint32_t>(w.jobs_per_node);
    tn.thread_base = thread_base;
    tn.job_base = job_base;
    tn.slot_base = slot_base;
    tn.node_base = node_base;
    const auto n_threads = static_cast<std::uint32_t>(w.n_threads());
    thread_base += n_threads;
    job_base += static_cast<std::uint32_t>(w.jobs);
    if (tn.async) slot_base += n_threads * tn.slots_per_thread;
    node_base += static_cast<std::uint32_t>(w.n_nodes());
    tn.kind_base = static_cast<std::uint32_t>(ctx_.requests.kinds.size());
    tn.n_kinds = static_cast<std::uint32_t>(w.requests.size());
    for (const auto& r : w.requests) {
      const auto k = static_cast<std::uint16_t>(ctx_.requests.kinds.size());
      if (!w.open_loop())
        ctx_.metrics.modules.push_back(
            {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(k - tn.kind_base), {}});
      const int model = sc.model_index(r.model);
      const bool served = sc.devices_hosting(r.model, i) > 0;
      ctx_.requests.kinds.push_back(
          {static_cast<std::uint32_t>(model), served, &r, scenario::PreparedDistribution(r.items)});
      if (served) {
        tn.several_per_event = tn.several_per_event || (r.per_event > 1 && !w.open_loop());
        tn.p_served += r.offload_fraction;
        for (int rep = 0; rep < r.per_event; ++rep)
          tn.steps.push_back({k, static_cast<std::uint32_t>(model)});
      } else {
        tn.p_unserved += r.offload_fraction;
        tn.fallback_per_event += static_cast<std::uint64_t>(r.per_event);
      }
    }
    tn.on_nodes = w.node.has_value() && !w.open_loop();
    // Triton's priority: the level this workload's requests wait at, per model.
    tn.level.assign(sc.models.size(), 0);
    for (std::size_t mi = 0; mi < sc.models.size(); ++mi)
      if (const auto& db = sc.models[mi].dynamic_batching; db && db->priority_levels > 0)
        tn.level[mi] = static_cast<std::uint32_t>(db->level_of(w.priority) - 1);
  }
  build_nodes();
}

void Clients::build_nodes() {
  std::vector<WorkerNodes::Group> groups;
  std::uint32_t nodes = 0;
  for (const Tenant& tn : tenants_) {
    const auto count = static_cast<std::uint32_t>(tn.w->n_nodes());
    nodes = std::max(nodes, tn.node_base + count);
    if (tn.on_nodes)
      groups.push_back({&*tn.w->node, tn.node_base, count, tn.jobs_per_node * tn.threads_per_job});
  }
  nodes_.build(nodes, groups);
}

void Clients::run_on_node(std::uint32_t t, double seconds) {
  nodes_.start(node_of(t), {WorkerNodes::WorkKind::ThreadCpu, t, t, threads_[t].epoch}, seconds);
}

void Clients::on_node_done(std::uint32_t node, std::uint32_t stamp) {
  const auto& due = nodes_.due(node, stamp);
  for (std::size_t i = 0; i < due.size(); ++i) {
    const WorkerNodes::Work w = due[i];
    if (w.kind == WorkerNodes::WorkKind::Fallback)
      on_fallback_done(w.id, w.stamp);
    else if (current(w.id, w.stamp))
      on_cpu_done(w.id);
  }
  if (!due.empty()) nodes_.replan(node);
}

// Each node workload's figures: its nodes' integrals, and the CPU-only baseline on the same
// nodes (every thread busy all the time, each node at the speed of its own thread count).
void Clients::finish_nodes() {
  if (!nodes_.on()) return;
  nodes_.finish();
  std::size_t group = 0;
  for (std::size_t i = 0; i < tenants_.size(); ++i) {
    const Tenant& tn = tenants_[i];
    if (!tn.on_nodes) continue;
    const scenario::Workload& w = *tn.w;
    const auto& totals = nodes_.totals(group++);
    RunMetrics::Workload::Nodes n;
    n.count = static_cast<std::uint64_t>(w.n_nodes());
    n.hardware_threads = w.node->hardware_threads();
    n.busy_seconds = totals.busy_seconds;
    n.work_seconds = totals.work_seconds;
    const double t_cpu = w.cpu_time_per_event.expected();
    for (std::int64_t first = 0; first < w.jobs; first += w.jobs_per_node) {
      const auto threads = static_cast<double>(
          std::min<std::int64_t>(w.jobs_per_node, w.jobs - first) * w.threads_per_job);
      const double factor = w.node->speed_factor(threads);
      n.cpu_only_events_per_s += threads * factor / t_cpu;
      if (first == 0) n.cpu_only_speed_factor = factor;
    }
    auto& mw = ctx_.metrics.workloads[i];
    mw.cpu_busy_seconds = n.busy_seconds;
    mw.nodes = n;
  }
}

void Clients::start() {
  if (open_)
    start_arrivals();
  else
    start_threads();
}

const Clients::Tenant& Clients::tenant_of_job(std::uint32_t job) const {
  std::size_t i = tenants_.size() - 1;
  while (tenants_[i].job_base > job) --i;
  return tenants_[i];
}

std::uint32_t Clients::first_thread_of_job(std::uint32_t job) const {
  const Tenant& tn = tenant_of_job(job);
  return tn.thread_base + (job - tn.job_base) * tn.threads_per_job;
}

Time Clients::pattern_start(std::uint32_t job) const {
  const Tenant& tn = tenant_of_job(job);
  const scenario::StartPattern& st = tn.w->start;
  switch (st.kind) {
    case scenario::StartPattern::Kind::Spread:
    case scenario::StartPattern::Kind::Together:
      break;
    case scenario::StartPattern::Kind::Staggered:
      return Time::from_seconds(static_cast<double>(job - tn.job_base) * st.interval);
    case scenario::StartPattern::Kind::Random: {
      // A stream of the job's own: drawn from its threads' streams, it would move every later
      // draw of theirs, and the patterns could not be compared event for event.
      Rng rng(derive_seed(ctx_.sc.seed, kStartStream, job));
      return Time::from_seconds(st.window * rng.uniform01());
    }
  }
  return Time::zero();
}

void Clients::start_threads() {
  const auto n = static_cast<std::size_t>(ctx_.sc.total_threads());
  threads_.resize(n);
  std::size_t n_slots = 0;
  for (const Tenant& tn : tenants_)
    if (tn.async) n_slots += static_cast<std::size_t>(tn.w->n_threads()) * tn.slots_per_thread;
  if (n_slots > 0) {
    slots_.resize(n_slots);
    cpus_.resize(n);
  }
  // Only kinds of several requests per event need these (one request: its own send is the wait's
  // start), so the common case keeps no record per thread.
  for (Tenant& tn : tenants_) {
    if (!tn.several_per_event) continue;
    several_per_event_ = true;
    if (!tn.async) {
      run_start_.resize(n);
      continue;
    }
    tn.pending_base = kind_pending_.size();
    kind_pending_.resize(tn.pending_base + static_cast<std::size_t>(tn.w->n_threads()) *
                                               tn.slots_per_thread * tn.n_kinds);
  }
  for (const Tenant& tn : tenants_)
    if (tn.flow) start_jobs(tn);
  for (std::uint32_t i = 0; i < tenants_.size(); ++i) {
    const Tenant& tn = tenants_[i];
    const auto& w = *tn.w;
    // By default jobs do not start in lock-step: each thread's first event starts at a uniformly
    // random offset within one mean event time, so the closed loop begins in its steady state.
    // The offset is drawn under every pattern, so that a thread's later draws do not depend on it.
    const double spread = w.cpu_time_per_event.expected();
    const bool own_offset = tn.flow || w.start.kind == scenario::StartPattern::Kind::Spread;
    for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(w.n_threads()); ++k) {
      const std::uint32_t t = tn.thread_base + k;
      Thread& th = threads_[t];
      th.rng.reseed(derive_seed(ctx_.sc.seed, kThreadStream, t));
      const double offset = spread * th.rng.uniform01();
      const Time at = (tn.flow ? jobs_[job_of(t)].start : pattern_start(job_of(t))) +
                      (own_offset ? offset : 0.0);
      if (at <= ctx_.end) ctx_.queue.push(at, EventKind::EventStart, t);
    }
  }
}

void Clients::start_jobs(const Tenant& tn) {
  const auto& f = *tn.w->flow;
  const std::int64_t n = tn.w->jobs;
  jobs_.resize(static_cast<std::size_t>(ctx_.sc.total_jobs()));
  for (std::int64_t k = 0; k < n; ++k) {
    const std::uint64_t j = tn.job_base + static_cast<std::uint64_t>(k);
    Rng rng(derive_seed(ctx_.sc.seed, kJobStream, j));
    Job& job = jobs_[j];
    job.start = Time::from_seconds(f.start_of(k, n));
    if (f.start == scenario::JobFlow::Start::Running) {
      // The profile ends the job, not a budget: one it can never spend.
      job.end = Time::from_seconds(f.end_times[static_cast<std::size_t>(k)]);
      job.events_left = std::numeric_limits<std::int64_t>::max() / 2;
    } else {
      job.events_left = std::max<std::int64_t>(1, std::llround(f.events_per_job.sample(rng)));
    }
    job.busy_slots = tn.threads_per_job * tn.slots_per_thread;
  }
  if (!ctx_.metrics.jobs) ctx_.metrics.jobs.emplace(RunMetrics::Jobs{});
  ctx_.metrics.jobs->total += static_cast<std::uint64_t>(n);
  auto& own = ctx_.metrics.workloads[static_cast<std::size_t>(&tn - tenants_.data())].jobs;
  own.emplace(RunMetrics::Jobs{});
  own->total = static_cast<std::uint64_t>(n);
}

// Job flow: whether thread t's slot begins another event; if not, the slot retires, and the
// job exits with its last slot.
bool Clients::take_event(std::uint32_t t) {
  Job& job = jobs_[job_of(t)];
  Tenant& tn = tenant_of(t);
  auto& mj = *ctx_.metrics.jobs;
  auto& own = *ctx_.metrics.workloads[tenant_index(t)].jobs;
  if (!job.started) {
    job.started = true;
    ++mj.started;
    ++own.started;
    integrate_running(tn);
    mj.peak_running = std::max(mj.peak_running, ++running_jobs_);
    own.peak_running = std::max(own.peak_running, ++tn.running_jobs);
  }
  if (job.events_left > 0 && ctx_.now < job.end) {
    --job.events_left;
    return true;
  }
  if (--job.busy_slots == 0) {
    integrate_running(tn);
    --running_jobs_;
    --tn.running_jobs;
    for (auto* j : {&mj, &own}) {
      ++j->finished;
      j->wall_time.add(ctx_.now - job.start);
      j->last_exit = ctx_.now.seconds();
    }
  }
  return false;
}

void Clients::integrate_running(Tenant& tn) {
  const Time from = std::max(tn.running_since, ctx_.warmup), to = std::min(ctx_.now, ctx_.end);
  if (to > from) tn.running_job_seconds += static_cast<double>(tn.running_jobs) * (to - from);
  tn.running_since = ctx_.now;
}

void Clients::finish() {
  finish_nodes();
  if (!ctx_.metrics.jobs) return;
  const double span = ctx_.end - ctx_.warmup;
  auto& mj = *ctx_.metrics.jobs;
  for (std::size_t i = 0; i < tenants_.size(); ++i) {
    Tenant& tn = tenants_[i];
    if (!tn.flow) continue;
    integrate_running(tn);
    auto& own = *ctx_.metrics.workloads[i].jobs;
    own.mean_running = span > 0.0 ? tn.running_job_seconds / span : 0.0;
    own.mean_running_threads = own.mean_running * tn.threads_per_job;
    mj.mean_running += own.mean_running;
    mj.mean_running_threads += own.mean_running_threads;
  }
}

void Clients::start_arrivals() {
  const auto& a = *ctx_.sc.workload().arrivals;
  threads_.resize(1);
  threads_[0].rng.reseed(derive_seed(ctx_.sc.seed, kThreadStream, 0));
  arrival_rng_.reseed(derive_seed(ctx_.sc.seed, kArrivalStream, 0));
  poisson_ = a.distribution == scenario::Arrivals::Distribution::Poisson;
  arrival_interval_ = 1.0 / a.rate;
  max_in_flight_ = static_cast<std::uint64_t>(a.max_in_flight);
  ctx_.metrics.open_loop.emplace(RunMetrics::OpenLoop{});
  // perf_analyzer's constant schedule sends its first request at once; a Poisson stream's
  // first arrival is as random as the others.
  const Time first =
      Time::from_seconds(poisson_ ? arrival_rng_.exponential(arrival_interval_) : 0.0);
  if (first <= ctx_.end) ctx_.queue.push(first, EventKind::Arrival, 0);
}

std::uint64_t Clients::lose_job(std::uint32_t j, double restart_after) {
  const Tenant& tn = tenant_of_job(j);
  const std::uint32_t first = first_thread_of_job(j), last = first + tn.threads_per_job;
  std::uint64_t lost = 0;
  for (std::uint32_t t = first; t < last; ++t) {
    Thread& th = threads_[t];
    th.epoch = (th.epoch + 1) & EventQueue::kStampMask;  // its CPU work is stale
    if (tn.on_nodes) nodes_.cancel(node_of(t), t);       // and its hardware thread free
    if (!tn.async) {
      if (th.in_event) {
        ++lost;
        if (th.cpu_phase) {
          drop_fallbacks(t);
          if (!tn.on_nodes)  // on nodes, busy time is the nodes' own integral
            parts_.accounting.cpu_cancelled(tenant_index(t),
                                            th.event_start + (1.0 - tn.p_served) * th.t_cpu);
        }
      }
      th.in_event = th.cpu_phase = false;
      continue;
    }
    for (std::uint32_t k = 0; k < tn.slots_per_thread; ++k) {
      Slot& s = slot_of(t, k);
      if (!s.in_event) continue;
      ++lost;
      drop_fallbacks(t);
      s.in_event = false;
    }
    if (cpus_[t].busy && !tn.on_nodes)
      parts_.accounting.cpu_cancelled(tenant_index(t), cpus_[t].until);
    cpus_[t].ready.clear();
    cpus_[t].busy = false;
  }
  for (std::uint32_t r = 0; r < ctx_.requests.size(); ++r) {
    const Request& rq = ctx_.requests[r];
    if (rq.live && !rq.orphan && job_of(rq.thread) == j) drop_request(r);
  }
  if (tn.flow) {
    jobs_[j].events_left += static_cast<std::int64_t>(lost);
    jobs_[j].busy_slots = tn.threads_per_job * tn.slots_per_thread;
  }
  for (std::uint32_t t = first; t < last; ++t)
    if (ctx_.now + restart_after <= ctx_.end)
      ctx_.queue.push(ctx_.now + restart_after, EventKind::EventStart, t, threads_[t].epoch);
  return lost;
}

// ---- the open loop ----------------------------------------------------------------------

void Clients::on_arrival() {
  // The k-th constant arrival is at k x interval, not a running sum: no drift over long runs.
  const Time next =
      poisson_ ? ctx_.now + arrival_rng_.exponential(arrival_interval_)
               : Time::from_seconds(static_cast<double>(++arrival_count_) * arrival_interval_);
  if (next <= ctx_.end) ctx_.queue.push(next, EventKind::Arrival, 0);

  const bool measured = ctx_.counts(ctx_.now);
  RunMetrics::OpenLoop& ol = *ctx_.metrics.open_loop;
  const Tenant& tn = tenants_[0];
  const auto& steps = tn.steps;
  if (measured) ++ol.arrivals;
  if (ctx_.requests.live + steps.size() > max_in_flight_) {
    if (measured) ++ol.dropped;
    return;
  }
  if (measured) {
    ol.requests_sent += steps.size() + tn.fallback_per_event;
    // Unserved models fall back to the client's CPU, which the open loop does not model: their
    // requests finish on arrival.
    parts_.accounting.issued(tally_of(0), tn.fallback_per_event);
    parts_.accounting.fallbacks_done(tally_of(0), tn.fallback_per_event);
  }
  if (steps.empty()) return complete_event(0, ctx_.now);
  const std::uint32_t a = arrivals_.add();
  arrivals_[a] = {ctx_.now, static_cast<std::uint32_t>(steps.size())};
  for (const Step& st : steps) issue_request(0, a, st);
  if (measured) ol.peak_in_flight = std::max(ol.peak_in_flight, ctx_.requests.live);
}

// ---- events ---------------------------------------------------------------------------------

void Clients::start_events(std::uint32_t t) {
  start_event(t, 0);
  for (std::uint32_t s = 1; s < tenant_of(t).slots_per_thread; ++s) start_event(t, s);
}

void Clients::start_event(std::uint32_t t, std::uint32_t slot) {
  const Tenant& tn = tenant_of(t);
  if (tn.flow && !take_event(t)) return;
  Thread& th = threads_[t];
  const double t_cpu = tn.cpu_time.sample(th.rng);
  // Fallback requests are issued and served on the CPU.
  parts_.accounting.issued(tally_of(t), tn.fallback_per_event);
  live_fallbacks_ += tn.fallback_per_event;
  if (!tn.async) {
    th.event_start = ctx_.now;
    th.t_cpu = t_cpu;
    th.step = 0;
    th.in_event = th.cpu_phase = true;
    if (tn.on_nodes) return run_on_node(t, (1.0 - tn.p_served) * t_cpu);
    parts_.accounting.client_cpu(tenant_index(t), (1.0 - tn.p_served) * t_cpu);
    ctx_.queue.push(ctx_.now + (1.0 - tn.p_served) * t_cpu, EventKind::CpuDone, t, th.epoch);
    return;
  }
  Slot& s = slot_of(t, slot);
  s.event_start = ctx_.now;
  s.t_cpu = t_cpu;
  s.independent_done = false;
  s.in_event = true;
  s.pending = static_cast<std::uint32_t>(tn.steps.size());
  if (tn.several_per_event)  // counts left by an event its job lost
    std::fill_n(kind_pending_.begin() +
                    static_cast<std::ptrdiff_t>(pending_index(tn, t, slot, tn.kind_base)),
                tn.n_kinds, 0u);
  for (const Step& st : tn.steps) issue_request(t, slot, st);
  push_piece(t, {slot, PieceKind::Independent,
                 tn.indep_fraction * (1.0 - tn.p_served - tn.p_unserved) * t_cpu});
}

// The CPU fallback of unserved models ends with the event's CPU work: count those requests.
Tally Clients::site_tally_of(std::uint32_t t) {
  return parts_.accounting.at_site(tenant_index(t), parts_.sites.of_node(node_of(t)));
}

void Clients::finish_fallbacks(std::uint32_t t) {
  const Tenant& tn = tenant_of(t);
  live_fallbacks_ -= tn.fallback_per_event;
  parts_.accounting.fallbacks_done(tally_of(t), tn.fallback_per_event);
}

void Clients::complete_event(std::uint32_t t, Time started) {
  parts_.sampling.event_completed(tenant_index(t));
  parts_.accounting.event_completed(tally_of(t), started);
}

void Clients::on_cpu_done(std::uint32_t t) {
  const Tenant& tn = tenant_of(t);
  if (tn.async) return on_piece_done(t);
  threads_[t].cpu_phase = false;
  finish_fallbacks(t);
  next_step(t);
}

// Sync: after the CPU work, the event's requests go out one after another.
void Clients::next_step(std::uint32_t t) {
  Thread& th = threads_[t];
  const Tenant& tn = tenant_of(t);
  if (th.step < tn.steps.size()) {
    // The step moves on first: a request that ends at once (a refused connection) comes
    // straight back here for the next one.
    ++th.step;
    issue_request(t, 0, tn.steps[th.step - 1]);
    return;
  }
  th.in_event = false;
  complete_event(t, th.event_start);
  start_event(t, 0);
}

void Clients::push_piece(std::uint32_t t, Piece p) {
  AsyncCpu& cpu = cpus_[t];
  if (cpu.busy) {
    cpu.ready.push_back(p);
    return;
  }
  cpu.busy = true;
  run_piece(t, p);
}

void Clients::run_piece(std::uint32_t t, const Piece& p) {
  AsyncCpu& cpu = cpus_[t];
  cpu.running = p;
  if (tenant_of(t).on_nodes) return run_on_node(t, p.seconds);  // its speed decides its end
  cpu.until = ctx_.now + p.seconds;
  parts_.accounting.client_cpu(tenant_index(t), p.seconds);
  ctx_.queue.push(cpu.until, EventKind::CpuDone, t, threads_[t].epoch);
}

void Clients::on_piece_done(std::uint32_t t) {
  AsyncCpu& cpu = cpus_[t];
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
      finish_fallbacks(t);
      complete_event(t, s.event_start);
      start_event(t, done.slot);
      break;
    case PieceKind::Fallback:
      on_fallback_done(done.request, ctx_.requests[done.request].gen);
      break;
  }
  if (cpu.ready.empty()) {
    cpu.busy = false;
    return;
  }
  const Piece next = cpu.ready.front();
  cpu.ready.pop_front();
  run_piece(t, next);
}

void Clients::queue_dependent(std::uint32_t t, std::uint32_t slot) {
  const Slot& s = slot_of(t, slot);
  const Tenant& tn = tenant_of(t);
  const double work = (1.0 - tn.indep_fraction) * (1.0 - tn.p_served - tn.p_unserved) * s.t_cpu +
                      tn.p_unserved * s.t_cpu;
  push_piece(t, {slot, PieceKind::Dependent, work});
}

}  // namespace sonicsim::engine
