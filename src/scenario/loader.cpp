#include <sonicsim/scenario/loader.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <sonicsim/triton/model_config.hpp>

#include <sonicsim/util/sha256.hpp>

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

  // What a refusal of a Triton config advises instead: a scenario and a command line give the
  // same settings in different places.
  struct Advice {
    std::string ensemble =
        "model each step as its own model (its own triton_config, service_time and request), or "
        "calibrate the ensemble as a whole and describe it without triton_config";
    std::string sequence =
        "describe the model without triton_config if its requests can be treated as "
        "independent";
    std::string instances =
        "set `instances` (concurrent executions on one device) to say what to simulate";
  } advice;

  // The server settings of a Triton config alone, read as a model's `triton_config` is.
  TritonSettings settings_of(const std::string& file, bool instances_given);

 private:
  std::optional<double> scalar(const json& v, const std::string& path, const DistSpec& spec,
                               Range range);
  std::optional<Distribution> distribution(const json& v, const std::string& path,
                                           const DistSpec& spec);
  void workloads(const json& doc, Scenario& s);
  void workload(const json& v, const std::string& path, Workload& w);
  void arrivals(const json& workload, const json& v, const std::string& wpath, Workload& w);
  void flow(const json& v, const std::string& wpath, Workload& w);
  void requests(const json& v, const std::string& path, Workload& w);
  void client(const json& v, const std::string& wpath, Workload& w);
  void request(const json& v, const std::string& path, RequestSpec& r);
  void model(const json& v, const std::string& path, Model& m);
  double tensor_bytes(const json& v, const std::string& path, std::vector<TensorSpec>& tensors);
  void dynamic_batching(const json& v, const std::string& path, Model& m);
  bool queue_policy(const json& v, const std::string& path, QueuePolicy& p);
  bool time_or_microseconds(const json& v, const std::string& path, const std::string& key,
                            double& target);
  bool check_priority_levels(const DynamicBatching& db, const std::string& path,
                             const std::string& config_in = "");
  // A Triton config.pbtxt as read, with its path for messages.
  struct TritonSource {
    triton::ModelConfig config;
    std::string file;  // resolved against the scenario's folder
    std::string in() const { return "Triton config `" + file + "`"; }
  };
  std::optional<TritonSource> triton_config(const json& v, const std::string& path, Model& m);
  void config_instances(const TritonSource& src, bool overridden, const std::string& path,
                        Model& m);
  void config_batching(const TritonSource& src, const json& model, const std::string& path,
                       Model& m);
  double config_tensor_bytes(const TritonSource& src, bool input, const json* given,
                             const std::string& path, std::vector<TensorSpec>& tensors);
  void service_time(const json& v, const std::string& path, Model& m);
  void spread(const json& st, const std::string& path, ServiceSpread& out, const char* of_what);
  std::optional<ServiceCurve> curve(const json& v, const std::string& path, bool in_device_map);
  // The batch/seconds arrays of a curve; overhead tables allow zero times.
  std::optional<ServiceCurve> table(const json& v, const std::string& path,
                                    bool zero_allowed = false);
  std::optional<ServiceCurve> calibration(const json& v, const std::string& path);
  template <class Extract>
  auto from_calibration(const json& v, const std::string& path, Extract extract)
      -> decltype(extract(std::declval<Loader&>(), std::declval<const json&>()));
  std::optional<OverheadPhase> overhead_phase(const json& v, const std::string& path);
  std::optional<RequestOverhead> overhead_table(const json& v, const std::string& path);
  void request_overhead(const json& v, const std::string& path, Model& m);
  void servers(const json& v, const std::string& path, Scenario& s);
  void admission(const json& v, const std::string& path, Scenario& s);
  void balancer_capacity(const json& v, const std::string& path, LoadBalancer& lb);
  // `count`: the pool's device count, nullopt when it was invalid (no check against it then).
  std::optional<Autoscaler> autoscaler(const json& v, const std::string& path,
                                       std::optional<int> count);
  std::optional<Autoscaler::Behavior> behavior(const json& v, const std::string& path,
                                               Autoscaler::Behavior b);
  void faults(const json& v, const std::string& path, Scenario& s);
  void fault(const json& v, const std::string& path, Scenario& s, std::string& random_preemption);
  std::optional<std::size_t> pool_of(const json& v, const std::string& path, const Scenario& s);
  void network(const json& v, const std::string& path, Network& n);
  std::optional<LinkSpec> link(const json& v, const std::string& path);
  void cross_check(const json& doc, Scenario& s);

  std::string base_dir_;
  // Which models parsed cleanly, so cross-checks do not pile consequences onto a broken model.
  std::set<std::string> defined_models_;
  // The jobs of all workloads as read, if valid (a preemption may take at most that many).
  std::optional<std::int64_t> jobs_;
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

// The open loop's keys (`workload` is the workload object, `v` its `arrivals`). Every closed-loop
// key is refused next to them: it would describe client threads that do not exist.
void Loader::arrivals(const json& workload, const json& v, const std::string& wpath, Workload& w) {
  const std::string path = key_path(wpath, "arrivals");
  if (!expect_object(v, path,
                     "an object {\"rate\": \"500/s\", \"distribution\": \"constant\"} (an open "
                     "loop), or null"))
    return;
  check_keys(v, path, {"rate", "distribution", "max_in_flight"});
  Arrivals a;
  if (const json* x = get(v, "rate")) {
    if (auto r = quantity(*x, key_path(path, "rate"), Quantity::Rate,
                          Range{0.0, Limits::max_arrival_rate, true, false}))
      a.rate = *r;
  } else {
    missing(key_path(path, "rate"), "arrivals per second, a rate > 0 such as \"500/s\" or 500");
  }
  if (const json* x = get(v, "distribution")) {
    if (auto d = choice(*x, key_path(path, "distribution"), {"constant", "poisson"}))
      a.distribution =
          *d == "poisson" ? Arrivals::Distribution::Poisson : Arrivals::Distribution::Constant;
  }
  if (const json* x = get(v, "max_in_flight")) {
    if (auto n = integer(*x, key_path(path, "max_in_flight"), 1, Limits::max_in_flight,
                         "requests outstanding at once"))
      a.max_in_flight = *n;
  }
  w.arrivals = a;
  w.cpu_time_per_event = Distribution::constant(0.0);
  for (const char* key :
       {"jobs", "threads_per_job", "jobs_per_node", "mode", "async", "cpu_time_per_event"}) {
    const json* x = get(workload, key);
    if (!x || x->is_null()) continue;
    add(key_path(wpath, key),
        "found " + describe(*x) + " next to `arrivals`, expected no `" + key +
            "` (or null): an open loop has no client jobs, threads or CPU time, each arrival "
            "sends the event's requests at once and nobody waits for the replies; remove `" +
            key + "`, or remove `arrivals` for a closed loop");
  }
}

// `workload` (one) or `workloads` (an array of named ones sharing the servers).
void Loader::workloads(const json& doc, Scenario& s) {
  const json* one = get(doc, "workload");
  const json* many = get(doc, "workloads");
  if (one && many) {
    add("workloads", "found both `workload` and `workloads`, expected one of them");
    return;
  }
  if (one) {
    workload(*one, "workload", s.workload());
  } else if (!many) {
    missing("workload",
            "an object with jobs, threads_per_job, cpu_time_per_event, ... (or `workloads`, an "
            "array of them)");
    return;
  } else if (!many->is_array() || many->empty()) {
    add("workloads", "found " + describe(*many) +
                         ", expected an array of at least one workload object, each with a name");
    return;
  } else if (many->size() > Limits::max_workloads) {
    add("workloads", "found " + std::to_string(many->size()) + " workloads, expected at most " +
                         std::to_string(Limits::max_workloads));
    return;
  } else {
    s.workloads.assign(many->size(), Workload{});
    std::map<std::string, std::string> names;  // name -> where
    for (std::size_t i = 0; i < many->size(); ++i) {
      const std::string path = index_path("workloads", i);
      const json& v = (*many)[i];
      workload(v, path, s.workloads[i]);
      if (!v.is_object()) continue;
      const std::string& name = s.workloads[i].name;
      if (!get(v, "name")) {
        missing(key_path(path, "name"), "a name for the workload (e.g. \"reco\"), unique");
      } else if (!name.empty() && names.count(name)) {
        add(key_path(path, "name"),
            "found \"" + name + "\" again (first at " + names[name] + "), expected a unique name");
      } else if (!name.empty()) {
        names[name] = path;
      }
      if (many->size() > 1 && s.workloads[i].open_loop())
        add(key_path(path, "arrivals"),
            "found an open loop among " + std::to_string(many->size()) +
                " workloads, expected it alone: an open loop is a scenario's only workload");
    }
  }
  // The jobs as read, for preemption's bound.
  if (s.workloads.size() > 1 && s.total_threads() > Limits::max_threads)
    add("workloads", "found " + std::to_string(s.total_threads()) +
                         " client threads in all, expected at most " +
                         std::to_string(Limits::max_threads));
  if (ok()) jobs_ = s.total_jobs();
}

