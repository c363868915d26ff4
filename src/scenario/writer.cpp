// The typed scenario writer (writer.hpp): each covered field compared between the scenario a
// tool loaded and the one it derived, by the JSON the writer would write for it, and written into
// the user's own document only where it differs.
#include <sonicsim/scenario/writer.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "keys.hpp"

namespace sonicsim::scenario {

using json = nlohmann::json;

// Named, not anonymous: in a unity build the helpers share a translation unit with the loaders.
namespace writer_detail {

// Whole numbers as integers, as a user writes a batch size or a count.
json whole_or_real(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return static_cast<std::int64_t>(v);
  return v;
}

[[noreturn]] void not_covered(const std::string& what) {
  throw std::logic_error("scenario writer: " + what +
                         " changed, which the writer does not cover (scenario/writer.hpp)");
}

// `key` of `obj` set to `after` where `before` differs from it; a null `after` removes the key
// (what the loader reads as absent).
void put(json& obj, const char* key, const json& before, const json& after) {
  if (before == after) return;
  if (after.is_null())
    obj.erase(key);
  else
    obj[key] = after;
}

// The object at `obj[key]`, created when it is absent or not an object.
json& object_at(json& obj, const std::string& key) {
  json& v = obj[key];
  if (!v.is_object()) v = json::object();
  return v;
}

json optional_power(const std::optional<PowerSpec>& p) {
  return p ? write_power(*p) : json();
}

// ---- the top level and the workloads ---------------------------------------------------------

void top_level(json& doc, const Scenario& b, const Scenario& e) {
  put(doc, keys::kDescription, b.description, e.description);
  put(doc, keys::kSeed, b.seed, e.seed);
  put(doc, keys::kDuration, b.duration, e.duration);
  put(doc, keys::kWarmup, b.warmup, e.warmup);
  if (b.name != e.name) doc[keys::kName] = e.name;
}

json write_async(const AsyncSettings& a) {
  if (a.independent_work_fraction == AsyncSettings{}.independent_work_fraction &&
      a.events_in_flight == AsyncSettings{}.events_in_flight)
    return json();
  return {{keys::kIndependentWorkFraction, a.independent_work_fraction},
          {keys::kEventsInFlight, a.events_in_flight}};
}

json write_client_or_none(const ClientPolicy& c) {
  if (c == ClientPolicy{}) return json();
  return write_client(c);
}

void requests(json& w, const Workload& b, const Workload& e) {
  json before = json::array(), after = json::array();
  for (const auto& r : b.requests) before.push_back(write_request(r));
  for (const auto& r : e.requests) after.push_back(write_request(r));
  if (before == after) return;
  json& list = w[keys::kRequests];
  if (!list.is_array() || list.size() != after.size()) {
    list = after;
    return;
  }
  // Same requests: only the fields that moved, the user's spelling of the others kept.
  for (std::size_t i = 0; i < after.size(); ++i)
    for (const auto& item : after[i].items())
      put(list[i], item.key().c_str(), before[i].value(item.key(), json()), item.value());
}

// The closed loop's keys, which the loader refuses next to `arrivals`: all written when the
// workload was an open loop before.
void closed_loop(json& w, const Workload& b, const Workload& e) {
  const auto before = [&](json v) { return b.open_loop() ? json() : v; };
  const auto mode = [](const Workload& x) { return x.mode == Mode::Async ? "async" : "sync"; };
  put(w, keys::kJobs, before(b.jobs), e.jobs);
  put(w, keys::kThreadsPerJob, before(b.threads_per_job), e.threads_per_job);
  put(w, keys::kJobsPerNode, before(b.jobs_per_node), e.jobs_per_node);
  put(w, keys::kMode, before(mode(b)), mode(e));
  put(w, keys::kAsync, write_async(b.async), write_async(e.async));
  put(w, keys::kCpuTimePerEvent, before(write_distribution(b.cpu_time_per_event)),
      write_distribution(e.cpu_time_per_event));
  put(w, keys::kCorePower, optional_power(b.core_power), optional_power(e.core_power));
}

void workload(json& w, const Workload& b, const Workload& e) {
  if (b.name != e.name) {
    if (e.name.empty())
      w.erase(keys::kName);
    else
      w[keys::kName] = e.name;
  }
  put(w, keys::kPriority, b.priority ? json(b.priority) : json(),
      e.priority ? json(e.priority) : json());
  // Keys are removed only for what the base had: an unchanged document stays byte for byte,
  // explicit nulls included.
  if (e.open_loop()) {
    if (!b.open_loop())
      for (const char* key : {keys::kJobs, keys::kThreadsPerJob, keys::kJobsPerNode, keys::kMode,
                              keys::kAsync, keys::kCpuTimePerEvent, keys::kFlow, keys::kCorePower})
        w.erase(key);
    put(w, keys::kArrivals, b.arrivals ? write_arrivals(*b.arrivals) : json(),
        write_arrivals(*e.arrivals));
  } else {
    if (b.open_loop()) w.erase(keys::kArrivals);
    closed_loop(w, b, e);
    // Jobs that come and go are read, never derived: a tool may only drop them.
    if (!e.flow && b.flow) w.erase(keys::kFlow);
  }
  requests(w, b, e);
  put(w, keys::kClient, write_client_or_none(b.client), write_client_or_none(e.client));
  if (e.sites.empty() && !b.sites.empty()) {
    w.erase(keys::kSite);
    w.erase(keys::kSites);
  }
  if (!e.routing && b.routing) w.erase(keys::kRouting);
}

void workloads(json& doc, const Scenario& b, const Scenario& e) {
  if (e.workloads.empty() || e.workloads.size() > b.workloads.size())
    not_covered("the number of workloads");
  const bool single = doc.contains(keys::kWorkload);
  if (single) {
    workload(doc[keys::kWorkload], b.workloads.front(), e.workloads.front());
    return;
  }
  json& list = doc[keys::kWorkloads];
  if (list.size() > e.workloads.size())
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(e.workloads.size()), list.end());
  for (std::size_t i = 0; i < e.workloads.size(); ++i)
    workload(list[i], b.workloads[i], e.workloads[i]);
}

// ---- models ------------------------------------------------------------------------------

json write_spread_kind(const ServiceSpread& s) {
  return s.kind == Distribution::Kind::Constant ? json() : json(to_string(s.kind));
}
json write_spread_cv(const ServiceSpread& s) {
  const bool has_cv =
      s.kind == Distribution::Kind::Lognormal || s.kind == Distribution::Kind::Gamma;
  return has_cv ? json(s.cv) : json();
}
void spread(json& obj, const ServiceSpread& b, const ServiceSpread& e) {
  put(obj, keys::kDist, write_spread_kind(b), write_spread_kind(e));
  put(obj, keys::kCv, write_spread_cv(b), write_spread_cv(e));
}

bool single_curve(const json& st) {
  return st.contains(keys::kBatch) || st.contains(keys::kSeconds) ||
         st.contains(keys::kCalibration);
}

void service_time(json& m, const Model& b, const Model& e) {
  const json original = m.contains(keys::kServiceTime) ? m[keys::kServiceTime] : json();
  json st = original.is_object() ? original : json::object();
  spread(st, b.spread, e.spread);
  for (const auto& [device, timing] : e.pipeline_time) {
    const auto old = b.pipeline_time.find(device);
    if (old == b.pipeline_time.end() || write_pipeline(old->second) != write_pipeline(timing))
      st[device] = write_pipeline(timing);
  }
  for (const auto& [device, curve] : e.service_time) {
    // A pipeline device's curve follows from its timing.
    if (e.pipeline_time.count(device)) continue;
    const auto old = b.service_time.find(device);
    const json after = write_curve(curve);
    if (old != b.service_time.end() && write_curve(old->second) == after) continue;
    if (device == "*" && (single_curve(st) || st.empty())) {
      // The one curve for every device: its table replaces a calibration file.
      st.erase(keys::kCalibration);
      st[keys::kBatch] = after[keys::kBatch];
      st[keys::kSeconds] = after[keys::kSeconds];
    } else if (st.contains(device)) {
      st[device] = after;
    }
    // Else a curve the loader derives (a MIG slice's): it follows its source.
  }
  if (st != original && !(original.is_null() && st.empty())) m[keys::kServiceTime] = st;
}

void request_overhead(json& m, const Model& b, const Model& e) {
  const json after = write_overhead(e.overhead);
  if (write_overhead(b.overhead) == after) return;
  json* own = m.contains(keys::kRequestOverhead) ? &m[keys::kRequestOverhead] : nullptr;
  if (!own || !own->is_object() || own->contains(keys::kCalibration)) {
    // A calibration file's overheads become explicit.
    m[keys::kRequestOverhead] = after;
    return;
  }
  const auto phase = [](const OverheadPhase& p) { return p.is_zero() ? json() : write_phase(p); };
  put(*own, keys::kClientSend, phase(b.overhead.client_send), phase(e.overhead.client_send));
  put(*own, keys::kServer, phase(b.overhead.server), phase(e.overhead.server));
  put(*own, keys::kClientRecv, phase(b.overhead.client_recv), phase(e.overhead.client_recv));
  spread(*own, b.overhead.spread, e.overhead.spread);
}

void model(json& m, const Model& b, const Model& e) {
  put(m, keys::kInputBytesPerItem, b.input_bytes_per_item, e.input_bytes_per_item);
  put(m, keys::kOutputBytesPerItem, b.output_bytes_per_item, e.output_bytes_per_item);
  put(m, keys::kMaxBatchSize, b.max_batch_size, e.max_batch_size);
  put(m, keys::kInstances, b.instances, e.instances);
  service_time(m, b, e);
  request_overhead(m, b, e);
  const auto host = [](const Model& x) {
    return x.host_cost ? write_host_cost(*x.host_cost) : json();
  };
  put(m, keys::kHostCost, host(b), host(e));
}

void models(json& doc, const Scenario& b, const Scenario& e) {
  if (!doc.contains(keys::kModels) && e.models.empty()) return;
  json& all = object_at(doc, keys::kModels);
  for (const auto& bm : b.models)
    if (!e.find_model(bm.name)) all.erase(bm.name);
  for (const auto& em : e.models) {
    const Model* bm = b.find_model(em.name);
    if (!bm) not_covered("models (a model added: " + em.name + ")");
    model(object_at(all, em.name), *bm, em);
  }
}

// ---- servers, devices, prices ------------------------------------------------------------

json write_models_list(const std::vector<std::string>& names) {
  return json(names);
}

void servers(json& doc, const Scenario& b, const Scenario& e) {
  if (!doc.contains(keys::kServers)) {
    if (!e.servers.empty()) not_covered("servers (a pool added to a scenario without)");
    return;
  }
  json& list = doc[keys::kServers];
  if (!list.is_array() || list.size() != b.servers.size())
    throw std::logic_error("scenario writer: `servers` is not the list the pools were read from");
  json out = json::array();
  for (const auto& ep : e.servers) {
    const auto bp = std::find_if(b.servers.begin(), b.servers.end(),
                                 [&](const ServerPool& p) { return p.name == ep.name; });
    if (bp == b.servers.end()) not_covered("servers (a pool added: " + ep.name + ")");
    json pool = list[static_cast<std::size_t>(bp - b.servers.begin())];
    put(pool, keys::kCount, bp->count, ep.count);
    put(pool, keys::kModels, write_models_list(bp->models), write_models_list(ep.models));
    put(pool, keys::kStartupDelay, bp->startup_delay, ep.startup_delay);
    put(pool, keys::kDrainTimeout, bp->drain_timeout, ep.drain_timeout);
    out.push_back(std::move(pool));
  }
  if (out != list) list = std::move(out);
}

void devices(json& doc, const Scenario& b, const Scenario& e) {
  for (const auto& ed : e.devices) {
    const DeviceSpec* bd = b.find_device(ed.name);
    const json before = bd ? optional_power(bd->power) : json();
    const json after = optional_power(ed.power);
    if (before == after) continue;
    json& entry = object_at(object_at(doc, keys::kDevices), ed.name);
    put(entry, keys::kPower, before, after);
  }
}

json write_device_hour(const Prices& p) {
  if (p.device_hour_by_device.empty()) return p.device_hour;
  return json(p.device_hour_by_device);
}

void prices(json& doc, const Scenario& b, const Scenario& e) {
  if (!e.prices) {
    if (b.prices) doc.erase(keys::kPrices);
    return;
  }
  // Prices left out are zero: a new `prices` holds only those the tool set.
  const Prices before = b.prices.value_or(Prices{});
  const Prices& after = *e.prices;
  json& p = object_at(doc, keys::kPrices);
  put(p, keys::kDeviceHour, write_device_hour(before), write_device_hour(after));
  put(p, keys::kHostHour, before.host_hour, after.host_hour);
  put(p, keys::kCoreHour, before.core_hour, after.core_hour);
  put(p, keys::kKwh, before.kwh, after.kwh);
}

// ---- what the writer does not cover ----------------------------------------------------

// Each part of `e` with its covered fields taken from `b` must equal `b`: a tool that changed
// another field would otherwise get a document without its change.
void uncovered_workload(const Workload& b, Workload e, const std::string& where) {
  e.name = b.name;
  e.priority = b.priority;
  e.jobs = b.jobs;
  e.threads_per_job = b.threads_per_job;
  e.jobs_per_node = b.jobs_per_node;
  e.mode = b.mode;
  e.async = b.async;
  e.cpu_time_per_event = b.cpu_time_per_event;
  e.requests = b.requests;
  e.arrivals = b.arrivals;
  e.client = b.client;
  e.core_power = b.core_power;
  // Jobs that come and go, sites and their routing may only be dropped.
  if (!e.flow) e.flow = b.flow;
  if (e.sites.empty()) e.sites = b.sites;
  if (!e.routing) e.routing = b.routing;
  if (!(e == b)) not_covered(where + " (flow, sites or routing)");
}

void uncovered_model(const Model& b, Model e) {
  e.input_bytes_per_item = b.input_bytes_per_item;
  e.output_bytes_per_item = b.output_bytes_per_item;
  e.max_batch_size = b.max_batch_size;
  e.instances = b.instances;
  e.service_time = b.service_time;
  e.pipeline_time = b.pipeline_time;
  e.spread = b.spread;
  e.overhead = b.overhead;
  e.host_cost = b.host_cost;
  if (!(e == b)) not_covered("models." + b.name);
}

void uncovered_pool(const ServerPool& b, ServerPool e) {
  e.count = b.count;
  e.models = b.models;
  e.startup_delay = b.startup_delay;
  e.drain_timeout = b.drain_timeout;
  if (!(e == b)) not_covered("servers (pool " + b.name + ")");
}

void uncovered_device(const DeviceSpec* b, DeviceSpec e) {
  DeviceSpec fresh;
  fresh.name = e.name;
  const DeviceSpec& before = b ? *b : fresh;
  e.power = before.power;
  if (!(e == before)) not_covered("devices." + e.name);
}

void uncovered(const Scenario& b, const Scenario& e) {
  if (!(b.network == e.network)) not_covered("network");
  if (!(b.load_balancer == e.load_balancer)) not_covered("load_balancer");
  if (!(b.faults == e.faults)) not_covered("faults");
  if (!(b.sites == e.sites && b.wan == e.wan && b.routing == e.routing && b.routes == e.routes))
    not_covered("sites, wan or routing");
  if (b.timeseries_interval != e.timeseries_interval ||
      b.timeseries_replicas != e.timeseries_replicas)
    not_covered("timeseries");
  for (std::size_t i = 0; i < e.workloads.size() && i < b.workloads.size(); ++i)
    uncovered_workload(b.workloads[i], e.workloads[i], "workloads[" + std::to_string(i) + "]");
  for (const auto& em : e.models)
    if (const Model* bm = b.find_model(em.name)) uncovered_model(*bm, em);
  for (const auto& ep : e.servers) {
    const auto bp = std::find_if(b.servers.begin(), b.servers.end(),
                                 [&](const ServerPool& p) { return p.name == ep.name; });
    if (bp != b.servers.end()) uncovered_pool(*bp, ep);
  }
  for (const auto& ed : e.devices) uncovered_device(b.find_device(ed.name), ed);
}

// ---- overrides ---------------------------------------------------------------------------

// A key an override path can name: no separator, and not read as an array index.
bool plain_key(const std::string& key) {
  return !key.empty() && key.find_first_of(".[]") == std::string::npos;
}

// Whether an override can set `after` member by member where `before` is: both objects, no key
// of `before` lost (an override cannot remove one), every key one a path can name.
bool settable_by_member(const json& before, const json& after) {
  if (!before.is_object() || !after.is_object()) return false;
  for (const auto& item : before.items())
    if (!after.contains(item.key())) return false;
  for (const auto& item : after.items())
    if (!plain_key(item.key())) return false;
  return true;
}

void differences(const json& before, const json& after, const std::string& path,
                 std::vector<Override>& out) {
  for (const auto& item : after.items()) {
    const std::string at = path.empty() ? item.key() : path + "." + item.key();
    const auto old = before.find(item.key());
    if (old == before.end()) {
      out.push_back({at, item.value().dump()});
    } else if (*old != item.value()) {
      if (settable_by_member(*old, item.value()))
        differences(*old, item.value(), at, out);
      else
        out.push_back({at, item.value().dump()});
    }
  }
}

}  // namespace writer_detail

