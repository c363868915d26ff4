// Timed events sorted lazily: a ring of time buckets in front of a small heap.
//
// At the whole grid's scale (a million threads) every thread holds one pending CPU completion,
// so a heap of them is 16 MB that each pop walks ten levels down, one cache miss a level: the
// largest cost per request (docs/performance.md). Here an event is appended to the bucket of its
// time (`width` seconds each, a ring of kBuckets ahead of the current one) and only sorted when
// its bucket becomes current: it then moves into a small heap that stays in cache. Pushes and
// pops touch a few cache lines, whatever the number of events queued.
//
// The current bucket is sorted once, as it becomes current, and read in order: at a million
// threads a far bucket holds about a thousand events, and popping them one by one from a heap
// cost a sift-down of unpredictable branches each (a quarter of the run's time). A large bucket
// is sorted by a radix sort on its times (two or three linear passes); a small one is heaped as
// before. Events that arrive for the current bucket after it was sorted wait in that small heap
// beside it, and each pop takes the earlier of the two.
//
// The order is exactly EventHeap's, (time, payload): a bucket's index is a monotone function of
// the time, the current bucket (sorted run and late heap) holds every event up to its index,
// the ring the next ones, and the overflow heap those beyond the ring. The width only decides
// the speed.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include <sonicsim/engine/event_heap.hpp>
#include <sonicsim/engine/free_list.hpp>

namespace sonicsim::engine {

class BucketQueue {
 public:
  using Entry = EventHeap::Entry;
  static constexpr std::size_t kBuckets = 4096;

