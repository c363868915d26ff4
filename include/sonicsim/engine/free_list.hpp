// Records reused through a free list, by index: the engine's requests, the event queue's chunks.
#pragma once

#include <cstdint>
#include <vector>

#include <sonicsim/util/large_array.hpp>

namespace sonicsim::engine {

// Records reused through a free list: once the run is warm, the hot path allocates nothing.
template <class T>
class FreeList {
 public:
  T& operator[](std::uint32_t i) { return records_[i]; }
  const T& operator[](std::uint32_t i) const { return records_[i]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(records_.size()); }
  // A free record (its fields are what its last use left).
  std::uint32_t add() {
    std::uint32_t i;
    if (!free_.empty()) {
      i = free_.back();
      free_.pop_back();
    } else {
      i = static_cast<std::uint32_t>(records_.size());
      records_.emplace_back();
    }
    return i;
  }
  void release(std::uint32_t i) { free_.push_back(i); }

 private:
  LargeVector<T> records_;  // a million queued events at the whole grid's scale
  std::vector<std::uint32_t> free_;
};

}  // namespace sonicsim::engine
