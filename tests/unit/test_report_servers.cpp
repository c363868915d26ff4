// sonicsim report's server figures (docs/servers.md): a run whose hosts have cores and whose
// devices have memory shows host and memory rows and charts with the run's own numbers; a run
// without those keys shows none of them.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support.hpp"

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/report/server_report.hpp>
#include <sonicsim/report/table.hpp>
#include <sonicsim/util/format.hpp>

using namespace test;
using namespace sonicsim::report;

namespace {

// Runs the scenario as `sonicsim run -o` does and reads its results as the report does.
RunFigures report_figures(const json& doc, const std::string& name) {
  auto run = sonicsim::pipeline::simulate(scenario_of(doc));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sonicsim-report-servers-" + std::to_string(::getpid()) + name))
                               .string();
  std::ofstream(path) << run.results.dump();
  auto f = read_results(path);
  std::remove(path.c_str());
  return f;
}

json machine_scenario() {
  json s = deterministic(40, 2, 0.1, 0.1, 0.002);
  s["duration"] = 60.0;
  s["warmup"] = 10.0;
  s["models"]["m"]["host_cost"] = {{"per_request", "3ms"}};
  s["models"]["m"]["max_batch_size"] = 4;
  s["models"]["m"]["memory"] = {{"weights", "2GB"}, {"per_item", "100MB"}};
  s["servers"][0]["host"] = {{"cores", 1}};
  s["devices"] = {{"T4", {{"memory", "16GB"}}}};
  return s;
}

}  // namespace

TEST_CASE("report servers: host and device memory figures are the run's own", "[report]") {
  const RunFigures f = report_figures(machine_scenario(), "machine.json");
  REQUIRE(f.pools.size() == 1);
  const auto& p = f.pools[0];
  REQUIRE(p.host_utilization);
  // One core at 3 ms per request, 2 devices at 2 ms: the host is the busier of the two.
  CHECK(*p.host_utilization > p.utilization);
  REQUIRE(p.memory_used_bytes);
  CHECK(*p.memory_used_bytes == Approx(2.4e9));  // 1 instance x (2 GB + 4 x 100 MB)
  REQUIRE(p.memory_capacity_bytes);
  CHECK(*p.memory_capacity_bytes == Approx(16e9));

  Table t;
  t.headers = {"figure", "run"};
  add_server_rows(t, {f});
  const std::string text = to_text(t);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("host utilization (busiest pool)"));
  CHECK_THAT(text, Catch::Contains(pct(*p.host_utilization) + ", gpu"));
  CHECK_THAT(text, Catch::Contains(sonicsim::util::format_bytes(2.4e9) + " of " +
                                   sonicsim::util::format_bytes(16e9) + " (15%), gpu"));
  const auto panels = server_panels(f);
  REQUIRE(panels.size() == 2);
  CHECK_THAT(panels[0].svg, Catch::Contains("<svg"));
  CHECK_THAT(panels[1].svg, Catch::Contains("<svg"));
}

TEST_CASE("report servers: without host cores or memory keys nothing is added", "[report]") {
  // The T4 opts out of the device catalogue, which would give it memory (docs/devices.md).
  json doc = deterministic(10, 1);
  doc["devices"] = {{"T4", {{"catalogue", false}}}};
  const RunFigures f = report_figures(doc, "plain.json");
  REQUIRE(f.pools.size() == 1);
  CHECK_FALSE(f.pools[0].host_utilization);
  CHECK_FALSE(f.pools[0].memory_used_bytes);
  Table t;
  add_server_rows(t, {f});
  CHECK(t.rows.empty());
  CHECK(server_panels(f).empty());
}
