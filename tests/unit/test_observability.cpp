// What a run writes for the tools sites already watch with: a time series of the run (whose
// windows add up to the run's figures), Triton's Prometheus metrics (a valid exposition file
// whose counters say what the results JSON says) and a Chrome trace of sampled requests (valid
// trace events whose phases add up to each request's latency).
#include <map>
#include <regex>
#include <sstream>

#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results/prometheus.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/results/trace.hpp>

using namespace test;

namespace {

struct Exposition {
  std::map<std::string, std::string> types;  // family -> counter | gauge
  std::map<std::string, double> samples;     // "name{labels}" -> value
  std::vector<std::string> errors;
};

// The text exposition format 0.0.4, as far as Triton's metrics use it: HELP and TYPE lines
// before their family's samples, `name{label="value",...} number` samples, nothing else.
Exposition parse(const std::string& text) {
  static const std::regex help(R"(^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$)");
  static const std::regex type(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge)$)");
  static const std::regex sample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\} )"
      R"(([-+]?(?:[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|Inf|NaN))$)");
  Exposition e;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (std::regex_match(line, m, help)) continue;
    if (std::regex_match(line, m, type)) {
      e.types[m[1]] = m[2];
      continue;
    }
    if (std::regex_match(line, m, sample)) {
      if (!e.types.count(m[1])) e.errors.push_back("line " + std::to_string(n) + ": no TYPE");
      e.samples[std::string(m[1]) + "{" + std::string(m[2]) + "}"] = std::stod(m[3]);
      continue;
    }
    e.errors.push_back("line " + std::to_string(n) + ": " + line);
  }
  return e;
}

}  // namespace

TEST_CASE("Prometheus metrics: Triton's names and labels, counters as in the results",
          "[results]") {
  json doc = deterministic(40, 2, 0.1, 0.3, 0.004);
  doc["duration"] = 200.0;
  doc["warmup"] = 20.0;
  doc["models"]["m"]["max_batch_size"] = 8;
  doc["models"]["m"]["dynamic_batching"] = json::object();
  doc["models"]["m"]["service_time"] = {{"batch", {1, 8}}, {"seconds", {0.004, 0.01}}};
  const auto s = scenario_of(doc);
  const auto out = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{});
  const auto j = sonicsim::results::to_json(s, out, json::object());
  const std::string text = sonicsim::results::to_prometheus(s, out);
  const auto e = parse(text);
  INFO(text);
  CHECK(e.errors.empty());
  for (const char* counter :
       {"nv_inference_request_success", "nv_inference_request_failure", "nv_inference_count",
        "nv_inference_exec_count", "nv_inference_request_duration_us",
        "nv_inference_queue_duration_us", "nv_inference_compute_input_duration_us",
        "nv_inference_compute_infer_duration_us", "nv_inference_compute_output_duration_us"})
    CHECK(e.types.at(counter) == "counter");
  CHECK(e.types.at("nv_gpu_utilization") == "gauge");

  const std::string m = "{model=\"m\",version=\"1\"}";
  const auto& jm = j["models"]["m"];
  const double span = out.metrics.span();
  CHECK(e.samples.at("nv_inference_request_success" + m) == jm["requests"].get<double>());
  CHECK(e.samples.at("nv_inference_exec_count" + m) == jm["executions"].get<double>());
  CHECK(e.samples.at("nv_inference_count" + m) / span ==
        Approx(jm["inferences_per_s"].get<double>()));
  CHECK(e.samples.at("nv_inference_count" + m) / e.samples.at("nv_inference_exec_count" + m) ==
        Approx(jm["mean_batch_size"].get<double>()));
  // The KEDA autoscaling metric: queue time per execution, in milliseconds.
  const double queue_us = e.samples.at("nv_inference_queue_duration_us" + m);
  const double per_request_queue = jm["queue_time_s"]["mean"].get<double>();
  CHECK(queue_us / e.samples.at("nv_inference_request_success" + m) ==
        Approx(per_request_queue * 1e6).epsilon(0.01));
  CHECK(e.samples.at("nv_inference_request_duration_us" + m) ==
        Approx(queue_us + e.samples.at("nv_inference_compute_infer_duration_us" + m)));
  CHECK(e.samples.at("nv_inference_request_failure" + m) == 0);
  // Per device, within the pool's spread, averaging to the pool's mean.
  const auto& pool = j["servers"][0];
  double sum = 0.0;
  for (int d = 0; d < 2; ++d) {
    const double u = e.samples.at("nv_gpu_utilization{gpu_uuid=\"gpu-" + std::to_string(d) + "\"}");
    CHECK(u >= pool["utilization_min"].get<double>() - 1e-12);
    CHECK(u <= pool["utilization_max"].get<double>() + 1e-12);
    sum += u;
  }
  CHECK(sum / 2 == Approx(pool["utilization"].get<double>()));
  CHECK(e.samples.at("sonicsim_measured_span_seconds{scenario=\"" + s.name + "\"}") == span);
}

