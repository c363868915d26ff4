#include <sonicsim/scenario/loader.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "checker.hpp"

namespace sonicsim::scenario {
namespace {

using detail::Checker;
using detail::describe;
using detail::did_you_mean;
using detail::format_number;
using detail::index_path;
using detail::json;
using detail::key_path;
using detail::Range;

constexpr const char* kDistKinds[] = {"constant", "exponential", "lognormal", "gamma",
                                      "normal",   "uniform",     "empirical"};

// What a random quantity measures: times take unit strings, counts are plain numbers.
struct DistSpec {
  bool is_time = false;
  double floor = 0.0;  // smallest value a sample may have
  const char* noun = "a number";
};

const DistSpec kTimeDist{true, 0.0, "a time"};
const DistSpec kItemsDist{false, 1.0, "a number of items"};

std::string read_text(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return {};
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) error = "read error";
  return out.str();
}

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL SHA-256 failed");
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xf];
  }
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

class Loader : public Checker {
 public:
  explicit Loader(std::string base_dir) : base_dir_(std::move(base_dir)) {}

  void scenario(const json& doc, Scenario& s);
  std::vector<Scenario::ReferencedFile> referenced_files;

 private:
  std::optional<double> scalar(const json& v, const std::string& path, const DistSpec& spec,
                               Range range);
  std::optional<Distribution> distribution(const json& v, const std::string& path,
                                           const DistSpec& spec);
  void workload(const json& v, const std::string& path, Workload& w);
  void request(const json& v, const std::string& path, RequestSpec& r);
  void model(const json& v, const std::string& path, Model& m);
  double tensor_bytes(const json& v, const std::string& path, std::vector<TensorSpec>& tensors);
  void dynamic_batching(const json& v, const std::string& path, Model& m);
  void service_time(const json& v, const std::string& path, Model& m);
  void spread(const json& st, const std::string& path, Model& m);
  std::optional<ServiceCurve> curve(const json& v, const std::string& path, bool in_device_map);
  std::optional<ServiceCurve> table(const json& v, const std::string& path);
  std::optional<ServiceCurve> calibration(const json& v, const std::string& path);
  void servers(const json& v, const std::string& path, Scenario& s);
  void network(const json& v, const std::string& path, Network& n);
  std::optional<LinkSpec> link(const json& v, const std::string& path);
  void cross_check(const json& doc, Scenario& s);

  std::string base_dir_;
  // Which models parsed cleanly, so cross-checks do not pile consequences onto a broken model.
  std::set<std::string> defined_models_;
};

std::optional<double> Loader::scalar(const json& v, const std::string& path, const DistSpec& spec,
                                     Range range) {
  if (spec.is_time) return quantity(v, path, Quantity::Time, range);
  return number(v, path, range);
}

