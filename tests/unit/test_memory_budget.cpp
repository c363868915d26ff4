// Memory proportional to something the user did not mean to ask for (issue 16, class 2): input
// files read up to a cap, JSON nesting refused before a tree is built, and the run's memory
// estimated from the scenario and held to a budget before anything is allocated.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/runner/memory.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/json_text.hpp>

#include "support.hpp"

namespace {

using sonicsim::InputError;
using test::json;
namespace runner = sonicsim::runner;

std::string scratch_file(const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("sonicsim-memory-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

std::string read_error(const std::string& path, std::size_t cap) {
  std::string error;
  try {
    sonicsim::read_text(path, error, cap);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

double memory_of(const json& doc, const sonicsim::engine::TraceSettings& trace = {}) {
  return runner::estimate_memory(test::scenario_of(doc), trace).bytes;
}

json small_run() {
  json d = test::deterministic(10, 2);
  d["duration"] = 100.0;
  d["warmup"] = 0.0;
  return d;
}

}  // namespace

TEST_CASE("read_text refuses a file above its cap and reads at most cap + 1 bytes",
          "[files][memory]") {
  const std::string file = scratch_file(std::string(1000, 'x'));
  std::string error;
  CHECK(sonicsim::read_text(file, error, 1000).size() == 1000);
  CHECK(error.empty());
  CHECK(read_error(file, 999) ==
        file +
            ": found a file of 1000 B, expected at most 999 B (the limit for this kind of "
            "input, docs/limits.md)");
  std::filesystem::remove(file);
  // A device that never ends is not read at all (only regular files are: test_files.cpp).
  CHECK(read_error("/dev/zero", std::size_t{1} << 20)
            .find("/dev/zero: found a character device, expected a regular file") == 0);
  // A missing file is no cap's business: the caller names what it was for.
  CHECK(sonicsim::read_text("/nonexistent/sonicsim", error).empty());
  CHECK(error == "No such file or directory");
  CHECK(sonicsim::InputLimits::max_input_bytes < sonicsim::InputLimits::max_data_bytes);
}

TEST_CASE("JSON nested deeper than the limit is refused with its line and column",
          "[json][memory]") {
  const int limit = sonicsim::InputLimits::max_json_depth;
  const auto nested = [](int depth) {
    return std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']');
  };
  CHECK_FALSE(sonicsim::json_depth_problem(nested(limit)));
  const auto deep = sonicsim::json_depth_problem(nested(40000));
  REQUIRE(deep);
  CHECK(deep->message == "line 1, column " + std::to_string(limit + 1) +
                             ": found arrays and objects nested 40000 deep, expected at most " +
                             std::to_string(limit) + " (the limit for JSON input, docs/limits.md)");
  // Brackets inside strings are text, escaped quotes do not end the string.
  CHECK_FALSE(sonicsim::json_depth_problem("{\"a\": \"" + nested(1000) + "\\\"[[[\"}"));
  // Lines are counted, from a JSONL line's own number.
  const auto at = sonicsim::json_depth_problem("{\n \"a\":\n  " + nested(100), 12);
  REQUIRE(at);
  CHECK(at->message.rfind("line 14, column " + std::to_string(3 + limit - 1), 0) == 0);
  CHECK_THROWS_AS(sonicsim::check_json_depth(nested(100), "f.json"), InputError);
}

TEST_CASE("the memory estimate grows with every count the user sets", "[memory]") {
  const double start = memory_of(small_run());
  CHECK(start > 0.0);
  json more = small_run();
  more["servers"][0]["count"] = 1000;
  CHECK(memory_of(more) > start);
  more = small_run();
  more["workload"]["jobs"] = 1000;
  CHECK(memory_of(more) > start);
  json async = small_run();
  async["workload"]["mode"] = "async";
  async["workload"]["async"] = {{"events_in_flight", 100}};
  CHECK(memory_of(async) > start);
  json series = small_run();
  series["timeseries"] = {{"interval", 1.0}};
  const double with_series = memory_of(series);
  CHECK(with_series > start);
  series["timeseries"] = {{"interval", 0.1}};
  CHECK(memory_of(series) > with_series);
  more = small_run();
  more["duration"] = 1e6;
  CHECK(memory_of(more) > start);
  // The trace: only when written, and more with a larger cap.
  CHECK(memory_of(small_run(), {1, 100}) > start);
  CHECK(memory_of(small_run(), {1, 1000}) > memory_of(small_run(), {1, 100}));
  // A million servers: gigabytes, named first among the parts.
  more = small_run();
  more["servers"][0]["count"] = 1000000;
  const auto e = runner::estimate_memory(test::scenario_of(more));
  CHECK(e.bytes > 1.5e9);  // 1,985 B a device hosting one model
  CHECK(e.largest(1).rfind("1,000,000 servers ~ ", 0) == 0);
}

namespace {

// The parts of an estimate by their names, for the time series' counts.
std::string part_names(const runner::MemoryEstimate& e) {
  std::string names;
  for (const auto& p : e.parts) names += p.what + "; ";
  return names;
}

double part_bytes(const runner::MemoryEstimate& e, const std::string& prefix) {
  for (const auto& p : e.parts)
    if (p.what.rfind(prefix, 0) == 0) return p.bytes;
  return 0.0;
}

}  // namespace

TEST_CASE(
    "the time series' part of the estimate grows with its windows and values as the model "
    "says",
    "[memory]") {
  // small_run: 2 devices hosting 1 model, 3 links, 1 workload. Per window the engine keeps 2
  // (end, events) + 2 per device + 5 per model + 3 per link + 6 (Triton's counters of the one
  // pool and model) = 26 values in the results too, and besides 2 per model (the OpenMetrics
  // proxy's), 3 per workload and a byte per device: 31.25.
  const double none = memory_of(small_run());
  json doc = small_run();
  doc["timeseries"] = {{"interval", 1.0}};  // 100 windows
  auto e = runner::estimate_memory(test::scenario_of(doc));
  INFO(part_names(e));
  CHECK_THAT(part_names(e), Catch::Contains("100 time-series windows of 31 values"));
  CHECK_THAT(part_names(e), Catch::Contains("the time series in the results (2,600 values"));
  const double per_100 = e.bytes - none;
  const double engine_100 = part_bytes(e, "100 time-series windows");
  const double results_100 = part_bytes(e, "the time series in the results");
  CHECK(engine_100 > 0.0);
  CHECK(results_100 > 0.0);
  CHECK(per_100 == Approx(engine_100 + results_100));
  // Ten times the windows, ten times the bytes.
  doc["timeseries"] = {{"interval", 0.1}};
  CHECK(memory_of(doc) - none == Approx(10.0 * per_100));
  // Replicas: Triton's 6 counters per device and model, 12 more values per window, and each
  // device's memory in use (OpenMetrics' only), 2 more in the engine.
  doc["timeseries"] = {{"interval", 1.0}, {"replicas", true}};
  e = runner::estimate_memory(test::scenario_of(doc));
  CHECK_THAT(part_names(e), Catch::Contains("100 time-series windows of 45 values"));
  CHECK_THAT(part_names(e), Catch::Contains("the time series in the results (3,800 values"));
  CHECK(part_bytes(e, "100 time-series windows") == Approx(engine_100 * 45.25 / 31.25));
  CHECK(part_bytes(e, "the time series in the results") == Approx(results_100 * 38.0 / 26.0));
  // A pool whose devices crash is operated: its replicas asked for and ready, 2 more a window.
  doc["timeseries"] = {{"interval", 1.0}};
  doc["faults"] = json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"at", 10.0}}});
  e = runner::estimate_memory(test::scenario_of(doc));
  CHECK_THAT(part_names(e), Catch::Contains("the time series in the results (2,800 values"));
  // Files the caller builds from the run (an OpenMetrics timeline) are added as they are given.
  const auto s = test::scenario_of(small_run());
  CHECK(runner::estimate_memory(s, {}, {{"an OpenMetrics file", 1e8}}).bytes == Approx(none + 1e8));
}

