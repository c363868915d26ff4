// The engine's largest arrays (a million threads' records, the queued events) sit on huge pages
// (large_array.hpp, issue 39): the storage changes, the contents never do.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sonicsim/util/large_array.hpp>

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

// The VmFlags of the mapping of this process that holds `p` (/proc/self/smaps), "" if none.
std::string vm_flags_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

}  // namespace

TEST_CASE("large arrays: the same contents through growth, from small storage to huge pages",
          "[large_array]") {
  sonicsim::LargeVector<double> large;
  std::vector<double> plain;
  // From 8 bytes to 4 MB: the standard allocator's storage first, then the huge pages'.
  for (int i = 0; i < (1 << 19); ++i) {
    const double v = i * 0.5 - 7.0;
    large.push_back(v);
    plain.push_back(v);
  }
  REQUIRE(large.size() == plain.size());
  CHECK(std::equal(large.begin(), large.end(), plain.begin()));
  CHECK(reinterpret_cast<std::uintptr_t>(large.data()) % kHugePage == 0);
  // And back to small storage.
  large.resize(10);
  large.shrink_to_fit();
  CHECK(std::equal(large.begin(), large.end(), plain.begin()));
  CHECK(large.capacity() * sizeof(double) < sonicsim::kLargeArrayBytes);
}

TEST_CASE("large arrays: a large array is whole, aligned huge pages, and advised as such",
          "[large_array]") {
  // 1 MB of records: the threshold itself takes the huge-page path.
  struct Record {
    std::uint64_t a, b;
  };
  sonicsim::LargeArrayAllocator<Record> alloc;
  const std::size_t n = sonicsim::kLargeArrayBytes / sizeof(Record);
  Record* p = alloc.allocate(n);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % kHugePage == 0);
  // The whole rounded span is ours to write (two of its ends).
  p[0] = {1, 2};
  p[n - 1] = {3, 4};
  CHECK(p[0].a + p[n - 1].b == 5);
  // Where the kernel has transparent huge pages, the range carries the advice (smaps' "hg").
  if (std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
    const std::string flags = vm_flags_at(p);
    INFO(flags);
    CHECK(flags.find(" hg") != std::string::npos);
  }
  alloc.deallocate(p, n);
  // A small one is the standard allocator's (no alignment to a huge page is owed).
  Record* q = alloc.allocate(4);
  q[3] = {5, 6};
  CHECK(q[3].a == 5);
  alloc.deallocate(q, 4);
}