std::optional<Distribution> Loader::distribution(const json& v, const std::string& path,
                                                 const DistSpec& spec) {
  const Range floor = Range::at_least(spec.floor);
  if (!v.is_object()) {
    if (v.is_number() || (spec.is_time && v.is_string())) {
      if (auto x = scalar(v, path, spec, floor)) return Distribution::constant(*x);
      return std::nullopt;
    }
    add(path, "found " + describe(v) + ", expected " + spec.noun + " " + floor.text() +
                  " or a distribution object such as {\"dist\": \"lognormal\", \"mean\": " +
                  (spec.is_time ? "\"1s\"" : "8") + ", \"cv\": 0.3}");
    return std::nullopt;
  }
  const std::initializer_list<std::string_view> all_keys = {"dist", "mean", "cv",     "stddev",
                                                            "min",  "max",  "values", "weights"};
  const json* kind_value = get(v, "dist");
  if (!kind_value) {
    missing(key_path(path, "dist"),
            "the kind of distribution: one of \"constant\", \"exponential\", \"lognormal\", "
            "\"gamma\", \"normal\", \"uniform\", \"empirical\"");
    check_keys(v, path, all_keys);
    return std::nullopt;
  }
  const auto kind_name =
      choice(*kind_value, key_path(path, "dist"),
             {"constant", "exponential", "lognormal", "gamma", "normal", "uniform", "empirical"});
  if (!kind_name) {
    check_keys(v, path, all_keys);
    return std::nullopt;
  }
  Distribution d;
  for (int i = 0; i < 7; ++i)
    if (*kind_name == kDistKinds[i]) d.kind = static_cast<Distribution::Kind>(i);
  using K = Distribution::Kind;

  const std::string applies = "does not apply to a " + *kind_name + " distribution";
  bool ok = true;
  const auto need = [&](const char* key, Range range) -> std::optional<double> {
    const json* x = get(v, key);
    if (!x) {
      missing(key_path(path, key), std::string(spec.noun) + " " + range.text());
      ok = false;
      return std::nullopt;
    }
    auto r = scalar(*x, key_path(path, key), spec, range);
    if (!r) ok = false;
    return r;
  };

  switch (d.kind) {
    case K::Constant:
    case K::Exponential: {
      check_keys(v, path, {"dist", "mean"}, {"cv", "stddev", "min", "max", "values", "weights"},
                 applies + (d.kind == K::Exponential ? " (its cv is 1 by definition; keys: dist, "
                                                       "mean)"
                                                     : " (keys: dist, mean)"));
      const Range range =
          d.kind == K::Constant ? floor : Range{spec.floor, floor.hi, spec.floor == 0};
      if (auto m = need("mean", range)) d.mean = *m;
      break;
    }
    case K::Lognormal:
    case K::Gamma:
    case K::Normal: {
      check_keys(v, path, {"dist", "mean", "cv", "stddev"}, {"min", "max", "values", "weights"},
                 applies + " (keys: dist, mean, cv or stddev)");
      // Lognormal and gamma live on (0, inf); the normal is cut at 0 so a zero mean is allowed.
      const Range range =
          d.kind == K::Normal ? floor : Range{spec.floor, floor.hi, spec.floor == 0};
      if (auto m = need("mean", range)) d.mean = *m;
      const json* cv = get(v, "cv");
      const json* sd = get(v, "stddev");
      if (cv && sd) {
        add(key_path(path, "stddev"), "found both `cv` and `stddev`, expected only one of them");
        ok = false;
      } else if (cv) {
        if (auto c = number(*cv, key_path(path, "cv"), Range::at_least(0))) {
          d.cv = *c;
        } else {
          ok = false;
        }
      } else if (sd) {
        if (auto s = scalar(*sd, key_path(path, "stddev"), spec, Range::at_least(0))) {
          if (ok && d.mean > 0) {
            d.cv = *s / d.mean;
          } else if (ok && *s > 0) {
            add(key_path(path, "stddev"),
                "found a stddev with mean 0, expected mean > 0 (the spread is stored relative "
                "to the mean)");
            ok = false;
          }
        } else {
          ok = false;
        }
      } else {
        missing(key_path(path, "cv"), "the coefficient of variation `cv` (or `stddev`)");
        ok = false;
      }
      break;
    }
    case K::Uniform: {
      check_keys(v, path, {"dist", "min", "max"}, {"mean", "cv", "stddev", "values", "weights"},
                 applies + " (keys: dist, min, max)");
      const auto lo = need("min", floor);
      const auto hi = need("max", floor);
      if (lo && hi) {
        d.min = *lo;
        d.max = *hi;
        if (*hi < *lo) {
          add(key_path(path, "max"), "found max " + describe(*get(v, "max")) + " below min " +
                                         describe(*get(v, "min")) + ", expected max >= min");
          ok = false;
        }
      }
      break;
    }
    case K::Empirical: {
      check_keys(v, path, {"dist", "values", "weights"}, {"mean", "cv", "stddev", "min", "max"},
                 applies + " (keys: dist, values, weights)");
      const json* values = get(v, "values");
      const std::string vpath = key_path(path, "values");
      if (!values) {
        missing(vpath, "a non-empty array of values");
        ok = false;
      } else if (!values->is_array() || values->empty()) {
        add(vpath, "found " + describe(*values) + ", expected a non-empty array, each value " +
                       spec.noun + " " + floor.text());
        ok = false;
      } else {
        for (std::size_t i = 0; i < values->size(); ++i) {
          if (auto x = scalar((*values)[i], index_path(vpath, i), spec, floor)) {
            d.values.push_back(*x);
          } else {
            ok = false;
          }
        }
      }
      if (const json* weights = get(v, "weights")) {
        const std::string wpath = key_path(path, "weights");
        if (!weights->is_array()) {
          add(wpath, "found " + describe(*weights) + ", expected an array of numbers >= 0");
          ok = false;
        } else {
          double total = 0.0;
          for (std::size_t i = 0; i < weights->size(); ++i) {
            if (auto w = number((*weights)[i], index_path(wpath, i), Range::at_least(0))) {
              d.weights.push_back(*w);
              total += *w;
            } else {
              ok = false;
            }
          }
          if (values && values->is_array() && weights->size() != values->size()) {
            add(wpath, "found " + std::to_string(weights->size()) + " weights, expected " +
                           std::to_string(values->size()) + " (one per value)");
            ok = false;
          } else if (ok && !(total > 0.0) && !weights->empty()) {
            add(wpath, "found weights summing to 0, expected a positive sum");
            ok = false;
          } else if (ok && std::isfinite(total) && total > 0.0) {
            for (double& w : d.weights) w /= total;
          } else if (ok) {
            add(wpath, "found weights summing to " + format_number(total) +
                           ", expected a finite positive sum");
            ok = false;
          }
        }
      }
      break;
    }
  }
  if (!ok) return std::nullopt;
  return d;
}

