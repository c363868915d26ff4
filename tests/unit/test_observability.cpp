// What a run writes for the tools sites already watch with: Triton's Prometheus metrics (a valid
// exposition file whose counters say what the results JSON says). The time series and the request
// trace the engine samples are engine/test_sampling.cpp; the `timeseries` key's checks
// scenario/test_loader.cpp.
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