TEST_CASE("Prometheus label values are escaped", "[results]") {
  json doc = deterministic(2, 1);
  doc["name"] = "a \"quoted\" \\ name";
  doc["duration"] = 10.0;
  doc["warmup"] = 1.0;
  const auto s = scenario_of(doc);
  const auto out = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{});
  const auto e = parse(sonicsim::results::to_prometheus(s, out));
  CHECK(e.errors.empty());
  CHECK(e.samples.count(R"(sonicsim_measured_span_seconds{scenario="a \"quoted\" \\ name"})") == 1);
}

namespace {

// Two sites: model m served at both (pools gx at x, gy at y), k only at y (gy), n by GPUs
// attached to the nodes of a workload spread over both sites.
json prom_two_sites() {
  const json model = {{"input_bytes_per_item", 10000},
                      {"output_bytes_per_item", 100},
                      {"service_time", {{"batch", {1}}, {"seconds", {0.004}}}}};
  const json links = {{"client_nic", {{"bandwidth", "10Gbps"}, {"latency", "100us"}}},
                      {"server_nic", {{"bandwidth", "25Gbps"}, {"latency", "100us"}}}};
  return {
      {"name", "two-sites"},
      {"duration", 60.0},
      {"warmup", 6.0},
      {"workloads",
       {{{"name", "wa"},
         {"site", "x"},
         {"jobs", 8},
         {"threads_per_job", 1},
         {"cpu_time_per_event", 0.1},
         {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.2}},
                                   {{"model", "k"}, {"offload_fraction", 0.1}}})}},
        {{"name", "wb"},
         {"sites", {{"x", 1}, {"y", 1}}},
         {"jobs", 4},
         {"threads_per_job", 1},
         {"jobs_per_node", 1},
         {"cpu_time_per_event", 0.1},
         {"requests", json::array({{{"model", "n"}, {"offload_fraction", 0.2}}})}}}},
      {"models", {{"m", model}, {"k", model}, {"n", model}}},
      {"servers",
       {{{"name", "gx"}, {"site", "x"}, {"count", 2}, {"device", "T4"}, {"models", {"m"}}},
        {{"name", "gy"}, {"site", "y"}, {"count", 3}, {"device", "T4"}, {"models", {"m", "k"}}},
        {{"name", "local"}, {"attached", "wb"}, {"device", "T4"}, {"models", {"n"}}}}},
      {"sites", {{{"name", "x"}, {"network", links}}, {{"name", "y"}, {"network", links}}}},
      {"wan",
       {{"links",
         json::array({{{"between", {"x", "y"}}, {"bandwidth", "10Gbps"}, {"latency", "5ms"}}})}}}};
}

}  // namespace

TEST_CASE("Prometheus metrics with sites: each GPU's site, a model's counters at its one site",
          "[results][sites]") {
  const auto s = scenario_of(prom_two_sites());
  const auto out = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{});
  const auto j = sonicsim::results::to_json(s, out, json::object());
  const std::string text = sonicsim::results::to_prometheus(s, out);
  const auto e = parse(text);
  INFO(text);
  CHECK(e.errors.empty());

  // Every device once, labelled with the site of its pool (attached: of its client node; wb's
  // four nodes go two to x, then two to y).
  const std::map<std::string, std::string> site_of = {
      {"gx-0", "x"},    {"gx-1", "x"},    {"gy-0", "y"},    {"gy-1", "y"},   {"gy-2", "y"},
      {"local-0", "x"}, {"local-1", "x"}, {"local-2", "y"}, {"local-3", "y"}};
  std::size_t gpus = 0;
  for (const auto& [key, value] : e.samples)
    if (key.rfind("nv_gpu_utilization{", 0) == 0) ++gpus;
  CHECK(gpus == site_of.size());
  for (const auto& [gpu, site] : site_of)
    CHECK(e.samples.count("nv_gpu_utilization{gpu_uuid=\"" + gpu + "\",site=\"" + site + "\"}") ==
          1);

  // k is served at y alone: its series carry the site, after Triton's own labels. m and n are
  // served at both sites and counted over all their pools: one series each, without a site.
  const std::string k = "{model=\"k\",version=\"1\",site=\"y\"}";
  const std::string m = "{model=\"m\",version=\"1\"}";
  const std::string n = "{model=\"n\",version=\"1\"}";
  for (const char* family :
       {"nv_inference_request_success", "nv_inference_request_failure", "nv_inference_count",
        "nv_inference_exec_count", "nv_inference_request_duration_us",
        "nv_inference_queue_duration_us", "nv_inference_compute_input_duration_us",
        "nv_inference_compute_infer_duration_us", "nv_inference_compute_output_duration_us"}) {
    INFO(family);
    CHECK(e.samples.count(family + k) == 1);
    CHECK(e.samples.count(family + m) == 1);
    CHECK(e.samples.count(family + n) == 1);
  }
  for (const auto& [name, labels] : {std::pair{"k", k}, {"m", m}, {"n", n}}) {
    CHECK(e.samples.at("nv_inference_request_success" + labels) ==
          j["models"][name]["requests"].get<double>());
    CHECK(e.samples.at("nv_inference_exec_count" + labels) ==
          j["models"][name]["executions"].get<double>());
    CHECK(e.samples.at("nv_inference_exec_count" + labels) > 0);
  }
  CHECK(e.samples.at("sonicsim_measured_span_seconds{scenario=\"two-sites\"}") ==
        out.metrics.span());
}

