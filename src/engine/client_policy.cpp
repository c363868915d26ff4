#include "clients.hpp"

#include <algorithm>
#include <cmath>

#include "accounting.hpp"
#include "request_path.hpp"
#include "sampling.hpp"
#include "sites.hpp"

namespace sonicsim::engine {
namespace {

int round_items(double x) {
  return std::max(1, static_cast<int>(std::lround(x)));
}

}  // namespace

void Clients::issue_request(std::uint32_t t, std::uint32_t slot, const Step& st) {
  auto& requests = ctx_.requests;
  const std::uint32_t r = requests.add();
  ++requests.live;
  Request& rq = requests[r];
  rq.first_sent = ctx_.now;
  rq.thread = t;
  rq.node = node_of(t);
  rq.level = static_cast<std::uint16_t>(level_of(t, st.model));
  rq.slot = slot;
  rq.kind = st.kind;
  rq.tries = 0;
  rq.orphan = false;
  rq.live = true;
  rq.routed = false;
  rq.items = round_items(requests.kinds[st.kind].items.sample(threads_[t].rng));
  rq.trace = parts_.sampling.trace(st.model, t, rq.items);
  parts_.accounting.issued(tally_of(t), 1);
  if (several_per_event_) module_request_sent(t, slot, st.kind);
  parts_.path.send_try(r);
}

// ---- module time ------------------------------------------------------------------------------

void Clients::module_request_sent(std::uint32_t t, std::uint32_t slot, std::uint16_t kind) {
  const Tenant& tn = tenant_of(t);
  if (!tn.several_per_event) return;
  if (tn.async) {
    ++kind_pending_[pending_index(tn, t, slot, kind)];
    return;
  }
  // A sync thread sends a kind's requests one after another: the first starts the wait.
  const std::uint32_t step = threads_[t].step - 1;
  if (step == 0 || tn.steps[step - 1].kind != kind) run_start_[t] = ctx_.now;
}

// A kind of one request per event waited from that request's send; of several, from the first
// one's (sync: the run of them began then; async: they all left when the event began).
void Clients::module_request_done(const Request& rq) {
  const std::uint32_t t = rq.thread;
  Time from = rq.first_sent;
  if (ctx_.requests.kinds[rq.kind].spec->per_event > 1) {
    const Tenant& tn = tenant_of(t);
    if (tn.async) {
      if (--kind_pending_[pending_index(tn, t, rq.slot, rq.kind)] > 0) return;
      from = slot_of(t, rq.slot).event_start;
    } else {
      const std::uint32_t next = threads_[t].step;
      if (next < tn.steps.size() && tn.steps[next].kind == rq.kind) return;
      from = run_start_[t];
    }
  }
  if (ctx_.counts(ctx_.now)) ctx_.metrics.modules[rq.kind].wait.add(ctx_.now - from);
}

// A try is back at the client: done, or failed (then retried, computed locally, or failed).
void Clients::request_back(std::uint32_t r) {
  Request& rq = ctx_.requests[r];
  if (rq.orphan) return ctx_.requests.release(r);  // its client gave up: nobody waits for it
  rq.out = false;
  if (rq.failed) return try_failed(r);
  finish_request(r, Outcome::Completed);
}

void Clients::try_failed(std::uint32_t r) {
  Request& rq = ctx_.requests[r];
  parts_.accounting.try_failed(rq.why, ctx_.requests.model_of(r));
  const auto& client = policy_of(rq.thread);
  if (rq.tries < client.allowed_tries) {
    if (client.retry_delay <= 0.0) return parts_.path.send_try(r);
    ctx_.queue.push(ctx_.now + client.retry_delay, EventKind::Retry, r, rq.gen);
    return;
  }
  give_up(r);
}

// What a client policy may do with a request whose tries are used up
// (client_policies/policy.hpp, Env): inlined into each policy's give_up, no virtual dispatch.
class Clients::GiveUpEnv {
 public:
  explicit GiveUpEnv(Clients& c) : c_(c) {}
  void fail(std::uint32_t r) { c_.finish_request(r, Outcome::Failed); }
  void compute_on_cpu(std::uint32_t r) { c_.start_fallback(r); }