void Loader::workload(const json& v, const std::string& path, Workload& w) {
  if (!expect_object(v, path, "an object with jobs, threads_per_job, cpu_time_per_event, ..."))
    return;
  check_keys(v, path,
             {"name", "priority", "jobs", "threads_per_job", "jobs_per_node", "mode", "async",
              "cpu_time_per_event", "requests", "arrivals", "flow", "client"});
  if (const json* x = get(v, "name")) {
    if (auto n = string(*x, key_path(path, "name"))) w.name = *n;
  }
  if (const json* x = get(v, "priority"); x && !x->is_null()) {
    if (auto n = integer(*x, key_path(path, "priority"), 1, Limits::max_priority_levels,
                         "Triton request priority, 1 the highest"))
      w.priority = static_cast<std::uint64_t>(*n);
  }
  if (const json* x = get(v, "arrivals"); x && !x->is_null()) {
    if (const json* f = get(v, "flow"); f && !f->is_null())
      add(key_path(path, "flow"),
          "found a job flow next to `arrivals`, expected one of them: an open loop has no jobs "
          "to come and go");
    arrivals(v, *x, path, w);
    requests(v, path, w);
    if (const json* c = get(v, "client"); c && !c->is_null()) client(*c, path, w);
    return;
  }
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
  if (const json* x = get(v, "flow"); x && !x->is_null()) flow(*x, path, w);
  requests(v, path, w);
  if (const json* x = get(v, "client"); x && !x->is_null()) client(*x, path, w);
}

// `workload.client`: what a client does when a request fails (CMSSW's SonicClient: retries, then
// the fallback). Called after `arrivals` is read, so w.open_loop() is known.
void Loader::client(const json& v, const std::string& wpath, Workload& w) {
  const std::string path = key_path(wpath, "client");
  if (!expect_object(v, path,
                     "an object {\"timeout\": \"1s\", \"allowed_tries\": 3, \"retry_delay\": "
                     "\"0s\", \"fallback\": \"cpu\"}, or null"))
    return;
  check_keys(v, path, {"timeout", "allowed_tries", "retry_delay", "fallback"});
  ClientPolicy& c = w.client;
  if (const json* x = get(v, "timeout")) {
    if (auto t = quantity(*x, key_path(path, "timeout"), Quantity::Time, Range::at_least(0)))
      c.timeout = *t;
  }
  if (const json* x = get(v, "allowed_tries")) {
    if (auto n = integer(*x, key_path(path, "allowed_tries"), 1, 100,
                         "tries per request in all, the first one included"))
      c.allowed_tries = static_cast<int>(*n);
  }
  if (const json* x = get(v, "retry_delay")) {
    if (auto t = quantity(*x, key_path(path, "retry_delay"), Quantity::Time, Range::at_least(0)))
      c.retry_delay = *t;
  }
  if (const json* x = get(v, "fallback")) {
    if (auto f = choice(*x, key_path(path, "fallback"), {"none", "cpu"})) {
      if (*f == "cpu" && w.open_loop()) {
        add(key_path(path, "fallback"),
            "found \"cpu\" next to `workload.arrivals`, expected \"none\": an open loop has no "
            "client CPU to fall back on (remove `arrivals` for client jobs that compute a failed "
            "request themselves)");
      } else {
        c.fallback = *f == "cpu" ? ClientPolicy::Fallback::Cpu : ClientPolicy::Fallback::None;
      }
    }
  }
}

// `workload.flow`: when the jobs start (one of waves, ramp, start_times; none: all at 0) and how
// many events each processes before it exits.
void Loader::flow(const json& v, const std::string& wpath, Workload& w) {
  const std::string path = key_path(wpath, "flow");
  if (!expect_object(v, path,
                     "an object {\"events_per_job\": 1000, \"waves\": {\"size\": 50, "
                     "\"every\": \"10min\"}} (or ramp, start_times), or null"))
    return;
  check_keys(v, path, {"events_per_job", "waves", "ramp", "start_times"});
  JobFlow f;
  if (const json* x = get(v, "events_per_job")) {
    if (auto d = distribution(*x, key_path(path, "events_per_job"),
                              DistSpec{false, 1.0, "a number of events"}))
      f.events_per_job = *d;
  } else {
    missing(key_path(path, "events_per_job"),
            "events each job processes before it exits: a number >= 1 or a distribution");
  }
  int starts = 0;
  for (const char* key : {"waves", "ramp", "start_times"}) {
    const json* x = get(v, key);
    starts += x && !x->is_null() ? 1 : 0;
  }
  if (starts > 1)
    add(path,
        "found more than one of waves, ramp and start_times, expected at most one (none: "
        "every job starts at time 0)");
  if (const json* x = get(v, "waves"); x && !x->is_null()) {
    const std::string p = key_path(path, "waves");
    if (expect_object(*x, p, "an object {\"size\": 50, \"every\": \"10min\", \"first\": \"0s\"}")) {
      check_keys(*x, p, {"size", "every", "first"});
      f.start = JobFlow::Start::Waves;
      if (const json* n = get(*x, "size")) {
        if (auto k = integer(*n, key_path(p, "size"), 1, Limits::max_threads, "jobs per wave"))
          f.wave_size = *k;
      } else {
        missing(key_path(p, "size"), "jobs per wave, an integer >= 1");
      }
      if (const json* t = get(*x, "every")) {
        if (auto d = quantity(*t, key_path(p, "every"), Quantity::Time, Range::at_least(0)))
          f.wave_every = *d;
      } else {
        missing(key_path(p, "every"), "the time between waves, e.g. \"10min\"");
      }
      if (const json* t = get(*x, "first")) {
        if (auto d = quantity(*t, key_path(p, "first"), Quantity::Time, Range::at_least(0)))
          f.first = *d;
      }
    }
  }
  if (const json* x = get(v, "ramp"); x && !x->is_null()) {
    const std::string p = key_path(path, "ramp");
    if (expect_object(*x, p, "an object {\"over\": \"30min\"}")) {
      check_keys(*x, p, {"over"});
      f.start = JobFlow::Start::Ramp;
      if (const json* t = get(*x, "over")) {
        if (auto d = quantity(*t, key_path(p, "over"), Quantity::Time, Range::at_least(0)))
          f.ramp_over = *d;
      } else {
        missing(key_path(p, "over"), "the time over which the jobs start, evenly, e.g. \"30min\"");
      }
    }
  }
  if (const json* x = get(v, "start_times"); x && !x->is_null()) {
    const std::string p = key_path(path, "start_times");
    if (!x->is_array()) {
      add(p, "found " + describe(*x) + ", expected an array of times, one per job");
    } else {
      f.start = JobFlow::Start::Times;
      for (std::size_t i = 0; i < x->size(); ++i)
        if (auto d = quantity((*x)[i], index_path(p, i), Quantity::Time, Range::at_least(0)))
          f.start_times.push_back(*d);
      if (static_cast<std::int64_t>(x->size()) != w.jobs)
        add(p, "found " + std::to_string(x->size()) + " start times for " + std::to_string(w.jobs) +
                   " jobs, expected one per job");
    }
  }
  w.flow = std::move(f);
}

// `load_balancer.capacity`: the balancer's worker threads and NIC, so that it can saturate.
void Loader::balancer_capacity(const json& v, const std::string& path, LoadBalancer& lb) {
  if (!expect_object(v, path,
                     "an object {\"per_message\": \"20us\", \"workers\": 4, \"bandwidth\": "
                     "\"25Gbps\"}, or null"))
    return;
  check_keys(v, path, {"per_message", "workers", "bandwidth"});
  BalancerCapacity c;
  bool ok =
      optional_quantity(v, path, "per_message", Quantity::Time, Range::at_least(0), c.per_message);
  if (const json* x = get(v, "workers")) {
    if (auto n = integer(*x, key_path(path, "workers"), 1, 4096, "worker threads"))
      c.workers = static_cast<int>(*n);
    else
      ok = false;
  }
  ok = optional_quantity(v, path, "bandwidth", Quantity::Bandwidth, Range::positive(),
                         c.bandwidth) &&
       ok;
  if (ok && c.per_message <= 0.0 && c.bandwidth <= 0.0) {
    add(path,
        "found neither per_message nor bandwidth, expected at least one (or null: a balancer "
        "that never limits)");
    ok = false;
  }
  if (ok) lb.capacity = c;
}

