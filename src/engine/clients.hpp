// The client side of the site: each workload's jobs and their threads, the events they process
// (sync: CPU work, then the requests one after another; async: several events in flight sharing
// one CPU), the job flow (jobs that start, run a budget of events and exit) and the open loop's
// arrivals. Each workload's client policy (timeouts, retries, the fallback to the CPU) decides
// what happens to a request's tries as they come back.
//
// clients.cpp holds the jobs, threads and events; client_policy.cpp what a client does with a
// request, from issuing it to its last word. A new client policy goes in client_policy.cpp; a
// new way of producing events (a new workload mode) in clients.cpp.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include <sonicsim/util/large_array.hpp>
#include <sonicsim/util/rng.hpp>

#include "accounting.hpp"
#include "context.hpp"
#include "worker_nodes.hpp"

namespace sonicsim::engine {

class Sites;
class RequestPath;
class Sampling;
class Accounting;

class Clients {
 public:
  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    Sites& sites;
    RequestPath& path;
    Sampling& sampling;
    Accounting& accounting;
  };

  Clients(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses), nodes_(ctx) {}

  // First of all parts: the workloads, the request kinds, each workload's share of the metrics.
  void build();
  // After the other parts: the threads' first events (or the open loop's first arrival).
  void start();
  bool open() const { return open_; }

  // What the other parts need to know of a request's client.
  // Both follow from the thread's index: its record stays one cache line (see Thread).
  std::uint32_t job_of(std::uint32_t thread) const {
    const Tenant& tn = tenant_of(thread);
    return tn.job_base + (thread - tn.thread_base) / tn.threads_per_job;
  }
  std::uint32_t node_of(std::uint32_t thread) const {
    const Tenant& tn = tenant_of(thread);
    return tn.node_base + (thread - tn.thread_base) / tn.threads_per_job / tn.jobs_per_node;
  }
  // A draw from thread's own random stream, for what happens to its requests on their way.
  double draw(std::uint32_t thread, const scenario::Distribution& d) {
    return d.sample(threads_[thread].rng);
  }
  // The batcher's priority level (0-based) the thread's requests wait at for `model`.
  std::uint32_t level_of(std::uint32_t thread, std::uint32_t model) const {
    return tenant_of(thread).level[model];
  }
  const scenario::ClientPolicy& policy_of(std::uint32_t thread) const {
    return tenant_of(thread).w->client;
  }
  // The workload the thread belongs to (with sites: its own routing across them).
  const scenario::Workload& workload_of(std::uint32_t thread) const { return *tenant_of(thread).w; }
  // Requests served on the clients' CPUs (no server hosts their model) still in progress.
  std::uint64_t fallbacks_in_flight() const { return live_fallbacks_; }
  // Job flow: whether there is one, and how many of its jobs are running.
  bool job_flow() const { return !jobs_.empty(); }
  std::uint64_t running_jobs() const { return running_jobs_; }
  // Job flow: the time-weighted running jobs and threads of the measured span into the metrics.
  void finish();

  // Jobs, for preemption: job j's start (its flow's, or its workload's `start` pattern's), and
  // whether it is running or waiting for its start: a batch system cannot preempt a job it has
  // not started.
  Time job_start(std::uint32_t j) { return flows(j) ? jobs_[j].start : pattern_start(j); }
  bool job_active(std::uint32_t j) {
    return flows(j) ? jobs_[j].started && jobs_[j].busy_slots > 0 : ctx_.now >= pattern_start(j);
  }
  bool job_waiting(std::uint32_t j) {
    return flows(j) ? !jobs_[j].started : ctx_.now < pattern_start(j);
  }
  // Job j is preempted: its events in progress are lost with their requests, and its threads
  // start again `restart_after` later, redoing them. Returns how many events it lost.
  std::uint64_t lose_job(std::uint32_t j, double restart_after);

  // Events of the threads (clients.cpp). A thread's events carry its epoch: those of a job
  // preempted since are stale.
  bool current(std::uint32_t t, std::uint32_t stamp) const { return stamp == threads_[t].epoch; }
  void prefetch(std::uint32_t t) const { __builtin_prefetch(&threads_[t]); }
  void start_events(std::uint32_t t);  // EventKind::EventStart: every slot of thread t
  void on_cpu_done(std::uint32_t t);
  // EventKind::NodeCpuDone: CPU work on a worker node ends (worker_nodes.hpp).
  void on_node_done(std::uint32_t node, std::uint32_t stamp);
  void on_arrival();

