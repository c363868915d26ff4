// Triton's queue policy (dynamic_batching: max_queue_size, default_timeout, timeout_action): the
// batcher's rules, then whole runs whose counts follow from the timeline, then the scenario keys.
//
// The runs are deterministic: constant times, no network, one device with one instance, CPU time
// 1 s per event and offload_fraction 0. Threads start at random offsets in [0, 1 s), so their
// first requests arrive at a1 < a2 < ... in [1 s, 2 s) and everything after happens at a1 + whole
// seconds. With an integer duration D, an event at a1 + j falls inside the run exactly when
// j <= D - 2, whatever the offsets: the counts below are exact.
#include "support.hpp"

#include <cmath>
#include <sonicsim/engine/batcher.hpp>

using namespace test;
using sonicsim::engine::Batcher;
using sonicsim::engine::BatcherConfig;

namespace {

sonicsim::Time policy_at(double seconds) {
  return sonicsim::Time::from_seconds(seconds);
}

BatcherConfig one_at_a_time(double timeout, bool delay, std::int64_t max_queue_size = 0) {
  BatcherConfig c;
  c.dynamic = true;
  c.max_batch_size = 1;
  c.default_timeout = timeout;
  c.delay_timed_out = delay;
  c.max_queue_size = max_queue_size;
  return c;
}

std::vector<std::uint32_t> ids(const std::vector<Batcher::Queued>& batch) {
  std::vector<std::uint32_t> out;
  for (const auto& q : batch) out.push_back(q.request);
  return out;
}

}  // namespace

TEST_CASE("a full queue refuses arrivals; delayed requests still count", "[batcher][queue]") {
  Batcher b(one_at_a_time(1.0, true, 2), 1);
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  CHECK(b.has_room());
  b.enqueue(1, 1, policy_at(0.0));
  CHECK(b.form(policy_at(0.0), batch, wake) == 1);  // executes: the queue is empty again
  b.enqueue(2, 1, policy_at(0.1));
  b.enqueue(3, 1, policy_at(0.2));
  CHECK_FALSE(b.has_room());
  b.release_instance();
  // Request 2 timed out and is delayed behind 3, but it is still waiting in the queue.
  CHECK(b.form(policy_at(1.15), batch, wake) == 1);
  CHECK(ids(batch) == std::vector<std::uint32_t>{3});
  CHECK(b.queued() == 1);
  CHECK(b.has_room());
  b.enqueue(4, 1, policy_at(1.2));
  CHECK_FALSE(b.has_room());
}

TEST_CASE("REJECT applies timeouts lazily, when a batch is formed", "[batcher][queue]") {
  Batcher b(one_at_a_time(1.0, false), 1);
  std::vector<Batcher::Queued> batch, rejected;
  sonicsim::Time wake;
  b.enqueue(1, 1, policy_at(0.0));
  CHECK(b.form(policy_at(0.0), batch, wake) == 1);
  b.enqueue(2, 1, policy_at(0.1));
  b.enqueue(3, 1, policy_at(0.2));
  // The instance is busy: nobody looks at the queue, so nothing is rejected yet.
  CHECK(b.form(policy_at(5.0), batch, wake) == 0);
  b.take_rejected(rejected);
  CHECK(rejected.empty());
  b.release_instance();
  // At 1.15 s request 2 has waited 1.05 s (> 1 s), request 3 only 0.95 s.
  CHECK(b.form(policy_at(1.15), batch, wake) == 1);
  CHECK(ids(batch) == std::vector<std::uint32_t>{3});
  b.take_rejected(rejected);
  CHECK(ids(rejected) == std::vector<std::uint32_t>{2});
  b.take_rejected(rejected);
  CHECK(rejected.empty());
}

TEST_CASE("DELAY serves timed-out requests after all the others", "[batcher][queue]") {
  Batcher b(one_at_a_time(1.0, true), 1);
  std::vector<Batcher::Queued> batch, rejected;
  sonicsim::Time wake;
  b.enqueue(1, 1, policy_at(0.0));
  CHECK(b.form(policy_at(0.0), batch, wake) == 1);
  b.enqueue(2, 1, policy_at(0.1));
  b.enqueue(3, 1, policy_at(0.2));
  b.release_instance();
  CHECK(b.form(policy_at(1.15), batch, wake) == 1);
  CHECK(ids(batch) == std::vector<std::uint32_t>{3});
  b.enqueue(4, 1, policy_at(1.3));
  b.release_instance();
  CHECK(b.form(policy_at(1.4), batch, wake) == 1);
  CHECK(ids(batch) == std::vector<std::uint32_t>{4});  // in time: before the delayed 2
  b.release_instance();
  CHECK(b.form(policy_at(1.5), batch, wake) == 1);
  CHECK(ids(batch) == std::vector<std::uint32_t>{2});
  b.take_rejected(rejected);
  CHECK(rejected.empty());
}