void Loader::workload(const json& v, const std::string& path, Workload& w) {
  if (!expect_object(v, path, "an object with jobs, threads_per_job, cpu_time_per_event, ..."))
    return;
  check_keys(v, path,
             {"jobs", "threads_per_job", "jobs_per_node", "mode", "async", "cpu_time_per_event",
              "requests"});
  const std::string jobs_path = key_path(path, "jobs");
  const std::string threads_path = key_path(path, "threads_per_job");
  std::optional<std::int64_t> jobs, threads;
  if (const json* x = get(v, "jobs")) {
    jobs = integer(*x, jobs_path, 1, Limits::max_threads, "client jobs");
  } else {
    missing(jobs_path, "an integer >= 1 (client jobs)");
  }
  if (const json* x = get(v, "threads_per_job")) {
    threads = integer(*x, threads_path, 1, Limits::max_threads, "threads per client job");
  } else {
    missing(threads_path, "an integer >= 1 (threads per client job)");
  }
  if (jobs) w.jobs = *jobs;
  if (threads) w.threads_per_job = static_cast<int>(*threads);
  // Both are at most 1e7, so the product cannot overflow 64 bits.
  if (jobs && threads && *jobs * *threads > Limits::max_threads) {
    add(jobs_path, "found jobs x threads_per_job = " + std::to_string(*jobs) + " x " +
                       std::to_string(*threads) + " = " + std::to_string(*jobs * *threads) +
                       " client threads, expected at most " + std::to_string(Limits::max_threads));
  }
  if (const json* x = get(v, "jobs_per_node")) {
    if (auto n = integer(*x, key_path(path, "jobs_per_node"), 1, Limits::max_threads))
      w.jobs_per_node = static_cast<int>(*n);
  }
  if (const json* x = get(v, "mode")) {
    if (auto m = choice(*x, key_path(path, "mode"), {"sync", "async"}))
      w.mode = *m == "async" ? Mode::Async : Mode::Sync;
  }
  if (const json* x = get(v, "async"); x && !x->is_null()) {
    const std::string apath = key_path(path, "async");
    if (expect_object(*x, apath, "an object with independent_work_fraction, events_in_flight")) {
      check_keys(*x, apath, {"independent_work_fraction", "events_in_flight"});
      if (const json* f = get(*x, "independent_work_fraction")) {
        if (auto r = number(*f, key_path(apath, "independent_work_fraction"), Range::closed(0, 1)))
          w.async.independent_work_fraction = *r;
      }
      if (const json* e = get(*x, "events_in_flight")) {
        if (auto r =
                integer(*e, key_path(apath, "events_in_flight"), 1, Limits::max_events_in_flight))
          w.async.events_in_flight = static_cast<int>(*r);
      }
    }
  }
  if (const json* x = get(v, "cpu_time_per_event")) {
    if (auto d = distribution(*x, key_path(path, "cpu_time_per_event"), kTimeDist))
      w.cpu_time_per_event = *d;
  } else {
    missing(key_path(path, "cpu_time_per_event"),
            "a time (t_CPU, e.g. \"1.03s\") or a distribution of times");
  }
  if (const json* x = get(v, "requests")) {
    const std::string rpath = key_path(path, "requests");
    if (!x->is_array()) {
      add(rpath, "found " + describe(*x) + ", expected an array of request objects");
    } else {
      w.requests.resize(x->size());
      for (std::size_t i = 0; i < x->size(); ++i)
        request((*x)[i], index_path(rpath, i), w.requests[i]);
    }
  }
}

void Loader::request(const json& v, const std::string& path, RequestSpec& r) {
  if (!expect_object(v, path, "a request object {\"model\": ..., \"offload_fraction\": ...}"))
    return;
  check_keys(v, path, {"model", "offload_fraction", "per_event", "items"});
  if (const json* x = get(v, "model")) {
    if (auto m = string(*x, key_path(path, "model"))) r.model = *m;
  } else {
    missing(key_path(path, "model"), "the name of a model defined in `models`");
  }
  if (const json* x = get(v, "offload_fraction")) {
    if (auto p = number(*x, key_path(path, "offload_fraction"), Range::closed(0, 1)))
      r.offload_fraction = *p;
  }
  if (const json* x = get(v, "per_event")) {
    if (auto n = integer(*x, key_path(path, "per_event"), 1, Limits::max_items))
      r.per_event = static_cast<int>(*n);
  }
  if (const json* x = get(v, "items")) {
    const std::string ipath = key_path(path, "items");
    if (auto d = distribution(*x, ipath, kItemsDist)) {
      const double hi = d->upper_bound();
      if (d->expected() > Limits::max_items) {
        add(ipath, "found a mean of " + format_number(d->expected()) + " items, expected at most " +
                       std::to_string(Limits::max_items) + " per request");
      } else if (std::isfinite(hi) && hi > Limits::max_items) {
        add(ipath, "found items up to " + format_number(hi) + ", expected at most " +
                       std::to_string(Limits::max_items) + " per request");
      } else {
        r.items = *d;
      }
    }
  }
}

