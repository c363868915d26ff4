// A workload's client machines: `workload.node` (the worker node its jobs share and how fast a
// thread runs as the node fills, include/sonicsim/scenario/node.hpp) and `workload.start` (when
// its jobs begin).
#include <string>

#include "keys.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

namespace {
constexpr int kMaxThreadsPerCore = 8;  // POWER's SMT8; x86 has 2
constexpr std::size_t kMaxSpeedPoints = 10'000;
}  // namespace

void Loader::node(const json& v, const std::string& wpath, Workload& w) {
  const std::string path = key_path(wpath, keys::kNode);
  if (!expect_object(v, path,
                     "an object {\"cores\": 32, \"threads_per_core\": 2, \"speed\": "
                     "{\"hyperthread\": 0.6}} (the worker node the jobs share), or null"))
    return;
  check_keys(v, path,
             {keys::kCores, keys::kThreadsPerCore, keys::kSpeed, keys::kCpuTimeMeasuredAt});
  NodeSpec n;
  bool ok_node = true;
  if (const json* x = get(v, keys::kCores)) {
    if (auto c = integer(*x, key_path(path, keys::kCores), 1, Limits::max_host_cores,
                         "physical cores of one worker node"))
      n.cores = static_cast<int>(*c);
    else
      ok_node = false;
  } else {
    missing(key_path(path, keys::kCores), "an integer >= 1 (physical cores of one worker node)");
    ok_node = false;
  }
  if (const json* x = get(v, keys::kThreadsPerCore)) {
    if (auto h = integer(*x, key_path(path, keys::kThreadsPerCore), 1, kMaxThreadsPerCore,
                         "hardware threads per core (2 with hyper-threading)"))
      n.threads_per_core = static_cast<int>(*h);
    else
      ok_node = false;
  }
  if (const json* x = get(v, keys::kSpeed); x && !x->is_null())
    node_speed(*x, key_path(path, keys::kSpeed), n);
  if (const json* x = get(v, keys::kCpuTimeMeasuredAt); x && !x->is_null()) {
    const std::string mpath = key_path(path, keys::kCpuTimeMeasuredAt);
    const std::int64_t full = static_cast<std::int64_t>(w.jobs_per_node) * w.threads_per_job;
    if (x->is_string() && x->get<std::string>() == "full") {
      n.measured_at = static_cast<double>(full);
    } else if (x->is_number_integer()) {
      if (auto b = integer(*x, mpath, 1, Limits::max_threads, "busy hardware threads"))
        n.measured_at = static_cast<double>(*b);
    } else {
      add(mpath, "found " + describe(*x) +
                     ", expected the busy hardware threads at which cpu_time_per_event was "
                     "measured: an integer >= 1, or \"full\" (jobs_per_node x threads_per_job = " +
                     std::to_string(full) + ")");
    }
  }
  if (ok_node && n.threads_per_core == 1 && n.hyperthread != 1.0 && n.table_busy.empty())
    add(key_path(key_path(path, keys::kSpeed), keys::kHyperthread),
        "found " + format_number(n.hyperthread) +
            " with threads_per_core 1, expected threads_per_core >= 2: the speed of hyper-threads "
            "sharing a core needs cores that have them");
  w.node = n;
}

