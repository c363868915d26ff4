// The `servers` section: pools of identical devices and their autoscalers.
#include <algorithm>
#include <cmath>
#include <map>

#include "keys.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

void Loader::servers(const json& v, const std::string& path, Scenario& s) {
  if (!v.is_array()) {
    add(path, "found " + describe(v) +
                  ", expected an array of server pools (empty for the CPU-only baseline)");
    return;
  }
  std::map<std::string, std::string> names;  // pool name -> path of its first use
  std::int64_t devices = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string ppath = index_path(path, i);
    const json& p = v[i];
    if (!expect_object(p, ppath, "a server pool {\"name\", \"count\", \"device\", \"models\"}"))
      continue;
    check_keys(p, ppath,
               {keys::kName, keys::kCount, "device", keys::kModels, keys::kStartupDelay,
                keys::kDrainTimeout, "autoscaler", keys::kSite, "attached", "spill_over", "host",
                "model_control"});
    ServerPool pool;
    bool count_ok = true;
    if (const json* x = get(p, keys::kName)) {
      if (auto n = string(*x, key_path(ppath, keys::kName))) {
        pool.name = *n;
        if (auto [it, fresh] = names.emplace(*n, key_path(ppath, keys::kName)); !fresh) {
          add(key_path(ppath, keys::kName), "found " + describe(*x) + " again (also at " +
                                                it->second + "), expected unique pool names");
        }
      }
    } else {
      missing(key_path(ppath, keys::kName), "a pool name, unique among the pools");
    }
    if (const json* x = get(p, keys::kCount)) {
      if (auto c = integer(*x, key_path(ppath, keys::kCount), 1, Limits::max_devices, "devices"))
        pool.count = static_cast<int>(*c);
      else
        count_ok = false;
    }
    if (!attached(p, ppath, s, pool)) count_ok = false;
    devices += pool.count;
    if (const json* x = get(p, "device")) {
      if (auto d = string(*x, key_path(ppath, "device"))) pool.device = *d;
    } else {
      missing(key_path(ppath, "device"), "a device name such as \"T4\"");
    }
    const std::string mpath = key_path(ppath, keys::kModels);
    if (const json* x = get(p, keys::kModels)) {
      if (!x->is_array() || x->empty()) {
        add(mpath, "found " + describe(*x) + ", expected a non-empty array of model names");
      } else {
        for (std::size_t k = 0; k < x->size(); ++k) {
          auto name = string((*x)[k], index_path(mpath, k));
          if (!name) continue;
          if (std::find(pool.models.begin(), pool.models.end(), *name) != pool.models.end()) {
            add(index_path(mpath, k),
                "found " + describe((*x)[k]) + " twice, expected each model once per pool");
            continue;
          }
          pool.models.push_back(*name);
        }
      }
    } else {
      missing(mpath, "an array of the names of the models this pool serves");
    }
    if (const json* x = get(p, keys::kStartupDelay)) {
      if (auto t = quantity(*x, key_path(ppath, keys::kStartupDelay), Quantity::Time,
                            Range::at_least(0)))
        pool.startup_delay = *t;
    }
    if (const json* x = get(p, keys::kDrainTimeout)) {
      if (auto t = quantity(*x, key_path(ppath, keys::kDrainTimeout), Quantity::Time,
                            Range::at_least(0)))
        pool.drain_timeout = *t;
    }
    if (const json* x = get(p, "host"); x && !x->is_null()) {
      if (pool.attached)
        add(key_path(ppath, "host"),
            "found a host on an `attached` pool, expected none (its devices sit in the client "
            "nodes)");
      else if (count_ok)
        server_host(*x, key_path(ppath, "host"), pool);
    }
    model_control(p, ppath, pool);
    if (const json* x = get(p, "autoscaler"); x && !x->is_null() && !pool.attached) {
      if (pool.host && pool.host->devices > 1)
        add(key_path(ppath, "autoscaler"),
            "found an autoscaler on a pool of " + std::to_string(pool.host->devices) +
                " devices per host, expected host.devices 1 with an autoscaler (it scales "
                "one-device servers; scaling multi-device hosts is not modelled yet)");
      pool.autoscaler = autoscaler(*x, key_path(ppath, "autoscaler"),
                                   count_ok ? std::optional<int>(pool.count) : std::nullopt);
    }
    s.servers.push_back(std::move(pool));
  }
  if (devices > Limits::max_devices) {
    add(path, "found " + std::to_string(devices) + " devices in all pools, expected at most " +
                  std::to_string(Limits::max_devices));
  }
}

