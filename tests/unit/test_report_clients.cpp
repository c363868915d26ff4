// sonicsim report's client figures (src/report/client_report.cpp): each served module's wait and
// module time, and on worker nodes their occupancy, speed and speed-up, read from the run's own
// results; a run without nodes shows no node row.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support.hpp"

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/report/client_report.hpp>
#include <sonicsim/report/table.hpp>

using namespace test;
using namespace sonicsim::report;

namespace {

RunFigures client_figures(const json& doc, const std::string& name) {
  auto run = sonicsim::pipeline::simulate(scenario_of(doc));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sonicsim-report-clients-" + std::to_string(::getpid()) + name))
                               .string();
  std::ofstream(path) << run.results.dump();
  auto f = read_results(path);
  std::remove(path.c_str());
  return f;
}

}  // namespace

TEST_CASE("report: module time and worker nodes, with the run's own figures", "[report]") {
  json doc = deterministic(16, 2, 0.1, 0.3, 0.01);
  doc["duration"] = 60.0;
  doc["warmup"] = 5.0;
  doc["workload"]["jobs_per_node"] = 16;
  doc["workload"]["requests"][0]["module_cpu_time"] = "30ms";
  doc["workload"]["node"] = {
      {"cores", 4}, {"threads_per_core", 2}, {"speed", {{"hyperthread", 0.5}}}};
  const auto f = client_figures(doc, "nodes");
  REQUIRE(f.modules.size() == 1);
  CHECK(f.modules[0].name == "m");
  CHECK(f.modules[0].cpu_s == Approx(0.03));
  CHECK(f.modules[0].wait_mean_s > 0.01);  // at least the service time
  REQUIRE(f.nodes.size() == 1);
  CHECK(f.nodes[0].cpu_only_speed_factor == Approx(4.0 / 16.0));  // 16 threads on 4 cores
  CHECK(f.nodes[0].speed_factor > f.nodes[0].cpu_only_speed_factor);
  REQUIRE(f.nodes[0].speedup_vs_cpu_only);
  Table t;
  add_client_rows(t, {f});
  const std::string text = to_text(t);
  CHECK(text.find("module m: wait mean / p99") != std::string::npos);
  CHECK(text.find("module time " + time_text(f.modules[0].wait_mean_s + 0.03)) !=
        std::string::npos);
  CHECK(text.find("nodes: occupancy, speed (CPU-only), speed-up") != std::string::npos);

  json plain = deterministic(4, 1);
  plain["duration"] = 30.0;
  plain["warmup"] = 5.0;
  const auto g = client_figures(plain, "plain");
  CHECK(g.nodes.empty());
  Table u;
  add_client_rows(u, {g});
  CHECK(to_text(u).find("nodes") == std::string::npos);
}