double Loader::tensor_bytes(const json& v, const std::string& path,
                            std::vector<TensorSpec>& tensors) {
  if (!v.is_array()) {
    add(path, "found " + describe(v) +
                  ", expected an array of tensors {\"name\": ..., \"shape\": [...], \"dtype\": "
                  "\"FP32\"}");
    return 0.0;
  }
  double total = 0.0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string tpath = index_path(path, i);
    const json& t = v[i];
    if (!expect_object(t, tpath, "a tensor {\"name\": ..., \"shape\": [...], \"dtype\": \"FP32\"}"))
      continue;
    check_keys(t, tpath, {"name", "shape", "dtype"});
    TensorSpec spec;
    bool ok = true;
    if (const json* x = get(t, "name")) {
      if (auto n = string(*x, key_path(tpath, "name"), true)) spec.name = *n;
    }
    const std::string spath = key_path(tpath, "shape");
    if (const json* x = get(t, "shape")) {
      if (!x->is_array()) {
        add(spath, "found " + describe(*x) +
                       ", expected an array of dimensions per item (no batch dimension)");
        ok = false;
      } else {
        for (std::size_t k = 0; k < x->size(); ++k) {
          if (auto d = integer((*x)[k], index_path(spath, k), 1, 1'000'000'000,
                               "a fixed dimension; variable (-1) dimensions have no size")) {
            spec.shape.push_back(*d);
          } else {
            ok = false;
          }
        }
      }
    } else {
      missing(spath, "an array of dimensions per item, e.g. [2, 100]");
      ok = false;
    }
    const std::string dpath = key_path(tpath, "dtype");
    if (const json* x = get(t, "dtype")) {
      json name = *x;
      // Triton's model configs spell them TYPE_FP32; the protocol spells them FP32.
      if (name.is_string() && name.get<std::string>().rfind("TYPE_", 0) == 0)
        name = name.get<std::string>().substr(5);
      if (name == "STRING" || name == "BYTES") {
        add(dpath, "found " + describe(*x) +
                       ", expected a fixed-size dtype; give variable-size tensors as "
                       "input_bytes_per_item / output_bytes_per_item instead");
        ok = false;
      } else if (auto d = choice(name, dpath,
                                 {"FP16", "BF16", "FP32", "FP64", "INT8", "INT16", "INT32", "INT64",
                                  "UINT8", "UINT16", "UINT32", "UINT64", "BOOL"})) {
        spec.dtype = *d;
      } else {
        ok = false;
      }
    } else {
      missing(dpath, "a dtype such as \"FP32\"");
      ok = false;
    }
    if (ok) {
      total += spec.bytes();
      tensors.push_back(std::move(spec));
    }
  }
  return total;
}

void Loader::dynamic_batching(const json& v, const std::string& path, Model& m) {
  if (v.is_null()) return;
  if (!expect_object(v, path,
                     "null (no dynamic batching) or an object with preferred_batch_size, "
                     "max_queue_delay"))
    return;
  check_keys(v, path, {"preferred_batch_size", "max_queue_delay", "max_queue_delay_microseconds"});
  DynamicBatching db;
  bool ok = true;
  if (const json* x = get(v, "preferred_batch_size")) {
    const std::string ppath = key_path(path, "preferred_batch_size");
    std::vector<std::pair<json, std::string>> entries;
    if (x->is_array()) {
      for (std::size_t i = 0; i < x->size(); ++i)
        entries.emplace_back((*x)[i], index_path(ppath, i));
    } else {
      entries.emplace_back(*x, ppath);
    }
    for (const auto& [value, epath] : entries) {
      auto p = integer(value, epath, 1, Limits::max_items);
      if (!p) {
        ok = false;
      } else if (m.max_batch_size > 0 && *p > m.max_batch_size) {
        add(epath, "found " + std::to_string(*p) +
                       ", expected a preferred batch size <= "
                       "max_batch_size " +
                       std::to_string(m.max_batch_size));
        ok = false;
      } else {
        db.preferred_batch_size.push_back(static_cast<int>(*p));
      }
    }
    std::sort(db.preferred_batch_size.begin(), db.preferred_batch_size.end());
    db.preferred_batch_size.erase(
        std::unique(db.preferred_batch_size.begin(), db.preferred_batch_size.end()),
        db.preferred_batch_size.end());
  }
  const json* delay = get(v, "max_queue_delay");
  const json* delay_us = get(v, "max_queue_delay_microseconds");
  if (delay && delay_us) {
    add(key_path(path, "max_queue_delay_microseconds"),
        "found both `max_queue_delay` and `max_queue_delay_microseconds`, expected only one");
    ok = false;
  } else if (delay) {
    if (auto d = quantity(*delay, key_path(path, "max_queue_delay"), Quantity::Time,
                          Range::at_least(0))) {
      db.max_queue_delay = *d;
    } else {
      ok = false;
    }
  } else if (delay_us) {
    if (auto d =
            number(*delay_us, key_path(path, "max_queue_delay_microseconds"), Range::at_least(0))) {
      db.max_queue_delay = *d * 1e-6;
    } else {
      ok = false;
    }
  }
  if (ok) m.dynamic_batching = std::move(db);
}

