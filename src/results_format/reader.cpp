#include <sonicsim/results_format/reader.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/numbers.hpp>

#include "document_state.hpp"

namespace sonicsim::results {

using json = nlohmann::json;

namespace {

namespace k = keys;

// A JSON pointer reference token (RFC 6901): ~ and / escaped.
std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

// A value for a message: long ones cut.
std::string brief(const json& v) {
  const std::string text = v.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

}  // namespace

const char* quantile_key(Quantile q) {
  switch (q) {
    case Quantile::Mean:
      return k::quantile::mean;
    case Quantile::P50:
      return k::quantile::p50;
    case Quantile::P90:
      return k::quantile::p90;
    case Quantile::P95:
      return k::quantile::p95;
    case Quantile::P99:
      return k::quantile::p99;
    case Quantile::Max:
      return k::quantile::max;
  }
  return "?";
}

// ---- views ---------------------------------------------------------------------------------

bool View::present() const {
  return doc_->find(pointer_) != nullptr;
}

View View::at(std::string_view key) const {
  return View(doc_, pointer_ + "/" + pointer_token(key));
}

View View::at(std::size_t index) const {
  return View(doc_, pointer_ + "/" + std::to_string(index));
}

bool View::has(std::string_view key) const {
  return at(key).present();
}

double View::number(std::string_view key, Presence presence) const {
  const View place = at(key);
  const json* v = doc_->find(place.pointer_);
  if (!v) {
    if (presence == Presence::Required) doc_->problem(place.pointer_, "missing, expected a number");
    return kNaN;
  }
  if (!v->is_number()) {
    doc_->problem(place.pointer_, "found " + v->dump() + ", expected a number");
    return kNaN;
  }
  return v->get<double>();
}

std::optional<double> View::nullable_number(std::string_view key) const {
  const json* v = doc_->find(at(key).pointer_);
  if (v && v->is_null()) return std::nullopt;
  const double x = number(key);
  if (std::isnan(x)) return std::nullopt;
  return x;
}

std::vector<double> View::numbers(std::string_view key, std::size_t size) const {
  const View place = at(key);
  const json* v = doc_->find(place.pointer_);
  std::vector<double> out;
  if (!v || !v->is_array() || v->size() != size) {
    doc_->problem(place.pointer_, std::string(v ? "found " + brief(*v) : "missing") +
                                      ", expected an array of " + std::to_string(size) +
                                      " numbers");
    return out;
  }
  for (const json& x : *v) {
    if (!x.is_number()) {
      doc_->problem(place.pointer_, "found " + brief(x) + ", expected numbers");
      return {};
    }
    out.push_back(x.get<double>());
  }
  return out;
}

std::size_t View::length(std::string_view key) const {
  const json* v = doc_->find(at(key).pointer_);
  return v && v->is_array() ? v->size() : 0;
}

std::optional<std::string> View::text(std::string_view key) const {
  const View place = at(key);
  const json* v = doc_->find(place.pointer_);
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    doc_->problem(place.pointer_, "found " + brief(*v) + ", expected a string");
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<bool> View::flag(std::string_view key) const {
  const View place = at(key);
  const json* v = doc_->find(place.pointer_);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    doc_->problem(place.pointer_, "found " + brief(*v) + ", expected true or false");
    return std::nullopt;
  }
  return v->get<bool>();
}

std::vector<View> View::elements(std::string_view key) const {
  const View place = at(key);
  const json* v = doc_->find(place.pointer_);
  std::vector<View> out;
  if (!v || !(v->is_object() || v->is_array())) {
    doc_->problem(place.pointer_, "missing, expected an object or array");
    return out;
  }
  for (std::size_t i = 0; i < v->size(); ++i) out.push_back(place.at(i));
  return out;
}

std::vector<std::pair<std::string, View>> View::members(std::string_view key) const {
  const View place = at(key);
  const json* v = doc_->find(place.pointer_);
  std::vector<std::pair<std::string, View>> out;
  if (!v || !(v->is_object() || v->is_array())) {
    doc_->problem(place.pointer_, "missing, expected an object or array");
    return out;
  }
  for (const auto& item : v->items()) out.emplace_back(item.key(), place.at(item.key()));
  return out;
}

double Quantiles::at(Quantile q, Presence presence) const {
  return number(quantile_key(q), presence);
}
bool Quantiles::has(Quantile q) const {
  return View::has(quantile_key(q));
}

double Events::throughput_per_s() const {
  return number(k::events::throughput_per_s);
}
double Events::per_job_throughput_per_s() const {
  return number(k::events::per_job_throughput_per_s);
}
double Events::thread_time_per_event_s() const {
  return number(k::events::thread_time_per_event_s);
}
Quantiles Events::time_per_event_s() const {
  return Quantiles(View::at(k::events::time_per_event_s));
}

double Requests::sent() const {
  return number(k::requests::sent);
}
double Requests::failed() const {
  return number(k::requests::failed);
}
double Requests::fallback() const {
  return number(k::requests::fallback);
}
Resilience Requests::resilience() const {
  return Resilience(View::at(k::requests::resilience));
}

double Resilience::retries() const {
  return number(k::resilience::retries, Presence::Optional);
}
double Resilience::refused() const {
  return View::at(k::resilience::failed_tries).number(k::failed_tries::refused, Presence::Optional);
}
double Resilience::no_server() const {
  return View::at(k::resilience::failed_tries)
      .number(k::failed_tries::no_server, Presence::Optional);
}
double Resilience::server_lost() const {
  return View::at(k::resilience::failed_tries)
      .number(k::failed_tries::server_lost, Presence::Optional);
}
double Resilience::client_timeout() const {
  return View::at(k::resilience::failed_tries)
      .number(k::failed_tries::client_timeout, Presence::Optional);
}
double Resilience::completed_after_retry() const {
  return number(k::resilience::completed_after_retry, Presence::Optional);
}
double Resilience::fallback_after_failure() const {
  return number(k::resilience::fallback_after_failure, Presence::Optional);
}
double Resilience::preempted() const {
  return number(k::resilience::preempted, Presence::Optional);
}

Quantiles Requests::latency_s() const {
  return Quantiles(View::at(k::requests::latency_s));
}
std::optional<Histogram> Requests::latency_histogram() const {
  const View h = View::at(k::requests::latency_s).at(k::quantile::histogram);
  if (!h.present()) return std::nullopt;
  const std::size_t bins = h.length(k::histogram::counts);
  Histogram out;
  out.counts = h.numbers(k::histogram::counts, bins);
  out.edges_s = h.numbers(k::histogram::edges_s, bins + 1);
  return out;
}

std::optional<std::string> Workload::name() const {
  return text(k::workload::name);
}
double Workload::threads() const {
  return number(k::workload::threads);
}
Events Workload::events() const {
  return Events(View::at(k::workload::events));
}
Requests Workload::requests() const {
  return Requests(View::at(k::workload::requests));
}
bool Workload::has_job_flow() const {
  return has(k::workload::job_flow);
}
Jobs Workload::job_flow() const {
  return Jobs(View::at(k::workload::job_flow));
}

std::optional<std::string> Site::name() const {
  return text(k::site::name);
}
double Site::threads() const {
  return number(k::site::threads);
}
double Site::devices() const {
  return number(k::site::devices);
}
Events Site::events() const {
  return Events(View::at(k::site::events));
}
Requests Site::requests() const {
  return Requests(View::at(k::site::requests));
}
double Site::bytes_out() const {
  return number(k::site::bytes_out);
}
double Site::bytes_in() const {
  return number(k::site::bytes_in);
}
std::optional<double> Site::egress_cost() const {
  return nullable_number(k::site::egress_cost);
}

std::optional<std::string> Egress::from() const {
  return text(k::egress::from);
}
std::optional<std::string> Egress::to() const {
  return text(k::egress::to);
}
double Egress::bytes() const {
  return number(k::egress::bytes);
}
std::optional<double> Egress::cost() const {
  return nullable_number(k::egress::cost);
}

double Model::mean_batch_size() const {
  return number(k::model::mean_batch_size);
}
Quantiles Model::latency_s() const {
  return Quantiles(View::at(k::model::latency_s));
}
Quantiles Model::queue_time_s() const {
  return Quantiles(View::at(k::model::queue_time_s));
}
Quantiles Model::compute_time_s() const {
  return Quantiles(View::at(k::model::compute_time_s));
}

std::optional<std::string> Pool::name() const {
  return text(k::server::name);
}
std::optional<std::string> Pool::device() const {
  return text(k::server::device);
}
double Pool::crashes() const {
  return View::at(k::server::replicas).number(k::replicas::crashes, Presence::Optional);
}
double Pool::count() const {
  return number(k::server::count);
}
double Pool::utilization() const {
  return number(k::server::utilization);
}
double Pool::utilization_max() const {
  return number(k::server::utilization_max, Presence::Optional);
}
std::optional<double> Pool::host_utilization() const {
  if (!has(k::server::host)) return std::nullopt;
  return at(k::server::host).number(k::server_host::utilization);
}
std::optional<double> Pool::host_time_per_request_s() const {
  if (!has(k::server::host)) return std::nullopt;
  return at(k::server::host).number(k::server_host::time_per_request_s);
}

double Pool::memory_used_bytes() const {
  return number(k::server::memory_used_bytes, Presence::Optional);
}
std::optional<double> Pool::memory_capacity_bytes() const {
  if (!has(k::server::memory_capacity_bytes)) return std::nullopt;
  return nullable_number(k::server::memory_capacity_bytes);
}
double Pool::model_loads() const {
  return number(k::server::model_loads, Presence::Optional);
}
double Pool::model_unloads() const {
  return number(k::server::model_unloads, Presence::Optional);
}
double Pool::load_time_s() const {
  return number(k::server::load_time_s, Presence::Optional);
}

double Energy::joules() const {
  return number(k::energy::joules);
}
std::optional<double> Energy::per_event_j() const {
  return nullable_number(k::energy::per_event_j);
}
double Energy::mean_power_w() const {
  return number(k::energy::mean_power_w);
}
double Energy::devices_j() const {
  return View::at(k::energy::components).number(k::energy_component::devices);
}
double Energy::hosts_j() const {
  return View::at(k::energy::components).number(k::energy_component::hosts);
}
double Energy::client_cores_j() const {
  return View::at(k::energy::components).number(k::energy_component::client_cores);
}

std::optional<double> Cost::per_event() const {
  return nullable_number(k::cost::per_event);
}
std::optional<double> Cost::per_million_events() const {
  return nullable_number(k::cost::per_million_events);
}
double Cost::hourly() const {
  return number(k::cost::hourly);
}

std::optional<std::string> Link::name() const {
  return text(k::link::name);
}
double Link::bytes() const {
  return number(k::link::bytes);
}
double Link::mean_utilization() const {
  return number(k::link::mean_utilization);
}
double Link::peak_utilization() const {
  return number(k::link::peak_utilization);
}
double Link::offered_mean_utilization() const {
  return number(k::link::offered_mean_utilization, Presence::Optional);
}
double Link::offered_peak_utilization() const {
  return number(k::link::offered_peak_utilization, Presence::Optional);
}
double Link::degraded_s() const {
  return number(k::link::degraded_s, Presence::Optional);
}
double Link::outage_s() const {
  return number(k::link::outage_s, Presence::Optional);
}

double Analytic::n_cpu() const {
  return number(k::analytic::n_cpu);
}
double Analytic::n_gpu() const {
  return number(k::analytic::n_gpu);
}
double Analytic::t_ideal_s() const {
  return number(k::analytic::t_ideal_s);
}
double Analytic::t_sonic_s() const {
  return number(k::analytic::t_sonic_s);
}
bool Analytic::saturated() const {
  return flag(k::analytic::saturated).value_or(false);
}
double Analytic::saturation_n_cpu_per_gpu() const {
  return number(k::analytic::saturation_n_cpu_per_gpu);
}
std::optional<FormedBatches> Analytic::formed_batches() const {
  if (!has(k::analytic::formed_batches)) return std::nullopt;
  return FormedBatches(View::at(k::analytic::formed_batches));
}

double FormedBatches::mean_batch_size() const {
  return number(k::analytic_formed::mean_batch_size);
}
double FormedBatches::t_gpu_s() const {
  return number(k::analytic_formed::t_gpu_s);
}
double FormedBatches::t_ideal_s() const {
  return number(k::analytic_formed::t_ideal_s);
}
double FormedBatches::t_sonic_s() const {
  return number(k::analytic_formed::t_sonic_s);
}
bool FormedBatches::saturated() const {
  return flag(k::analytic_formed::saturated).value_or(false);
}
double FormedBatches::saturation_n_cpu_per_gpu() const {
  return number(k::analytic_formed::saturation_n_cpu_per_gpu);
}
std::optional<std::string> Analytic::mode() const {
  return text(k::analytic::mode);
}
double Analytic::t_cpu_s(Presence presence) const {
  return number(k::analytic::t_cpu_s, presence);
}
double Analytic::p(Presence presence) const {
  return number(k::analytic::p, presence);
}
double Analytic::t_gpu_s(Presence presence) const {
  return number(k::analytic::t_gpu_s, presence);
}
double Analytic::t_latency_s(Presence presence) const {
  return number(k::analytic::t_latency_s, presence);
}
double Analytic::requests_per_event(const std::string& model, Presence presence) const {
  return View::at(k::analytic::per_model)
      .at(model)
      .number(k::analytic_model::requests_per_event, presence);
}

// ---- the document --------------------------------------------------------------------------

Document::Document(std::shared_ptr<const detail::DocumentState> state)
    : View(std::move(state), "") {}

Document::Document(const json& doc)
    : Document([&] {
        auto state = std::make_shared<detail::DocumentState>();
        state->root = &doc;
        return state;
      }()) {}

Document Document::read(const std::string& file) {
  std::string error;
  const std::string text = read_text(file, error, InputLimits::max_data_bytes);
  if (!error.empty())
    throw InputError(
        file, {{"", "cannot read the file (" + error + "), expected a sonicsim results file"}});
  auto parsed = parse_json(text, file);
  if (!parsed || !parsed->is_object())
    throw InputError(file, {{"",
                             "not a JSON object, expected a sonicsim results file "
                             "(sonicsim run -o FILE)"}});
  auto state = std::make_shared<detail::DocumentState>();
  state->owned = std::move(*parsed);
  state->root = &state->owned;
  state->file = file;
  return Document(std::move(state));
}

const std::string& Document::file() const {
  return doc_->file;
}

std::string Document::scenario() const {
  return text(k::top::scenario).value_or("");
}

std::optional<std::uint64_t> Document::seed() const {
  const std::string pointer = at(k::top::seed).pointer();
  const json* v = doc_->find(pointer);
  if (!v) return std::nullopt;
  if (!v->is_number_unsigned()) {
    doc_->problem(pointer, "found " + brief(*v) + ", expected an unsigned integer");
    return std::nullopt;
  }
  return v->get<std::uint64_t>();
}

double Document::warmup_s(Presence presence) const {
  return number(k::top::warmup_s, presence);
}

Events Document::events() const {
  return Events(at(k::top::events));
}

Requests Document::requests() const {
  return Requests(at(k::top::requests));
}

Analytic Document::analytic() const {
  return Analytic(at(k::top::analytic));
}

std::vector<Model> Document::models() const {
  std::vector<Model> out;
  for (auto& [name, v] : members(k::top::models)) out.emplace_back(name, std::move(v));
  return out;
}

std::vector<Pool> Document::servers() const {
  std::vector<Pool> out;
  for (auto& v : elements(k::top::servers)) out.emplace_back(std::move(v));
  return out;
}

std::vector<Link> Document::links() const {
  std::vector<Link> out;
  for (auto& v : elements(k::top::links)) out.emplace_back(std::move(v));
  return out;
}

bool Document::has_workloads() const {
  return has(k::top::workloads);
}

std::vector<Workload> Document::workloads() const {
  std::vector<Workload> out;
  for (auto& v : elements(k::top::workloads)) out.emplace_back(std::move(v));
  return out;
}

bool Document::has_sites() const {
  return has(k::top::sites);
}

std::vector<Site> Document::sites() const {
  std::vector<Site> out;
  for (auto& v : elements(k::top::sites)) out.emplace_back(std::move(v));
  return out;
}

std::vector<Egress> Document::egress() const {
  std::vector<Egress> out;
  for (auto& v : elements(k::top::egress)) out.emplace_back(std::move(v));
  return out;
}

bool Document::has_timeseries() const {
  return has(k::top::timeseries);
}

bool Document::has_energy() const {
  return has(k::top::energy);
}
Energy Document::energy() const {
  return Energy(View::at(k::top::energy));
}
bool Document::has_cost() const {
  return has(k::top::cost);
}
Cost Document::cost() const {
  return Cost(View::at(k::top::cost));
}
bool Document::has_jobs() const {
  return has(k::top::jobs);
}
Jobs Document::jobs() const {
  return Jobs(View::at(k::top::jobs));
}

double Jobs::total() const {
  return number(k::jobs::total);
}
double Jobs::started() const {
  return number(k::jobs::started);
}
double Jobs::mean_running() const {
  return number(k::jobs::mean_running, Presence::Optional);
}
double Jobs::mean_running_threads() const {
  return number(k::jobs::mean_running_threads, Presence::Optional);
}

namespace {

void read_series_devices(const View& block, std::size_t n, Timeseries& ts) {
  namespace d = k::timeseries::device;
  for (const View& v : block.elements(k::timeseries::devices)) {
    const View e(v);
    Timeseries::Device device;
    device.pool = e.text(d::pool).value_or("?");
    device.index = e.number(d::index);
    device.utilization = e.numbers(d::utilization, n);
    device.queue_length = e.numbers(d::queue_length, n);
    ts.devices.push_back(std::move(device));
  }
}

void read_series_by_name(const View& block, std::size_t n, Timeseries& ts) {
  for (const auto& [name, v] : block.members(k::timeseries::models)) {
    namespace m = k::timeseries::model;
    const View e(v);
    ts.models[name] = {e.numbers(m::inferences_per_s, n), e.numbers(m::mean_batch_size, n),
                       e.numbers(m::latency_p50_s, n), e.numbers(m::latency_p99_s, n)};
  }
  const auto links = block.elements(k::timeseries::links);
  for (std::size_t i = 0; i < links.size(); ++i) {
    namespace l = k::timeseries::link;
    const View e(links[i]);
    ts.links.push_back({e.text(l::name).value_or("link " + std::to_string(i)),
                        e.numbers(l::utilization, n), e.numbers(l::bytes_per_s_to_servers, n),
                        e.numbers(l::bytes_per_s_to_clients, n)});
  }
}

// The parts only some runs have: job flows, several workloads, operated pools.
void read_series_optional(const View& block, std::size_t n, Timeseries& ts) {
  if (block.has(k::timeseries::running_jobs))
    ts.running_jobs = block.numbers(k::timeseries::running_jobs, n);
  if (block.has(k::timeseries::workloads))
    for (const auto& [name, v] : block.members(k::timeseries::workloads)) {
      namespace w = k::timeseries::workload;
      const View e(v);
      ts.workloads.push_back({name, e.numbers(w::events_per_s, n), e.numbers(w::latency_p50_s, n),
                              e.numbers(w::latency_p99_s, n)});
    }
  if (block.has(k::timeseries::pools)) {
    const auto pools = block.elements(k::timeseries::pools);
    for (std::size_t i = 0; i < pools.size(); ++i) {
      namespace p = k::timeseries::pool;
      const View e(pools[i]);
      ts.pools.push_back({e.text(p::pool).value_or("pool " + std::to_string(i)),
                          e.numbers(p::replicas, n), e.numbers(p::ready, n)});
    }
  }
  auto counters = [&](const char* key, std::vector<Timeseries::Server>& out) {
    if (!block.has(key)) return;
    for (const View& v : block.elements(key)) {
      namespace sv = k::timeseries::server;
      const View e(v);
      Timeseries::Server s;
      s.pool = e.text(sv::pool).value_or("?");
      s.model = e.text(sv::model).value_or("?");
      if (e.has(sv::replica)) s.replica = static_cast<int>(e.number(sv::replica));
      s.requests_per_s = e.numbers(sv::requests_per_s, n);
      s.failures_per_s = e.numbers(sv::failures_per_s, n);
      s.inferences_per_s = e.numbers(sv::inferences_per_s, n);
      s.executions_per_s = e.numbers(sv::executions_per_s, n);
      s.queue_time_s = e.numbers(sv::queue_time_s, n);
      s.compute_time_s = e.numbers(sv::compute_time_s, n);
      out.push_back(std::move(s));
    }
  };
  counters(k::timeseries::servers, ts.servers);
  counters(k::timeseries::replicas, ts.replicas);
}

}  // namespace

Timeseries Document::timeseries() const {
  const View block = at(k::top::timeseries);
  const std::size_t n = block.length(k::timeseries::t_s);
  Timeseries ts;
  ts.t_s = block.numbers(k::timeseries::t_s, n);
  ts.events_per_s = block.numbers(k::timeseries::events_per_s, n);
  read_series_devices(block, n, ts);
  read_series_by_name(block, n, ts);
  read_series_optional(block, n, ts);
  return ts;
}

void Document::check() const {
  if (!doc_->problems.empty())
    throw InputError(doc_->file + " (a sonicsim results file: sonicsim run -o FILE)",
                     doc_->problems);
}

}  // namespace sonicsim::results
