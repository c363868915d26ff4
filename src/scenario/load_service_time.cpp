// A model's service times (curves per device, calibration files) and request overheads.
#include <algorithm>
#include <filesystem>

#include <sonicsim/util/files.hpp>
#include <sonicsim/util/sha256.hpp>

#include "keys.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

std::optional<ServiceCurve> Loader::table(const json& v, const std::string& path,
                                          bool zero_allowed) {
  const json* batch = get(v, keys::kBatch);
  const json* seconds = get(v, keys::kSeconds);
  const std::string bpath = key_path(path, keys::kBatch);
  const std::string spath = key_path(path, keys::kSeconds);
  bool ok = true;
  ServiceCurve c;
  c.source = "table";
  if (!batch) {
    missing(bpath, "an array of batch sizes, strictly increasing, each >= 1");
    ok = false;
  } else if (!batch->is_array() || batch->empty()) {
    add(bpath, "found " + describe(*batch) +
                   ", expected a non-empty array of batch sizes, strictly increasing, each >= 1");
    ok = false;
  } else {
    for (std::size_t i = 0; i < batch->size(); ++i) {
      auto b = number((*batch)[i], index_path(bpath, i), Range::at_least(1), "a batch size");
      if (!b) {
        ok = false;
        continue;
      }
      if (!c.batch.empty() && !(*b > c.batch.back())) {
        add(index_path(bpath, i), "found " + format_number(*b) + " after " +
                                      format_number(c.batch.back()) +
                                      ", expected strictly increasing batch sizes");
        ok = false;
      }
      c.batch.push_back(*b);
    }
  }
  if (!seconds) {
    missing(spath, "an array of execution times (> 0), one per batch size");
    ok = false;
  } else if (!seconds->is_array() || seconds->empty()) {
    add(spath, "found " + describe(*seconds) +
                   ", expected a non-empty array of execution times (> 0), one per batch size");
    ok = false;
  } else {
    for (std::size_t i = 0; i < seconds->size(); ++i) {
      if (auto t = quantity((*seconds)[i], index_path(spath, i), Quantity::Time,
                            zero_allowed ? Range::at_least(0) : Range::positive())) {
        c.seconds.push_back(*t);
        if (i == 0) mark_lead();
      } else {
        ok = false;
      }
    }
    if (batch && batch->is_array() && !batch->empty() && seconds->size() != batch->size()) {
      add(spath, "found " + std::to_string(seconds->size()) + " times for " +
                     std::to_string(batch->size()) +
                     " batch sizes, expected one time per batch size");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return c;
}

// A calibration file is its own document: its problems are reported under the key that names
// it, with the position inside it. `extract` reads the part the caller needs with a sub-loader.
template <class Extract>
auto Loader::from_calibration(const json& v, const std::string& path, Extract extract)
    -> decltype(extract(std::declval<Loader&>(), std::declval<const json&>())) {
  const auto file = string(v, path);
  if (!file) return std::nullopt;
  std::filesystem::path resolved(*file);
  if (resolved.is_relative()) resolved = std::filesystem::path(base_dir_) / resolved;
  std::string error, text;
  try {
    text = read_text(resolved.string(), error);
  } catch (const InputError& e) {
    error = e.problems().front().message;  // larger than any calibration file
  }
  if (!error.empty()) {
    add(path, "cannot read calibration file `" + resolved.string() + "`: " + error);
    return std::nullopt;
  }
  std::vector<Problem> inner;
  const auto doc = detail::parse_document(text, inner);
  Loader sub(resolved.parent_path().string());
  sub.role_ = role_;  // its curve is the model's; strict units stay off (sonicsim writes seconds)
  sub.group_ = group_;
  decltype(extract(sub, *doc)) out;
  if (doc) {
    if (!doc->is_object())
      sub.add("", "found " + describe(*doc) + ", expected a JSON object");
    else
      out = extract(sub, *doc);
  }
  inner.insert(inner.end(), sub.problems.begin(), sub.problems.end());
  for (const Problem& p : inner) {
    add(path, "in calibration file `" + resolved.string() +
                  "`: " + (p.path.empty() ? "" : p.path + ": ") + p.message);
  }
  if (!inner.empty() || !out) return std::nullopt;
  for (Reading& r : sub.readings) {
    r.inner = "in calibration file `" + resolved.string() + "`: " + r.path;
    r.path = path;
    readings.push_back(std::move(r));
  }
  // The same file may serve a curve and the overheads: hash it once.
  if (!referenced(*file)) referenced_files.push_back({*file, sha256_hex(text)});
  return out;
}

std::optional<ServiceCurve> Loader::calibration(const json& v, const std::string& path) {
  auto c =
      from_calibration(v, path, [](Loader& sub, const json& doc) -> std::optional<ServiceCurve> {
        const json* st = sub.get(doc, keys::kServiceTime);
        if (!st) {
          sub.missing("service_time", "{\"batch\": [...], \"seconds\": [...]}");
          return std::nullopt;
        }
        if (!sub.expect_object(*st, "service_time",
                               "an object {\"batch\": [...], \"seconds\": [...]}"))
          return std::nullopt;
        // Other keys belong to `sonicsim calibrate` (fit statistics, provenance): not checked here.
        return sub.table(*st, "service_time");
      });
  if (c) c->source = string(v, path).value_or("");
  return c;
}

std::optional<HostCost> Loader::host_cost_calibration(const json& v, const std::string& path) {
  return from_calibration(v, path, [](Loader& sub, const json& doc) -> std::optional<HostCost> {
    const json* x = sub.get(doc, keys::kHostCost);
    if (!x) {
      sub.missing("host_cost",
                  "the host costs written by `sonicsim calibrate perf-analyzer --host-cores N`");
      return std::nullopt;
    }
    if (!x->is_object()) return sub.host_cost_fields(*x, "host_cost");
    // Besides the costs, the block records what the fit found (`fit`), not checked here.
    json costs = *x;
    costs.erase("fit");
    return sub.host_cost_fields(costs, "host_cost");
  });
}

std::optional<OverheadPhase> Loader::overhead_phase(const json& v, const std::string& path) {
  if (!v.is_object()) {
    if (auto t = quantity(v, path, Quantity::Time, Range::at_least(0))) {
      OverheadPhase p;
      p.fixed = *t;
      return p;
    }
    return std::nullopt;
  }
  check_keys(v, path, {keys::kFixed, keys::kPerItem, keys::kBatch, keys::kSeconds});
  OverheadPhase p;
  bool ok = true;
  if (get(v, keys::kBatch) || get(v, keys::kSeconds)) {
    if (auto t = table(v, path, /*zero_allowed=*/true)) {
      p.batch = std::move(t->batch);
      p.seconds = std::move(t->seconds);
    } else {
      ok = false;
    }
  }
  for (const char* key : {keys::kFixed, keys::kPerItem}) {
    if (const json* x = get(v, key)) {
      if (auto t = quantity(*x, key_path(path, key), Quantity::Time, Range::at_least(0)))
        (key == keys::kFixed ? p.fixed : p.per_item) = *t;
      else
        ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return p;
}

std::optional<RequestOverhead> Loader::overhead_table(const json& v, const std::string& path) {
  if (!expect_object(
          v, path,
          "an object {\"client_send\": T, \"server\": T, \"client_recv\": T} (T a "
          "time or {\"fixed\": T, \"per_item\": T, \"batch\": [...], \"seconds\": [...]}) or "
          "{\"calibration\": \"FILE.json\"}"))
    return std::nullopt;
  check_keys(v, path,
             {keys::kClientSend, keys::kServer, keys::kClientRecv, keys::kDist, keys::kCv});
  RequestOverhead o;
  const std::size_t before = problems.size();
  spread(v, path, o.spread, "one request's overhead");
  bool ok = problems.size() == before;
  const std::pair<const char*, OverheadPhase*> phases[] = {{keys::kClientSend, &o.client_send},
                                                           {keys::kServer, &o.server},
                                                           {keys::kClientRecv, &o.client_recv}};
  for (const auto& [key, target] : phases) {
    if (const json* x = get(v, key)) {
      if (auto p = overhead_phase(*x, key_path(path, key)))
        *target = *p;
      else
        ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return o;
}

void Loader::request_overhead(const json& v, const std::string& path, Model& m) {
  std::optional<RequestOverhead> o;
  if (v.is_object() && get(v, keys::kCalibration)) {
    check_keys(v, path, {keys::kCalibration, keys::kDist, keys::kCv});
    const std::string cpath = key_path(path, keys::kCalibration);
    o = from_calibration(*get(v, keys::kCalibration), cpath,
                         [](Loader& sub, const json& doc) -> std::optional<RequestOverhead> {
                           const json* x = sub.get(doc, keys::kRequestOverhead);
                           if (!x) {
                             sub.missing("request_overhead",
                                         "the per-request overheads written by `sonicsim "
                                         "calibrate perf-analyzer`");
                             return std::nullopt;
                           }
                           return sub.overhead_table(*x, "request_overhead");
                         });
    if (o) {
      o->source = string(*get(v, keys::kCalibration), cpath).value_or("");
      // The scenario's own jitter, when it gives one, replaces the calibration's.
      if (get(v, keys::kDist) || get(v, keys::kCv))
        spread(v, path, o->spread, "one request's overhead");
    }
  } else {
    o = overhead_table(v, path);
  }
  if (o) m.overhead = *o;
}

std::optional<ServiceCurve> Loader::curve(const json& v, const std::string& path,
                                          bool in_device_map) {
  if (!expect_object(v, path,
                     "a service-time curve {\"batch\": [...], \"seconds\": [...]} or "
                     "{\"calibration\": \"FILE.json\"}"))
    return std::nullopt;
  if (in_device_map) {
    const std::string where = path.substr(0, path.rfind('.'));
    check_keys(
        v, path, {keys::kBatch, keys::kSeconds, keys::kCalibration}, {keys::kDist, keys::kCv},
        "is set once per model, next to the device curves (`" + where + "." + "dist` / `cv`)");
  }
  if (const json* file = get(v, keys::kCalibration)) {
    if (get(v, keys::kBatch) || get(v, keys::kSeconds)) {
      add(key_path(path, keys::kCalibration),
          "found both a `calibration` file and a `batch`/`seconds` table, expected one of them");
      return std::nullopt;
    }
    return calibration(*file, key_path(path, keys::kCalibration));
  }
  return table(v, path);
}

void Loader::spread(const json& st, const std::string& path, ServiceSpread& out,
                    const char* of_what) {
  const json* kind = get(st, keys::kDist);
  const json* cv = get(st, keys::kCv);
  if (!kind) {
    if (cv)
      add(key_path(path, keys::kCv),
          "found `cv` without `dist`, expected \"dist\": \"lognormal\" "
          "or \"gamma\" next to it");
    return;
  }
  const auto name =
      choice(*kind, key_path(path, keys::kDist), {"constant", "exponential", "lognormal", "gamma"});
  if (!name) return;
  if (*name == "constant" || *name == "exponential") {
    out.kind = *name == "constant" ? Distribution::Kind::Constant : Distribution::Kind::Exponential;
    if (cv)
      add(key_path(path, keys::kCv), "found `cv` with \"dist\": " + describe(*kind) +
                                         ", expected no `cv` (it applies to lognormal and gamma)");
    out.cv = *name == "exponential" ? 1.0 : 0.0;
    return;
  }
  out.kind = *name == "lognormal" ? Distribution::Kind::Lognormal : Distribution::Kind::Gamma;
  if (!cv) {
    missing(key_path(path, keys::kCv),
            std::string("the coefficient of variation of ") + of_what + " (e.g. 0.1)");
  } else if (auto c = number(*cv, key_path(path, keys::kCv), Range::at_least(0))) {
    out.cv = *c;
  }
}

void Loader::service_time(const json& v, const std::string& path, Model& m) {
  if (!expect_object(v, path,
                     "a curve {\"batch\": [...], \"seconds\": [...]}, {\"calibration\": "
                     "\"FILE.json\"} or a map from device name to such a curve"))
    return;
  spread(v, path, m.spread, "one execution");
  if (is_kind_timing(v)) {
    add(path,
        "found a pipeline timing for no device, expected it under the pipeline device's "
        "name: {\"FPGA\": {\"latency\": \"1.8ms\", \"interval\": \"1.6ms\"}}");
    return;
  }
  const bool single = get(v, keys::kBatch) || get(v, keys::kSeconds) || get(v, keys::kCalibration);
  if (single) {
    check_keys(v, path, {keys::kBatch, keys::kSeconds, keys::kCalibration, keys::kDist, keys::kCv});
    if (auto c = curve(v, path, false)) m.service_time["*"] = std::move(*c);
    return;
  }
  bool any = false;
  for (const auto& item : v.items()) {
    if (item.key() == keys::kDist || item.key() == keys::kCv) continue;
    any = true;
    // {"bacth": [...], "secnds": [...]} reads as a map of two devices: name the likely typo.
    if (!item.value().is_object()) {
      const std::string hint =
          did_you_mean(item.key(), {keys::kBatch, keys::kSeconds, keys::kCalibration});
      if (!hint.empty()) {
        add(key_path(path, item.key()), "unknown key `" + item.key() + "`; " + hint);
        continue;
      }
    }
    if (kind_timing(item.value(), key_path(path, item.key()), item.key(), m)) continue;
    if (auto c = curve(item.value(), key_path(path, item.key()), true))
      m.service_time[item.key()] = std::move(*c);
  }
  if (!any) {
    add(path, "found " + describe(v) +
                  ", expected a curve {\"batch\": [...], \"seconds\": [...]} or a map from device "
                  "name to curves");
  }
}

}  // namespace sonicsim::scenario::detail