// `servers[i].autoscaler`: KEDA + HPA scaling the pool between min_replicas and max_replicas.
std::optional<Autoscaler> Loader::autoscaler(const json& v, const std::string& path,
                                             std::optional<int> count) {
  if (!expect_object(v, path,
                     "an object {\"metric\": \"queue_time\", \"threshold\": \"20ms\", "
                     "\"min_replicas\": 1, \"max_replicas\": 4}, or null (no autoscaling)"))
    return std::nullopt;
  check_keys(v, path,
             {"metric", "threshold", "target", "window", "polling_interval", "cooldown",
              "tolerance", "min_replicas", "max_replicas", "initial_replicas", "scale_up",
              "scale_down", "wake_from_zero"});
  const std::size_t before = problems.size();
  Autoscaler a;
  std::optional<std::string> metric = "queue_time";
  if (const json* x = get(v, "metric")) {
    metric = choice(*x, key_path(path, "metric"), {"queue_time", "utilization", "queue_length"});
    if (metric)
      a.metric = *metric == "utilization"    ? Autoscaler::Metric::Utilization
                 : *metric == "queue_length" ? Autoscaler::Metric::QueueLength
                                             : Autoscaler::Metric::QueueTime;
  }
  // The threshold is in the metric's unit; without a valid metric there is nothing to check.
  const std::string tpath = key_path(path, "threshold");
  const std::string expected_threshold =
      !metric ? std::string()
      : *metric == "utilization"
          ? "a busy fraction in (0, 1] for metric \"utilization\" (e.g. 0.8: scale up when the "
            "replicas are busy more than 80% of the time)"
      : *metric == "queue_length"
          ? "a number of queued requests from 1e-06 to 1e+09 for metric \"queue_length\" (e.g. 10)"
          : "a time from 1ns (the clock's resolution: a shorter one cannot be told from 0) to "
            "1e9 s for metric \"queue_time\" (the queue time per execution, e.g. \"20ms\")";
  if (const json* x = get(v, "threshold")) {
    if (metric) {
      std::optional<double> t;
      if (*metric == "queue_time") {
        std::string error;
        t = parse_quantity(*x, Quantity::Time, error);
        if (t) read_quantity(*x, tpath, Quantity::Time, *t);
        if (!t) {
          add(tpath, error +
                         " (the threshold of metric \"queue_time\" is a time from 1ns to 1e9 s "
                         "such as \"20ms\")");
        } else if (!(*t >= Limits::clock_tick_s && *t <= Limits::max_time_s)) {
          add(tpath, "found " + describe(*x) + ", expected " + expected_threshold);
          t.reset();
        }
      } else {
        const Range range =
            *metric == "utilization" ? Range{0.0, 1.0, true, false} : Range::closed(1e-6, 1e9);
        if (x->is_number() && std::isfinite(x->get<double>()) && range.contains(x->get<double>()))
          t = x->get<double>();
        else
          add(tpath, "found " + describe(*x) + ", expected " + expected_threshold);
      }
      if (t) a.threshold = *t;
    }
  } else {
    missing(tpath, metric ? expected_threshold
                          : std::string("the value of the metric to hold the replicas at"));
  }
  if (const json* x = get(v, "target")) {
    if (auto t = choice(*x, key_path(path, "target"), {"value", "average_value"}))
      a.target =
          *t == "average_value" ? Autoscaler::Target::AverageValue : Autoscaler::Target::Value;
  }
  optional_quantity(v, path, "window", Quantity::Time, Range::positive(), a.window);
  if (optional_quantity(v, path, "polling_interval", Quantity::Time, Range::positive(),
                        a.polling_interval) &&
      get(v, "polling_interval"))
    at_least_tick(describe(*get(v, "polling_interval")), key_path(path, "polling_interval"),
                  a.polling_interval);
  optional_quantity(v, path, "cooldown", Quantity::Time, Range::at_least(0), a.cooldown);
  if (const json* x = get(v, "wake_from_zero"))
    if (auto b = boolean(*x, key_path(path, "wake_from_zero"))) a.wake_from_zero = *b;
  if (const json* x = get(v, "tolerance")) {
    if (auto t = number(*x, key_path(path, "tolerance"), Range{0.0, 1.0, false, true}))
      a.tolerance = *t;
  }

  // Replicas: min <= initial <= max <= count. Each is checked on its own first.
  const std::string count_text = count ? std::to_string(*count) : std::string();
  // null is the default, as if the key were absent: `--set ...max_replicas=null` lets the
  // ceiling follow the pool's count again (what `plan min-devices` needs to vary it).
  const auto present = [&](const char* key) -> const json* {
    const json* x = get(v, key);
    return x && !x->is_null() ? x : nullptr;
  };
  const auto replicas = [&](const char* key, std::int64_t lo) -> std::optional<int> {
    const json* x = present(key);
    if (!x) return std::nullopt;
    const std::string rpath = key_path(path, key);
    auto n = integer(*x, rpath, lo, Limits::max_devices, "replicas");
    if (!n) return std::nullopt;
    if (count && *n > *count) {
      add(rpath, "found " + describe(*x) + ", expected at most the pool's count " + count_text +
                     ": count is the most devices the pool can hold (raise count to let the "
                     "autoscaler add more)");
      return std::nullopt;
    }
    return static_cast<int>(*n);
  };
  const json* min_x = present("min_replicas");
  const json* max_x = present("max_replicas");
  const json* initial_x = present("initial_replicas");
  const auto min_r = replicas("min_replicas", 0);
  const auto max_r = replicas("max_replicas", 1);
  const auto initial_r = replicas("initial_replicas", 0);
  const bool min_ok = !min_x || min_r, max_ok = !max_x || max_r;
  if (min_r) a.min_replicas = *min_r;
  a.max_replicas = max_r ? *max_r : count.value_or(a.max_replicas);
  if (min_ok && max_ok && (count || max_x) && a.min_replicas > a.max_replicas) {
    add(key_path(path, "min_replicas"),
        "found min_replicas " + std::to_string(a.min_replicas) + " above max_replicas " +
            std::to_string(a.max_replicas) + ", expected min_replicas <= max_replicas");
  } else if (initial_r) {
    // Against the bounds that are valid (an invalid one is reported already).
    const int lo = min_ok ? a.min_replicas : 0;
    const int hi =
        max_ok && (count || max_x) ? a.max_replicas : static_cast<int>(Limits::max_devices);
    if (*initial_r < lo || *initial_r > hi)
      add(key_path(path, "initial_replicas"),
          "found " + describe(*initial_x) + ", expected an integer in [" + std::to_string(lo) +
              ", " + std::to_string(hi) +
              "] (between min_replicas and max_replicas: the replicas at time 0)");
  }
  a.initial_replicas = initial_r ? *initial_r : a.min_replicas;

  if (const json* x = get(v, "scale_up"); x && !x->is_null()) {
    if (auto b = behavior(*x, key_path(path, "scale_up"), a.scale_up)) a.scale_up = *b;
  }
  if (const json* x = get(v, "scale_down"); x && !x->is_null()) {
    if (auto b = behavior(*x, key_path(path, "scale_down"), a.scale_down)) a.scale_down = *b;
  }
  if (problems.size() != before) return std::nullopt;
  return a;
}