  // Requests (client_policy.cpp).
  void request_back(std::uint32_t r);  // a try is back: done, failed, or an orphan's answer
  void on_client_timeout(std::uint32_t r, std::uint32_t gen);
  void on_retry(std::uint32_t r, std::uint32_t gen);
  void on_fallback_done(std::uint32_t r, std::uint32_t gen);
  // The client policy's last resort for a request no try will serve (the workload's
  // `client.fallback`, include/sonicsim/client_policies/): a failure, or the request's share of
  // the event on the client's CPU.
  void give_up(std::uint32_t r);

 private:
  struct Step {  // one request of an event, in the order a sync thread sends them
    std::uint16_t kind;
    std::uint32_t model;
  };
  // One workload's clients: its threads, jobs, nodes and async slots are ranges of the global
  // ones starting at the bases, in scenario order.
  struct Tenant {
    const scenario::Workload* w = nullptr;
    scenario::PreparedDistribution cpu_time;  // w->cpu_time_per_event, drawn once per event
    std::vector<Step> steps;                  // served requests of one event, expanded by per_event
    std::uint64_t fallback_per_event = 0;
    double p_served = 0.0, p_unserved = 0.0;
    bool async = false, flow = false;
    double indep_fraction = 1.0;
    std::uint32_t slots_per_thread = 1, threads_per_job = 1, jobs_per_node = 1;
    std::uint32_t thread_base = 0, job_base = 0, slot_base = 0, node_base = 0;
    std::vector<std::uint32_t> level;  // per model: the batcher's priority level (0-based)
    bool on_nodes = false;             // `workload.node`: its CPU work runs on WorkerNodes
    // Module time: its first request kind's index and its kinds; whether one of them sends
    // several requests per event, and then where its async slots' counts begin (kind_pending_).
    std::uint32_t kind_base = 0, n_kinds = 0;
    bool several_per_event = false;
    std::size_t pending_base = 0;
    Tally tally;
    std::uint64_t running_jobs = 0;  // job flow: started, not yet exited
    // Job flow: running_jobs integrated over the measured span up to running_since.
    Time running_since;
    double running_job_seconds = 0.0;
  };
  // One cache line: at the whole grid's scale (a million threads, 64 MB of them) each request
  // misses it at least twice (its CPU work ends; its answer is back), and a record that
  // straddled two lines would miss twice as often. Its workload, job and node follow from its
  // index.
  struct alignas(64) Thread {
    Rng rng;
    Time event_start;
    double t_cpu = 0.0;  // of the event in progress (sync): what a CPU fallback costs
    std::uint32_t step = 0;
    std::uint32_t epoch : 24 = 0;  // its job's preemptions: older CPU events are stale
    bool in_event : 1 = false;     // sync: an event is in progress
    bool cpu_phase : 1 = false;    // sync: ... and its CPU work is not done
  };
  static_assert(sizeof(Thread) == 64, "a thread's record is one cache line");
  // Async: each thread holds several events (slots) and one CPU that runs one piece at a time.
  struct Slot {
    Time event_start;
    double t_cpu = 0.0;
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
    Time until;  // when `running` ends
    bool busy = false;
  };
  // Job flow: each job's budget of events; its threads (and their slots) stop taking events
  // when it is spent, and the job exits when the last of them has finished its event.
  struct Job {
    Time start;
    Time end = Time::never();  // flow.running: takes no event after
    std::int64_t events_left = 0;
    std::uint32_t busy_slots = 0;
    bool started = false;
  };
  // Open loop: one client (thread 0, for its random stream and node) that never waits. Each
  // arrival is an event whose requests carry its index in Request::slot.
  struct Arrival {
    Time start;
    std::uint32_t pending;  // requests not back yet
  };