TEST_CASE("the memory estimate of devices is within a factor of two of what they cost",
          "[memory]") {
#if defined(__SANITIZE_ADDRESS__)
  SUCCEED("an AddressSanitizer build's memory is not the release build's");
#else
  json doc = small_run();
  doc["duration"] = 1.0;
  const double before = static_cast<double>(runner::peak_rss_bytes());
  doc["servers"][0]["count"] = 20000;
  const auto s = test::scenario_of(doc);
  json small = doc;
  small["servers"][0]["count"] = 2;
  const double devices_part =
      runner::estimate_memory(s).bytes - runner::estimate_memory(test::scenario_of(small)).bytes;
  // As `run -o` does it: simulate, render the results and write them out.
  const auto run = sonicsim::pipeline::simulate(s);
  const std::string text = run.results.dump(2);
  const double grown = static_cast<double>(runner::peak_rss_bytes()) - before;
  INFO("estimated " << devices_part << " B for 20,000 devices, the peak grew by " << grown
                    << " (results of " << text.size() << " B)");
  CHECK(grown > devices_part / 2.0);
  CHECK(grown < devices_part * 2.0);
#endif
}

TEST_CASE("a run over the memory budget is refused with the estimate and how to override",
          "[memory]") {
  double bytes = 0.0;
  std::string error;
  CHECK(runner::memory_budget().parse("512MiB", bytes, error));
  CHECK(bytes == 512.0 * 1024 * 1024);
  CHECK(runner::memory_budget().parse("2GB", bytes, error));
  CHECK(bytes == 2e9);
  CHECK(runner::memory_budget().parse("1000000", bytes, error));
  CHECK(bytes == 1e6);
  CHECK(runner::memory_budget().parse("unlimited", bytes, error));
  CHECK(std::isinf(bytes));
  for (const char* bad : {"lots", "0", "-1GiB", "nan", "1e999"})
    CHECK_FALSE(runner::memory_budget().parse(bad, bytes, error));
  CHECK(runner::default_memory_budget() <= 8.0 * 1024 * 1024 * 1024);

  json big = small_run();
  big["servers"][0]["count"] = 100000;
  const auto s = test::scenario_of(big);
  runner::memory_budget().set(100e6);
  try {
    runner::check_memory_budget(s, runner::estimate_memory(s));
    FAIL("expected the budget to refuse the run");
  } catch (const InputError& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("the run would need about 246 MB of memory, above a budget of 95.4 MiB; the "
                 "largest parts: 100,000 servers ~ 198 MB") != std::string::npos);
    CHECK(m.find("--memory-budget SIZE") != std::string::npos);
  }
  runner::memory_budget().set(std::numeric_limits<double>::infinity());
  CHECK_NOTHROW(runner::check_memory_budget(s, runner::estimate_memory(s)));
}