// HPA's scaleUp / scaleDown behaviour; `b` holds the direction's defaults.
std::optional<Autoscaler::Behavior> Loader::behavior(const json& v, const std::string& path,
                                                     Autoscaler::Behavior b) {
  if (!expect_object(v, path,
                     "an object {\"stabilization_window\": \"5min\", \"step\": 1, \"period\": "
                     "\"15s\"}, or null"))
    return std::nullopt;
  check_keys(v, path, {"stabilization_window", "step", "period"});
  bool ok = true;
  if (const json* x = get(v, "stabilization_window")) {
    if (auto t = quantity(*x, key_path(path, "stabilization_window"), Quantity::Time,
                          Range::at_least(0)))
      b.stabilization_window = *t;
    else
      ok = false;
  }
  if (const json* x = get(v, "step")) {
    if (auto n = integer(*x, key_path(path, "step"), 1, Limits::max_devices,
                         "replicas added or removed per period"))
      b.step = static_cast<int>(*n);
    else
      ok = false;
  }
  if (const json* x = get(v, "period")) {
    if (auto t = quantity(*x, key_path(path, "period"), Quantity::Time, Range::positive()))
      b.period = *t;
    else
      ok = false;
  }
  if (!ok) return std::nullopt;
  return b;
}

}  // namespace sonicsim::scenario::detail
