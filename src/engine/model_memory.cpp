#include "model_memory.hpp"

#include <algorithm>

#include "server_pools.hpp"
#include "site_operations.hpp"

namespace sonicsim::engine {

void ModelMemory::build() {
  const auto& sc = ctx_.sc;
  auto& servers = parts_.servers;
  slots_.resize(servers.batcher_count());
  devices_.resize(servers.device_count());
  peak_.assign(sc.servers.size(), 0.0);
  for (std::size_t p = 0; p < sc.servers.size(); ++p) {
    const auto& pool = sc.servers[p];
    const scenario::DeviceSpec* spec = sc.find_device(pool.device);
    bool tracked = pool.model_control == scenario::ModelControl::Explicit ||
                   (spec && spec->memory.has_value());
    for (const auto& name : pool.models) {
      const auto& m = sc.models[static_cast<std::size_t>(sc.model_index(name))];
      tracked = tracked || m.memory || m.load_time > 0.0;
    }
    ctx_.metrics.pools[p].memory_tracked = tracked;
    if (spec && spec->memory) ctx_.metrics.pools[p].memory_capacity_bytes = *spec->memory;
  }
  for (std::uint32_t d = 0; d < servers.device_count(); ++d) {
    const auto& dev = servers.device(d);
    const auto& pool = sc.servers[dev.pool];
    const scenario::DeviceSpec* spec = sc.find_device(pool.device);
    DeviceMemory& dm = devices_[d];
    dm.explicit_control = pool.model_control == scenario::ModelControl::Explicit;
    dm.capacity = spec && spec->memory ? *spec->memory : kInf;
    explicit_ = explicit_ || dm.explicit_control;
    for (std::uint32_t mi = 0; mi < dev.batcher_of_model.size(); ++mi) {
      const std::uint32_t bi = dev.batcher_of_model[mi];
      if (bi == ServerPools::kNone) continue;
      Slot& s = slots_[bi];
      s.device = d;
      s.model = mi;
      s.bytes = sc.models[mi].memory_bytes();
      dm.slots.push_back(bi);
      // The run begins with its servers up and their models loaded, as without these keys.
      // (A pool without model control holds all of them whenever a server is up: its peak is
      // their footprint, whether or not a server of it is up now.)
      if (!dm.explicit_control) {
        s.status = Status::Loaded;
        use(d, s.bytes);
      }
    }
  }
}

double ModelMemory::start_up_loading(std::uint32_t d) const {
  const DeviceMemory& dm = devices_[d];
  if (dm.explicit_control) return 0.0;
  double seconds = 0.0;
  for (std::uint32_t bi : dm.slots) seconds += ctx_.sc.models[slots_[bi].model].load_time;
  return seconds;
}

void ModelMemory::state_changed(std::uint32_t d, State from, State to) {
  DeviceMemory& dm = devices_[d];
  const std::uint32_t pool = parts_.servers.device(d).pool;
  if (from == State::Starting && to == State::Up && !dm.explicit_control) {
    for (std::uint32_t bi : dm.slots) count_load(pool, ctx_.sc.models[slots_[bi].model].load_time);
    return;
  }
  if (to != State::Off && to != State::Down) return;
  // Its queues were dropped with it; a server that comes back loads anew.
  if (!dm.explicit_control) return;
  for (std::uint32_t bi : dm.slots) {
    Slot& s = slots_[bi];
    s.status = Status::Unloaded;
    s.closing = s.waiting = false;
  }
  dm.used = 0.0;
  dm.waiting.clear();
}

bool ModelMemory::idle(std::uint32_t bi) const {
  const Batcher& b = parts_.servers.batcher(bi);
  return b.queued() == 0 && b.free_instances() == b.instances();
}

// What left the queue since the last look (taken into executions, or rejected for a timeout)
// comes off a closing model's backlog; arrivals only add to the queue, never to the backlog.
void ModelMemory::count_backlog(Slot& s, std::uint32_t bi) {
  const std::size_t queued = parts_.servers.batcher(bi).queued();
  if (queued < s.seen) s.backlog -= std::min(s.backlog, s.seen - queued);
  s.seen = queued;
}

bool ModelMemory::may_start_explicit(std::uint32_t bi) {
  Slot& s = slots_[bi];
  if (!devices_[s.device].explicit_control) return true;
  switch (s.status) {
    case Status::Loaded:
      s.last_used = ctx_.now;
      if (!s.closing) return true;
      count_backlog(s, bi);
      return s.backlog > 0;
    case Status::Loading:
      return false;
    case Status::Unloaded:
      if (parts_.servers.batcher(bi).queued() > 0) {
        ask_load(bi);
        try_loads(s.device);
      }
      return false;
  }
  return false;
}

void ModelMemory::settle(std::uint32_t bi) {
  Slot& s = slots_[bi];
  DeviceMemory& dm = devices_[s.device];
  if (!dm.explicit_control || s.status != Status::Loaded) return;
  if (s.closing) {
    count_backlog(s, bi);
    if (s.backlog > 0 ||
        parts_.servers.batcher(bi).free_instances() != parts_.servers.batcher(bi).instances())
      return;
    unload(bi);
    // Requests that came after it was told to unload wait for its next load.
    if (parts_.servers.batcher(bi).queued() > 0) ask_load(bi);
    try_loads(s.device);
  } else if (!dm.waiting.empty() && idle(bi)) {
    try_loads(s.device);
  }
}

void ModelMemory::ask_load(std::uint32_t bi) {
  Slot& s = slots_[bi];
  if (s.waiting) return;
  s.waiting = true;
  devices_[s.device].waiting.push_back(bi);
}

// Starts the waiting loads in turn while memory allows; the first that does not fit makes room
// and the others wait behind it.
void ModelMemory::try_loads(std::uint32_t d) {
  DeviceMemory& dm = devices_[d];
  while (!dm.waiting.empty()) {
    const std::uint32_t bi = dm.waiting.front();
    Slot& s = slots_[bi];
    if (parts_.servers.batcher(bi).queued() == 0) {  // nothing left to load it for
      s.waiting = false;
      dm.waiting.pop_front();
      continue;
    }
    if (dm.capacity - dm.used < s.bytes) unload_idle(d, s.bytes);
    if (dm.capacity - dm.used < s.bytes) {
      close_for(d, s.bytes);
      return;
    }
    s.waiting = false;
    dm.waiting.pop_front();
    start_load(bi);
  }
  // No load waits any more: models told to unload for one keep serving as before.
  for (std::uint32_t bi : dm.slots) slots_[bi].closing = false;
}

// Idle models on device d, or busy ones not yet told to unload, least recently used first.
std::vector<std::uint32_t> ModelMemory::least_recent(std::uint32_t d, bool want_idle) const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t bi : devices_[d].slots) {
    const Slot& s = slots_[bi];
    if (s.status != Status::Loaded) continue;
    if (want_idle ? idle(bi) : !s.closing && !idle(bi)) out.push_back(bi);
  }
  std::stable_sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
    return slots_[a].last_used < slots_[b].last_used;
  });
  return out;
}

