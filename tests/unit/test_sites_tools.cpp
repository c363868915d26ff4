// The tools on a scenario with sites (docs/sites.md, "Planning with sites"): plan min-bandwidth
// on a site's link and on a WAN link, sweep parameters that reach sites, pools and the WAN, and
// the report's figures and panels per site and per WAN link, read from real runs.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/plan.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/report/report.hpp>
#include <sonicsim/report/site_panels.hpp>
#include <sonicsim/report/whatif.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/sweep/sweep.hpp>

using namespace sonicsim;

namespace {

// purdue's clients call fnal's GPU over purdue's 1 Gbps uplink and the WAN link esnet; every
// other link is 800 Tbps with no latency (tests/data/plan_two_sites.json).
const std::string kTwoSites = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_two_sites.json";
// plan_narrow_uplink.json's hand computation: 1.001 MB per event within 5% of t_ideal = 53 ms.
constexpr double kHandBandwidth = 1.001e6 / (0.05 * 0.053);

plan::Options min_bandwidth_on(const std::string& link) {
  plan::Options o;
  o.question = plan::Question::MinBandwidth;
  o.link = link;
  o.slowdown_percent = 5.0;
  o.replications = 1;
  return o;
}

plan::Simulate two_site_runs(const std::vector<scenario::Override>& common) {
  return [common](const std::vector<std::vector<scenario::Override>>& sets) {
    return points::run_points(pipeline::simulator(), kTwoSites, common, sets, 2);
  };
}

std::string sites_temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("sonicsim-sites-tools-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

// The message plan() refuses the link with; empty when it accepts it.
std::string link_refusal(const std::string& link) {
  try {
    auto o = min_bandwidth_on(link);
    o.analytic_only = true;
    plan::plan(kTwoSites, {}, o, two_site_runs({}));
  } catch (const scenario::InputError& e) {
    return e.what();
  }
  return "";
}

// One run of the two-site scenario (one replication, its own seed), its results written to a
// file as `sonicsim run -o` does.
std::string two_site_results_file(const std::string& name,
                                  const std::vector<scenario::Override>& overrides) {
  const auto results = points::run_points(pipeline::simulator(), kTwoSites, {}, {overrides}, 1);
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].ok);
  return sites_temp_file(name, results[0].results.dump(2));
}

}  // namespace

TEST_CASE("plan min-bandwidth varies a site's link or a WAN link by the name results give it",
          "[plan][sites]") {
  struct Case {
    std::string link, path;
    std::vector<scenario::Override> common;
  };
  const std::vector<Case> cases{
      {"purdue/site_uplink", "sites.0.network.site_uplink.bandwidth", {}},
      // With purdue's uplink wide, the WAN link is the narrow one.
      {"wan/esnet",
       "wan.links.0.bandwidth",
       {{"sites.0.network.site_uplink.bandwidth", "\"800Tbps\""},
        {"wan.links.0.bandwidth", "\"1Gbps\""}}},
      {"fnal/server_nic",
       "sites.1.network.server_nic.bandwidth",
       {{"sites.0.network.site_uplink.bandwidth", "\"800Tbps\""},
        {"sites.1.network.server_nic.bandwidth", "\"1Gbps\""}}},
  };
  for (const auto& c : cases) {
    INFO(c.link);
    auto o = min_bandwidth_on(c.link);
    o.analytic_only = true;
    const auto r = plan::plan(kTwoSites, c.common, o, two_site_runs(c.common));
    CHECK(r.options.vary == c.path);
    CHECK(r.base.at("value").get<double>() == Approx(1e9 / 8));
    REQUIRE(r.formula_answer);
    CHECK(*r.formula_answer == Approx(kHandBandwidth).epsilon(0.01));
    CHECK(plan::to_json(r).at("link") == c.link);
  }
}

