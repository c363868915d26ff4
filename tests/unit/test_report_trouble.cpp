// sonicsim report: what went wrong in a run (crashes, link outages, failed and retried tries,
// CPU fallbacks) is named in the what-if sentence when it differs from the baseline, with the
// run's own counts, and left unsaid when it does not.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support.hpp"

#include <sonicsim/report/trouble.hpp>
#include <sonicsim/report/whatif.hpp>

using namespace test;
using namespace sonicsim::report;

namespace {

struct Faults {
  double crashes = 0.0;  // among pool gpu's 56 T4s
  double retries = 0.0, server_lost = 0.0, timed_out = 0.0;
  double fallback = 0.0, failed = 0.0;
  double wan_degraded_s = -1.0, wan_outage_s = 0.0;  // < 0: no link faults in the scenario
};

// A results file as `sonicsim run -o` writes it for a pool with faults (`replicas`), the
// client's resilience block and, with link faults, the links' degraded and outage seconds.
json trouble_results_doc(const Faults& f) {
  json wan = {{"name", "wan"}, {"peak_utilization", 0.2}};
  if (f.wan_degraded_s >= 0.0) {
    wan["degraded_s"] = f.wan_degraded_s;
    wan["outage_s"] = f.wan_outage_s;
  }
  return {{"scenario", "tier2"},
          {"events",
           {{"throughput_per_s", 100.0},
            {"thread_time_per_event_s", 10.0},
            {"time_per_event_s", {{"p99", 2.0}}}}},
          {"requests",
           {{"sent", 100000},
            {"failed", f.failed},
            {"fallback", f.fallback},
            {"resilience",
             {{"tries", 100000 + f.retries},
              {"retries", f.retries},
              {"failed_tries",
               {{"refused", 0},
                {"no_server", 0},
                {"server_lost", f.server_lost},
                {"client_timeout", f.timed_out}}},
              {"completed_after_retry", f.retries},
              {"fallback_after_failure", f.fallback},
              {"preempted", 0}}}}},
          {"models",
           {{"pn", {{"latency_s", {{"p50", 0.005}, {"p99", 0.01}}}, {"mean_batch_size", 4}}}}},
          {"servers", json::array({{{"name", "gpu"},
                                    {"device", "T4"},
                                    {"count", 56},
                                    {"utilization", 0.5},
                                    {"replicas", {{"mean_up", 55.9}, {"crashes", f.crashes}}}}})},
          {"links", json::array({wan})},
          {"analytic",
           {{"n_cpu", 1000},
            {"n_gpu", 56},
            {"t_ideal_s", 9.0},
            {"t_sonic_s", 10.0},
            {"saturation_n_cpu_per_gpu", 20.0}}}};
}

std::string write_trouble_results(const std::string& name, const json& doc) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sonicsim-trouble-" + std::to_string(::getpid()) + "-" + name))
                               .string();
  std::ofstream(path) << doc.dump();
  return path;
}

std::vector<std::string> clauses(const Faults& base, const Faults& run) {
  const auto a = write_trouble_results("a.json", trouble_results_doc(base));
  const auto b = write_trouble_results("b.json", trouble_results_doc(run));
  const auto said = changes(read_results(a), read_results(b));
  std::remove(a.c_str());
  std::remove(b.c_str());
  return said;
}

bool has(const std::vector<std::string>& said, const std::string& clause) {
  return std::find(said.begin(), said.end(), clause) != said.end();
}

}  // namespace

TEST_CASE("report trouble: crashes, failed tries, retries and fallbacks are named", "[report]") {
  Faults crashed;
  crashed.crashes = 2;
  crashed.server_lost = 19;
  crashed.retries = 19;
  const auto said = clauses({}, crashed);
  INFO(join_clauses(said));
  CHECK(has(said, "2 crashes among the 56 T4s of pool gpu (was 0)"));
  CHECK(
      has(said, "19 tries failed (19 lost in a crash or drain) and 19 were retried (was 0 and 0)"));
  // Every retry succeeded: no request fell back or failed in either run, so nothing is said.
  for (const auto& c : said) CHECK_THAT(c, !Catch::Contains("fell back"));

  Faults worse = crashed;
  worse.timed_out = 3;
  worse.retries = 20;
  worse.fallback = 2;
  const auto more = clauses(crashed, worse);
  INFO(join_clauses(more));
  // The crashes are the same in both runs: not a change.
  for (const auto& c : more) CHECK_THAT(c, !Catch::Contains(" among the 56 T4s"));
  CHECK(has(more,
            "22 tries failed (19 lost in a crash or drain, 3 timed out) and 20 were retried (was "
            "19 and 19)"));
  CHECK(has(more, "2 requests fell back to the CPU and 0 failed (was 0 and 0)"));

  // Back to no fault: the baseline's trouble is named as gone.
  const auto healed = clauses(crashed, {});
  INFO(join_clauses(healed));
  CHECK(has(healed, "no crash among the 56 T4s of pool gpu (was 2)"));
  CHECK(has(healed, "no try failed and 0 were retried (was 19 and 19)"));
}

TEST_CASE("report trouble: link outages and degradations are named with their length", "[report]") {
  Faults none;
  none.wan_degraded_s = 0.0;
  Faults out = none;
  out.wan_degraded_s = 180.0;  // out for 60 s, then 120 s at a reduced bandwidth
  out.wan_outage_s = 60.0;
  const auto said = clauses(none, out);
  INFO(join_clauses(said));
  CHECK(has(said,
            "the wan was out for 60 s and at reduced bandwidth for 120 s more (was at full "
            "bandwidth)"));
  Faults slow = none;
  slow.wan_degraded_s = 30.0;
  CHECK(has(clauses(none, slow),
            "the wan was at reduced bandwidth for 30 s (was at full bandwidth)"));
  // Results without link faults (no degraded_s) and a run whose links were never degraded
  // say nothing of links.
  for (const auto& c : clauses({}, none)) CHECK_THAT(c, !Catch::Contains("the wan was"));
}

TEST_CASE("report trouble: the figures table gets rows only when some run met trouble",
          "[report]") {
  const auto a = write_trouble_results("quiet.json", trouble_results_doc({}));
  Faults crashed;
  crashed.crashes = 2;
  crashed.server_lost = 19;
  crashed.retries = 19;
  const auto b = write_trouble_results("crashed.json", trouble_results_doc(crashed));
  const auto quiet = to_text(figures_table({read_results(a)}));
  CHECK_THAT(quiet, !Catch::Contains("device crashes"));
  CHECK_THAT(quiet, !Catch::Contains("tries failed / retried"));
  const auto both = to_text(figures_table({read_results(a), read_results(b)}));
  INFO(both);
  CHECK_THAT(both, Catch::Contains("device crashes (among devices, pool)"));
  CHECK_THAT(both, Catch::Contains("2 among 56 (gpu)"));
  CHECK_THAT(both, Catch::Contains("19 / 19"));
  std::remove(a.c_str());
  std::remove(b.c_str());
}