std::optional<ServiceCurve> Loader::table(const json& v, const std::string& path) {
  const json* batch = get(v, "batch");
  const json* seconds = get(v, "seconds");
  const std::string bpath = key_path(path, "batch");
  const std::string spath = key_path(path, "seconds");
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
      if (auto t = quantity((*seconds)[i], index_path(spath, i), Quantity::Time, Range::positive()))
        c.seconds.push_back(*t);
      else
        ok = false;
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

std::optional<ServiceCurve> Loader::calibration(const json& v, const std::string& path) {
  const auto file = string(v, path);
  if (!file) return std::nullopt;
  std::filesystem::path resolved(*file);
  if (resolved.is_relative()) resolved = std::filesystem::path(base_dir_) / resolved;
  std::string error;
  const std::string text = read_text(resolved.string(), error);
  if (!error.empty()) {
    add(path, "cannot read calibration file `" + resolved.string() + "`: " + error);
    return std::nullopt;
  }
  // The calibration file is its own document: report its problems under the key that names it,
  // with the position inside it.
  std::vector<Problem> inner;
  const auto doc = detail::parse_document(text, inner);
  Loader sub(resolved.parent_path().string());
  std::optional<ServiceCurve> c;
  if (doc) {
    const json* st = get(*doc, "service_time");
    if (!doc->is_object()) {
      sub.add("", "found " + describe(*doc) + ", expected a JSON object");
    } else if (!st) {
      sub.missing("service_time", "{\"batch\": [...], \"seconds\": [...]}");
    } else if (sub.expect_object(*st, "service_time",
                                 "an object {\"batch\": [...], \"seconds\": [...]}")) {
      // Other keys belong to `sonicsim calibrate` (fit statistics, provenance): not checked here.
      c = sub.table(*st, "service_time");
    }
  }
  inner.insert(inner.end(), sub.problems.begin(), sub.problems.end());
  for (const Problem& p : inner) {
    add(path, "in calibration file `" + resolved.string() +
                  "`: " + (p.path.empty() ? "" : p.path + ": ") + p.message);
  }
  if (!inner.empty() || !c) return std::nullopt;
  c->source = *file;
  referenced_files.push_back({*file, sha256_hex(text)});
  return c;
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
        v, path, {"batch", "seconds", "calibration"}, {"dist", "cv"},
        "is set once per model, next to the device curves (`" + where + "." + "dist` / `cv`)");
  }
  if (const json* file = get(v, "calibration")) {
    if (get(v, "batch") || get(v, "seconds")) {
      add(key_path(path, "calibration"),
          "found both a `calibration` file and a `batch`/`seconds` table, expected one of them");
      return std::nullopt;
    }
    return calibration(*file, key_path(path, "calibration"));
  }
  return table(v, path);
}

void Loader::spread(const json& st, const std::string& path, Model& m) {
  const json* kind = get(st, "dist");
  const json* cv = get(st, "cv");
  if (!kind) {
    if (cv)
      add(key_path(path, "cv"),
          "found `cv` without `dist`, expected \"dist\": \"lognormal\" "
          "or \"gamma\" next to it");
    return;
  }
  const auto name =
      choice(*kind, key_path(path, "dist"), {"constant", "exponential", "lognormal", "gamma"});
  if (!name) return;
  if (*name == "constant" || *name == "exponential") {
    m.spread.kind =
        *name == "constant" ? Distribution::Kind::Constant : Distribution::Kind::Exponential;
    if (cv)
      add(key_path(path, "cv"), "found `cv` with \"dist\": " + describe(*kind) +
                                    ", expected no `cv` (it applies to lognormal and gamma)");
    m.spread.cv = *name == "exponential" ? 1.0 : 0.0;
    return;
  }
  m.spread.kind = *name == "lognormal" ? Distribution::Kind::Lognormal : Distribution::Kind::Gamma;
  if (!cv) {
    missing(key_path(path, "cv"), "the coefficient of variation of one execution (e.g. 0.1)");
  } else if (auto c = number(*cv, key_path(path, "cv"), Range::at_least(0))) {
    m.spread.cv = *c;
  }
}

void Loader::service_time(const json& v, const std::string& path, Model& m) {
  if (!expect_object(v, path,
                     "a curve {\"batch\": [...], \"seconds\": [...]}, {\"calibration\": "
                     "\"FILE.json\"} or a map from device name to such a curve"))
    return;
  spread(v, path, m);
  const bool single = get(v, "batch") || get(v, "seconds") || get(v, "calibration");
  if (single) {
    check_keys(v, path, {"batch", "seconds", "calibration", "dist", "cv"});
    if (auto c = curve(v, path, false)) m.service_time["*"] = std::move(*c);
    return;
  }
  bool any = false;
  for (const auto& item : v.items()) {
    if (item.key() == "dist" || item.key() == "cv") continue;
    any = true;
    // {"bacth": [...], "secnds": [...]} reads as a map of two devices: name the likely typo.
    if (!item.value().is_object()) {
      const std::string hint = did_you_mean(item.key(), {"batch", "seconds", "calibration"});
      if (!hint.empty()) {
        add(key_path(path, item.key()), "unknown key `" + item.key() + "`; " + hint);
        continue;
      }
    }
    if (auto c = curve(item.value(), key_path(path, item.key()), true))
      m.service_time[item.key()] = std::move(*c);
  }
  if (!any) {
    add(path, "found " + describe(v) +
                  ", expected a curve {\"batch\": [...], \"seconds\": [...]} or a map from device "
                  "name to curves");
  }
}