// `load_balancer.admission`: a token bucket on new connections and/or refusal while an
// autoscaled pool is above its threshold.
void Loader::admission(const json& v, const std::string& path, Scenario& s) {
  if (!expect_object(v, path,
                     "an object {\"rate\": 1, \"burst\": 10, \"refuse_above_threshold\": "
                     "true, \"retry_after\": \"1min\"}, or null"))
    return;
  check_keys(v, path, {"rate", "burst", "refuse_above_threshold", "retry_after"});
  Admission a;
  bool ok = optional_quantity(v, path, "rate", Quantity::Rate, Range::at_least(0), a.rate);
  if (const json* x = get(v, "burst")) {
    if (auto b = number(*x, key_path(path, "burst"), Range::at_least(1), "a number"))
      a.burst = *b;
    else
      ok = false;
  }
  if (const json* x = get(v, "refuse_above_threshold")) {
    if (!x->is_boolean()) {
      add(key_path(path, "refuse_above_threshold"),
          "found " + describe(*x) + ", expected true or false");
      ok = false;
    } else {
      a.above_threshold = x->get<bool>();
    }
  }
  ok =
      optional_quantity(v, path, "retry_after", Quantity::Time, Range::positive(), a.retry_after) &&
      ok;
  if (ok && a.rate <= 0.0 && !a.above_threshold) {
    add(path,
        "found neither a rate nor \"refuse_above_threshold\": true, expected at least one (or "
        "null: every connection admitted)");
    ok = false;
  }
  if (a.above_threshold &&
      std::none_of(s.servers.begin(), s.servers.end(),
                   [](const ServerPool& p) { return p.autoscaler.has_value(); })) {
    add(key_path(path, "refuse_above_threshold"),
        "found true with no autoscaled pool, expected a pool with an `autoscaler` (its metric "
        "and threshold decide)");
    ok = false;
  }
  if (s.workload().open_loop()) {
    add(path,
        "found an admission policy with an open loop (`workload.arrivals`), expected none: "
        "an open loop has no client jobs to connect");
    ok = false;
  }
  if (ok) s.load_balancer.admission = a;
}

void Loader::requests(const json& v, const std::string& path, Workload& w) {
  const std::string rpath = key_path(path, "requests");
  const json* x = get(v, "requests");
  if (!x) {
    if (w.open_loop())
      missing(rpath, "at least one request: each arrival sends the workload's requests");
    return;
  }
  if (!x->is_array()) {
    add(rpath, "found " + describe(*x) + ", expected an array of request objects");
    return;
  }
  if (x->size() > Limits::max_request_kinds) {
    add(rpath, "found " + std::to_string(x->size()) + " requests, expected at most " +
                   std::to_string(Limits::max_request_kinds) + " (per_event repeats a request)");
    return;
  }
  if (x->empty() && w.open_loop())
    add(rpath,
        "found an empty array next to `arrivals`, expected at least one request (each "
        "arrival sends the workload's requests)");
  w.requests.resize(x->size());
  for (std::size_t i = 0; i < x->size(); ++i) request((*x)[i], index_path(rpath, i), w.requests[i]);
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

// Keys set here override those of the model's Triton config one by one (m.dynamic_batching
// holds the config's values, if any); `null` turns dynamic batching off.
void Loader::dynamic_batching(const json& v, const std::string& path, Model& m) {
  if (v.is_null()) {
    m.dynamic_batching.reset();
    return;
  }
  if (!expect_object(v, path,
                     "null (no dynamic batching) or an object with preferred_batch_size, "
                     "max_queue_delay, max_queue_size, default_timeout, timeout_action"))
    return;
  check_keys(v, path,
             {"preferred_batch_size", "max_queue_delay", "max_queue_delay_microseconds",
              "max_queue_size", "default_timeout", "default_timeout_microseconds", "timeout_action",
              "priority_levels", "default_priority_level", "priority_queue_policy"});
  DynamicBatching db = m.dynamic_batching.value_or(DynamicBatching{});
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
    db.preferred_batch_size.clear();
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
  ok = time_or_microseconds(v, path, "max_queue_delay", db.max_queue_delay) && ok;
  ok = queue_policy(v, path, db.queue_policy) && ok;
  if (const json* x = get(v, "priority_levels")) {
    if (auto n = integer(*x, key_path(path, "priority_levels"), 0, Limits::max_priority_levels,
                         "Triton priority levels; 0 means one queue"))
      db.priority_levels = static_cast<std::uint64_t>(*n);
    else
      ok = false;
  }
  if (const json* x = get(v, "default_priority_level")) {
    if (auto n =
            integer(*x, key_path(path, "default_priority_level"), 0, Limits::max_priority_levels))
      db.default_priority_level = static_cast<std::uint64_t>(*n);
    else
      ok = false;
  }
  if (const json* x = get(v, "priority_queue_policy"); x && !x->is_null()) {
    const std::string ppath = key_path(path, "priority_queue_policy");
    if (!expect_object(*x, ppath,
                       "an object from priority level (\"1\", \"2\", ...) to a queue policy "
                       "{max_queue_size, default_timeout, timeout_action}")) {
      ok = false;
    } else {
      for (const auto& item : x->items()) {
        const std::string lpath = key_path(ppath, item.key());
        const auto& k = item.key();
        const bool digits =
            !k.empty() && k.size() <= 9 &&
            std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; });
        const std::uint64_t level = digits ? std::stoull(k) : 0;
        if (level < 1) {
          add(lpath, "found the key \"" + k + "\", expected a priority level 1, 2, ...");
          ok = false;
          continue;
        }
        if (!expect_object(item.value(), lpath,
                           "a queue policy {max_queue_size, default_timeout, timeout_action}")) {
          ok = false;
          continue;
        }
        check_keys(item.value(), lpath,
                   {"max_queue_size", "default_timeout", "default_timeout_microseconds",
                    "timeout_action"});
        QueuePolicy lp = db.policy_of(level);
        if (queue_policy(item.value(), lpath, lp))
          db.priority_queue_policy[level] = lp;
        else
          ok = false;
      }
    }
  }
  ok = check_priority_levels(db, path) && ok;
  if (ok) m.dynamic_batching = std::move(db);
}

// A time under its own key, or in microseconds under Triton's spelling of it (KEY_microseconds).
bool Loader::time_or_microseconds(const json& v, const std::string& path, const std::string& key,
                                  double& target) {
  const std::string us_key = key + "_microseconds";
  const json* t = get(v, key);
  const json* us = get(v, us_key);
  if (t && us) {
    add(key_path(path, us_key), "found both `" + key + "` and `" + us_key + "`, expected only one");
    return false;
  }
  std::optional<double> d;
  if (t)
    d = quantity(*t, key_path(path, key), Quantity::Time, Range::at_least(0));
  else if (us)
    d = number(*us, key_path(path, us_key), Range::at_least(0));
  else
    return true;
  if (!d) return false;
  target = us ? *d * 1e-6 : *d;
  return true;
}

// The queue policy keys of `v` (dynamic_batching or one level of priority_queue_policy) over `p`.
bool Loader::queue_policy(const json& v, const std::string& path, QueuePolicy& p) {
  bool ok = time_or_microseconds(v, path, "default_timeout", p.default_timeout);
  if (const json* x = get(v, "max_queue_size")) {
    if (auto n = integer(*x, key_path(path, "max_queue_size"), 0, 4294967295LL,
                         "queued requests per device; 0 means no limit"))
      p.max_queue_size = *n;
    else
      ok = false;
  }
  if (const json* x = get(v, "timeout_action")) {
    if (auto a = choice(*x, key_path(path, "timeout_action"), {"REJECT", "DELAY"}))
      p.timeout_action =
          *a == "DELAY" ? QueuePolicy::TimeoutAction::Delay : QueuePolicy::TimeoutAction::Reject;
    else
      ok = false;
  }
  return ok;
}

// Triton refuses a config whose default level or per-level policies name a level it lacks.
// Problems go to `path`'s keys, or (a Triton config, `config_in` naming it) to `path` itself.
bool Loader::check_priority_levels(const DynamicBatching& db, const std::string& path,
                                   const std::string& config_in) {
  const auto report = [&](const std::string& key, const std::string& message) {
    if (config_in.empty())
      add(key_path(path, key), "found " + message);
    else
      add(path, config_in + "found " + key + " " + message);
  };
  bool ok = true;
  const std::string levels = "priority_levels " + std::to_string(db.priority_levels) + "]";
  if (db.priority_levels > 0 &&
      (db.default_priority_level < 1 || db.default_priority_level > db.priority_levels)) {
    report("default_priority_level",
           std::to_string(db.default_priority_level) + ", expected a level in [1, " + levels);
    ok = false;
  }
  for (const auto& [level, policy] : db.priority_queue_policy)
    if (level > db.priority_levels) {
      report("priority_queue_policy",
             "a policy for level " + std::to_string(level) + ", expected levels in [1, " + levels);
      ok = false;
    }
  return ok;
}