// ---- values ------------------------------------------------------------------------------

json write_distribution(const Distribution& d) {
  using K = Distribution::Kind;
  switch (d.kind) {
    case K::Constant:
      return d.mean;
    case K::Exponential:
      return {{keys::kDist, "exponential"}, {keys::kMean, d.mean}};
    case K::Lognormal:
    case K::Gamma:
    case K::Normal:
      return {{keys::kDist, to_string(d.kind)}, {keys::kMean, d.mean}, {keys::kCv, d.cv}};
    case K::Uniform:
      return {{keys::kDist, "uniform"}, {keys::kMin, d.min}, {keys::kMax, d.max}};
    case K::Empirical:
      return {{keys::kDist, "empirical"}, {keys::kValues, d.values}, {keys::kWeights, d.weights}};
  }
  return d.mean;
}

json write_curve(const ServiceCurve& c) {
  using writer_detail::whole_or_real;
  json batch = json::array();
  for (double b : c.batch) batch.push_back(whole_or_real(b));
  return {{keys::kBatch, batch}, {keys::kSeconds, c.seconds}};
}

json write_pipeline(const PipelineTiming& t) {
  return {{keys::kLatency, t.latency}, {keys::kInterval, t.interval}};
}

json write_phase(const OverheadPhase& p) {
  if (p.per_item == 0.0 && p.batch.empty()) return p.fixed;
  json j{{keys::kFixed, p.fixed}, {keys::kPerItem, p.per_item}};
  if (!p.batch.empty()) {
    j[keys::kBatch] = p.batch;
    j[keys::kSeconds] = p.seconds;
  }
  return j;
}

