// A 4-ary min-heap of timed events, ordered by (time, payload).
//
// Entries are 16 bytes (time + packed payload): the sift-down cache misses are a large heap's
// main cost, and a 4-ary heap halves the levels they touch. Simultaneous events pop in payload
// order, a fixed total order, so the same scenario and seed always replay the same sequence.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace sonicsim::engine {

// A 4-ary min-heap of 16-byte entries (time + packed payload).
class EventHeap {
 public:
  struct Entry {
    std::int64_t time;  // Time::ns() (sim_time.hpp)
    std::uint64_t payload;
  };
  // Integer compares combined without a branch to mispredict in the sift-down.
  static bool before(const Entry& a, const Entry& b) {
    return (a.time < b.time) | ((a.time == b.time) & (a.payload < b.payload));
  }
  bool empty() const { return heap_.empty(); }
  const Entry& top() const { return heap_.front(); }
  // Inlined everywhere: it is on every event's path, and GCC's choice flipped with the unity
  // batches.
  [[gnu::always_inline]] void push(const Entry& e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }
  Entry pop() {
    const Entry top = heap_.front();
    const Entry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
    return top;
  }
  // Adds many at once: append() them all, then reorder() once, in O(size) (bottom-up heap
  // construction). In between, the heap is not one: nothing else may be called.
  void append(const Entry* entries, std::size_t n) {
    heap_.insert(heap_.end(), entries, entries + n);
  }
  void reorder() {
    if (heap_.size() < 2) return;
    for (std::size_t i = (heap_.size() - 2) / 4 + 1; i-- > 0;) sift_down(i, heap_[i]);
  }

 private:
  void sift_up(std::size_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Moves `e` down from the hole at i (the root's, left by the popped minimum).
  void sift_down(std::size_t i, const Entry e) {
    const std::size_t n = heap_.size();
    while (true) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        best = before(heap_[c], heap_[best]) ? c : best;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }
  std::vector<Entry> heap_;
};

}  // namespace sonicsim::engine
