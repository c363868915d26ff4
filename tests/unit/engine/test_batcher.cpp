// Batch formation follows Triton's dynamic batcher (see engine/batcher.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <sonicsim/engine/batcher.hpp>

using sonicsim::engine::Batcher;
using sonicsim::engine::BatcherConfig;

namespace {

sonicsim::Time batcher_at(double seconds) {
  return sonicsim::Time::from_seconds(seconds);
}

BatcherConfig dynamic(int max_batch, std::vector<int> preferred, double delay) {
  BatcherConfig c;
  c.dynamic = true;
  c.max_batch_size = max_batch;
  c.preferred = std::move(preferred);
  c.max_queue_delay = delay;
  return c;
}

std::vector<std::uint32_t> request_ids(const std::vector<Batcher::Queued>& batch) {
  std::vector<std::uint32_t> out;
  for (const auto& q : batch) out.push_back(q.request);
  return out;
}

}  // namespace

TEST_CASE("without dynamic batching every request executes alone, in arrival order", "[batcher]") {
  Batcher b(BatcherConfig{}, 1);
  b.enqueue(1, 4, batcher_at(0.0));
  b.enqueue(2, 8, batcher_at(0.0));
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  CHECK(b.form(batcher_at(0.0), batch, wake) == 4);
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{1});
  // The only instance is busy: nothing more until it is released.
  CHECK(b.form(batcher_at(0.0), batch, wake) == 0);
  CHECK(wake.is_never());
  b.release_instance();
  CHECK(b.form(batcher_at(0.0), batch, wake) == 8);
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{2});
}

TEST_CASE("a preferred batch size is executed as soon as it can be formed", "[batcher]") {
  Batcher b(dynamic(64, {4, 8}, 1.0), 1);
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  b.enqueue(1, 2, batcher_at(0.0));
  CHECK(b.form(batcher_at(0.0), batch, wake) == 0);
  CHECK(wake.seconds() == Approx(1.0));  // waits for the delay of the oldest request
  b.enqueue(2, 2, batcher_at(0.1));
  CHECK(b.form(batcher_at(0.1), batch, wake) == 4);  // 2 + 2 = preferred 4
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{1, 2});
}

TEST_CASE("the largest preferred size reached at a request boundary wins", "[batcher]") {
  Batcher b(dynamic(64, {4, 8}, 1.0), 1);
  for (std::uint32_t i = 0; i < 5; ++i) b.enqueue(i, 2, batcher_at(0.0));  // boundaries 2,4,6,8,10
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  CHECK(b.form(batcher_at(0.0), batch, wake) == 8);
  CHECK(batch.size() == 4);
  CHECK(b.queued() == 1);
}

TEST_CASE("a preferred size that falls inside a request is not reached", "[batcher]") {
  Batcher b(dynamic(64, {4}, 0.5), 1);
  b.enqueue(1, 3, batcher_at(0.0));
  b.enqueue(2, 3, batcher_at(0.0));  // boundaries 3, 6: never 4
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  CHECK(b.form(batcher_at(0.1), batch, wake) == 0);
  CHECK(wake.seconds() == Approx(0.5));
  // When the oldest request has waited max_queue_delay, everything taken goes.
  CHECK(b.form(batcher_at(0.5), batch, wake) == 6);
  CHECK(batch.size() == 2);
}

TEST_CASE("the delay counts from the oldest request", "[batcher]") {
  Batcher b(dynamic(64, {32}, 0.010), 1);
  b.enqueue(1, 1, batcher_at(1.000));
  b.enqueue(2, 1, batcher_at(1.008));
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  CHECK(b.form(batcher_at(1.008), batch, wake) == 0);
  CHECK(wake.seconds() == Approx(1.010));
  CHECK(b.form(batcher_at(1.010), batch, wake) == 2);
}

TEST_CASE("the cap: never more items than max_batch_size, full batches go at once", "[batcher]") {
  Batcher b(dynamic(10, {}, 1.0), 1);
  b.enqueue(1, 4, batcher_at(0.0));
  b.enqueue(2, 4, batcher_at(0.0));
  b.enqueue(3, 4, batcher_at(0.0));  // 12 > 10: the third does not fit
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  CHECK(b.form(batcher_at(0.0), batch, wake) == 8);  // cannot grow: sent without waiting
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{1, 2});
  CHECK_FALSE(b.accepts(11));
  CHECK(b.accepts(10));
}

TEST_CASE("without preferred sizes max_batch_size is the size waited for", "[batcher]") {
  Batcher b(dynamic(4, {}, 1.0), 1);
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  for (std::uint32_t i = 0; i < 3; ++i) b.enqueue(i, 1, batcher_at(0.0));
  CHECK(b.form(batcher_at(0.0), batch, wake) == 0);
  b.enqueue(3, 1, batcher_at(0.2));
  CHECK(b.form(batcher_at(0.2), batch, wake) == 4);
}