void Loader::node_speed(const json& v, const std::string& path, NodeSpec& n) {
  if (!expect_object(v, path,
                     "an object {\"hyperthread\": 0.6, \"memory_bandwidth_threads\": 48} or "
                     "{\"busy_threads\": [1, 32, 64], \"per_thread\": [1, 0.95, 0.62]}"))
    return;
  check_keys(
      v, path,
      {keys::kHyperthread, keys::kMemoryBandwidthThreads, keys::kBusyThreads, keys::kPerThread});
  const json* busy = get(v, keys::kBusyThreads);
  const json* speed = get(v, keys::kPerThread);
  if (busy || speed) {
    for (const char* k : {keys::kHyperthread, keys::kMemoryBandwidthThreads})
      if (get(v, k))
        add(key_path(path, k), std::string("found `") + k +
                                   "` next to a measured table (busy_threads, per_thread), "
                                   "expected one of them: the table is the whole model");
    if (!busy || !speed || !busy->is_array() || !speed->is_array() ||
        busy->size() != speed->size() || busy->empty() || busy->size() > kMaxSpeedPoints) {
      add(path, "found busy_threads of " + (busy ? describe(*busy) : std::string("nothing")) +
                    " and per_thread of " + (speed ? describe(*speed) : std::string("nothing")) +
                    ", expected two arrays of the same length, 1 to " +
                    std::to_string(kMaxSpeedPoints) + " points");
      return;
    }
    std::vector<double> b, s;
    for (std::size_t i = 0; i < busy->size(); ++i) {
      const std::string bpath = index_path(key_path(path, keys::kBusyThreads), i);
      const auto bi = number((*busy)[i], bpath, Range::at_least(1), "busy threads");
      const auto si = number((*speed)[i], index_path(key_path(path, keys::kPerThread), i),
                             Range{0.0, 1e3, true, false}, "a per-thread speed");
      if (!bi || !si) return;
      if (!b.empty() && *bi <= b.back()) {
        add(bpath, "found " + format_number(*bi) + " after " + format_number(b.back()) +
                       ", expected busy thread counts strictly increasing");
        return;
      }
      b.push_back(*bi);
      s.push_back(*si);
    }
    n.table_busy = std::move(b);
    n.table_speed = std::move(s);
    return;
  }
  if (const json* x = get(v, keys::kHyperthread)) {
    if (auto h = number(*x, key_path(path, keys::kHyperthread), Range{0.0, 1.0, true, false},
                        "a per-thread speed with both hyper-threads busy, relative to one alone"))
      n.hyperthread = *h;
  }
  if (const json* x = get(v, keys::kMemoryBandwidthThreads); x && !x->is_null()) {
    if (auto m = number(*x, key_path(path, keys::kMemoryBandwidthThreads), Range::positive(),
                        "the node's throughput cap in single-thread equivalents"))
      n.memory_bandwidth_threads = *m;
  }
}

void Loader::start_pattern(const json& v, const std::string& wpath, Workload& w) {
  const std::string path = key_path(wpath, keys::kStart);
  if (w.flow) {
    add(path,
        "found `start` next to a job flow, expected one of them: `flow.start` says when a "
        "flow's jobs start");
    return;
  }
  StartPattern st;
  const json* pattern = &v;
  if (v.is_object()) {
    check_keys(v, path, {keys::kPattern, keys::kInterval, keys::kWindow});
    pattern = get(v, keys::kPattern);
    if (!pattern) {
      missing(key_path(path, keys::kPattern),
              "one of \"spread\", \"together\", \"staggered\", \"random\"");
      return;
    }
  } else if (!v.is_string()) {
    add(path, "found " + describe(v) +
                  ", expected \"spread\", \"together\", or an object {\"pattern\": "
                  "\"staggered\", \"interval\": \"2s\"} / {\"pattern\": \"random\", "
                  "\"window\": \"60s\"}");
    return;
  }
  const std::string ppath = v.is_object() ? key_path(path, keys::kPattern) : path;
  const auto name = choice(*pattern, ppath, {"spread", "together", "staggered", "random"});
  if (!name) return;
  const struct {
    const char* name;
    StartPattern::Kind kind;
    const char* key;  // the time it needs, or nullptr
    double StartPattern::*field;
  } kinds[] = {
      {"spread", StartPattern::Kind::Spread, nullptr, nullptr},
      {"together", StartPattern::Kind::Together, nullptr, nullptr},
      {"staggered", StartPattern::Kind::Staggered, keys::kInterval, &StartPattern::interval},
      {"random", StartPattern::Kind::Random, keys::kWindow, &StartPattern::window}};
  for (const auto& k : kinds) {
    if (*name != k.name) continue;
    st.kind = k.kind;
    for (const char* other : {keys::kInterval, keys::kWindow})
      if (v.is_object() && get(v, other) && (!k.key || std::string(k.key) != other))
        add(key_path(path, other),
            "found `" + std::string(other) + "` with pattern \"" + *name +
                "\", expected it only with \"" +
                (std::string(other) == keys::kInterval ? "staggered" : "random") + "\"");
    if (!k.key) break;
    const json* t = v.is_object() ? get(v, k.key) : nullptr;
    if (!t) {
      missing(
          v.is_object() ? key_path(path, k.key) : path,
          std::string("a time > 0 (`") + k.key + "`, e.g. \"2s\") for pattern \"" + *name + "\"");
      break;
    }
    if (auto s = quantity(*t, key_path(path, k.key), Quantity::Time,
                          Range{0.0, Limits::max_duration_s, true, false}))
      st.*(k.field) = *s;
  }
  w.start = st;
}

}  // namespace sonicsim::scenario::detail