TEST_CASE("request trace: every N-th request, phases in order, adding up to its latency",
          "[results]") {
  // No batching, constant times: each request's compute is exactly t_GPU.
  json doc = deterministic(20, 1, 0.05, 0.2, 0.004);
  doc["duration"] = 60.0;
  doc["warmup"] = 6.0;
  const auto s = scenario_of(doc);
  const auto out = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{}, {10, 25});
  const auto& trace = out.metrics.trace;
  REQUIRE(trace.size() == 25);
  for (const auto& r : trace) {
    CHECK(r.sent >= s.warmup);
    CHECK(r.sent <= r.at_server);
    CHECK(r.at_server <= r.exec_start);
    CHECK(r.exec_end - r.exec_start == Approx(0.004));
    CHECK(r.exec_end <= r.back);
    CHECK(r.batch_items == 1);
    CHECK_FALSE(r.failed);
  }
  // Every 10th request: 250 issued after the warm-up by the 25th traced one's issue.
  CHECK(trace.back().sent > trace.front().sent);

  const json t = json::parse(sonicsim::results::to_chrome_trace(s, out.metrics));
  REQUIRE(t.contains("traceEvents"));
  std::map<std::pair<std::size_t, std::string>, double> open;  // (id, name) -> begin
  std::map<std::size_t, std::pair<double, double>> request;    // id -> [begin, end]
  std::map<std::size_t, double> phase_sum;
  for (const auto& e : t["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") continue;
    const std::size_t id = e["id"];
    const std::string name = e["name"];
    const double ts = e["ts"];
    if (ph == "b") {
      CHECK(open.emplace(std::make_pair(id, name), ts).second);
      continue;
    }
    REQUIRE(ph == "e");
    const auto it = open.find({id, name});
    REQUIRE(it != open.end());
    CHECK(ts >= it->second);
    if (name.rfind("request ", 0) == 0)
      request[id] = {it->second, ts};
    else
      phase_sum[id] += ts - it->second;
    open.erase(it);
  }
  CHECK(open.empty());  // every slice closed
  CHECK(request.size() == 25);
  for (const auto& [id, span] : request) {
    INFO("request " << id);
    // The phases tile the request: together they are its latency.
    CHECK(phase_sum[id] == Approx(span.second - span.first).epsilon(1e-9));
    CHECK((span.second - span.first) * 1e-6 == Approx(trace[id].back - trace[id].sent));
  }
}

TEST_CASE("request trace: a rejected request goes to the server and back, no compute",
          "[results]") {
  json doc = deterministic(20, 1, 0.001, 0.5, 0.01);
  doc["duration"] = 20.0;
  doc["warmup"] = 2.0;
  doc["models"]["m"]["dynamic_batching"] = {{"max_queue_size", 1}};
  const auto s = scenario_of(doc);
  const auto out = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{}, {1, 500});
  const json t = json::parse(sonicsim::results::to_chrome_trace(s, out.metrics));
  int rejected = 0;
  for (const auto& e : t["traceEvents"])
    if (e["name"] == "rejected, to client" && e["ph"] == "b") ++rejected;
  int failed = 0;
  for (const auto& r : out.metrics.trace) failed += r.failed && !std::isnan(r.back);
  CHECK(failed > 0);
  CHECK(rejected == failed);
}

