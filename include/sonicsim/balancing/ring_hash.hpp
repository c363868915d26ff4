// ring_hash: a consistent hash of the client (the job; an open loop's arrival is a client of its
// own) on a ring of `ring_entries_per_host` points per device: each job sticks to one device
// while the devices stay the same, and a device going away moves its own clients and no others.
// No Envoy of SuperSONIC's chart hashes clients (its route has no hash_policy): no lbPolicy maps
// here (random.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include <sonicsim/balancing/policy.hpp>

namespace sonicsim::balancing {

struct RingHash {
  static constexpr std::string_view name = "ring_hash";
  struct Settings {
    // A fixed number per device (not Envoy's ring of at least 1024 in total), so that a device
    // going away moves its own clients and no others.
    int ring_entries_per_host = 256;
    bool operator==(const Settings&) const = default;
  };
  static constexpr std::array<IntKey<Settings>, 1> keys{
      {{"ring_entries_per_host", &Settings::ring_entries_per_host, 1, 100000, "entries",
        "points of each device on the hash ring"}}};
  static constexpr std::array<EnvoyName, 0> envoy{};

  struct State {
    // Per model, (hash, device) sorted by hash; a client takes the first entry at or after its
    // own hash.
    std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> rings;
  };
  // A device's points depend on the seed and the device alone, not on the model or the other
  // hosts: the same device holds the same arcs of every model's ring.
  template <class Env>
  static State build(const Settings& s, Env& env) {
    State st;
    st.rings.resize(env.models());
    for (std::uint32_t mi = 0; mi < env.models(); ++mi) {
      const auto& hosting = env.hosting(mi);
      auto& ring = st.rings[mi];
      ring.reserve(static_cast<std::size_t>(s.ring_entries_per_host) * hosting.size());
      for (std::uint32_t d : hosting)
        for (int k = 0; k < s.ring_entries_per_host; ++k)
          ring.push_back({env.ring_point(d, static_cast<std::uint64_t>(k)), d});
      std::sort(ring.begin(), ring.end());
    }
    return st;
  }
  // A device that is not up (or not at the chosen site) is skipped: its clients move to the next
  // point on the ring, no one else. None left: no server (UINT32_MAX).
  template <class Env>
  static std::uint32_t pick(const Settings&, State& st, Env& env, const Hosts&, std::uint32_t model,
                            std::uint32_t site, std::uint32_t thread) {
    const std::uint64_t key = env.client_hash(thread);
    const auto& ring = st.rings[model];
    auto it = std::lower_bound(ring.begin(), ring.end(), std::make_pair(key, std::uint32_t{0}));
    for (std::size_t k = 0; k < ring.size(); ++k, ++it) {
      if (it == ring.end()) it = ring.begin();
      if (env.serves(it->second, site)) return it->second;
    }
    return UINT32_MAX;
  }
};

}  // namespace sonicsim::balancing