TEST_CASE("plan min-bandwidth refuses a link the scenario with sites lacks, listing its links",
          "[plan][sites]") {
  const std::string listed =
      "its links: purdue/site_uplink, fnal/site_uplink, fnal/server_nic, "
      "wan/esnet";
  // The one-site names mean nothing with sites: which site's uplink?
  const std::string bare = link_refusal("site_uplink");
  CHECK(bare.find("plan_two_sites.json") != std::string::npos);
  CHECK(bare.find("sites: --link site_uplink: found `site_uplink`") != std::string::npos);
  CHECK(bare.find(listed) != std::string::npos);
  CHECK(bare.find("SITE/site_uplink") != std::string::npos);
  const std::string typo = link_refusal("wan/esnett");
  CHECK(typo.find("wan.links: ") != std::string::npos);
  CHECK(typo.find("did you mean `wan/esnet`?") != std::string::npos);
  // purdue has no client NIC in the file: where it would be is the path.
  const std::string absent = link_refusal("purdue/client_nic");
  CHECK(absent.find("sites[0].network.client_nic: ") != std::string::npos);
  CHECK(absent.find(listed) != std::string::npos);
  CHECK(link_refusal("purdue/site_uplink").empty());
}

TEST_CASE("plan min-bandwidth on a WAN link matches the hand computation and reads the link back",
          "[plan][sites][simulation]") {
  const std::vector<scenario::Override> common{
      {"sites.0.network.site_uplink.bandwidth", "\"800Tbps\""}};
  const auto r =
      plan::plan(kTwoSites, common, min_bandwidth_on("wan/esnet"), two_site_runs(common));
  REQUIRE(r.answer.status == "found");
  REQUIRE(r.answer.value);
  REQUIRE(r.answer.fail_value);
  CHECK(*r.reference_s == Approx(0.053).epsilon(1e-4));
  CHECK(*r.answer.value >= kHandBandwidth * 0.999);
  CHECK(*r.answer.value <= kHandBandwidth * 1.03);
  CHECK(*r.answer.fail_value < kHandBandwidth * 1.001);
  // Every point's link utilization is the WAN link's, found by its name in the results: the
  // request bytes per second over the bandwidth, in its busier direction.
  for (const auto& p : r.points) {
    INFO("esnet at " << p.value);
    REQUIRE(p.summary.contains("link_mean_utilization"));
    const double events_per_s = p.summary.at("throughput_per_s").get<double>();
    const double expected = events_per_s * 1e6 / p.value;
    CHECK(p.summary.at("link_mean_utilization").get<double>() == Approx(expected).epsilon(0.02));
  }
}

TEST_CASE("plan min-bandwidth on a site's uplink of a two-site scenario matches one site's answer",
          "[plan][sites][simulation]") {
  const auto r =
      plan::plan(kTwoSites, {}, min_bandwidth_on("purdue/site_uplink"), two_site_runs({}));
  REQUIRE(r.answer.status == "found");
  REQUIRE(r.answer.value);
  CHECK(*r.answer.value >= kHandBandwidth * 0.999);
  CHECK(*r.answer.value <= kHandBandwidth * 1.03);
  CHECK(*r.answer.fail_value < kHandBandwidth * 1.001);
}

TEST_CASE("sweep parameters reach a site's pool, a site's uplink and a WAN link",
          "[sweep][sites]") {
  auto grid = sweep::make_grid(
      {sweep::parse_parameter("servers.0.count=1,2"),
       sweep::parse_parameter("wan.links.0.bandwidth=1Gbps:100Gbps:x10"),
       sweep::parse_parameter("sites.0.network.site_uplink.bandwidth=10Gbps,40Gbps")},
      {});
  REQUIRE(grid.size() == 2 * 3 * 2);
  // The last point: 2 GPUs at fnal, esnet at 100 Gbps, purdue's uplink at 40 Gbps.
  const auto s = scenario::load_file(kTwoSites, grid.point(grid.size() - 1));
  CHECK(s.servers[0].count == 2);
  CHECK(s.sites[s.servers[0].site].name == "fnal");
  CHECK(s.wan.links[0].spec.bandwidth == Approx(100e9 / 8));
  CHECK(s.sites[0].site_uplink->bandwidth == Approx(40e9 / 8));
  // A site the scenario lacks is refused by the loader, naming the sweep's path.
  try {
    scenario::load_file(kTwoSites, {{"sites.2.network.site_uplink.bandwidth", "\"1Gbps\""}});
    FAIL("a third site was accepted");
  } catch (const scenario::InputError& e) {
    CHECK(std::string(e.what()).find("index 2 is out of range: `sites` has 2 elements") !=
          std::string::npos);
  }
}