json write_overhead(const RequestOverhead& o) {
  using writer_detail::write_spread_cv;
  using writer_detail::write_spread_kind;
  json j = json::object();
  if (!o.client_send.is_zero()) j[keys::kClientSend] = write_phase(o.client_send);
  if (!o.server.is_zero()) j[keys::kServer] = write_phase(o.server);
  if (!o.client_recv.is_zero()) j[keys::kClientRecv] = write_phase(o.client_recv);
  if (const json kind = write_spread_kind(o.spread); !kind.is_null()) j[keys::kDist] = kind;
  if (const json cv = write_spread_cv(o.spread); !cv.is_null()) j[keys::kCv] = cv;
  return j;
}

json write_host_cost(const HostCost& c) {
  return {{keys::kPerRequest, c.per_request},
          {keys::kPerByteIn, c.per_byte_in},
          {keys::kPerByteOut, c.per_byte_out},
          {keys::kPerExecution, c.per_execution},
          {keys::kInServerOverhead, c.in_server_overhead}};
}

json write_power(const PowerSpec& p) {
  if (p.utilization == PowerSpec{}.utilization)
    return {{keys::kIdle, p.watts.front()}, {keys::kBusy, p.watts.back()}};
  return {{keys::kUtilization, p.utilization}, {keys::kWatts, p.watts}};
}