std::optional<ServiceCurve> Loader::table(const json& v, const std::string& path,
                                          bool zero_allowed) {
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
      if (auto t = quantity((*seconds)[i], index_path(spath, i), Quantity::Time,
                            zero_allowed ? Range::at_least(0) : Range::positive()))
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

// A calibration file is its own document: its problems are reported under the key that names
// it, with the position inside it. `extract` reads the part the caller needs with a sub-loader.
template <class Extract>
auto Loader::from_calibration(const json& v, const std::string& path, Extract extract)
    -> decltype(extract(std::declval<Loader&>(), std::declval<const json&>())) {
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
  std::vector<Problem> inner;
  const auto doc = detail::parse_document(text, inner);
  Loader sub(resolved.parent_path().string());
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
  // The same file may serve a curve and the overheads: hash it once.
  const bool known = std::any_of(referenced_files.begin(), referenced_files.end(),
                                 [&](const auto& f) { return f.path == *file; });
  if (!known) referenced_files.push_back({*file, sha256_hex(text)});
  return out;
}

std::optional<ServiceCurve> Loader::calibration(const json& v, const std::string& path) {
  auto c =
      from_calibration(v, path, [](Loader& sub, const json& doc) -> std::optional<ServiceCurve> {
        const json* st = sub.get(doc, "service_time");
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

std::optional<OverheadPhase> Loader::overhead_phase(const json& v, const std::string& path) {
  if (!v.is_object()) {
    if (auto t = quantity(v, path, Quantity::Time, Range::at_least(0))) {
      OverheadPhase p;
      p.fixed = *t;
      return p;
    }
    return std::nullopt;
  }
  check_keys(v, path, {"fixed", "per_item", "batch", "seconds"});
  OverheadPhase p;
  bool ok = true;
  if (get(v, "batch") || get(v, "seconds")) {
    if (auto t = table(v, path, /*zero_allowed=*/true)) {
      p.batch = std::move(t->batch);
      p.seconds = std::move(t->seconds);
    } else {
      ok = false;
    }
  }
  for (const char* key : {"fixed", "per_item"}) {
    if (const json* x = get(v, key)) {
      if (auto t = quantity(*x, key_path(path, key), Quantity::Time, Range::at_least(0)))
        (std::string(key) == "fixed" ? p.fixed : p.per_item) = *t;
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
  check_keys(v, path, {"client_send", "server", "client_recv", "dist", "cv"});
  RequestOverhead o;
  const std::size_t before = problems.size();
  spread(v, path, o.spread, "one request's overhead");
  bool ok = problems.size() == before;
  const std::pair<const char*, OverheadPhase*> phases[] = {
      {"client_send", &o.client_send}, {"server", &o.server}, {"client_recv", &o.client_recv}};
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
  if (v.is_object() && get(v, "calibration")) {
    check_keys(v, path, {"calibration", "dist", "cv"});
    const std::string cpath = key_path(path, "calibration");
    o = from_calibration(*get(v, "calibration"), cpath,
                         [](Loader& sub, const json& doc) -> std::optional<RequestOverhead> {
                           const json* x = sub.get(doc, "request_overhead");
                           if (!x) {
                             sub.missing("request_overhead",
                                         "the per-request overheads written by `sonicsim "
                                         "calibrate perf-analyzer`");
                             return std::nullopt;
                           }
                           return sub.overhead_table(*x, "request_overhead");
                         });
    if (o) {
      o->source = string(*get(v, "calibration"), cpath).value_or("");
      // The scenario's own jitter, when it gives one, replaces the calibration's.
      if (get(v, "dist") || get(v, "cv")) spread(v, path, o->spread, "one request's overhead");
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

void Loader::spread(const json& st, const std::string& path, ServiceSpread& out,
                    const char* of_what) {
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
    out.kind = *name == "constant" ? Distribution::Kind::Constant : Distribution::Kind::Exponential;
    if (cv)
      add(key_path(path, "cv"), "found `cv` with \"dist\": " + describe(*kind) +
                                    ", expected no `cv` (it applies to lognormal and gamma)");
    out.cv = *name == "exponential" ? 1.0 : 0.0;
    return;
  }
  out.kind = *name == "lognormal" ? Distribution::Kind::Lognormal : Distribution::Kind::Gamma;
  if (!cv) {
    missing(key_path(path, "cv"),
            std::string("the coefficient of variation of ") + of_what + " (e.g. 0.1)");
  } else if (auto c = number(*cv, key_path(path, "cv"), Range::at_least(0))) {
    out.cv = *c;
  }
}

void Loader::service_time(const json& v, const std::string& path, Model& m) {
  if (!expect_object(v, path,
                     "a curve {\"batch\": [...], \"seconds\": [...]}, {\"calibration\": "
                     "\"FILE.json\"} or a map from device name to such a curve"))
    return;
  spread(v, path, m.spread, "one execution");
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

namespace {

std::string at_position(const triton::Position& p) {
  if (p.line <= 0) return {};
  return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column) + ": ";
}

std::string dims_text(const std::vector<std::int64_t>& dims, bool placeholder = false) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") +
           (placeholder && dims[i] == -1 ? std::string("N") : std::to_string(dims[i]));
  return out + "]";
}

// The protocol's dtype spelling, as TensorSpec uses it ("TYPE_FP32" -> "FP32").
std::string protocol_dtype(const std::string& data_type) {
  return data_type.rfind("TYPE_", 0) == 0 ? data_type.substr(5) : data_type;
}

}  // namespace

// Triton's 0 is "no batch dimension": one item per execution, unlike sonicsim's 0.
int batch_limit_of(const triton::ModelConfig& c) {
  return c.max_batch_size > 0 ? c.max_batch_size : 1;
}

std::optional<Loader::TritonSource> Loader::triton_config(const json& v, const std::string& path,
                                                          Model& m) {
  const auto file = string(v, path);
  if (!file) return std::nullopt;
  std::filesystem::path resolved(*file);
  if (resolved.is_relative()) resolved = std::filesystem::path(base_dir_) / resolved;
  TritonSource src{{}, resolved.string()};
  std::error_code ec;
  if (std::filesystem::is_directory(resolved, ec)) {
    // Triton's model repository has one folder per model, holding config.pbtxt.
    const bool inside = std::filesystem::exists(resolved / "config.pbtxt", ec);
    add(path, "found the folder `" + src.file + "`, expected a config.pbtxt file" +
                  (inside ? "; did you mean `" +
                                (std::filesystem::path(*file) / "config.pbtxt").string() + "`?"
                          : std::string()));
    return std::nullopt;
  }
  // Real configs are a few kB; anything huge is the wrong file, not worth reading.
  constexpr std::uintmax_t kMaxBytes = 16 << 20;
  if (const auto size = std::filesystem::file_size(resolved, ec); !ec && size > kMaxBytes) {
    add(path, "found `" + src.file + "` of " + std::to_string(size) +
                  " bytes, expected a Triton config.pbtxt (at most 16 MiB)");
    return std::nullopt;
  }
  std::string error;
  const std::string text = read_text(src.file, error);
  if (!error.empty()) {
    add(path, "cannot read Triton config `" + src.file + "`: " + error);
    return std::nullopt;
  }
  auto parsed = triton::parse_model_config(text);
  const std::string in = "in " + src.in() + ": ";
  if (!parsed.config) {
    for (const auto& e : parsed.errors)
      add(path, in + at_position(e.position) + e.message +
                    " (expected Triton's model configuration in protobuf text format)");
    return std::nullopt;
  }
  const triton::ModelConfig& c = *parsed.config;
  const std::size_t before = problems.size();
  if (c.platform == "ensemble" || c.ensemble_scheduling) {
    std::vector<std::string> steps;
    for (const auto& step : c.ensemble_steps) steps.push_back("`" + step.model_name + "`");
    add(path, in + at_position(c.ensemble_scheduling.value_or(triton::Position{})) + "model `" +
                  c.name + "` is an ensemble" +
                  (steps.empty() ? std::string() : " of the steps " + join(steps)) +
                  ", which sonicsim cannot simulate as one model: " + advice.ensemble);
  }
  if (c.sequence_batching) {
    add(path, in + at_position(*c.sequence_batching) +
                  "the model uses sequence_batching (stateful sequences pinned to one instance), "
                  "which sonicsim does not simulate; " +
                  advice.sequence);
  }
  for (const auto& skipped : c.skipped) {
    // Fields Triton has but sonicsim does not read are fine; a near miss of one it reads is not.
    const std::string hint = did_you_mean(skipped.field, skipped.known);
    if (!hint.empty())
      add(path, in + at_position(skipped.position) + "unknown field `" + skipped.field + "` in " +
                    skipped.message + "; " + hint + " (Triton refuses unknown fields too)");
  }
  if (c.max_batch_size < 0 || c.max_batch_size > Limits::max_items) {
    add(path, in + "found max_batch_size " + std::to_string(c.max_batch_size) +
                  ", expected an integer in [0, " + std::to_string(Limits::max_items) +
                  "] (0: no batch dimension)");
  }
  if (problems.size() != before) return std::nullopt;
  m.triton_config = *file;
  const bool known = std::any_of(referenced_files.begin(), referenced_files.end(),
                                 [&](const auto& f) { return f.path == *file; });
  if (!known) referenced_files.push_back({*file, sha256_hex(text)});
  src.config = std::move(*parsed.config);
  return src;
}

// Triton creates `count` instances per listed GPU for KIND_GPU (and KIND_AUTO, which is a GPU
// group on a server with GPUs), and `count` instances per server for KIND_CPU and KIND_MODEL.
// sonicsim's `instances` is per device of a pool of identical devices, so the groups must give
// every device the same number; anything else is refused unless the scenario sets `instances`.
void Loader::config_instances(const TritonSource& src, bool overridden, const std::string& path,
                              Model& m) {
  const auto& groups = src.config.instance_groups;
  const std::string in = src.in();
  std::vector<const triton::InstanceGroup*> active;
  std::vector<std::string> kinds;
  for (const auto& g : groups) {
    if (g.passive) continue;  // passive instances take no requests from the scheduler
    active.push_back(&g);
    if (std::find(kinds.begin(), kinds.end(), g.kind) == kinds.end()) kinds.push_back(g.kind);
  }
  std::sort(kinds.begin(), kinds.end());
  for (std::size_t i = 0; i < kinds.size(); ++i) m.instance_kind += (i ? "+" : "") + kinds[i];
  if (overridden || groups.empty()) return;  // no instance_group: one instance per device

  const auto fail = [&](const triton::Position& where, const std::string& what) {
    add(path, in + " " + (where.line > 0 ? "(line " + std::to_string(where.line) + ") " : "") +
                  what + "; " + advice.instances);
  };
  if (active.empty()) return fail(groups.front().position, "has only passive instance groups");
  const auto per_gpu = [](const triton::InstanceGroup& g) {
    return g.kind == "KIND_GPU" || g.kind == "KIND_AUTO";
  };
  for (const auto* g : active) {
    if (g->kind.empty() || g->count < 0)
      return fail(g->position, "has an instance group with " +
                                   (g->kind.empty() ? std::string("an unknown kind")
                                                    : "count " + std::to_string(g->count)));
    if (per_gpu(*g) != per_gpu(*active.front()))
      return fail(g->position,
                  "mixes instance groups on GPUs (KIND_GPU/KIND_AUTO, counted per GPU) with "
                  "groups on the host (KIND_CPU/KIND_MODEL, counted per server), which one pool "
                  "of identical devices cannot represent (model the CPU instances as their own "
                  "pool)");
  }
  // Triton reads a count of 0 (the proto3 default, i.e. absent) as 1.
  const auto count = [](const triton::InstanceGroup& g) {
    return static_cast<std::int64_t>(std::max(1, g.count));
  };
  std::int64_t n = 0;
  if (!per_gpu(*active.front())) {
    for (const auto* g : active) n += count(*g);
  } else {
    std::map<std::int32_t, std::int64_t> on_gpu;  // instances per GPU named in a `gpus` list
    std::int64_t everywhere = 0;                  // from groups without a list
    const triton::InstanceGroup *listed = nullptr, *unlisted = nullptr;
    for (const auto* g : active) {
      if (g->gpus.empty()) {
        everywhere += count(*g);
        unlisted = g;
        continue;
      }
      listed = g;
      std::set<std::int32_t> ids(g->gpus.begin(), g->gpus.end());
      for (std::int32_t id : ids) on_gpu[id] += count(*g);
    }
    if (listed && unlisted)
      return fail(listed->position,
                  "has instance groups for listed GPUs and groups for every GPU, so GPUs get "
                  "different numbers of instances depending on how many the server has");
    if (listed) {
      for (const auto& [id, k] : on_gpu) {
        if (k == on_gpu.begin()->second) continue;
        return fail(listed->position, "gives " + std::to_string(on_gpu.begin()->second) +
                                          " instances to GPU " +
                                          std::to_string(on_gpu.begin()->first) + " but " +
                                          std::to_string(k) + " to GPU " + std::to_string(id) +
                                          ", while the devices of a sonicsim pool are identical");
      }
      n = on_gpu.begin()->second;
    } else {
      n = everywhere;
    }
  }
  if (n > Limits::max_instances)
    return fail(active.front()->position, "gives " + std::to_string(n) +
                                              " instances per device, more than the limit of " +
                                              std::to_string(Limits::max_instances));
  m.instances = static_cast<int>(n);
}

// The config's dynamic_batching block, unless the scenario turns batching off; the scenario's
// own dynamic_batching keys are applied over it afterwards.
void Loader::config_batching(const TritonSource& src, const json& model, const std::string& path,
                             Model& m) {
  const json* own = get(model, "dynamic_batching");
  const auto& c = src.config;
  if ((own && own->is_null()) || !c.dynamic_batching) return;
  const auto& b = *c.dynamic_batching;
  const std::string cpath = key_path(path, "triton_config");
  const std::string in = "in " + src.in() + ": " + at_position(b.position) + "dynamic_batching: ";
  DynamicBatching db;
  bool ok = true;
  // Without a batch dimension (max_batch_size 0) Triton never batches: only the queue policy of
  // the block applies.
  if (c.max_batch_size > 0) {
    const bool own_preferred = own && own->is_object() && get(*own, "preferred_batch_size");
    for (std::int32_t p : b.preferred_batch_size) {
      if (p < 1 || p > c.max_batch_size) {
        add(cpath, in + "found preferred_batch_size " + std::to_string(p) +
                       ", expected sizes in [1, max_batch_size " +
                       std::to_string(c.max_batch_size) + "]");
        ok = false;
      } else if (!own_preferred && m.max_batch_size > 0 && p > m.max_batch_size) {
        add(key_path(path, "max_batch_size"),
            "found " + std::to_string(m.max_batch_size) + ", below the preferred_batch_size " +
                std::to_string(p) + " of " + src.in() +
                "; set dynamic_batching.preferred_batch_size too");
        ok = false;
      } else {
        db.preferred_batch_size.push_back(p);
      }
    }
    std::sort(db.preferred_batch_size.begin(), db.preferred_batch_size.end());
    db.preferred_batch_size.erase(
        std::unique(db.preferred_batch_size.begin(), db.preferred_batch_size.end()),
        db.preferred_batch_size.end());
  }
  db.max_queue_delay = static_cast<double>(b.max_queue_delay_microseconds) * 1e-6;
  db.priority_levels = b.priority_levels;
  db.default_priority_level = b.default_priority_level;
  const auto policy = [](const triton::QueuePolicy& t) {
    QueuePolicy p;
    p.max_queue_size = t.max_queue_size;
    p.default_timeout = static_cast<double>(t.default_timeout_microseconds) * 1e-6;
    p.timeout_action =
        t.delay ? QueuePolicy::TimeoutAction::Delay : QueuePolicy::TimeoutAction::Reject;
    p.allow_timeout_override = t.allow_timeout_override;
    return p;
  };
  db.queue_policy = policy(b.default_queue_policy);
  for (const auto& [level, p] : b.priority_queue_policy)
    db.priority_queue_policy[level] = policy(p);
  ok = check_priority_levels(db, cpath, in) && ok;
  if (ok) m.dynamic_batching = std::move(db);
}

TritonSettings Loader::settings_of(const std::string& file, bool instances_given) {
  TritonSettings out;
  out.file = file;
  Model m;
  const auto src = triton_config(json(file), "", m);
  if (!src) return out;
  const auto& c = src->config;
  out.name = c.name;
  out.config_max_batch_size = c.max_batch_size;
  m.max_batch_size = batch_limit_of(c);
  config_instances(*src, instances_given, "", m);
  config_batching(*src, json::object(), "", m);
  out.max_batch_size = m.max_batch_size;
  out.dynamic_batching = m.dynamic_batching;
  out.instances = m.instances;
  out.instance_kind = m.instance_kind;
  out.instance_groups = !c.instance_groups.empty();
  if (!referenced_files.empty()) out.sha256 = referenced_files.front().sha256;
  return out;
}

// Bytes per item of the config's tensors. The scenario's `inputs`/`outputs` entries, matched by
// name, give the shapes of tensors with variable (-1) dimensions; the config gives the rest.
double Loader::config_tensor_bytes(const TritonSource& src, bool input, const json* given,
                                   const std::string& path, std::vector<TensorSpec>& tensors) {
  const auto& listed = input ? src.config.inputs : src.config.outputs;
  const char* key = input ? "inputs" : "outputs";
  const char* bytes_key = input ? "input_bytes_per_item" : "output_bytes_per_item";
  const char* noun = input ? "input" : "output";
  const std::string tpath = key_path(path, key);
  if (listed.empty()) {
    // Triton can fill the tensors in from the model file; then the scenario must say them.
    if (given) return tensor_bytes(*given, tpath, tensors);
    add(key_path(path, bytes_key), src.in() + " lists no " + noun +
                                       " tensors, expected the payload here or the tensors in `" +
                                       tpath + "`");
    return 0.0;
  }
  std::vector<std::string> names;
  for (const auto& t : listed) names.push_back(t.name);
  struct Shape {
    std::vector<std::int64_t> dims;
    std::string path;
  };
  std::map<std::string, Shape> shapes;
  if (given && !given->is_array()) {
    add(tpath, "found " + describe(*given) +
                   ", expected an array of {\"name\": ..., \"shape\": "
                   "[...]} setting the shapes of the tensors of " +
                   src.in());
    given = nullptr;
  }
  for (std::size_t i = 0; given && i < given->size(); ++i) {
    const json& e = (*given)[i];
    const std::string epath = index_path(tpath, i);
    if (!expect_object(e, epath, "a tensor {\"name\": ..., \"shape\": [...]}")) continue;
    check_keys(e, epath, {"name", "shape", "dtype"});
    const std::string npath = key_path(epath, "name");
    const json* name_value = get(e, "name");
    if (!name_value) {
      missing(npath,
              "the name of an " + std::string(noun) + " of " + src.in() + " (" + join(names) + ")");
      continue;
    }
    const auto name = string(*name_value, npath);
    if (!name) continue;
    const auto it = std::find_if(listed.begin(), listed.end(),
                                 [&](const triton::Tensor& t) { return t.name == *name; });
    if (it == listed.end()) {
      const std::string hint = did_you_mean(*name, names);
      add(npath, "found " + describe(*name_value) + ", expected the name of an " + noun + " of " +
                     src.in() + (hint.empty() ? " (" + join(names) + ")" : "; " + hint));
      continue;
    }
    if (shapes.count(*name)) {
      add(npath, "found " + describe(*name_value) + " again (also at " + shapes[*name].path +
                     "), expected each tensor once");
      continue;
    }
    if (const json* d = get(e, "dtype")) {
      const auto dtype = string(*d, key_path(epath, "dtype"));
      if (dtype && protocol_dtype(*dtype) != protocol_dtype(it->data_type))
        add(key_path(epath, "dtype"), "found " + describe(*d) + ", but " + src.in() + " says " +
                                          it->data_type +
                                          " (leave dtype out to take it from there)");
    }
    const std::string spath = key_path(epath, "shape");
    const json* shape = get(e, "shape");
    if (!shape) {
      missing(spath, "the shape per item of `" + *name + "`, dims " + dims_text(it->dims, true) +
                         " in " + src.in() + " with each N set");
      continue;
    }
    if (!shape->is_array()) {
      add(spath, "found " + describe(*shape) + ", expected an array of dimensions like " +
                     dims_text(it->dims, true) + " with each N set");
      continue;
    }
    if (shape->size() != it->dims.size()) {
      add(spath, "found " + std::to_string(shape->size()) + " dimensions, expected " +
                     std::to_string(it->dims.size()) + " like dims " + dims_text(it->dims) +
                     " of `" + *name + "` in " + src.in());
      continue;
    }
    Shape s{{}, epath};
    bool ok = true;
    for (std::size_t k = 0; k < shape->size(); ++k) {
      const auto dim = integer((*shape)[k], index_path(spath, k), 1, 1'000'000'000, "a dimension");
      if (!dim) {
        ok = false;
      } else if (it->dims[k] != -1 && *dim != it->dims[k]) {
        add(index_path(spath, k), "found " + std::to_string(*dim) + ", expected " +
                                      std::to_string(it->dims[k]) + " as in dims " +
                                      dims_text(it->dims) + " of `" + *name + "` in " + src.in() +
                                      " (only its -1 dimensions are free)");
        ok = false;
      }
      if (dim) s.dims.push_back(*dim);
    }
    if (ok) shapes[*name] = std::move(s);
  }

  double total = 0.0;
  std::vector<const triton::Tensor*> unset;  // variable dimensions the scenario did not set
  for (const auto& t : listed) {
    const std::string where = src.in() + " (line " + std::to_string(t.position.line) + ")";
    TensorSpec spec{t.name, {}, protocol_dtype(t.data_type)};
    if (t.data_type == "TYPE_STRING" || t.data_type.empty() || t.data_type == "TYPE_INVALID") {
      add(key_path(path, bytes_key),
          std::string(noun) + " `" + t.name + "` of " + where + " has " +
              (t.data_type == "TYPE_STRING" ? "data_type TYPE_STRING, which has no fixed size"
                                            : "no valid data_type") +
              "; expected the payload per item here");
      continue;
    }
    if (const auto it = shapes.find(t.name); it != shapes.end()) {
      spec.shape = it->second.dims;
    } else {
      bool fixed = true, valid = true;
      for (std::int64_t d : t.dims) {
        fixed = fixed && d != -1;
        valid = valid && (d >= 1 || d == -1) && d <= 1'000'000'000;
      }
      if (!valid) {
        add(key_path(path, "triton_config"), "in " + where + ": found dims " + dims_text(t.dims) +
                                                 " for `" + t.name +
                                                 "`, expected dimensions >= 1 or -1 (variable)");
        continue;
      }
      if (!fixed) {
        unset.push_back(&t);
        continue;
      }
      spec.shape = t.dims;
    }
    total += spec.bytes();
    tensors.push_back(std::move(spec));
  }
  if (!unset.empty()) {
    // One message with every such tensor, and the entries to paste.
    std::string which, example;
    for (std::size_t i = 0; i < unset.size(); ++i) {
      const triton::Tensor& t = *unset[i];
      which += (i ? ", `" : "`") + t.name + "` (line " + std::to_string(t.position.line) +
               ", dims " + dims_text(t.dims) + ")";
      example += (i ? ", " : "") + std::string("{\"name\": \"") + t.name +
                 "\", \"shape\": " + dims_text(t.dims, true) + "}";
    }
    add(tpath, src.in() + " has " + noun + (unset.size() > 1 ? "s " : " ") + which +
                   " with variable (-1) dimensions, which the client sets: expected " +
                   (unset.size() > 1 ? "their shapes" : "its shape") + " here, e.g. [" + example +
                   "] with each N set");
  }
  return total;
}

void Loader::model(const json& v, const std::string& path, Model& m) {
  if (!expect_object(v, path, "a model object with service_time, input_bytes_per_item, ..."))
    return;
  check_keys(
      v, path,
      {"input_bytes_per_item", "output_bytes_per_item", "inputs", "outputs", "service_time",
       "max_batch_size", "dynamic_batching", "instances", "request_overhead", "triton_config"});
  const std::size_t before = problems.size();
  // The config is read first: every key the scenario sets below overrides what it says.
  const json* config_key = get(v, "triton_config");
  std::optional<TritonSource> config;
  if (config_key) config = triton_config(*config_key, key_path(path, "triton_config"), m);
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
    } else if (config) {
      target = config_tensor_bytes(*config, input, tensors, path, input ? m.inputs : m.outputs);
    } else if (tensors && !config_key) {
      target = tensor_bytes(*tensors, key_path(path, tensors_key), input ? m.inputs : m.outputs);
    }
  }
  if (const json* x = get(v, "max_batch_size")) {
    if (auto b =
            integer(*x, key_path(path, "max_batch_size"), 0, Limits::max_items, "0 means no limit"))
      m.max_batch_size = static_cast<int>(*b);
  } else if (config) {
    m.max_batch_size = batch_limit_of(config->config);
  }
  if (const json* x = get(v, "instances")) {
    if (auto n = integer(*x, key_path(path, "instances"), 1, Limits::max_instances,
                         "concurrent executions per device"))
      m.instances = static_cast<int>(*n);
  }
  if (config) config_instances(*config, get(v, "instances"), key_path(path, "instances"), m);
  if (config) config_batching(*config, v, path, m);
  if (const json* x = get(v, "dynamic_batching"))
    dynamic_batching(*x, key_path(path, "dynamic_batching"), m);
  if (const json* x = get(v, "request_overhead"))
    request_overhead(*x, key_path(path, "request_overhead"), m);
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
    check_keys(
        p, ppath,
        {"name", "count", "device", "models", "startup_delay", "drain_timeout", "autoscaler"});
    ServerPool pool;
    bool count_ok = true;
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
      else
        count_ok = false;
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
    if (const json* x = get(p, "startup_delay")) {
      if (auto t =
              quantity(*x, key_path(ppath, "startup_delay"), Quantity::Time, Range::at_least(0)))
        pool.startup_delay = *t;
    }
    if (const json* x = get(p, "drain_timeout")) {
      if (auto t =
              quantity(*x, key_path(ppath, "drain_timeout"), Quantity::Time, Range::at_least(0)))
        pool.drain_timeout = *t;
    }
    if (const json* x = get(p, "autoscaler"); x && !x->is_null())
      pool.autoscaler = autoscaler(*x, key_path(ppath, "autoscaler"),
                                   count_ok ? std::optional<int>(pool.count) : std::nullopt);
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
  check_keys(
      v, path,
      {"metric", "threshold", "target", "window", "polling_interval", "cooldown", "tolerance",
       "min_replicas", "max_replicas", "initial_replicas", "scale_up", "scale_down"});
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
          ? "a number of queued requests > 0 for metric \"queue_length\" (e.g. 10)"
          : "a time > 0 for metric \"queue_time\" (the queue time per execution, e.g. \"20ms\")";
  if (const json* x = get(v, "threshold")) {
    if (metric) {
      std::optional<double> t;
      if (*metric == "queue_time") {
        std::string error;
        t = parse_quantity(*x, Quantity::Time, error);
        if (!t) {
          add(tpath, error +
                         " (the threshold of metric \"queue_time\" is a time > 0 such as "
                         "\"20ms\")");
        } else if (!(*t > 0)) {
          add(tpath, "found " + describe(*x) + ", expected " + expected_threshold);
          t.reset();
        }
      } else {
        const Range range =
            *metric == "utilization" ? Range{0.0, 1.0, true, false} : Range::positive();
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
  optional_quantity(v, path, "polling_interval", Quantity::Time, Range::positive(),
                    a.polling_interval);
  optional_quantity(v, path, "cooldown", Quantity::Time, Range::at_least(0), a.cooldown);
  if (const json* x = get(v, "tolerance")) {
    if (auto t = number(*x, key_path(path, "tolerance"), Range{0.0, 1.0, false, true}))
      a.tolerance = *t;
  }

  // Replicas: min <= initial <= max <= count. Each is checked on its own first.
  const std::string count_text = count ? std::to_string(*count) : std::string();
  const auto replicas = [&](const char* key, std::int64_t lo) -> std::optional<int> {
    const json* x = get(v, key);
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
  const json* min_x = get(v, "min_replicas");
  const json* max_x = get(v, "max_replicas");
  const json* initial_x = get(v, "initial_replicas");
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

// A fault's `pool`: the index of the named pool in s.servers.
std::optional<std::size_t> Loader::pool_of(const json& v, const std::string& path,
                                           const Scenario& s) {
  const auto name = string(v, path);
  if (!name) return std::nullopt;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < s.servers.size(); ++i) {
    if (s.servers[i].name == *name) return i;
    if (!s.servers[i].name.empty()) names.push_back(s.servers[i].name);
  }
  std::string message = "found " + describe(v) + ", expected the name of a pool in `servers`";
  if (names.empty()) {
    message += " (none is defined)";
  } else {
    message += " (defined: " + join(names) + ")";
    if (const std::string hint = did_you_mean(*name, names); !hint.empty()) message += "; " + hint;
  }
  add(path, message);
  return std::nullopt;
}

// The top-level `faults`: crashes, link degradations and preemptions, at given times or random.
// Read after servers, network and workload, whose names and sizes it refers to.
void Loader::faults(const json& v, const std::string& path, Scenario& s) {
  if (v.is_null()) return;
  if (!v.is_array()) {
    add(path, "found " + describe(v) +
                  ", expected an array of faults such as [{\"kind\": \"crash\", \"pool\": "
                  "\"gpu\", \"at\": \"10min\"}], or null");
    return;
  }
  std::string random_preemption;  // path of the first one
  for (std::size_t i = 0; i < v.size(); ++i) fault(v[i], index_path(path, i), s, random_preemption);
}

void Loader::fault(const json& v, const std::string& path, Scenario& s,
                   std::string& random_preemption) {
  if (!expect_object(v, path, "a fault object {\"kind\": \"crash\", ...}")) return;
  const std::initializer_list<std::string_view> all_keys = {
      "kind", "pool",     "device",           "at",   "for",          "mtbf", "mttr",
      "link", "duration", "bandwidth_factor", "jobs", "restart_after"};
  const char* kinds_text =
      "the kind of fault: one of \"crash\", \"random_crashes\", \"link\", \"preemption\", "
      "\"random_preemption\"";
  const json* kind_value = get(v, "kind");
  if (!kind_value) {
    missing(key_path(path, "kind"), kinds_text);
    check_keys(v, path, all_keys);
    return;
  }
  const auto kind = choice(*kind_value, key_path(path, "kind"),
                           {"crash", "random_crashes", "link", "preemption", "random_preemption"});
  if (!kind) {
    check_keys(v, path, all_keys);
    return;
  }
  const std::string applies = "does not apply to a " + *kind + " fault";
  bool ok = true;
  // A required key: reported missing with what it expects.
  const auto need = [&](const char* key, std::string_view expected) -> const json* {
    const json* x = get(v, key);
    if (!x) {
      missing(key_path(path, key), expected);
      ok = false;
    }
    return x;
  };
  const auto time = [&](const json* x, const char* key, Range range, double& out) {
    if (!x) return;
    if (auto t = quantity(*x, key_path(path, key), Quantity::Time, range))
      out = *t;
    else
      ok = false;
  };
  const auto pool = [&](std::size_t& out) -> const ServerPool* {
    const json* x = need("pool", "the name of a pool in `servers`");
    if (!x) return nullptr;
    auto p = pool_of(*x, key_path(path, "pool"), s);
    if (!p) {
      ok = false;
      return nullptr;
    }
    out = *p;
    return &s.servers[*p];
  };
  const auto restart_after = [&](double& out) {
    time(get(v, "restart_after"), "restart_after", Range::at_least(0), out);
  };
  // Preemption takes client jobs: an open loop has none.
  const auto need_jobs = [&] {
    if (!s.workload().open_loop()) return true;
    add(key_path(path, "kind"), "found \"" + *kind +
                                    "\" with an open loop (`workload.arrivals`), expected no "
                                    "preemption: an open loop has no client jobs to preempt");
    return false;
  };

  if (*kind == "crash") {
    check_keys(v, path, {"kind", "pool", "device", "at", "for"},
               {"mtbf", "mttr", "link", "duration", "bandwidth_factor", "jobs", "restart_after"},
               applies + " (keys: kind, pool, device, at, for)");
    Faults::Crash c;
    const ServerPool* p = pool(c.pool);
    if (const json* x = get(v, "device"); x && !x->is_null()) {
      const std::string dpath = key_path(path, "device");
      const std::int64_t hi = p ? p->count - 1 : Limits::max_devices - 1;
      const std::string why =
          p ? "a device of pool `" + p->name + "`, which has " + std::to_string(p->count) +
                  (p->count == 1 ? " device" : " devices") + "; absent: every device"
            : std::string("a device index in the pool; absent: every device");
      if (auto d = integer(*x, dpath, 0, hi, why))
        c.device = static_cast<int>(*d);
      else
        ok = false;
    }
    time(need("at", "the time of the crash, a time >= 0 such as \"10min\""), "at",
         Range::at_least(0), c.at);
    if (const json* x = get(v, "for"); x && !x->is_null())
      time(x, "for", Range::positive(), c.down_for);
    if (ok) s.faults.crashes.push_back(c);
  } else if (*kind == "random_crashes") {
    check_keys(
        v, path, {"kind", "pool", "mtbf", "mttr"},
        {"device", "at", "for", "link", "duration", "bandwidth_factor", "jobs", "restart_after"},
        applies + " (keys: kind, pool, mtbf, mttr)");
    Faults::RandomCrashes r;
    pool(r.pool);
    time(need("mtbf", "the mean time between failures of each device, a time > 0 such as \"2h\""),
         "mtbf", Range::positive(), r.mtbf);
    time(need("mttr", "the mean time to repair a device, a time > 0 such as \"5min\""), "mttr",
         Range::positive(), r.mttr);
    for (const auto& other : s.faults.random_crashes)
      if (ok && other.pool == r.pool) {
        add(key_path(path, "pool"), "found a second \"random_crashes\" for pool `" +
                                        s.servers[r.pool].name +
                                        "`, expected at most one per pool: one mtbf and mttr "
                                        "apply to each of its devices");
        ok = false;
      }
    if (ok) s.faults.random_crashes.push_back(r);
  } else if (*kind == "link") {
    check_keys(v, path, {"kind", "link", "at", "duration", "bandwidth_factor"},
               {"pool", "device", "for", "mtbf", "mttr", "jobs", "restart_after"},
               applies + " (keys: kind, link, at, duration, bandwidth_factor)");
    Faults::LinkDegradation l;
    if (const json* x = need("link",
                             "one of \"client_nic\", \"site_uplink\", \"wan\", "
                             "\"server_nic\" (a link of `network`)")) {
      const std::string lpath = key_path(path, "link");
      if (auto name = choice(*x, lpath, {"client_nic", "site_uplink", "wan", "server_nic"})) {
        const Network& n = s.network;
        const std::pair<const char*, bool> links[] = {{"client_nic", n.client_nic.has_value()},
                                                      {"site_uplink", n.site_uplink.has_value()},
                                                      {"wan", n.wan.has_value()},
                                                      {"server_nic", n.server_nic.has_value()}};
        std::vector<std::string> present;
        bool found = false;
        for (const auto& [link_name, has] : links) {
          if (has) present.push_back(link_name);
          if (has && *name == link_name) found = true;
        }
        if (found) {
          l.link = *name;
        } else {
          add(lpath,
              "found " + describe(*x) +
                  ", expected a link present in `network`: the "
                  "scenario's network has no `" +
                  *name + "` link (" +
                  (present.empty() ? std::string("it has none") : "it has: " + join(present)) +
                  ")");
          ok = false;
        }
      } else {
        ok = false;
      }
    }
    time(need("at", "the time the degradation starts, a time >= 0 such as \"10min\""), "at",
         Range::at_least(0), l.at);
    time(need("duration", "how long the degradation lasts, a time > 0 such as \"5min\""),
         "duration", Range::positive(), l.duration);
    if (const json* x = get(v, "bandwidth_factor")) {
      if (auto f = number(*x, key_path(path, "bandwidth_factor"), Range{0.0, 1.0, false, true},
                          "a fraction of the bandwidth left"))
        l.bandwidth_factor = *f;
      else
        ok = false;
    }
    if (ok) s.faults.links.push_back(l);
  } else if (*kind == "preemption") {
    check_keys(v, path, {"kind", "at", "jobs", "restart_after"},
               {"pool", "device", "for", "mtbf", "mttr", "link", "duration", "bandwidth_factor"},
               applies + " (keys: kind, at, jobs, restart_after)");
    Faults::Preemption pr;
    ok = need_jobs() && ok;
    time(need("at", "the time of the preemption, a time >= 0 such as \"10min\""), "at",
         Range::at_least(0), pr.at);
    if (const json* x = need("jobs", "the number of jobs preempted, an integer >= 1")) {
      if (!s.workload().open_loop()) {
        const std::int64_t hi = jobs_.value_or(Limits::max_threads);
        if (auto n =
                integer(*x, key_path(path, "jobs"), 1, hi,
                        jobs_ ? "jobs preempted, at most the scenario's jobs" : "jobs preempted"))
          pr.jobs = *n;
        else
          ok = false;
      }
    }
    restart_after(pr.restart_after);
    if (ok) s.faults.preemptions.push_back(pr);
  } else {  // random_preemption
    check_keys(
        v, path, {"kind", "mtbf", "restart_after"},
        {"pool", "device", "at", "for", "mttr", "link", "duration", "bandwidth_factor", "jobs"},
        applies + " (keys: kind, mtbf, restart_after)");
    Faults::RandomPreemption r;
    ok = need_jobs() && ok;
    if (!random_preemption.empty()) {
      add(key_path(path, "kind"), "found a second \"random_preemption\" (the first is " +
                                      random_preemption +
                                      "), expected at most one: it applies to every job");
      ok = false;
    } else {
      random_preemption = path;
    }
    time(need("mtbf",
              "the mean time between preemptions of each running job, a time > 0 such "
              "as \"6h\""),
         "mtbf", Range::positive(), r.mtbf);
    restart_after(r.restart_after);
    if (ok) s.faults.random_preemption = r;
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
}

void Loader::scenario(const json& doc, Scenario& s) {
  if (!expect_object(doc, "", "a JSON object (the scenario)")) return;
  // Workload keys written at the top level (e.g. `--set mode=async`) get pointed home.
  check_keys(doc, "",
             {"$schema", "name", "description", "seed", "duration", "warmup", "workload",
              "workloads", "models", "servers", "load_balancer", "network", "timeseries", "faults"},
             {"jobs", "threads_per_job", "jobs_per_node", "mode", "async", "cpu_time_per_event",
              "requests", "arrivals", "client"},
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
  if (const json* x = get(doc, "timeseries"); x && !x->is_null()) {
    // true: the default interval; an object says which.
    constexpr double kDefaultInterval = 10.0;
    if (x->is_boolean()) {
      s.timeseries_interval = x->get<bool>() ? kDefaultInterval : 0.0;
    } else if (expect_object(*x, "timeseries",
                             "true, false or an object {\"interval\": \"10s\"}")) {
      check_keys(*x, "timeseries", {"interval"});
      s.timeseries_interval = kDefaultInterval;
      if (const json* i = get(*x, "interval")) {
        if (auto t = quantity(*i, "timeseries.interval", Quantity::Time, Range::positive()))
          s.timeseries_interval = *t;
      }
    }
    // A sample holds a few numbers per device; a million of them is past any plot.
    if (duration && s.timeseries_interval > 0.0 && *duration / s.timeseries_interval > 1e6)
      add("timeseries.interval", "found " + format_time(s.timeseries_interval) +
                                     " for a duration of " + format_time(*duration) +
                                     ", expected at most 1,000,000 samples (an interval of at "
                                     "least " +
                                     format_time(*duration / 1e6) + ")");
  }
  workloads(doc, s);
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
      check_keys(*x, "load_balancer",
                 {"policy", "choice_count", "ring_entries_per_host", "admission", "capacity"});
      if (const json* c = get(*x, "capacity"); c && !c->is_null())
        balancer_capacity(*c, "load_balancer.capacity", s.load_balancer);
      if (const json* a = get(*x, "admission"); a && !a->is_null())
        admission(*a, "load_balancer.admission", s);
      auto& lb = s.load_balancer;
      if (const json* p = get(*x, "policy")) {
        if (auto name = choice(*p, "load_balancer.policy",
                               {"round_robin", "random", "least_request", "ring_hash"}))
          lb.policy = *name == "random"          ? BalancePolicy::Random
                      : *name == "least_request" ? BalancePolicy::LeastRequest
                      : *name == "ring_hash"     ? BalancePolicy::RingHash
                                                 : BalancePolicy::RoundRobin;
      }
      if (const json* c = get(*x, "choice_count")) {
        if (lb.policy != BalancePolicy::LeastRequest)
          add("load_balancer.choice_count",
              "found choice_count with policy other than least_request, expected it only with "
              "\"policy\": \"least_request\"");
        else if (auto n = integer(*c, "load_balancer.choice_count", 2, 100, "hosts"))
          lb.choice_count = static_cast<int>(*n);
      }
      if (const json* e = get(*x, "ring_entries_per_host")) {
        if (lb.policy != BalancePolicy::RingHash)
          add("load_balancer.ring_entries_per_host",
              "found ring_entries_per_host with policy other than ring_hash, expected it only "
              "with \"policy\": \"ring_hash\"");
        else if (auto n = integer(*e, "load_balancer.ring_entries_per_host", 1, 100000, "entries"))
          lb.ring_entries_per_host = static_cast<int>(*n);
      }
    }
  }
  if (const json* x = get(doc, "network")) network(*x, "network", s.network);
  if (const json* x = get(doc, "faults")) faults(*x, "faults", s);
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

// `name[2][0]` (a key and array indices, as problem paths spell them) as {"name", "2", "0"}; an
// empty vector when `part` is not of that form.
std::vector<std::string> split_indices(const std::string& part) {
  const std::size_t open = part.find('[');
  if (open == 0 || open == std::string::npos || part.back() != ']') return {};
  std::vector<std::string> out{part.substr(0, open)};
  for (std::size_t i = open; i < part.size();) {
    const std::size_t close = part.find(']', i);
    if (part[i] != '[' || close == std::string::npos || close == i + 1) return {};
    const std::string index = part.substr(i + 1, close - i - 1);
    if (!std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return {};
    out.push_back(index);
    i = close + 1;
  }
  return out;
}

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
    // `servers[0]` as in the problem paths is `servers.0`, unless the object has that very key.
    if (node->is_object() && !node->contains(part)) {
      if (auto split = split_indices(part); !split.empty()) {
        parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(i));
        parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(i), split.begin(), split.end());
        --i;
        continue;
      }
    }
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
  for (const auto& f : s.referenced_files)
    hashed.append("\n").append(f.path).append("\n").append(f.sha256);
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

TritonSettings read_triton_config(const std::string& file, const std::string& source,
                                  bool instances_given, const TritonAdvice& advice) {
  Loader loader("");  // a relative path stays as given, in messages too
  if (!advice.ensemble.empty()) loader.advice.ensemble = advice.ensemble;
  if (!advice.sequence.empty()) loader.advice.sequence = advice.sequence;
  if (!advice.instances.empty()) loader.advice.instances = advice.instances;
  TritonSettings out = loader.settings_of(file, instances_given);
  if (!loader.ok()) {
    // Every message names the config file; a JSON path would point into no scenario.
    for (auto& p : loader.problems) p.path.clear();
    throw InputError(source, std::move(loader.problems));
  }
  return out;
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
