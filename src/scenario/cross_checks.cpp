// Checks between sections, once every section is read: a request's model exists and takes its
// items, a pool's models have a curve for its device, ...
#include <cmath>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

void Loader::cross_check(const json& doc, Scenario& s) {
  std::vector<std::string> model_names;
  for (const Model& m : s.models) model_names.push_back(m.name);
  const auto unknown_model = [&](const std::string& name) {
    std::string message = "found \"" + name + "\", expected the name of a model in `models`";
    if (model_names.empty()) return message + " (none is defined)";
    const std::string hint = did_you_mean(name, model_names);
    return message + (hint.empty() ? " (defined: " + join(model_names) + ")" : "; " + hint);
  };

  // Requests, per workload.
  const json* many = get(doc, "workloads");
  for (std::size_t w = 0; w < s.workloads.size(); ++w) {
    const Workload& wl = s.workloads[w];
    const std::string wpath = many ? index_path("workloads", w) : "workload";
    const json* wdoc = many ? (many->is_array() && w < many->size() ? &(*many)[w] : nullptr)
                            : get(doc, "workload");
    const json* requests = wdoc && wdoc->is_object() ? get(*wdoc, "requests") : nullptr;
    if (!requests || !requests->is_array() || requests->size() != wl.requests.size()) continue;
    const std::string rspath = key_path(wpath, "requests");
    double p = 0.0;
    for (std::size_t i = 0; i < wl.requests.size(); ++i) {
      const RequestSpec& r = wl.requests[i];
      const std::string rpath = index_path(rspath, i);
      p += r.offload_fraction;
      if (r.model.empty()) continue;
      const Model* m = s.find_model(r.model);
      if (!m) {
        add(key_path(rpath, "model"), unknown_model(r.model));
        continue;
      }
      // A model no pool hosts is legal: the engine serves it with the CPU fallback.
      const double hi = r.items.upper_bound();
      if (m->max_batch_size > 0 && std::isfinite(hi) && hi > m->max_batch_size) {
        add(key_path(rpath, "items"),
            "found up to " + format_number(hi) + " items per request, expected at most " +
                "max_batch_size " + std::to_string(m->max_batch_size) + " of model `" + r.model +
                "` (Triton rejects larger requests)");
      }
    }
    if (p > 1.0 + 1e-9) {
      add(rspath,
          "found offload fractions summing to " + format_number(p) +
              ", expected a sum <= 1 (p is the share of t_CPU spent in the offloaded algorithms)");
    }
    if (wl.cpu_time_per_event.expected() <= 0.0 && wl.requests.empty() &&
        get(*wdoc, "cpu_time_per_event")) {
      add(key_path(wpath, "cpu_time_per_event"),
          "found events with no CPU time and no requests, expected a positive time or requests "
          "(such events would take no time at all)");
    }
  }

  if (s.workload().open_loop()) {
    std::int64_t per_arrival = 0;
    for (const RequestSpec& r : s.workload().requests) per_arrival += r.per_event;
    if (per_arrival > s.workload().arrivals->max_in_flight)
      add(std::string(get(doc, "workloads") ? "workloads[0]" : "workload") +
              ".arrivals.max_in_flight",
          "found " + std::to_string(s.workload().arrivals->max_in_flight) +
              ", expected at least the " + std::to_string(per_arrival) +
              " requests one arrival sends (otherwise no arrival could ever be sent)");
  }

  // Pools.
  for (std::size_t i = 0; i < s.servers.size(); ++i) {
    const ServerPool& pool = s.servers[i];
    for (std::size_t k = 0; k < pool.models.size(); ++k) {
      const std::string mpath = index_path(key_path(index_path("servers", i), "models"), k);
      const Model* m = s.find_model(pool.models[k]);
      if (!m) {
        add(mpath, unknown_model(pool.models[k]));
        continue;
      }
      // A model whose own definition is broken already has its problems reported.
      if (pool.device.empty() || !defined_models_.count(m->name)) continue;
      if (!m->service_time.count(pool.device) && !m->service_time.count("*")) {
        std::vector<std::string> devices;
        for (const auto& [device, curve] : m->service_time) devices.push_back(device);
        add(mpath, "model `" + m->name + "` has no service_time curve for device `" + pool.device +
                       "` (it has: " + join(devices) +
                       "), expected a curve for it or a \"*\" curve");
      }
    }
  }
  device_kind_checks(s);
  memory_checks(s);
}

}  // namespace sonicsim::scenario::detail
