// A pool's `attached` and `spill_over` keys: GPUs inside the client nodes (docs/sites.md).
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

bool Loader::attached(const json& p, const std::string& path, const Scenario& s, ServerPool& pool) {
  const json* x = get(p, "attached");
  const json* spill = get(p, "spill_over");
  if (!x || x->is_null() || (x->is_boolean() && !x->get<bool>())) {
    if (spill)
      add(key_path(path, "spill_over"),
          "found `spill_over` on a pool that is not `attached`, expected it only with "
          "`attached` (remote pools spill over by the sites' `routing`)");
    return !spill;
  }
  const std::string apath = key_path(path, "attached");
  std::optional<std::size_t> workload;
  if (x->is_boolean()) {
    if (s.workloads.size() == 1)
      workload = 0;
    else
      add(apath, "found true with " + std::to_string(s.workloads.size()) +
                     " workloads, expected the name of the workload whose nodes hold the devices");
  } else if (x->is_string()) {
    for (std::size_t w = 0; w < s.workloads.size(); ++w)
      if (!s.workloads[w].name.empty() && s.workloads[w].name == x->get<std::string>())
        workload = w;
    if (!workload) {
      std::vector<std::string> names;
      for (const auto& w : s.workloads)
        if (!w.name.empty()) names.push_back(w.name);
      add(apath, "found " + describe(*x) + ", expected " +
                     (names.empty() ? std::string("true (the scenario's one workload)")
                                    : "the name of a workload: " + join(names)));
    }
  } else {
    add(apath, "found " + describe(*x) +
                   ", expected true (the one workload's nodes each hold a device) or the name "
                   "of the workload whose nodes do");
  }
  if (!workload) return false;
  const Workload& w = s.workloads[*workload];
  bool ok = true;
  const auto refuse = [&](const char* key, const std::string& why) {
    if (!get(p, key)) return;
    add(key_path(path, key), "found `" + std::string(key) + "` on an attached pool, " + why);
    ok = false;
  };
  refuse("count",
         "expected none: an attached pool has one device per client node of its "
         "workload (" +
             std::to_string(w.n_nodes()) + " nodes)");
  refuse("autoscaler", "expected none: a device inside a node is not scaled");
  refuse("site", "expected none: each device is at its node's site");
  if (w.open_loop()) {
    add(apath, "found an open-loop workload (`arrivals`), expected one with client nodes");
    ok = false;
  }
  if (w.n_nodes() > Limits::max_devices) {
    add(apath, "found a workload of " + std::to_string(w.n_nodes()) +
                   " client nodes, expected at most " + std::to_string(Limits::max_devices) +
                   " devices in a pool");
    ok = false;
  }
  if (spill && !spill_over(*spill, key_path(path, "spill_over"), pool.spill_queue_time,
                           pool.spill_in_flight))
    ok = false;
  if (!ok) return false;
  pool.attached = workload;
  pool.count = static_cast<int>(w.n_nodes());
  return true;
}

}  // namespace sonicsim::scenario::detail
