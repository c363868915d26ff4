#include "attached_devices.hpp"

#include <sonicsim/scenario/sites.hpp>

#include "clients.hpp"
#include "request_path.hpp"
#include "server_pools.hpp"

namespace sonicsim::engine {

void AttachedDevices::build() {
  const auto& sc = ctx_.sc;
  auto& servers = parts_.servers;
  bool any = false;
  for (const auto& pool : sc.servers) any = any || pool.attached.has_value();
  if (!any) return;
  attached_.assign(servers.device_count(), 0);
  local_.assign(sc.models.size(), {});
  const std::size_t nodes = static_cast<std::size_t>(sc.client_nodes());
  std::uint32_t d = 0;
  for (const auto& pool : sc.servers) {
    if (!pool.attached) {
      d += static_cast<std::uint32_t>(pool.count);
      continue;
    }
    // Device c of the pool is in the workload's node c.
    const std::size_t first = scenario::first_node_of(sc, *pool.attached);
    for (int c = 0; c < pool.count; ++c, ++d) {
      attached_[d] = 1;
      for (const auto& name : pool.models) {
        auto& local = local_[static_cast<std::size_t>(sc.model_index(name))];
        if (local.empty()) local.assign(nodes, kNone);
        local[first + static_cast<std::size_t>(c)] = d;
      }
    }
  }
}

std::uint32_t AttachedDevices::local_choice(std::uint32_t model, std::uint32_t thread,
                                            bool thresholds) const {
  const auto& local = local_[model];
  if (local.empty()) return kNone;
  const std::uint32_t d = local[parts_.clients.node_of(thread)];
  if (d == kNone) return kNone;
  const auto& servers = parts_.servers;
  if (servers.device(d).state != ServerPools::State::Up) return kNone;
  if (!thresholds) return d;
  const auto& pool = ctx_.sc.servers[servers.device(d).pool];
  if (pool.spill_in_flight && parts_.path.active(d) > *pool.spill_in_flight) return kNone;
  if (pool.spill_queue_time && servers.expected_wait(d, model) > *pool.spill_queue_time)
    return kNone;
  return d;
}

}  // namespace sonicsim::engine