// The client policy (include/sonicsim/client_policies/): its name and its own keys.
json write_client(const ClientPolicy& c) {
  json j{{keys::kTimeout, c.timeout},
         {keys::kAllowedTries, c.allowed_tries},
         {keys::kRetryDelay, c.retry_delay},
         {keys::kFallback, std::string(client_policies::name_of(c.fallback))}};
  client_policies::List::with(c.fallback, [&]<class P>(const typename P::Settings& settings) {
    for (const auto& k : P::keys) j[std::string(k.name)] = settings.*k.field;
  });
  return j;
}

json write_arrivals(const Arrivals& a) {
  json j{{keys::kRate, a.rate},
         {keys::kDistribution,
          a.distribution == Arrivals::Distribution::Poisson ? "poisson" : "constant"}};
  if (a.max_in_flight != Arrivals{}.max_in_flight) j[keys::kMaxInFlight] = a.max_in_flight;
  return j;
}

json write_request(const RequestSpec& r) {
  json j = {{keys::kModel, r.model},
            {keys::kOffloadFraction, r.offload_fraction},
            {keys::kPerEvent, r.per_event},
            {keys::kItems, write_distribution(r.items)}};
  if (r.module_cpu_time != 0.0) j[keys::kModuleCpuTime] = r.module_cpu_time;
  return j;
}

// ---- documents ---------------------------------------------------------------------------

json write_scenario(const Scenario& base, const Scenario& edited) {
  using namespace writer_detail;
  uncovered(base, edited);
  json doc = json::parse(base.canonical_json);
  top_level(doc, base, edited);
  workloads(doc, base, edited);
  models(doc, base, edited);
  servers(doc, base, edited);
  devices(doc, base, edited);
  prices(doc, base, edited);
  return doc;
}

std::vector<Override> write_overrides(const Scenario& base, const Scenario& edited) {
  const json before = json::parse(base.canonical_json);
  const json after = write_scenario(base, edited);
  std::vector<Override> out;
  writer_detail::differences(before, after, "", out);
  // A top-level section removed: null, which the loader reads as absent.
  for (const auto& item : before.items())
    if (!after.contains(item.key())) out.push_back({item.key(), "null"});
  return out;
}

}  // namespace sonicsim::scenario
