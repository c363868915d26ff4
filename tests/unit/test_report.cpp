// sonicsim report: the figures of runs side by side and the differences in words, which must
// say what the numbers say.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support.hpp"

#include <sonicsim/report/whatif.hpp>

using namespace test;
using namespace sonicsim::report;

namespace {

// A results file with the figures the report reads, as `sonicsim run -o` writes them.
json results_doc(double devices, double throughput, double knee_per_device, double uplink_peak,
                 double p99) {
  return {{"scenario", "site"},
          {"events",
           {{"throughput_per_s", throughput},
            {"thread_time_per_event_s", 1000.0 / throughput},
            {"time_per_event_s", {{"p99", 2.0}}}}},
          {"requests", {{"sent", 1000}, {"failed", 0}, {"fallback", 0}}},
          {"models",
           {{"pn", {{"latency_s", {{"p50", 0.005}, {"p99", p99}}}, {"mean_batch_size", 16.0}}}}},
          {"servers", json::array({{{"count", devices}, {"utilization", 0.5}}})},
          {"links", json::array({{{"name", "site_uplink"}, {"peak_utilization", uplink_peak}}})},
          {"analytic",
           {{"n_cpu", 1000},
            {"n_gpu", devices},
            {"t_ideal_s", 9.0},
            {"t_sonic_s", 10.0},
            {"saturation_n_cpu_per_gpu", knee_per_device}}}};
}

std::string write_temp(const std::string& name, const json& doc) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sonicsim-report-" + std::to_string(::getpid()) + "-" + name))
                               .string();
  std::ofstream(path) << doc.dump();
  return path;
}

}  // namespace

TEST_CASE("report: what changed, in words that match the numbers", "[report]") {
  const auto a = write_temp("a.json", results_doc(8, 100.0, 21.5, 0.30, 0.014));
  const auto b = write_temp("b.json", results_doc(10, 112.0, 25.8, 0.38, 0.014));
  const auto text = whatif({read_results(a), read_results(b)}, Format::Text);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("adding 2 devices (8 -> 10)"));
  CHECK_THAT(text, Catch::Contains("moves the knee from 172 to 258 threads"));
  CHECK_THAT(text, Catch::Contains("changes the throughput by +12.0% (100 -> 112 events/s)"));
  CHECK_THAT(text, Catch::Contains("the time per event by -10.7% (10 s -> 8.93 s)"));
  CHECK_THAT(text, Catch::Contains("the site_uplink peaks at 38% (was 30%)"));
  // What did not change is not reported as a change.
  CHECK_THAT(text, !Catch::Contains("p99 latency"));
  CHECK_THAT(text, !Catch::Contains("device utilization 50%"));

  const auto md = whatif({read_results(a), read_results(b)}, Format::Markdown);
  CHECK_THAT(md, Catch::Contains("| figure | baseline: " + a + " | " + b + " |"));
  CHECK_THAT(md, Catch::Contains("| events/s | 100 | 112 |"));
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST_CASE("report: a file that is not a results file names the file and the JSON path",
          "[report]") {
  json doc = results_doc(8, 100.0, 21.5, 0.3, 0.01);
  doc["events"].erase("throughput_per_s");
  doc["analytic"]["n_gpu"] = "eight";
  const auto path = write_temp("bad.json", doc);
  try {
    read_results(path);
    FAIL("accepted a results file without a throughput");
  } catch (const sonicsim::scenario::InputError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains(path));
    CHECK_THAT(what, Catch::Contains("/events/throughput_per_s") && Catch::Contains("missing"));
    CHECK_THAT(what, Catch::Contains("/analytic/n_gpu") &&
                         Catch::Contains("found \"eight\", expected a number"));
  }
  std::ofstream(path) << "not json";
  CHECK_THROWS_WITH(read_results(path), Catch::Contains("not a JSON object"));
  std::remove(path.c_str());
  CHECK_THROWS_WITH(read_results(path), Catch::Contains("cannot read the file"));
}

TEST_CASE("report: several workloads get a row each, and no formula figures",
          "[report][workloads]") {
  json doc = results_doc(8, 100.0, 21.5, 0.30, 0.014);
  const auto workload = [](const char* name, int threads, double x, double p99) {
    return json{{"name", name},
                {"threads", threads},
                {"events", {{"throughput_per_s", x}, {"time_per_event_s", {{"mean", 1.5}}}}},
                {"requests", {{"latency_s", {{"p99", p99}}}}}};
  };
  doc["workloads"] = {workload("reco", 800, 90.0, 0.035), workload("columnar", 32, 10.0, 0.6)};
  const auto path = write_temp("w.json", doc);
  const auto r = read_results(path);
  std::remove(path.c_str());
  REQUIRE(r.workloads.size() == 2);
  CHECK(r.threads == 832);  // every workload's threads, not the formula's first workload
  const auto text = whatif({r}, Format::Text);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("workload reco: events/s, time per event, latency p99"));
  CHECK_THAT(text, Catch::Contains("90, 1.5 s, 35 ms"));
  CHECK_THAT(text, Catch::Contains("t_ideal / t_SONIC (formula)"));
  CHECK_THAT(text, Catch::Contains("– / –"));
}