void Loader::model(const json& v, const std::string& path, Model& m) {
  if (!expect_object(v, path, "a model object with service_time, input_bytes_per_item, ..."))
    return;
  check_keys(v, path,
             {"input_bytes_per_item", "output_bytes_per_item", "inputs", "outputs", "service_time",
              "max_batch_size", "dynamic_batching", "instances"});
  const std::size_t before = problems.size();
  for (const bool input : {true, false}) {
    const char* bytes_key = input ? "input_bytes_per_item" : "output_bytes_per_item";
    const char* tensors_key = input ? "inputs" : "outputs";
    const json* bytes = get(v, bytes_key);
    const json* tensors = get(v, tensors_key);
    double& target = input ? m.input_bytes_per_item : m.output_bytes_per_item;
    if (bytes && tensors) {
      add(key_path(path, tensors_key), std::string("found both `") + bytes_key + "` and `" +
                                           tensors_key + "`, expected only one of them");
    } else if (bytes) {
      if (auto b = quantity(*bytes, key_path(path, bytes_key), Quantity::Size, Range::at_least(0)))
        target = *b;
    } else if (tensors) {
      target = tensor_bytes(*tensors, key_path(path, tensors_key), input ? m.inputs : m.outputs);
    }
  }
  if (const json* x = get(v, "max_batch_size")) {
    if (auto b =
            integer(*x, key_path(path, "max_batch_size"), 0, Limits::max_items, "0 means no limit"))
      m.max_batch_size = static_cast<int>(*b);
  }
  if (const json* x = get(v, "instances")) {
    if (auto n = integer(*x, key_path(path, "instances"), 1, Limits::max_instances,
                         "concurrent executions per device"))
      m.instances = static_cast<int>(*n);
  }
  if (const json* x = get(v, "dynamic_batching"))
    dynamic_batching(*x, key_path(path, "dynamic_batching"), m);
  if (const json* x = get(v, "service_time")) {
    service_time(*x, key_path(path, "service_time"), m);
  } else {
    missing(key_path(path, "service_time"),
            "a curve {\"batch\": [...], \"seconds\": [...]} or {\"calibration\": \"FILE.json\"}");
  }
  if (problems.size() == before) defined_models_.insert(m.name);
}

std::optional<LinkSpec> Loader::link(const json& v, const std::string& path) {
  if (v.is_null()) return std::nullopt;
  if (!expect_object(v, path, "null or a link {\"bandwidth\": \"10Gbps\", \"latency\": \"50us\"}"))
    return std::nullopt;
  check_keys(v, path, {"bandwidth", "latency"});
  LinkSpec l;
  bool ok = true;
  if (const json* x = get(v, "bandwidth")) {
    if (auto b = quantity(*x, key_path(path, "bandwidth"), Quantity::Bandwidth, Range::positive()))
      l.bandwidth = *b;
    else
      ok = false;
  } else {
    missing(key_path(path, "bandwidth"), "a bandwidth > 0 such as \"10Gbps\"");
    ok = false;
  }
  if (const json* x = get(v, "latency")) {
    if (auto t = quantity(*x, key_path(path, "latency"), Quantity::Time, Range::at_least(0)))
      l.latency = *t;
    else
      ok = false;
  }
  if (!ok) return std::nullopt;
  return l;
}

void Loader::network(const json& v, const std::string& path, Network& n) {
  if (v.is_null()) return;
  if (!expect_object(v, path, "an object with client_nic, site_uplink, wan, server_nic")) return;
  check_keys(v, path,
             {"client_nic", "site_uplink", "wan", "server_nic", "flow_model", "auto_tolerance"});
  if (const json* x = get(v, "client_nic")) n.client_nic = link(*x, key_path(path, "client_nic"));
  if (const json* x = get(v, "site_uplink"))
    n.site_uplink = link(*x, key_path(path, "site_uplink"));
  if (const json* x = get(v, "wan")) n.wan = link(*x, key_path(path, "wan"));
  if (const json* x = get(v, "server_nic")) n.server_nic = link(*x, key_path(path, "server_nic"));
  if (const json* x = get(v, "flow_model")) {
    if (auto f = choice(*x, key_path(path, "flow_model"), {"auto", "flow", "analytic"}))
      n.flow_model = *f == "auto"   ? FlowModel::Auto
                     : *f == "flow" ? FlowModel::Flow
                                    : FlowModel::Analytic;
  }
  if (const json* x = get(v, "auto_tolerance")) {
    if (auto t = number(*x, key_path(path, "auto_tolerance"), Range::open(0, 1)))
      n.auto_tolerance = *t;
  }
}

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
    check_keys(p, ppath, {"name", "count", "device", "models"});
    ServerPool pool;
    if (const json* x = get(p, "name")) {
      if (auto n = string(*x, key_path(ppath, "name"))) {
        pool.name = *n;
        if (auto [it, fresh] = names.emplace(*n, key_path(ppath, "name")); !fresh) {
          add(key_path(ppath, "name"), "found " + describe(*x) + " again (also at " + it->second +
                                           "), expected unique pool names");
        }
      }
    } else {
      missing(key_path(ppath, "name"), "a pool name, unique among the pools");
    }
    if (const json* x = get(p, "count")) {
      if (auto c = integer(*x, key_path(ppath, "count"), 1, Limits::max_devices, "devices"))
        pool.count = static_cast<int>(*c);
    }
    devices += pool.count;
    if (const json* x = get(p, "device")) {
      if (auto d = string(*x, key_path(ppath, "device"))) pool.device = *d;
    } else {
      missing(key_path(ppath, "device"), "a device name such as \"T4\"");
    }
    const std::string mpath = key_path(ppath, "models");
    if (const json* x = get(p, "models")) {
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
    s.servers.push_back(std::move(pool));
  }
  if (devices > Limits::max_devices) {
    add(path, "found " + std::to_string(devices) + " devices in all pools, expected at most " +
                  std::to_string(Limits::max_devices));
  }
}

