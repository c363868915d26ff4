// Sampling (src/engine/sampling.cpp): the time series windows, from time 0, whose means over the
// measured span are the run's own figures (and sampling changes nothing else), and the request
// trace, every N-th request with its phases in order adding up to its latency.
#include <cmath>
#include <map>

#include "support.hpp"

#include <sonicsim/results/results.hpp>
#include <sonicsim/results/trace.hpp>

using namespace test;

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
