// How a device executes (docs/servers.md): `devices.D.kind` ("gpu" or "pipeline"), the overlap
// curve of concurrent executions (`devices.D.overlap`), a model's timing on a pipeline device
// (`models.M.service_time.D` = {"latency", "interval" | "throughput"}), and the checks that tie
// them together once every section is read.
#include <algorithm>
#include <tuple>

#include "loader_impl.hpp"

namespace sonicsim::scenario {

double Overlap::at(double k) const {
  if (executions.empty() || k <= executions.front())
    return throughput.empty() ? 1.0 : throughput.front();
  if (k >= executions.back()) return throughput.back();
  const auto upper = std::upper_bound(executions.begin(), executions.end(), k);
  const std::size_t i = static_cast<std::size_t>(upper - executions.begin());
  const double t = (k - executions[i - 1]) / (executions[i] - executions[i - 1]);
  return throughput[i - 1] + t * (throughput[i] - throughput[i - 1]);
}

namespace detail {

namespace {

const char* const kOverlapExample = "{\"executions\": [1, 2, 4], \"throughput\": [1.0, 1.6, 1.9]}";

const char* const kPipelineExample =
    "{\"latency\": \"1.8ms\", \"interval\": \"1.6ms\"} or {\"latency\": \"1.8ms\", "
    "\"throughput\": \"600/s\"}";

}  // namespace

// `devices.D.kind` and `devices.D.overlap`.
void Loader::device_kind(const json& v, const std::string& path, DeviceSpec& d) {
  if (const json* x = get(v, "kind")) {
    if (auto k = choice(*x, key_path(path, "kind"), {"gpu", "pipeline"}))
      d.kind = *k == "pipeline" ? DeviceKind::Pipeline : DeviceKind::Gpu;
  }
  const json* o = get(v, "overlap");
  if (!o || o->is_null()) return;
  const std::string opath = key_path(path, "overlap");
  if (d.kind == DeviceKind::Pipeline) {
    add(opath,
        "found an overlap curve on a pipeline device, expected none: a pipeline's "
        "throughput is 1 / interval whatever runs on it");
    return;
  }
  d.overlap = overlap(*o, opath);
}

std::optional<Overlap> Loader::overlap(const json& v, const std::string& path) {
  if (!expect_object(v, path, std::string("an overlap curve ") + kOverlapExample)) return {};
  check_keys(v, path, {"executions", "throughput"});
  const json* e = get(v, "executions");
  const json* t = get(v, "throughput");
  const std::string epath = key_path(path, "executions"), tpath = key_path(path, "throughput");
  bool ok = true;
  for (const auto& [x, p, what] :
       {std::tuple{e, epath, "executions running at once"},
        std::tuple{t, tpath, "the device's throughput at each, relative to one execution"}}) {
    if (!x) {
      missing(p, std::string("an array of ") + what + ", e.g. " + kOverlapExample);
      ok = false;
    } else if (!x->is_array() || x->empty()) {
      add(p, "found " + describe(*x) + ", expected a non-empty array of " + what);
      ok = false;
    }
  }
  if (!ok) return {};
  if (e->size() != t->size()) {
    add(tpath, "found " + std::to_string(t->size()) + " throughputs for " +
                   std::to_string(e->size()) + " execution counts, expected one per count");
    return {};
  }
  Overlap c;
  for (std::size_t i = 0; i < e->size(); ++i) {
    const std::string ep = index_path(epath, i), tp = index_path(tpath, i);
    const auto k = integer((*e)[i], ep, 1, Limits::max_instances, "executions at once");
    const auto x = number((*t)[i], tp, Range::positive(), "a relative throughput");
    if (!k || !x) {
      ok = false;
      continue;
    }
    const double kd = static_cast<double>(*k);
    if (i == 0 && (*k != 1 || *x != 1.0)) {
      add(i == 0 && *k != 1 ? ep : tp,
          "found (" + format_number(kd) + ", " + format_number(*x) +
              "), expected the curve to start at executions 1 with throughput 1 (one execution "
              "alone runs at the speed of the service-time curve)");
      ok = false;
    } else if (ok && i > 0) {
      const double pk = c.executions.back(), px = c.throughput.back();
      if (!(kd > pk)) {
        add(ep, "found " + format_number(kd) + " after " + format_number(pk) +
                    ", expected strictly increasing execution counts");
        ok = false;
      } else if (*x < px) {
        add(tp, "found " + format_number(*x) + " after " + format_number(px) +
                    ", expected a non-decreasing throughput (more executions never finish less "
                    "work; the curve is flat beyond its last point)");
        ok = false;
      } else if (*x * pk > px * kd * (1.0 + 1e-12)) {
        add(tp, "found throughput " + format_number(*x) + " at " + format_number(kd) +
                    " executions, " + format_number(*x / kd) + " per execution after " +
                    format_number(px / pk) + " at " + format_number(pk) +
                    ", expected throughput(k) / k non-increasing (no superlinear speed-up: k "
                    "executions at once never finish more than k alone would)");
        ok = false;
      }
    }
    c.executions.push_back(kd);
    c.throughput.push_back(*x);
  }
  if (!ok) return {};
  return c;
}

// `models.M.service_time.D` for a pipeline device. The timing is also recorded as the device's
// curve (a request of n items: latency + (n - 1) x interval on an empty pipeline).
bool Loader::pipeline_timing(const json& v, const std::string& path, const std::string& device,
                             Model& m) {
  check_keys(v, path, {"latency", "interval", "throughput"}, {"batch", "seconds", "calibration"},
             "belongs to a batch curve: a pipeline device's timing is {latency, interval}");
  PipelineTiming p;
  bool ok = true;
  const json* lat = get(v, "latency");
  if (!lat) {
    missing(key_path(path, "latency"), std::string("the time from an item entering the pipeline "
                                                   "to its result, e.g. ") +
                                           kPipelineExample);
    ok = false;
  } else if (auto t =
                 quantity(*lat, key_path(path, "latency"), Quantity::Time, Range::positive())) {
    p.latency = *t;
    mark_lead();  // a pipeline's latency stands for its service time
    ok = at_least_tick(describe(*lat), key_path(path, "latency"), *t) && ok;
  } else {
    ok = false;
  }
  const json* ii = get(v, "interval");
  const json* rate = get(v, "throughput");
  if (ii && rate) {
    add(key_path(path, "throughput"),
        "found both `interval` and `throughput`, expected one of them (interval = 1 / "
        "throughput)");
    ok = false;
  } else if (ii) {
    if (auto t = quantity(*ii, key_path(path, "interval"), Quantity::Time, Range::positive())) {
      p.interval = *t;
      ok = at_least_tick(describe(*ii), key_path(path, "interval"), *t) && ok;
    } else {
      ok = false;
    }
  } else if (rate) {
    if (auto r = quantity(*rate, key_path(path, "throughput"), Quantity::Rate, Range::positive())) {
      p.interval = 1.0 / *r;
      ok = at_least_tick(describe(*rate), key_path(path, "throughput"), p.interval) && ok;
    } else {
      ok = false;
    }
  } else {
    missing(key_path(path, "interval"),
            std::string("the initiation interval (one item enters per interval), or "
                        "`throughput` in items/s, e.g. ") +
                kPipelineExample);
    ok = false;
  }
  if (ok && p.latency < p.interval) {
    add(key_path(path, "latency"),
        "found latency " + format_number(p.latency) + " s shorter than the interval " +
            format_number(p.interval) +
            " s, expected latency >= interval (an item is inside the pipeline at least while it "
            "enters)");
    ok = false;
  }
  if (!ok) return false;
  m.pipeline_time[device] = p;
  ServiceCurve c;
  c.batch = {1.0, 2.0};
  c.seconds = {p.latency, p.latency + p.interval};
  c.source = "pipeline";
  m.service_time[device] = std::move(c);
  return true;
}

bool Loader::is_pipeline_timing(const json& v) {
  return v.is_object() && (get(v, "latency") || get(v, "interval") || get(v, "throughput"));
}

// Pipeline timings only for pipeline devices, batch curves never for them, and every model on a
// pipeline pool timed for it.
void Loader::device_kind_checks(Scenario& s) {
  const auto pipeline = [&](const std::string& device) {
    const DeviceSpec* d = s.find_device(device);
    return d && d->kind == DeviceKind::Pipeline;
  };
  for (const Model& m : s.models) {
    const std::string spath = key_path(key_path("models", m.name), "service_time");
    for (const auto& [device, curve] : m.service_time) {
      const bool timed = m.pipeline_time.count(device) > 0;
      if (timed && !pipeline(device))
        add(key_path(spath, device),
            "found a pipeline timing {latency, interval} for device `" + device +
                "`, which is not a pipeline, expected a batch curve {\"batch\": [...], "
                "\"seconds\": [...]} (or \"kind\": \"pipeline\" in `devices." +
                device + "`)");
      else if (!timed && device != "*" && pipeline(device))
        add(key_path(spath, device), "found a batch curve for pipeline device `" + device +
                                         "` (devices." + device +
                                         ".kind is \"pipeline\"), expected " + kPipelineExample);
    }
  }
  for (std::size_t i = 0; i < s.servers.size(); ++i) {
    const ServerPool& pool = s.servers[i];
    if (!pipeline(pool.device)) continue;
    if (pool.models.size() > 1)
      add(key_path(index_path("servers", i), "models"),
          "found " + std::to_string(pool.models.size()) + " models on pipeline device `" +
              pool.device +
              "`, expected one (a pipeline is built for one network: give each model a pool of "
              "its own)");
    if (pool.host && pool.host->devices > 1)
      add(key_path(key_path(index_path("servers", i), "host"), "devices"),
          "found " + std::to_string(pool.host->devices) + " pipeline devices `" + pool.device +
              "` per host, expected 1 (a pipeline's entry takes one request at a time from a "
              "queue of its own; several per host are not modelled)");
    for (std::size_t k = 0; k < pool.models.size(); ++k) {
      const Model* m = s.find_model(pool.models[k]);
      if (!m || m->pipeline_time.count(pool.device) || !m->service_time.count("*")) continue;
      add(index_path(key_path(index_path("servers", i), "models"), k),
          "model `" + m->name + "` has only a \"*\" batch curve, and device `" + pool.device +
              "` is a pipeline: expected `models." + m->name + ".service_time." + pool.device +
              "` = " + kPipelineExample);
    }
  }
}

}  // namespace detail
}  // namespace sonicsim::scenario