void Loader::cross_check(const json& doc, Scenario& s) {
  std::vector<std::string> model_names;
  for (const Model& m : s.models) model_names.push_back(m.name);
  const auto unknown_model = [&](const std::string& name) {
    std::string message = "found \"" + name + "\", expected the name of a model in `models`";
    if (model_names.empty()) return message + " (none is defined)";
    const std::string hint = did_you_mean(name, model_names);
    return message + (hint.empty() ? " (defined: " + join(model_names) + ")" : "; " + hint);
  };

  // Requests.
  const json* workload = get(doc, "workload");
  const json* requests = workload ? get(*workload, "requests") : nullptr;
  if (requests && requests->is_array() && requests->size() == s.workload.requests.size()) {
    double p = 0.0;
    for (std::size_t i = 0; i < s.workload.requests.size(); ++i) {
      const RequestSpec& r = s.workload.requests[i];
      const std::string rpath = index_path("workload.requests", i);
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
      add("workload.requests",
          "found offload fractions summing to " + format_number(p) +
              ", expected a sum <= 1 (p is the share of t_CPU spent in the offloaded algorithms)");
    }
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

  if (s.workload.cpu_time_per_event.expected() <= 0.0 && s.workload.requests.empty() && workload &&
      get(*workload, "cpu_time_per_event")) {
    add("workload.cpu_time_per_event",
        "found events with no CPU time and no requests, expected a positive time or requests "
        "(such events would take no time at all)");
  }
}

void Loader::scenario(const json& doc, Scenario& s) {
  if (!expect_object(doc, "", "a JSON object (the scenario)")) return;
  // Workload keys written at the top level (e.g. `--set mode=async`) get pointed home.
  check_keys(doc, "",
             {"$schema", "name", "description", "seed", "duration", "warmup", "workload", "models",
              "servers", "load_balancer", "network"},
             {"jobs", "threads_per_job", "jobs_per_node", "mode", "async", "cpu_time_per_event",
              "requests"},
             "belongs inside `workload`, not at the top level");
  if (const json* x = get(doc, "$schema")) string(*x, "$schema");
  if (const json* x = get(doc, "name")) {
    if (auto n = string(*x, "name")) s.name = *n;
  }
  if (const json* x = get(doc, "description")) {
    if (auto d = string(*x, "description", true)) s.description = *d;
  }
  if (const json* x = get(doc, "seed")) {
    if (auto n = unsigned_integer(*x, "seed")) s.seed = *n;
  }
  std::optional<double> duration;
  if (const json* x = get(doc, "duration")) {
    duration =
        quantity(*x, "duration", Quantity::Time, Range{0.0, Limits::max_duration_s, true, false});
    if (duration) s.duration = *duration;
  } else {
    missing("duration", "the simulated time, a time > 0 such as \"1h\"");
  }
  if (const json* x = get(doc, "warmup")) {
    if (auto w = quantity(*x, "warmup", Quantity::Time, Range::at_least(0))) {
      s.warmup = *w;
      if (duration && *w >= *duration) {
        add("warmup", "found " + describe(*x) + ", expected a warm-up shorter than duration (" +
                          describe(doc.at("duration")) + ")");
      }
    }
  }
  if (const json* x = get(doc, "workload")) {
    workload(*x, "workload", s.workload);
  } else {
    missing("workload", "an object with jobs, threads_per_job, cpu_time_per_event, ...");
  }
  if (const json* x = get(doc, "models")) {
    if (!x->is_object()) {
      add("models", "found " + describe(*x) + ", expected an object from model name to model");
    } else {
      for (const auto& item : x->items()) {
        if (item.key().empty()) {
          add("models", "found a model with an empty name, expected a non-empty name");
          continue;
        }
        Model m;
        m.name = item.key();
        model(item.value(), key_path("models", item.key()), m);
        s.models.push_back(std::move(m));
      }
    }
  }
  if (const json* x = get(doc, "servers")) servers(*x, "servers", s);
  if (const json* x = get(doc, "load_balancer"); x && !x->is_null()) {
    if (expect_object(*x, "load_balancer", "an object {\"policy\": \"round_robin\"}")) {
      check_keys(*x, "load_balancer", {"policy"});
      if (const json* p = get(*x, "policy")) {
        if (auto name = choice(*p, "load_balancer.policy", {"round_robin", "random"}))
          s.balance_policy = *name == "random" ? BalancePolicy::Random : BalancePolicy::RoundRobin;
      }
    }
  }
  if (const json* x = get(doc, "network")) network(*x, "network", s.network);
  // nlohmann keeps object keys sorted, so the models already are; sort anyway for in-code docs.
  std::sort(s.models.begin(), s.models.end(),
            [](const Model& a, const Model& b) { return a.name < b.name; });
  cross_check(doc, s);
}

// An override's target, spelled as problem paths are ("servers[0].count"), and its text.
struct AppliedOverride {
  std::string path;
  std::string text;
};

json override_value(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::out_of_range&) {
    // A literal like 1e400: keep it as the infinity it means, for validation to name.
    return json(std::strtod(text.c_str(), nullptr));
  } catch (const json::parse_error&) {
    return json(text);
  }
}