  // Seconds per bucket; positive and finite (else 1 ms).
  explicit BucketQueue(double width = 1e-3) {
    // Entry times are nanoseconds (sim_time.hpp).
    per_tick_ = (std::isfinite(width) && width > 0.0 ? 1.0 / width : 1e3) * 1e-9;
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Valid while not empty: the current bucket is never empty while anything is queued.
  const Entry& top() const { return *head_; }
  void push(const Entry& e) {
    ++size_;
    const std::uint64_t k = index_of(e.time);
    if (k <= cur_) {
      late_.push(e);
      return refresh();
    }
    if (k - cur_ < kBuckets) {
      put(k, e);
    } else {
      overflow_.push(e);
    }
    if (current_empty()) advance();
  }
  Entry pop() {
    const Entry top = *head_;
    if (pos_ < run_.size() && head_ == &run_[pos_])
      ++pos_;
    else
      late_.pop();
    --size_;
    if (current_empty() && size_ > 0)
      advance();
    else
      refresh();
    return top;
  }

 private:
  static constexpr std::size_t kMask = kBuckets - 1;
  // Below this many events a bucket goes into the late heap (a few pops of a small heap cost
  // less than a sort): the radix sort's counting passes only pay for themselves on large ones.
  static constexpr std::size_t kRadixFrom = 256;
  // Up to this many events in one chunk, a bucket is sorted by insertion instead (take_few).
  static constexpr std::uint32_t kFewEvents = 32;

  bool current_empty() const { return pos_ == run_.size() && late_.empty(); }
  // The earliest event, found once per change rather than at every top(): the loop asks for
  // the top several times an event.
  void refresh() {
    head_ = late_first() ? &late_.top() : pos_ < run_.size() ? &run_[pos_] : nullptr;
  }
  bool late_first() const {
    if (late_.empty()) return false;
    return pos_ == run_.size() || EventHeap::before(late_.top(), run_[pos_]);
  }
  static constexpr std::uint64_t kMaxIndex = std::uint64_t{1} << 62;

  // Monotone in t: converting to double, and rounding a product by a positive constant, never
  // reverse an order (the index only decides the speed, so its rounding does not matter). The
  // floor of a product of at least 1 is its truncation, which the conversion does in one
  // instruction (std::floor is a libm call or a dozen instructions without SSE4.1).
  std::uint64_t index_of(std::int64_t t) const {
    const double k = static_cast<double>(t) * per_tick_;
    if (!(k >= 1.0)) return 0;
    return k >= static_cast<double>(kMaxIndex) ? kMaxIndex : static_cast<std::uint64_t>(k);
  }
  void put(std::uint64_t k, const Entry& e) {
    const std::size_t slot = k & kMask;
    Bucket& b = buckets_[slot];
    if (b.tail == kNil || b.fill == kChunkEntries) {
      const std::uint32_t c = new_chunk();
      if (b.tail == kNil) {
        b.head = c;
        occupied_[slot / 64] |= std::uint64_t{1} << (slot % 64);
      } else {
        chunks_[b.tail].next = c;
      }
      b.tail = c;
      b.fill = 0;
      ++b.chunks;
    }
    chunks_[b.tail].entries[b.fill++] = e;
    ++in_ring_;
  }
  std::uint32_t new_chunk() {
    const std::uint32_t c = chunks_.add();
    chunks_[c].next = kNil;
    return c;
  }
  // The ring's first non-empty bucket after the current one, as an absolute index.
  std::uint64_t next_occupied() const {
    const std::size_t from = (cur_ + 1) & kMask;
    for (std::size_t step = 0; step <= kBuckets; step += 64) {
      const std::size_t base = (from + step) & kMask;
      const std::size_t word = base / 64, bit = base % 64;
      std::uint64_t bits = occupied_[word] >> bit;
      if (bit > 0) bits |= occupied_[(word + 1) % occupied_.size()] << (64 - bit);
      if (bits != 0) return cur_ + 1 + step + static_cast<std::uint64_t>(std::countr_zero(bits));
    }
    return cur_;  // unreachable while in_ring_ > 0
  }
  // Makes the next events current: the ring's next bucket, or the overflow's first.
  void advance() {
    cur_ = in_ring_ > 0 ? next_occupied() : index_of(overflow_.top().time);
    // The ring now reaches further: what the overflow holds within it moves in.
    run_.clear();
    pos_ = 0;
    const std::size_t slot = cur_ & kMask;
    Bucket& b = buckets_[slot];
    // A small bucket goes into the late heap as it is (a few pops of a small heap cost less than
    // a sort); a large one is gathered and sorted; one of a few events is sorted by insertion.
    const bool large = b.head != kNil && b.chunks * kChunkEntries >= kRadixFrom;
    const bool few = b.head != kNil && b.head == b.tail && b.fill <= kFewEvents;
    while (!overflow_.empty() && index_of(overflow_.top().time) - cur_ < kBuckets) {
      const Entry e = overflow_.pop();
      if (index_of(e.time) != cur_)
        put(index_of(e.time), e);
      else if (large)
        run_.push_back(e);
      else
        late_.push(e);
    }
    if (b.head == kNil) return refresh();
    if (few) return take_few(slot);
    for (std::uint32_t c = b.head; c != kNil; c = chunks_[c].next) {
      const std::size_t n = c == b.tail ? b.fill : kChunkEntries;
      if (large)
        run_.insert(run_.end(), chunks_[c].entries.data(), chunks_[c].entries.data() + n);
      else
        late_.append(chunks_[c].entries.data(), n);
      in_ring_ -= n;
      chunks_.release(c);
    }
    b = Bucket{};
    occupied_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
    if (large)
      sort_run();
    else
      late_.reorder();
    refresh();
  }
  // The current bucket (ring slot `slot`), one chunk holding a few events, becomes the sorted
  // run: at small scales a near bucket holds one or two, and reading them in order skips the
  // late heap's rebuild and its sift-down at every pop (-2.4% instructions, latency-bound-10k).
  void take_few(std::size_t slot) {
    Bucket& b = buckets_[slot];
    const Entry* from = chunks_[b.head].entries.data();
    for (std::uint32_t i = 0; i < b.fill; ++i) {  // run_ is empty (advance)
      const Entry e = from[i];
      run_.push_back(e);
      std::size_t j = i;
      for (; j > 0 && EventHeap::before(e, run_[j - 1]); --j) run_[j] = run_[j - 1];
      run_[j] = e;
    }
    in_ring_ -= b.fill;
    chunks_.release(b.head);
    b = Bucket{};
    occupied_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
    refresh();
  }
  void sort_run() {
    // LSD radix sort on the time's offset from the bucket's earliest, 11 bits a pass (stable),
    // then each group of equal times in payload order.
    std::int64_t lo = run_.front().time, hi = lo;
    for (const Entry& e : run_) {
      lo = std::min(lo, e.time);
      hi = std::max(hi, e.time);
    }
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    constexpr int kBits = 11;
    constexpr std::size_t kDigits = std::size_t{1} << kBits;
    scratch_.resize(run_.size());
    for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += kBits) {
      std::array<std::uint32_t, kDigits + 1> start{};
      const auto digit = [lo, shift](const Entry& e) {
        return ((static_cast<std::uint64_t>(e.time) - static_cast<std::uint64_t>(lo)) >> shift) &
               (kDigits - 1);
      };
      for (const Entry& e : run_) ++start[digit(e) + 1];
      for (std::size_t d = 1; d <= kDigits; ++d) start[d] += start[d - 1];
      for (const Entry& e : run_) scratch_[start[digit(e)]++] = e;
      run_.swap(scratch_);
    }
    for (std::size_t i = 0; i < run_.size();) {
      std::size_t j = i + 1;
      while (j < run_.size() && run_[j].time == run_[i].time) ++j;
      if (j - i > 1)
        std::sort(run_.begin() + static_cast<std::ptrdiff_t>(i),
                  run_.begin() + static_cast<std::ptrdiff_t>(j), EventHeap::before);
      i = j;
    }
  }

  // A bucket is a list of chunks of entries, taken from one pool: the ring's memory is what it
  // holds, not the most each bucket ever held.
  static constexpr std::uint32_t kChunkEntries = 64;  // 1 KB
  static constexpr std::uint32_t kNil = UINT32_MAX;
  struct Chunk {
    std::array<Entry, kChunkEntries> entries;
    std::uint32_t next;
  };
  struct Bucket {
    std::uint32_t head = kNil, tail = kNil;
    std::uint32_t fill = 0;    // entries in the tail chunk
    std::uint32_t chunks = 0;  // in its list
  };

  double per_tick_;
  std::uint64_t cur_ = 0;  // the current bucket's absolute index
  std::size_t size_ = 0, in_ring_ = 0;
  // The current bucket: its events sorted (read from pos_ on), and those pushed into it since.
  std::vector<Entry> run_, scratch_;
  std::size_t pos_ = 0;
  EventHeap late_;
  const Entry* head_ = nullptr;  // top(): in late_ or run_
  EventHeap overflow_;           // beyond the ring
  std::array<Bucket, kBuckets> buckets_;
  FreeList<Chunk> chunks_;
  std::array<std::uint64_t, kBuckets / 64> occupied_{};
};

}  // namespace sonicsim::engine
