// The engine's clock: the event queue hands out events in exactly (time, payload) order, whatever
// the mix of near and far events, the far queue's bucket width, ties, events pushed into the
// past of its current bucket, and times far beyond its ring. Same seed, same bytes rests on it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include <sonicsim/engine/bucket_queue.hpp>
#include <sonicsim/engine/event_queue.hpp>

using sonicsim::engine::BucketQueue;
using sonicsim::engine::Event;
using sonicsim::engine::EventHeap;
using sonicsim::engine::EventKind;
using sonicsim::engine::EventQueue;

namespace {

using Key = std::tuple<std::int64_t, std::uint64_t>;

// Random pushes and pops against an ordered set: `width` is the bucket's, `spread` how far
// ahead the pushes go (in seconds), `ties` the chance a push repeats the current time. Entry
// times are nanoseconds (sim_time.hpp).
void check_against_set(double width, double spread, double ties, std::uint32_t seed) {
  BucketQueue q(width);
  std::multiset<Key> ref;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::int64_t now = 0;
  std::uint64_t payload = 0;
  const double ns = 1e9 * spread;
  for (int step = 0; step < 20000; ++step) {
    const bool push = ref.empty() || u(rng) < 0.52;
    if (push) {
      std::int64_t t = now + std::llround(ns * u(rng) * u(rng));  // most near, a tail far ahead
      if (u(rng) < ties) t = now;
      if (u(rng) < 0.01) t = now + std::llround(1e6 * ns);  // far beyond the ring
      const std::uint64_t p = payload++ % 7;                // repeated payloads: equal keys
      q.push({t, p});
      ref.insert({t, p});
    } else {
      REQUIRE_FALSE(q.empty());
      const Key want = *ref.begin();
      ref.erase(ref.begin());
      REQUIRE(q.top().time == std::get<0>(want));
      const EventHeap::Entry got = q.pop();
      REQUIRE(got.time == std::get<0>(want));
      REQUIRE(got.payload == std::get<1>(want));
      now = got.time;
    }
    REQUIRE(q.size() == ref.size());
  }
  while (!ref.empty()) {
    const EventHeap::Entry got = q.pop();
    REQUIRE(Key{got.time, got.payload} == *ref.begin());
    ref.erase(ref.begin());
  }
  CHECK(q.empty());
}

}  // namespace

TEST_CASE("bucket queue: pops in (time, payload) order for any bucket width", "[event-queue]") {
  std::uint32_t seed = 1;
  for (double width : {1e-9, 1e-4, 1e-2, 1.0, 1e3})
    for (double spread : {1e-3, 1.0, 100.0})
      for (double ties : {0.0, 0.3}) {
        INFO("width " << width << " s, spread " << spread << " s, ties " << ties);
        check_against_set(width, spread, ties, seed++);
      }
}

TEST_CASE("bucket queue: large buckets (radix-sorted) pop in (time, payload) order",
          "[event-queue]") {
  // Buckets of thousands of events take the radix sort; ties in time are ordered by payload,
  // times span up to 40 bits inside a bucket, and pushes into the current bucket while it is
  // read merge with it.
  for (const double width : {1e-3, 1.0, 1e3}) {
    INFO("width " << width << " s");
    BucketQueue q(width);
    std::multiset<Key> ref;
    std::mt19937_64 rng(91);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double span_ns = 4e9 * width;  // about four buckets
    for (std::uint64_t i = 0; i < 40000; ++i) {
      auto t = static_cast<std::int64_t>(span_ns * u(rng));
      if (u(rng) < 0.3) t = static_cast<std::int64_t>(span_ns / 2);  // a crowd at one instant
      const std::uint64_t p = rng() % 1000;
      q.push({t, p});
      ref.insert({t, p});
    }
    std::int64_t now = 0;
    while (!ref.empty()) {
      if (u(rng) < 0.05) {  // into the current bucket, or just after it
        const std::int64_t t = now + static_cast<std::int64_t>(1e8 * width * u(rng));
        const std::uint64_t p = rng() % 1000;
        q.push({t, p});
        ref.insert({t, p});
      }
      const EventHeap::Entry got = q.pop();
      REQUIRE(Key{got.time, got.payload} == *ref.begin());
      ref.erase(ref.begin());
      now = got.time;
    }
    CHECK(q.empty());
  }
}