TEST_CASE("a request waiting for a batch to fill can time out at the batcher's wake-up",
          "[batcher][queue]") {
  BatcherConfig c;
  c.dynamic = true;
  c.max_batch_size = 8;
  c.max_queue_delay = 1.0;
  c.default_timeout = 0.5;
  Batcher b(c, 1);
  std::vector<Batcher::Queued> batch, rejected;
  sonicsim::Time wake;
  b.enqueue(1, 2, policy_at(0.0));
  CHECK(b.form(policy_at(0.0), batch, wake) == 0);
  CHECK(wake.seconds() == Approx(1.0));
  CHECK(b.form(policy_at(1.0), batch, wake) == 0);
  CHECK(wake.is_never());
  b.take_rejected(rejected);
  CHECK(ids(rejected) == std::vector<std::uint32_t>{1});
  CHECK(b.free_instances() == 1);
}

TEST_CASE("max_queue_size: arrivals finding the queue full fail", "[engine][queue]") {
  // Five requests arrive in [1 s, 2 s) at a 10 s execution: the first runs, two queue, and the
  // last two are rejected, then again every second (their events end at once and restart):
  // at a + 0, 1, 2, 3 within 5 s, four times each.
  const auto m = run(queued_run(5, 10.0, {{"max_queue_size", 2}}, 5.0));
  CHECK(m.sent == 11);
  CHECK(m.failed == 8);
  CHECK(m.completed == 0);
  CHECK(m.in_flight_at_end == 3);
  check_conservation(m);

  const auto unlimited = run(queued_run(5, 10.0, {{"max_queue_size", 0}}, 5.0));
  CHECK(unlimited.sent == 5);
  CHECK(unlimited.failed == 0);
  CHECK(unlimited.in_flight_at_end == 5);
}

TEST_CASE("timeout REJECT: requests that waited too long fail when the batcher looks",
          "[engine][queue]") {
  // The first request runs until a1 + 10 s; only then does the batcher look at the queue, and the
  // four others, queued for more than 3 s, are rejected together. All five threads are back at
  // a1 + 11 s: one executes, four wait until after the end (15 s).
  const auto m = run(queued_run(5, 10.0, {{"default_timeout", "3s"}}, 15.0));
  CHECK(m.completed == 1);
  CHECK(m.failed == 4);
  CHECK(m.in_flight_at_end == 5);
  CHECK(m.sent == 10);
  check_conservation(m);
}

TEST_CASE("timeout DELAY against REJECT: the late request starves or fails", "[engine][queue]") {
  // Three threads, 2 s executions, a 2.5 s timeout. Request 3 (arrived at a3 < a1 + 1 s) has
  // waited more than 3 s when request 2 ends at a1 + 4 s. Afterwards each request waits 1 s
  // (DELAY: threads 1 and 2 alternate, request 3 waits behind them forever) or, under REJECT,
  // three threads share the device and every fourth second one has waited 3 s and fails.
  // Executions run back to back: 9 end by 20 s either way.
  const auto delayed =
      run(queued_run(3, 2.0, {{"default_timeout", "2.5s"}, {"timeout_action", "DELAY"}}, 20.0));
  CHECK(delayed.completed == 9);
  CHECK(delayed.failed == 0);
  CHECK(delayed.in_flight_at_end == 2);  // the delayed request 3 and the one executing
  CHECK(delayed.sent == 11);
  check_conservation(delayed);

  const auto rejected =
      run(queued_run(3, 2.0, {{"default_timeout", "2.5s"}, {"timeout_action", "REJECT"}}, 20.0));
  CHECK(rejected.completed == 9);
  CHECK(rejected.failed == 4);  // at a1 + 4, 8, 12, 16 s
  CHECK(rejected.in_flight_at_end == 2);
  CHECK(rejected.sent == 15);
  check_conservation(rejected);
}