TEST_CASE("report: per-site figures and WAN links from a real two-site run", "[report][sites]") {
  const std::string file = two_site_results_file("run.json", {});
  const auto f = report::read_results(file);
  REQUIRE(f.sites.size() == 2);
  const auto& purdue = f.sites[0];
  const auto& fnal = f.sites[1];
  CHECK(purdue.name == "purdue");
  CHECK(fnal.name == "fnal");
  // All events are purdue's: its clients are the run's.
  CHECK(purdue.events_per_s == Approx(f.events_per_s));
  CHECK(purdue.threads == 4);
  CHECK(std::isnan(fnal.events_per_s));  // servers only
  CHECK(fnal.devices == 1);
  // Every request crosses the WAN: 1 MB out of purdue and 1 kB back in per request, in the
  // window after the warm-up.
  CHECK(purdue.bytes_out > 0);
  CHECK(purdue.bytes_out / purdue.bytes_in == Approx(1000.0).epsilon(0.01));
  CHECK(fnal.bytes_out == Approx(purdue.bytes_in));
  CHECK(fnal.bytes_in == Approx(purdue.bytes_out));
  REQUIRE(purdue.egress_cost);
  CHECK(*purdue.egress_cost == Approx(purdue.bytes_out / 1e9 * 0.05));
  REQUIRE(fnal.egress_cost);
  CHECK(*fnal.egress_cost == Approx(fnal.bytes_out / 1e9 * 0.09));
  // The one WAN link carries all of it, both ways; purdue's uplink is 1 Gbps, the WAN 800 Tbps.
  REQUIRE(f.wan_links.size() == 1);
  CHECK(f.wan_links[0].name == "wan/esnet");
  CHECK(f.wan_links[0].bytes == Approx(purdue.bytes_out + purdue.bytes_in));
  CHECK(f.wan_links[0].mean_utilization > 0);
  CHECK(f.wan_links[0].mean_utilization < 1e-4);
  CHECK(f.wan_links[0].peak_utilization >= f.wan_links[0].mean_utilization);

  const std::string text = report::text_report(report::read_inputs({file}), report::Format::Text);
  CHECK(text.find("site purdue: events/s, time per event, latency p99") != std::string::npos);
  CHECK(text.find("site fnal: bytes out / in over the WAN") != std::string::npos);
  CHECK(text.find("site purdue: egress cost") != std::string::npos);
  CHECK(text.find("wan/esnet: bytes, mean / peak utilization") != std::string::npos);

  const auto panels = report::site_panels(f);
  std::vector<std::string> drawn;
  for (const auto& p : panels)
    if (!p.svg.empty()) drawn.push_back(p.title);
  CHECK(drawn == std::vector<std::string>{
                     "Events per second by site", "Time per event and request latency by site",
                     "Bytes over the WAN by site", "Egress cost by site",
                     "WAN links: utilization, mean and peak window", "WAN links: bytes carried"});
  const std::string html = report::html_report(report::read_inputs({file}));
  CHECK(html.find(": sites and the WAN</h4>") != std::string::npos);
  CHECK(html.find("WAN links: bytes carried") != std::string::npos);
  std::filesystem::remove(file);
}