TEST_CASE("bucket queue: buckets of a few events (insertion-sorted) pop in (time, payload) order",
          "[event-queue]") {
  // One chunk of up to a few dozen events is sorted by insertion and read in order (take_few):
  // each bucket here holds 1 to 40 events, pushed in descending order, with equal times that
  // their payloads order, and an event pushed into the bucket being read merges with it.
  BucketQueue q(1e-6);  // 1,000 ns a bucket
  std::multiset<Key> ref;
  std::mt19937_64 rng(7);
  for (std::int64_t bucket = 1; bucket <= 40; ++bucket)
    for (std::int64_t i = bucket; i > 0; --i) {
      const std::int64_t t = bucket * 1000 + (i % 3 == 0 ? 500 : i * 10);  // a tie every third
      const std::uint64_t p = rng() % 5;
      q.push({t, p});
      ref.insert({t, p});
    }
  std::int64_t now = 0;
  while (!ref.empty()) {
    const EventHeap::Entry got = q.pop();
    REQUIRE(Key{got.time, got.payload} == *ref.begin());
    ref.erase(ref.begin());
    now = got.time;
    if (got.payload == 0 && now % 1000 < 400) {  // into the current bucket, after `now`
      q.push({now + 50, 9});
      ref.insert({now + 50, 9});
    }
  }
  CHECK(q.empty());
}

TEST_CASE("bucket queue: events earlier than its current bucket still pop first", "[event-queue]") {
  // A push makes the next bucket current (here the one of t = 5); an event pushed afterwards
  // for t = 1 belongs before it.
  BucketQueue q(0.5);
  q.push({5'000'000'000, 1});
  q.push({1'000'000'000, 2});
  q.push({5'000'000'000, 0});
  q.push({1'000'000'000'000'000'000, 3});  // beyond the ring: the overflow
  q.push({INT64_MAX, 4});                  // Time::never()
  std::vector<std::uint64_t> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  CHECK(order == std::vector<std::uint64_t>{2, 0, 1, 3, 4});
  // Buckets of 1e-12 s: the last instants lie beyond any bucket index, and still pop in order.
  BucketQueue fine(1e-12);
  fine.push({INT64_MAX, 2});
  fine.push({INT64_MAX - 1, 1});
  fine.push({3, 0});
  order.clear();
  while (!fine.empty()) order.push_back(fine.pop().payload);
  CHECK(order == std::vector<std::uint64_t>{0, 1, 2});
}

TEST_CASE("event queue: near and far events interleave in one total order", "[event-queue]") {
  EventQueue q(1e-3);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 2.0);
  // (time, payload) is (time, kind, stamp, id)
  std::multiset<std::tuple<double, int, std::uint32_t, std::uint32_t>> ref;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    const double t = std::round(u(rng) * 1e4) / 1e4;  // many equal times
    const auto kind = (i % 3 == 0)   ? EventKind::CpuDone
                      : (i % 3 == 1) ? EventKind::TransferDone
                                     : EventKind::EventStart;
    q.push(sonicsim::Time::from_seconds(t), kind, i, i % 5);
    ref.insert({t, static_cast<int>(kind), i % 5, i});
  }
  for (const auto& [t, kind, stamp, id] : ref) {
    REQUIRE(q.top_time() == sonicsim::Time::from_seconds(t));
    const Event e = q.pop();
    REQUIRE(e.time == sonicsim::Time::from_seconds(t));
    REQUIRE(static_cast<int>(e.kind) == kind);
    REQUIRE(e.id == id);
    REQUIRE(e.stamp == stamp);
  }
  CHECK(q.empty());
}