 private:
  Clients& c_;
};

// The client policy's last resort (include/sonicsim/client_policies/, the workload's
// `client.fallback`), through the table's hook.
void Clients::give_up(std::uint32_t r) {
  GiveUpEnv env(*this);
  client_policies::give_up(policy_of(ctx_.requests[r].thread).fallback, env, r);
}

// The client gives up on a try that is still out; the try goes on as an orphan (its bytes
// still move, the server still works on it) and the request continues in a new record.
void Clients::on_client_timeout(std::uint32_t r, std::uint32_t gen) {
  auto& requests = ctx_.requests;
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

void Clients::abandon(std::uint32_t r) {
  Request& rq = ctx_.requests[r];
  rq.orphan = true;
  rq.trace = kUntraced;
  parts_.accounting.try_abandoned();
}

// Local inference on the job's CPU: this request's share of the event's CPU time, blocking
// the thread (an async thread's CPU runs it as one more piece, in turn).
void Clients::start_fallback(std::uint32_t r) {
  const Request& rq = ctx_.requests[r];
  const double seconds = fallback_seconds(r);
  const Tenant& tn = tenant_of(rq.thread);
  if (!tn.async && tn.on_nodes) {
    nodes_.start(node_of(rq.thread), {WorkerNodes::WorkKind::Fallback, rq.thread, r, rq.gen},
                 seconds);
    return;
  }
  if (!tn.async) {
    parts_.accounting.client_cpu(tenant_index(rq.thread), seconds);
    ctx_.queue.push(ctx_.now + seconds, EventKind::FallbackDone, r, rq.gen);
    return;
  }
  push_piece(rq.thread, {rq.slot, PieceKind::Fallback, seconds, r});
}

// p_i x t_CPU of the request's event, split evenly over its kind's per_event requests.
double Clients::fallback_seconds(std::uint32_t r) const {
  const Request& rq = ctx_.requests[r];
  const auto& spec = *ctx_.requests.kinds[rq.kind].spec;
  const double t_cpu =
      tenant_of(rq.thread).async ? slot_of(rq.thread, rq.slot).t_cpu : threads_[rq.thread].t_cpu;
  return spec.offload_fraction / spec.per_event * t_cpu;
}

void Clients::on_retry(std::uint32_t r, std::uint32_t gen) {
  const Request& rq = ctx_.requests[r];
  if (rq.gen == gen && !rq.out && !rq.orphan) parts_.path.send_try(r);
}

void Clients::on_fallback_done(std::uint32_t r, std::uint32_t gen) {
  const Request& rq = ctx_.requests[r];
  if (rq.gen != gen || rq.orphan) return;
  finish_request(r, Outcome::Fallback);
}

// The request's last word: counted (after the warm-up) and its client goes on.
void Clients::finish_request(std::uint32_t r, Outcome outcome) {
  const Time now = ctx_.now;
  auto& requests = ctx_.requests;
  Request& rq = requests[r];
  const std::uint32_t model = requests.model_of(r);
  const double latency = now - rq.first_sent;
  if (outcome == Outcome::Completed)
    parts_.sampling.request_completed(model, tenant_index(rq.thread), latency);
  if (auto* tr = ctx_.traced(r)) {
    tr->back = now.seconds();
    tr->failed = outcome != Outcome::Completed;
  }
  --requests.live;
  if (!open_) module_request_done(rq);
  const Tally tally = tally_of(rq.thread);
  parts_.accounting.request_finished(tally, model, outcome, latency, rq.tries > 1,
                                     outcome == Outcome::Fallback ? fallback_seconds(r) : 0.0);
  const std::uint32_t t = rq.thread, slot = rq.slot;
  requests.release(r);
  if (open_) {
    Arrival& a = arrivals_[slot];
    if (--a.pending == 0) {
      complete_event(t, a.start);
      arrivals_.release(slot);
    }
    return;
  }
  if (!tenant_of(t).async) return next_step(t);
  Slot& s = slot_of(t, slot);
  if (--s.pending == 0 && s.independent_done) queue_dependent(t, slot);
}

// ---- preemption -----------------------------------------------------------------------------

// The unserved models' CPU inference of an event lost to preemption.
void Clients::drop_fallbacks(std::uint32_t t) {
  const Tenant& tn = tenant_of(t);
  live_fallbacks_ -= tn.fallback_per_event;
  parts_.accounting.requests_preempted(tally_of(t), tn.fallback_per_event);
}

void Clients::drop_request(std::uint32_t r) {
  auto& requests = ctx_.requests;
  if (auto* tr = ctx_.traced(r)) {
    tr->back = ctx_.now.seconds();
    tr->failed = true;
  }
  --requests.live;
  parts_.accounting.requests_preempted(tally_of(requests[r].thread), 1);
  // A try on its way goes on without a client; one waiting to retry or computing locally
  // just ends (its timers are stale with it).
  if (requests[r].out)
    abandon(r);
  else
    requests.release(r);
}

}  // namespace sonicsim::engine
