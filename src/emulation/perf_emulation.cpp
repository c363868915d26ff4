#include <sonicsim/emulation/perf_emulation.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/writer.hpp>
#include <sonicsim/util/json_text.hpp>

namespace sonicsim::emulation {

using calibration::PerfAnalyzerRow;

namespace {

using json = nlohmann::json;
using scenario::InputError;

int pool_of(const scenario::Scenario& s, const std::string& model) {
  for (std::size_t i = 0; i < s.servers.size(); ++i)
    for (const auto& m : s.servers[i].models)
      if (m == model) return static_cast<int>(i);
  return -1;
}

std::string base_dir_of(const scenario::Scenario& s) {
  if (s.source_file.empty()) return ".";
  const auto dir = std::filesystem::path(s.source_file).parent_path().string();
  return dir.empty() ? "." : dir;
}

double interpolate(const std::vector<double>& x, const std::vector<double>& y, double at) {
  if (x.empty()) return 0.0;
  if (at <= x.front()) return y.front();
  if (at >= x.back()) return y.back();
  const auto it = std::upper_bound(x.begin(), x.end(), at);
  const std::size_t i = static_cast<std::size_t>(it - x.begin());
  const double f = (at - x[i - 1]) / (x[i] - x[i - 1]);
  return y[i - 1] + f * (y[i] - y[i - 1]);
}

}  // namespace

void load_compute_split(const scenario::Scenario& s, EmulationOptions& o) {
  const auto* m = s.find_model(o.model);
  const int pool = pool_of(s, o.model);
  if (!m || pool < 0) return;
  const auto& curve = m->curve_for(s.servers[pool].device);
  if (curve.source.empty() || curve.source == "table") return;
  std::filesystem::path file(curve.source);
  if (file.is_relative()) file = std::filesystem::path(base_dir_of(s)) / file;
  std::string error;
  const std::string text = read_text(file.string(), error);
  if (!error.empty()) return;
  const auto doc = parse_json_value(text);
  if (!doc || !doc->contains("compute_split")) return;
  const json& split = (*doc)["compute_split"];
  try {
    std::vector<double> items = split.at("items").get<std::vector<double>>();
    std::vector<double> input = split.at("input_share").get<std::vector<double>>();
    std::vector<double> output = split.at("output_share").get<std::vector<double>>();
    // A malformed split is ignored: compute is then reported whole, under Server Compute Infer.
    if (items.size() != input.size() || items.size() != output.size()) return;
    o.split_items = std::move(items);
    o.input_share = std::move(input);
    o.output_share = std::move(output);
  } catch (const json::exception&) {
  }
}

namespace {

// The model's pool, checked the way Triton would check the request; throws InputError.
int serving_pool(const scenario::Scenario& s, const EmulationOptions& o) {
  const auto* model = s.find_model(o.model);
  if (!model) {
    std::string names;
    for (const auto& m : s.models) names += (names.empty() ? "" : ", ") + m.name;
    throw InputError("--model", {{"", "found `" + o.model +
                                          "`, expected a model of the scenario (" + names + ")"}});
  }
  const int pool = pool_of(s, o.model);
  if (pool < 0)
    throw InputError("--model", {{"", "model `" + o.model +
                                          "` is hosted by no server pool of the scenario, "
                                          "expected a pool that serves it"}});
  if (model->max_batch_size > 0 && o.batch_size > model->max_batch_size)
    throw InputError("--batch-size",
                     {{"", "found " + std::to_string(o.batch_size) + ", expected at most " +
                               std::to_string(model->max_batch_size) + " (max_batch_size of `" +
                               o.model + "`: Triton rejects larger requests)"}});
  return pool;
}

// What one request spends outside the server's queue and executions: its overheads and the wire.
double outside_server(const scenario::Scenario& s, const EmulationOptions& o) {
  const auto& model = *s.find_model(o.model);
  const double net = 2.0 * s.network.path_latency() +
                     o.batch_size * (model.input_bytes_per_item + model.output_bytes_per_item) /
                         s.network.path_bandwidth();
  return model.overhead.total(o.batch_size) + net;
}

double execution_alone(const scenario::Scenario& s, const EmulationOptions& o, int pool) {
  return s.find_model(o.model)->curve_for(s.servers[pool].device).at(o.batch_size);
}

// perf_analyzer's setup inside the scenario: only MODEL, on `devices` devices of its pool, the
// scenario's links, and perf_analyzer's client as the workload.
scenario::Scenario reduce(const scenario::Scenario& s, const EmulationOptions& o, int pool,
                          scenario::Workload client, double warmup, double span) {
  scenario::Scenario r = s;
  r.models.erase(std::remove_if(r.models.begin(), r.models.end(),
                                [&](const scenario::Model& m) { return m.name != o.model; }),
                 r.models.end());
  r.servers = {s.servers[pool]};
  r.servers[0].count = o.devices;
  r.servers[0].models = {o.model};
  scenario::RequestSpec request;
  request.model = o.model;
  request.items = scenario::Distribution::constant(o.batch_size);
  client.name = s.workload().name;
  client.requests = {request};
  r.workloads = {client};
  r.duration = warmup + span;
  r.warmup = warmup;
  return scenario::load_json(scenario::write_scenario(s, r),
                             s.source_file.empty() ? "<perf-analyzer>" : s.source_file,
                             base_dir_of(s));
}

// One row of perf_analyzer's CSV from the run, with its column meanings.
EmulatedPoint measure(const scenario::Scenario& sc, const runner::RunOutput& out,
                      const EmulationOptions& o, double load) {
  const auto& m = out.metrics;
  const auto& mm = m.models.at(0);
  EmulatedPoint p;
  PerfAnalyzerRow& r = p.row;
  r.load = load;
  r.inferences_per_s = static_cast<double>(mm.requests) * o.batch_size / m.span();
  const double us = 1e6;
  const auto& ov = sc.models[0].overhead;
  r.client_send_us = ov.client_send.at(o.batch_size) * us;
  r.client_recv_us = ov.client_recv.at(o.batch_size) * us;
  r.server_queue_us = mm.queue_time.mean() * us;
  const double compute =
      mm.executed_requests ? mm.executed_request_seconds / mm.executed_requests * us : 0.0;
  p.items_per_execution =
      mm.executed_requests ? mm.executed_request_items / mm.executed_requests : 0.0;
  p.requests_per_execution = p.items_per_execution / o.batch_size;
  const double in_share = interpolate(o.split_items, o.input_share, p.items_per_execution);
  const double out_share = interpolate(o.split_items, o.output_share, p.items_per_execution);
  r.compute_input_us = compute * in_share;
  r.compute_output_us = compute * out_share;
  r.compute_infer_us = compute - r.compute_input_us - r.compute_output_us;
  const double mean_latency = mm.latency.mean() * us;
  r.network_server_us = std::max(
      0.0, mean_latency - r.client_send_us - r.client_recv_us - r.server_queue_us - compute);
  r.p50_us = mm.latency.quantile(0.50) * us;
  r.p90_us = mm.latency.quantile(0.90) * us;
  r.p95_us = mm.latency.quantile(0.95) * us;
  r.p99_us = mm.latency.quantile(0.99) * us;
  r.avg_latency_us = mean_latency;
  p.requests = mm.requests;
  p.failed = m.failed;
  p.device_utilization = m.pools.at(0).mean_utilization();
  p.backlog_growing = m.backlog_growing();
  return p;
}

}  // namespace

EmulatedPoint emulate_concurrency(const scenario::Scenario& s, const EmulationOptions& o,
                                  int concurrency) {
  const int pool = serving_pool(s, o);
  // Long enough for `requests` requests even if nothing batched and every request waited for
  // all others: the true rate is higher, so the target is always met.
  const double per_request =
      outside_server(s, o) + concurrency * execution_alone(s, o, pool) / o.devices;
  // 2% and one request more: the count is of requests finished inside the measured span.
  const double span =
      1.02 * static_cast<double>(o.requests) * per_request / concurrency + per_request;
  const double warmup = std::max(0.1 * span, 50.0 * per_request);
  scenario::Workload workload;
  workload.jobs = concurrency;
  workload.threads_per_job = 1;
  workload.jobs_per_node = concurrency;
  workload.mode = scenario::Mode::Sync;
  workload.cpu_time_per_event = scenario::Distribution::constant(0.0);
  const auto sc = reduce(s, o, pool, workload, warmup, span);
  return measure(sc, runner::simulate(sc, runner::TransportChoice{}), o, concurrency);
}

EmulatedPoint emulate_request_rate(const scenario::Scenario& s, const EmulationOptions& o,
                                   double rate) {
  if (!(rate > 0.0) || !std::isfinite(rate) || rate > scenario::Limits::max_arrival_rate) {
    char found[32];
    std::snprintf(found, sizeof found, "%g", rate);
    throw InputError("--request-rate-range",
                     {{"", std::string("found a rate of ") + found +
                               " requests/s, expected a finite rate > 0 and at most 1e9"}});
  }
  const int pool = serving_pool(s, o);
  // The measured span holds `requests` arrivals; the warm-up lets the queues reach their steady
  // state (several unloaded latencies and arrivals at least).
  const double span = static_cast<double>(o.requests) / rate;
  const double unloaded = outside_server(s, o) + execution_alone(s, o, pool);
  const double warmup = std::max({0.1 * span, 50.0 * unloaded, 10.0 / rate});
  scenario::Workload workload;
  workload.arrivals.emplace();
  workload.arrivals->rate = rate;
  workload.arrivals->distribution = o.distribution;
  const auto sc = reduce(s, o, pool, workload, warmup, span);
  return measure(sc, runner::simulate(sc, runner::TransportChoice{}), o, rate);
}

calibration::Emulator emulator() {
  return {emulate_concurrency, emulate_request_rate};
}

}  // namespace sonicsim::emulation