TEST_CASE("report: without prices no egress cost, and one site has no site figures",
          "[report][sites]") {
  const std::string file = two_site_results_file(
      "unpriced.json",
      {{"sites.0.egress_price_per_gb", "null"}, {"sites.1.egress_price_per_gb", "null"}});
  const auto f = report::read_results(file);
  REQUIRE(f.sites.size() == 2);
  CHECK_FALSE(f.sites[0].egress_cost);
  const std::string text = report::text_report(report::read_inputs({file}), report::Format::Text);
  CHECK(text.find("egress cost") == std::string::npos);
  bool cost_skipped = false;
  for (const auto& p : report::site_panels(f))
    if (p.title == "Egress cost by site")
      cost_skipped = p.svg.empty() && p.skipped == "no site has an egress_price_per_gb";
  CHECK(cost_skipped);
  std::filesystem::remove(file);

  // One site: the figures the report had before sites, and nothing more.
  const std::string one = sites_temp_file(
      "one.json",
      nlohmann::json{
          {"scenario", "one"},
          {"events",
           {{"throughput_per_s", 10.0},
            {"thread_time_per_event_s", 0.1},
            {"time_per_event_s", {{"p99", 0.2}}}}},
          {"requests", {{"sent", 10}, {"failed", 0}, {"fallback", 0}}},
          {"models", nlohmann::json::object()},
          {"servers", nlohmann::json::array()},
          {"links", nlohmann::json::array({{{"name", "site_uplink"}, {"peak_utilization", 0.5}}})},
          {"analytic",
           {{"n_cpu", 1},
            {"n_gpu", 1},
            {"t_ideal_s", 0.1},
            {"t_sonic_s", 0.1},
            {"saturation_n_cpu_per_gpu", 10}}}}
          .dump());
  const auto single = report::read_results(one);
  CHECK(single.sites.empty());
  CHECK(single.wan_links.empty());
  CHECK(report::site_panels(single).empty());
  const std::string html = report::html_report(report::read_inputs({one}));
  CHECK(html.find("sites and the WAN") == std::string::npos);
  std::filesystem::remove(one);
}

TEST_CASE("report: what changed at each site between two runs, in words that match the numbers",
          "[report][sites]") {
  const std::string narrow = two_site_results_file("narrow.json", {});
  const std::string wide =
      two_site_results_file("wide.json", {{"sites.0.network.site_uplink.bandwidth", "\"10Gbps\""}});
  const auto base = report::read_results(narrow);
  const auto run = report::read_results(wide);
  // 53 ms of an event plus 1.001 MB over purdue's uplink: 8.008 ms at 1 Gbps, 0.8 ms at 10.
  CHECK(base.sites[0].events_per_s == Approx(4 / 0.061008).epsilon(0.005));
  CHECK(run.sites[0].events_per_s == Approx(4 / 0.0538008).epsilon(0.005));
  std::vector<std::string> said;
  report::site_changes(base, run, said);
  const double change = run.sites[0].events_per_s / base.sites[0].events_per_s - 1.0;
  REQUIRE(said.size() >= 3);
  CHECK(said[0] == "changes site purdue's throughput by " + report::signed_pct(change) + " (" +
                       report::num(base.sites[0].events_per_s) + " -> " +
                       report::num(run.sites[0].events_per_s) + " events/s)");
  CHECK(said[1].rfind("site purdue's bytes out over the WAN ", 0) == 0);
  CHECK(said[2].rfind("site purdue's egress cost ", 0) == 0);
  // fnal's responses grow with purdue's events; it has no events of its own to compare.
  for (const auto& clause : said) CHECK(clause.find("site fnal's throughput") == std::string::npos);
  const std::string text =
      report::text_report(report::read_inputs({narrow, wide}), report::Format::Text);
  CHECK(text.find(said[0]) != std::string::npos);
  std::filesystem::remove(narrow);
  std::filesystem::remove(wide);
}