void ModelMemory::unload_idle(std::uint32_t d, double need) {
  DeviceMemory& dm = devices_[d];
  for (std::uint32_t bi : least_recent(d, true)) {
    if (dm.capacity - dm.used >= need) return;
    unload(bi);
  }
}

// Tells the least recently used busy models to unload until what they hold, with what is free
// and what others told before them hold, makes room for `need`.
void ModelMemory::close_for(std::uint32_t d, double need) {
  DeviceMemory& dm = devices_[d];
  double room = dm.capacity - dm.used;
  for (std::uint32_t bi : dm.slots)
    if (slots_[bi].status == Status::Loaded && slots_[bi].closing) room += slots_[bi].bytes;
  for (std::uint32_t bi : least_recent(d, false)) {
    if (room >= need) return;
    Slot& s = slots_[bi];
    s.closing = true;
    s.seen = s.backlog = parts_.servers.batcher(bi).queued();
    room += s.bytes;
  }
}

void ModelMemory::start_load(std::uint32_t bi) {
  Slot& s = slots_[bi];
  s.status = Status::Loading;
  use(s.device, s.bytes);
  s.generation = (s.generation + 1) & kGenerationMask;
  parts_.operations.plan_model_loaded(bi, ctx_.now + ctx_.sc.models[s.model].load_time,
                                      s.generation);
}

void ModelMemory::on_loaded(std::uint32_t bi, std::uint32_t generation) {
  Slot& s = slots_[bi];
  // A load the server's crash or stop cut short is stale (a later one has its own generation).
  if (s.generation != generation || s.status != Status::Loading) return;
  const auto& dev = parts_.servers.device(s.device);
  s.status = Status::Loaded;
  s.closing = false;
  s.last_used = ctx_.now;
  count_load(dev.pool, ctx_.sc.models[s.model].load_time);
  parts_.servers.on_batcher_wake(bi);
  try_loads(s.device);
}

void ModelMemory::unload(std::uint32_t bi) {
  Slot& s = slots_[bi];
  s.status = Status::Unloaded;
  s.closing = false;
  devices_[s.device].used -= s.bytes;
  if (ctx_.now >= ctx_.warmup)
    ++ctx_.metrics.pools[parts_.servers.device(s.device).pool].model_unloads;
}

void ModelMemory::use(std::uint32_t d, double bytes) {
  DeviceMemory& dm = devices_[d];
  dm.used += bytes;
  const std::uint32_t pool = parts_.servers.device(d).pool;
  peak_[pool] = std::max(peak_[pool], dm.used);
}

// Loads count after the warm-up, when they end (a load a crash cut short is not counted).
void ModelMemory::count_load(std::uint32_t pool, double seconds) {
  if (ctx_.now < ctx_.warmup) return;
  auto& pm = ctx_.metrics.pools[pool];
  ++pm.model_loads;
  pm.load_time_s += seconds;
}

void ModelMemory::finish() {
  for (std::size_t p = 0; p < peak_.size(); ++p) ctx_.metrics.pools[p].memory_used_bytes = peak_[p];
}

}  // namespace sonicsim::engine
