#include <sonicsim/util/large_array.hpp>

#include <cstdlib>

#include <sys/mman.h>

namespace sonicsim::detail {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

void* allocate_large(std::size_t bytes) {
  // Whole huge pages, aligned to one: the kernel backs an advised range with huge pages only
  // where a whole aligned 2 MB lies inside it.
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  if (rounded < bytes) throw std::bad_alloc();
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  // Advice only: where transparent huge pages are off (or `never`), the pages stay small and
  // nothing else changes, so the answer is not checked.
  (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

void release_large(void* p) noexcept {
  std::free(p);
}

}  // namespace sonicsim::detail