// Workloads spread over every site of a star WAN, each with lognormal CPU times (so that its
// histograms span what a real workload's do), one GPU pool at the first site.
static json memory_sites_by_workloads(int sites, int workloads) {
  json doc = test::deterministic(1, 8);
  doc["duration"] = 60.0;
  doc["warmup"] = 0.0;
  doc.erase("network");
  json wl = doc["workload"];
  doc.erase("workload");
  wl["jobs"] = sites;
  wl["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.5}, {"cv", 0.3}};
  wl["requests"][0]["offload_fraction"] = 1.0;
  doc["workloads"] = json::array();
  doc["sites"] = json::array();
  doc["wan"] = {{"routers", {"r"}}, {"links", json::array()}};
  for (int i = 0; i < sites; ++i) {
    const std::string name = "s" + std::to_string(i);
    doc["sites"].push_back(
        {{"name", name},
         {"network", {{"site_uplink", {{"bandwidth", "100Gbps"}, {"latency", "1ms"}}}}}});
    doc["wan"]["links"].push_back(
        {{"between", {name, "r"}}, {"bandwidth", "100Gbps"}, {"latency", "2ms"}});
    wl["sites"][name] = 1;
  }
  for (int w = 0; w < workloads; ++w) {
    wl["name"] = "w" + std::to_string(w);
    doc["workloads"].push_back(wl);
  }
  doc["servers"][0]["site"] = "s0";
  return doc;
}

TEST_CASE("the memory estimate counts a record per workload and site of its clients", "[memory]") {
  // 500 sites x 16 workloads were estimated at 105 MB and ran out above 3 GB (issue 35): each
  // record's histograms held every bucket from 2^-40 s up. Now they hold their samples' span.
  const auto estimate =
      runner::estimate_memory(test::scenario_of(memory_sites_by_workloads(40, 8)));
  CHECK_THAT(part_names(estimate), Catch::Contains("320 workload x site records"));
  const double per_record = part_bytes(estimate, "320 workload x site records") / 320.0;
  CHECK(per_record > 40e3);
  CHECK(per_record < 60e3);
#if defined(__SANITIZE_ADDRESS__)
  SUCCEED("an AddressSanitizer build's memory is not the release build's");
#else
  // The part against what 960 more records cost (as the devices' test below does).
  const auto small = test::scenario_of(memory_sites_by_workloads(60, 2));
  const auto large = test::scenario_of(memory_sites_by_workloads(60, 18));
  const double part = runner::estimate_memory(large).bytes - runner::estimate_memory(small).bytes;
  const double before = static_cast<double>(runner::peak_rss_bytes());
  const auto run = sonicsim::pipeline::simulate(large);
  const std::string text = run.results.dump(2);
  const double grown = static_cast<double>(runner::peak_rss_bytes()) - before;
  INFO("estimated " << part << " B for 960 more records, the peak grew by " << grown);
  CHECK(grown > part / 2.0);
  CHECK(grown < part * 2.0);
#endif
}