TEST_CASE("time series: windows from time 0 that add up to the measured figures", "[results]") {
  json doc = deterministic(60, 2, 0.1, 0.3, 0.004);
  doc["duration"] = 200.0;
  doc["warmup"] = 20.0;
  doc["models"]["m"]["max_batch_size"] = 8;
  doc["models"]["m"]["dynamic_batching"] = json::object();
  doc["models"]["m"]["service_time"] = {{"batch", {1, 8}}, {"seconds", {0.004, 0.01}}};
  const auto plain = scenario_of(doc);
  doc["timeseries"] = {{"interval", "10s"}};
  const auto s = scenario_of(doc);
  const auto out = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{});
  const auto j = sonicsim::results::to_json(s, out, json::object());
  REQUIRE(j.contains("timeseries"));
  const auto& ts = j["timeseries"];
  REQUIRE(ts["t_s"].size() == 20);
  CHECK(ts["t_s"][0] == 10.0);
  CHECK(ts["t_s"][19] == 200.0);

  // Windows 3..20 are the measured span [20 s, 200 s]: their means are the run's figures.
  auto measured_mean = [](const json& series) {
    double sum = 0.0;
    for (std::size_t k = 2; k < series.size(); ++k) sum += series[k].get<double>();
    return sum / static_cast<double>(series.size() - 2);
  };
  CHECK(measured_mean(ts["events_per_s"]) ==
        Approx(j["events"]["throughput_per_s"].get<double>()).epsilon(1e-9));
  CHECK(measured_mean(ts["models"]["m"]["inferences_per_s"]) ==
        Approx(j["models"]["m"]["inferences_per_s"].get<double>()).epsilon(1e-9));
  double util = 0.0;
  for (const auto& d : ts["devices"]) util += measured_mean(d["utilization"]) / 2.0;
  CHECK(util == Approx(j["servers"][0]["utilization"].get<double>()).epsilon(1e-9));
  for (std::size_t i = 0; i < ts["links"].size(); ++i) {
    const auto& link = j["links"][i];
    const double to_servers = measured_mean(ts["links"][i]["bytes_per_s_to_servers"]) * 180.0;
    CHECK(to_servers == Approx(link["bytes_to_servers"].get<double>()).epsilon(1e-9));
  }
  for (const auto& b : ts["models"]["m"]["mean_batch_size"]) {
    CHECK(b.get<double>() >= 1.0);
    CHECK(b.get<double>() <= 8.0);
  }
  for (std::size_t k = 0; k < 20; ++k) {
    CHECK(ts["models"]["m"]["latency_p50_s"][k].get<double>() > 0.0);
    CHECK(ts["models"]["m"]["latency_p99_s"][k].get<double>() >=
          ts["models"]["m"]["latency_p50_s"][k].get<double>());
  }

  // Sampling changes nothing else.
  const auto base = sonicsim::runner::simulate(plain, sonicsim::runner::TransportChoice{});
  auto without = j;
  without.erase("timeseries");
  without.erase("perf");
  auto expected = sonicsim::results::to_json(plain, base, json::object());
  expected.erase("perf");
  // The scenario's identity differs (it asked for a time series); the figures do not.
  for (const char* key : {"scenario_sha256"}) {
    without.erase(key);
    expected.erase(key);
  }
  CHECK(without.dump() == expected.dump());
}

TEST_CASE("time series: bad settings name the key", "[results]") {
  json doc = deterministic(2, 1);
  doc["duration"] = "1h";
  doc["warmup"] = 1.0;
  doc["timeseries"] = {{"interval", "1ms"}};
  try {
    scenario_of(doc);
    FAIL("an interval giving 3.6 million samples was accepted");
  } catch (const sonicsim::scenario::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("timeseries.interval") &&
                             Catch::Contains("at most 1,000,000 samples"));
  }
  doc["timeseries"] = "often";
  CHECK_THROWS_WITH(scenario_of(doc), Catch::Contains("timeseries") &&
                                          Catch::Contains("expected true, false or an object"));
  doc["timeseries"] = {{"interval", "10s"}, {"every", 2}};
  CHECK_THROWS_WITH(scenario_of(doc), Catch::Contains("timeseries.every"));
  doc["timeseries"] = true;
  CHECK(scenario_of(doc).timeseries_interval == 10.0);
  doc["timeseries"] = false;
  CHECK(scenario_of(doc).timeseries_interval == 0.0);
}
