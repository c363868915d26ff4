// Triton's Prometheus metrics written at the end of a run: a valid exposition file whose
// counters say what the results JSON says, so dashboards and PromQL read a simulation like a
// server.
#include <map>
#include <regex>
#include <sstream>

#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results/prometheus.hpp>
#include <sonicsim/results/results.hpp>

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