  // The workload (its index) thread belongs to: the last whose threads begin at or before it.
  std::uint32_t tenant_index(std::uint32_t thread) const {
    auto i = static_cast<std::uint32_t>(tenants_.size()) - 1;
    while (tenants_[i].thread_base > thread) --i;
    return i;
  }
  Tenant& tenant_of(std::uint32_t thread) { return tenants_[tenant_index(thread)]; }
  const Tenant& tenant_of(std::uint32_t thread) const { return tenants_[tenant_index(thread)]; }
  // Where the thread's requests and events are counted: its workload's record, or with several
  // sites its workload's record at the site of its node (Accounting::at_site).
  Tally tally_of(std::uint32_t thread) {
    if (!by_site_) return tenant_of(thread).tally;
    return site_tally_of(thread);
  }
  Tally site_tally_of(std::uint32_t thread);
  const Tenant& tenant_of_job(std::uint32_t job) const;
  std::uint32_t first_thread_of_job(std::uint32_t job) const;
  // Outside a job flow: when job's threads begin under its workload's `start` (under the default
  // spread each thread adds its own offset).
  Time pattern_start(std::uint32_t job) const;
  bool flows(std::uint32_t job) const { return tenant_of_job(job).flow; }
  // Async: slot k of thread t.
  std::size_t slot_index(std::uint32_t t, std::uint32_t k) const {
    const Tenant& tn = tenant_of(t);
    return tn.slot_base + static_cast<std::size_t>(t - tn.thread_base) * tn.slots_per_thread + k;
  }
  Slot& slot_of(std::uint32_t t, std::uint32_t k) { return slots_[slot_index(t, k)]; }
  const Slot& slot_of(std::uint32_t t, std::uint32_t k) const { return slots_[slot_index(t, k)]; }

  // Jobs, threads and events (clients.cpp).
  void start_threads();
  void start_jobs(const Tenant& tn);
  bool take_event(std::uint32_t t);
  void start_arrivals();
  void start_event(std::uint32_t t, std::uint32_t slot);
  void finish_fallbacks(std::uint32_t t);
  void complete_event(std::uint32_t t, Time started);
  void next_step(std::uint32_t t);
  void push_piece(std::uint32_t t, Piece p);
  void run_piece(std::uint32_t t, const Piece& p);  // the thread's CPU starts p now
  void on_piece_done(std::uint32_t t);
  void queue_dependent(std::uint32_t t, std::uint32_t slot);
  // Requests (client_policy.cpp).
  void issue_request(std::uint32_t t, std::uint32_t slot, const Step& st);
  void try_failed(std::uint32_t r);
  void abandon(std::uint32_t r);
  // What a client policy's last resort may do with a request (client_policies/policy.hpp, Env).
  class GiveUpEnv;
  void start_fallback(std::uint32_t r);
  double fallback_seconds(std::uint32_t r) const;
  void finish_request(std::uint32_t r, Outcome outcome);
  void drop_fallbacks(std::uint32_t t);
  void drop_request(std::uint32_t r);
  // Job flow: integrates the tenant's running jobs up to now, before their count changes.
  void integrate_running(Tenant& tn);
  // Module time: a request of an event goes out, or is over (then, when it was the last of its
  // kind in the event, the event's wait for that kind is counted).
  void module_request_sent(std::uint32_t t, std::uint32_t slot, std::uint16_t kind);
  void module_request_done(const Request& rq);
  std::size_t pending_index(const Tenant& tn, std::uint32_t t, std::uint32_t slot,
                            std::uint16_t kind) const {
    return tn.pending_base + (slot_index(t, slot) - tn.slot_base) * tn.n_kinds +
           (kind - tn.kind_base);
  }
  // Worker nodes: their groups at build, their figures at the end.
  void build_nodes();
  void finish_nodes();
  // Thread t's CPU work of `seconds` (at speed factor 1) begins on its worker node.
  void run_on_node(std::uint32_t t, double seconds);

  Context& ctx_;
  Uses parts_;
  bool open_ = false;
  std::vector<Tenant> tenants_;
  bool by_site_ = false;         // several sites: counts per workload and site (tally_of)
  LargeVector<Thread> threads_;  // huge pages: read at random (large_array.hpp)
  LargeVector<Slot> slots_;      // see slot_of
  std::vector<AsyncCpu> cpus_;
  LargeVector<Job> jobs_;
  std::uint64_t running_jobs_ = 0;
  std::uint64_t live_fallbacks_ = 0;
  FreeList<Arrival> arrivals_;
  Rng arrival_rng_;
  bool poisson_ = false;
  double arrival_interval_ = 0.0;  // mean time between arrivals
  std::uint64_t arrival_count_ = 0;
  std::uint64_t max_in_flight_ = 0;
  WorkerNodes nodes_;
  // Module time of kinds of several requests per event (Tenant::several_per_event): a sync
  // thread's first send of the kind in progress; an async slot's requests of each kind still out.
  bool several_per_event_ = false;  // some tenant's several_per_event
  std::vector<Time> run_start_;
  std::vector<std::uint32_t> kind_pending_;
};

}  // namespace sonicsim::engine