TEST_CASE("zero queue delay sends whatever is queued when an instance is free", "[batcher]") {
  Batcher b(dynamic(100, {16}, 0.0), 1);
  b.enqueue(1, 3, batcher_at(0.0));
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  CHECK(b.form(batcher_at(0.0), batch, wake) == 3);
}

TEST_CASE("arrivals during an execution accumulate into the next batch", "[batcher]") {
  Batcher b(dynamic(100, {}, 0.0), 1);
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  b.enqueue(0, 1, batcher_at(0.0));
  CHECK(b.form(batcher_at(0.0), batch, wake) == 1);  // the instance is now busy
  for (std::uint32_t i = 1; i <= 7; ++i) {
    b.enqueue(i, 1, batcher_at(0.001 * i));
    CHECK(b.form(batcher_at(0.001 * i), batch, wake) == 0);  // no free instance: nothing forms
  }
  b.release_instance();
  CHECK(b.form(batcher_at(0.01), batch, wake) ==
        7);  // all that arrived meanwhile, in one execution
  CHECK(batch.front().request == 1);
}

TEST_CASE("several instances run several batches at once", "[batcher]") {
  Batcher b(dynamic(2, {}, 0.0), 2);
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  for (std::uint32_t i = 0; i < 6; ++i) b.enqueue(i, 1, batcher_at(0.0));
  CHECK(b.form(batcher_at(0.0), batch, wake) == 2);
  CHECK(b.form(batcher_at(0.0), batch, wake) == 2);
  CHECK(b.form(batcher_at(0.0), batch, wake) == 0);
  CHECK(b.free_instances() == 0);
  CHECK(b.queued() == 2);
}

TEST_CASE("priority levels: a batch takes level 1's requests first, then what fits of level 2",
          "[batcher][priority]") {
  BatcherConfig c = dynamic(4, {}, 0.0);
  c.levels = {{}, {}};  // two levels, default policies
  Batcher b(c, 1);
  REQUIRE(b.levels() == 2);
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  b.enqueue(1, 1, batcher_at(0.0), 1);  // level 2, oldest
  b.enqueue(2, 2, batcher_at(0.1), 1);
  b.enqueue(3, 1, batcher_at(0.2), 0);  // level 1, newest
  b.enqueue(4, 2, batcher_at(0.3), 0);
  CHECK(b.queued() == 4);
  // Level 1's 1 + 2 items, then level 2's first request (1 item) fills the batch of 4.
  CHECK(b.form(batcher_at(0.3), batch, wake) == 4);
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{3, 4, 1});
  b.release_instance();
  CHECK(b.form(batcher_at(0.3), batch, wake) == 2);
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{2});
  CHECK(b.queued() == 0);
}

TEST_CASE("priority levels: each level has its own queue size and timeout", "[batcher][priority]") {
  BatcherConfig c;  // no dynamic batching: one request per execution
  c.levels = {{1, 0.0, false}, {0, 0.5, false}};
  Batcher b(c, 1);
  std::vector<Batcher::Queued> batch, rejected;
  sonicsim::Time wake;
  CHECK(b.has_room(0));
  b.enqueue(1, 1, batcher_at(0.0), 0);
  CHECK_FALSE(b.has_room(0));  // level 1 holds at most one
  CHECK(b.has_room(1));        // level 2 is unlimited
  b.enqueue(2, 1, batcher_at(0.0), 1);
  b.enqueue(3, 1, batcher_at(0.9), 1);
  // At 1.0 the level-2 request from 0.0 has waited past its 0.5 s: rejected when the batcher
  // looks; level 1's request runs; the later level-2 one is still in time.
  CHECK(b.form(batcher_at(1.0), batch, wake) == 1);
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{1});
  b.take_rejected(rejected);
  CHECK(request_ids(rejected) == std::vector<std::uint32_t>{2});
  CHECK(b.queued() == 1);
  b.release_instance();
  CHECK(b.form(batcher_at(1.2), batch, wake) == 1);
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{3});
}

TEST_CASE("priority levels: max_queue_delay runs from the oldest request of any level",
          "[batcher][priority]") {
  BatcherConfig c = dynamic(8, {}, 0.1);
  c.levels = {{}, {}};
  Batcher b(c, 1);
  std::vector<Batcher::Queued> batch;
  sonicsim::Time wake;
  b.enqueue(1, 1, batcher_at(0.0), 1);
  b.enqueue(2, 1, batcher_at(0.05), 0);
  CHECK(b.form(batcher_at(0.05), batch, wake) == 0);
  CHECK(wake.seconds() == Approx(0.1));
  CHECK(b.form(batcher_at(0.1), batch, wake) == 2);
  CHECK(request_ids(batch) == std::vector<std::uint32_t>{2, 1});
}