void apply_override(json& doc, const Override& o, std::vector<Problem>& problems,
                    std::vector<AppliedOverride>& applied) {
  const std::string text = o.path + "=" + o.value;
  const auto fail = [&](const std::string& why) {
    problems.push_back({o.path, "--set " + text + ": " + why});
  };
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = o.path.find('.', start);
    parts.push_back(o.path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  json* node = &doc;
  std::string where;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool last = i + 1 == parts.size();
    if (part.empty()) return fail("empty component in the key path");
    if (node->is_object()) {
      const std::string next = key_path(where, part);
      if (last) {
        (*node)[part] = override_value(o.value);
        applied.push_back({next, text});
        return;
      }
      const auto it = node->find(part);
      if (it == node->end()) {
        std::vector<std::string> keys;
        for (const auto& item : node->items()) keys.push_back(item.key());
        const std::string hint = did_you_mean(part, keys);
        return fail("`" + next + "` does not exist in the scenario" +
                    (hint.empty() ? "" : "; " + hint) + " (set the whole object instead, e.g. " +
                    next + "={...})");
      }
      node = &*it;
      where = next;
    } else if (node->is_array()) {
      const bool numeric =
          std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!numeric || part.size() > 9) {
        return fail("`" + (where.empty() ? std::string("(document)") : where) +
                    "` is an array, expected a numeric index instead of `" + part + "`");
      }
      const std::size_t index = std::stoul(part);
      if (index >= node->size()) {
        return fail("index " + part + " is out of range: `" + where + "` has " +
                    std::to_string(node->size()) + (node->size() == 1 ? " element" : " elements"));
      }
      const std::string next = index_path(where, index);
      if (last) {
        (*node)[index] = override_value(o.value);
        applied.push_back({next, text});
        return;
      }
      node = &(*node)[index];
      where = next;
    } else {
      return fail("`" + where + "` is " + describe(*node) + ", it has no member `" + part + "`");
    }
  }
}

bool starts_path(const std::string& path, const std::string& prefix) {
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

// `from_file`: `file` is a real path (load_file), not just a label for messages (load_json).
Scenario build(json doc, const std::string& file, bool from_file, const std::string& base_dir,
               const std::vector<Override>& overrides, std::vector<Problem> problems) {
  std::vector<AppliedOverride> applied;
  for (const Override& o : overrides) apply_override(doc, o, problems, applied);
  Loader loader(base_dir);
  Scenario s;
  loader.scenario(doc, s);
  for (Problem& p : loader.problems) {
    // The most specific override that covers this path explains where the value came from.
    const AppliedOverride* source = nullptr;
    for (const AppliedOverride& a : applied)
      if (starts_path(p.path, a.path) && (!source || a.path.size() >= source->path.size()))
        source = &a;
    if (source) p.message += " (value from --set " + source->text + ")";
    problems.push_back(std::move(p));
  }
  if (!problems.empty()) throw InputError(file, std::move(problems));
  if (from_file) s.source_file = file;
  if (s.name.empty()) s.name = from_file ? std::filesystem::path(file).stem().string() : "scenario";
  s.canonical_json = doc.dump();
  s.referenced_files = std::move(loader.referenced_files);
  std::string hashed = s.canonical_json;
  for (const auto& f : s.referenced_files) hashed.append("\n").append(f.path).append("\n").append(f.sha256);
  s.sha256 = sha256_hex(hashed);
  return s;
}

std::string format_problems(const std::string& file, const std::vector<Problem>& problems) {
  std::string out;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    if (i) out += '\n';
    out += file + ": ";
    if (!problems[i].path.empty()) out += problems[i].path + ": ";
    out += problems[i].message;
  }
  return out;
}

}  // namespace

InputError::InputError(std::string file, std::vector<Problem> problems)
    : std::runtime_error(format_problems(file, problems)),
      file_(std::move(file)),
      problems_(std::move(problems)) {}

Override parse_override(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--set", {{"", "found \"" + text +
                                        "\", expected KEY.PATH=VALUE such as workload.jobs=400"}});
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Scenario load_json(const nlohmann::json& doc, const std::string& file,
                   const std::string& base_dir) {
  return build(doc, file, false, base_dir, {}, {});
}

Scenario load_file(const std::string& path, const std::vector<Override>& overrides) {
  std::string error;
  const std::string text = read_text(path, error);
  if (!error.empty()) throw InputError(path, {{"", "cannot read the scenario file: " + error}});
  std::vector<Problem> problems;
  std::optional<json> doc = detail::parse_document(text, problems);
  if (!doc) throw InputError(path, std::move(problems));
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return build(std::move(*doc), path, true, base_dir, overrides, std::move(problems));
}

std::vector<Problem> validate_file(const std::string& path,
                                   const std::vector<Override>& overrides) {
  try {
    load_file(path, overrides);
  } catch (const InputError& e) {
    return e.problems();
  }
  return {};
}

}  // namespace sonicsim::scenario
