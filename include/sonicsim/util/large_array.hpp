// Arrays the engine reads at random, one record per thread, device or queued event: at the
// whole grid's scale (a million threads, 64 MB of thread records alone) nearly every read of
// them missed the processor's page-translation cache as well as its data cache, and the page
// walk cost as much as the miss. Backed by transparent huge pages (2 MB) where the kernel offers
// them, one translation covers 32,768 thread records instead of 64. Measured (issue 39):
// most of latency-bound-1m's +14.6% (docs/performance.md, "Huge pages").
//
// Only allocations of at least kLargeArrayBytes take this path; smaller ones are the standard
// allocator's, so a small run's memory is what it was. The pages' size changes neither the
// contents nor the order of anything: results are the same bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace sonicsim {

// From 1 MB on: an array that large is rounded up to whole 2 MB pages (at most half of it
// unused, on the largest arrays of a run, never on small ones).
inline constexpr std::size_t kLargeArrayBytes = std::size_t{1} << 20;

namespace detail {
// At least `bytes`, 2 MB aligned, advised to the kernel as huge pages (free with release_large).
// Throws std::bad_alloc when the memory is not there, as operator new does.
void* allocate_large(std::size_t bytes);
void release_large(void* p) noexcept;
}  // namespace detail

template <class T>
struct LargeArrayAllocator {
  using value_type = T;
  LargeArrayAllocator() = default;
  template <class U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    if (n * sizeof(T) < kLargeArrayBytes) return std::allocator<T>{}.allocate(n);
    return static_cast<T*>(detail::allocate_large(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kLargeArrayBytes) return std::allocator<T>{}.deallocate(p, n);
    detail::release_large(p);
  }
  template <class U>
  bool operator==(const LargeArrayAllocator<U>&) const noexcept {
    return true;
  }
};

// A std::vector whose storage, once large, sits on huge pages.
template <class T>
using LargeVector = std::vector<T, LargeArrayAllocator<T>>;

}  // namespace sonicsim
