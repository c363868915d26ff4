// import supersonic against the chart as it renders at each release: the release detected from a
// file's keys (or --chart-version, or a checkout with --chart), older keys read under 0.3.1's
// names, Helm's schema types and Envoy's durations refused as they would refuse them, the two
// rate limiters as the templates build them, and --strict passing what changes nothing. Each
// section names the template (or values.yaml) and line it follows; tests/data/supersonic/chart-*
// are the project's own files, written in each release's key names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include <sonicsim/deployment/supersonic.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/errors.hpp>

#include "support.hpp"

// Names qualified in full: this file shares a unity build with test_supersonic.cpp.
namespace {

std::string chart_fixture(const std::string& name) {
  return std::string(SONICSIM_TEST_DATA_DIR) + "/supersonic/" + name;
}

sonicsim::deployment::SupersonicOptions chart_options(std::vector<std::string> files,
                                                      const std::string& version = "") {
  sonicsim::deployment::SupersonicOptions o;
  o.values_files = std::move(files);
  o.overlay = chart_fixture("overlay.json");
  o.chart_version = version;
  return o;
}

std::string chart_refusal(const sonicsim::deployment::SupersonicOptions& o) {
  try {
    sonicsim::deployment::import_supersonic(o);
  } catch (const sonicsim::InputError& e) {
    return e.what();
  }
  return "";
}

const sonicsim::deployment::ReportEntry* chart_entry(
    const std::vector<sonicsim::deployment::ReportEntry>& list, const std::string& values_key) {
  for (const auto& e : list)
    if (e.values_key == values_key) return &e;
  return nullptr;
}

bool chart_note(const std::vector<std::string>& notes, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("supersonic chart: the release is detected from the keys, older names read as 0.3.1's",
          "[supersonic][chart]") {
  using sonicsim::deployment::import_supersonic;
  SECTION("0.1.x: autoscaler.minReplicas, prometheus.serverLoadThreshold, a top-level ingress") {
    const auto r = import_supersonic(chart_options({chart_fixture("chart-0.1.yaml")}));
    CHECK(r.report.chart_version == "0.1.2");  // the newest 0.1.x: no key needs 0.1.1 or later
    CHECK_THAT(r.report.chart_source,
               Catch::Contains("triton.resetReadinessProbe") && Catch::Contains("0.1.0-0.1.2"));
    const auto& a = r.scenario["servers"][0]["autoscaler"];
    CHECK(a["min_replicas"] == 1);
    CHECK(a["max_replicas"] == 5);
    CHECK(a["threshold"] == "40ms");  // prometheus.serverLoadThreshold, 0.1.x's place for it
    CHECK(a["scale_up"] ==
          nlohmann::json({{"stabilization_window", "30s"}, {"period", "15s"}, {"step", 2}}));
    CHECK(a["window"] == "15s");  // templates/_helpers.tpl at 0.1.2: rate(...[15s])
    CHECK(r.scenario["servers"][0]["device"] == "Tesla-T4");  // top-level nodeSelector
    const auto* renamed = chart_entry(r.report.renamed, "autoscaler.minReplicas");
    REQUIRE(renamed);
    CHECK(renamed->scenario_key == "autoscaler.minReplicaCount");
    CHECK(renamed->where == chart_fixture("chart-0.1.yaml") + ":19");
    CHECK(chart_entry(r.report.renamed, "autoscaler"));  // then keda, 0.3.0
    CHECK(chart_entry(r.report.renamed, "ingress"));
    CHECK(r.report.unknown.empty());
    CHECK_NOTHROW(sonicsim::scenario::load_json(r.scenario));
  }
  SECTION("0.1.0 given: so.yaml's own defaults, the [5m:1m] query, Envoy's 15 s route timeout") {
    const auto r = import_supersonic(chart_options({chart_fixture("chart-0.1.yaml")}, "0.1.0"));
    CHECK(r.report.chart_version == "0.1.0");
    CHECK(r.report.chart_source == "given (--chart-version)");
    const auto& a = r.scenario["servers"][0]["autoscaler"];
    CHECK(a["window"] == "300s");
    // envoy-configmaps.yaml at 0.1.0: the route has no timeout, and Envoy's default is 15 s.
    CHECK(r.scenario["workload"]["client"]["timeout"] == "15s");
    CHECK(chart_note(r.report.notes, "Envoy's default of 15 s"));
  }
  SECTION("0.2.x: HPA's names under autoscaler, which 0.3.0 renamed keda") {
    const auto r = import_supersonic(chart_options({chart_fixture("chart-0.2.yaml")}));
    CHECK(r.report.chart_version == "0.2.1");  // readinessProbe needs 0.2.1, autoscaler ends there
    const auto& a = r.scenario["servers"][0]["autoscaler"];
    CHECK(a["max_replicas"] == 5);
    CHECK(a["window"] == "15s");  // _helpers/_scaling-metric.tpl at 0.2.1: [15s]
    CHECK(r.scenario["servers"][0]["startup_delay"] == "20s");
    CHECK(chart_entry(r.report.renamed, "autoscaler")->scenario_key == "keda");
  }
  SECTION("a 0.3.x file with a leftover 0.1.x key: the newest release wins, the old key is said") {
    test::ScratchDir dir("supersonic-chart-mixed");
    const auto path = (dir.path / "mixed.yaml").string();
    std::ofstream(path) << "keda: {enabled: true}\ningress: {enabled: false}\n";
    const auto r = import_supersonic(chart_options({path}));
    CHECK(r.report.chart_version == "0.3.1");
    // Its new name changes nothing here (envoy.ingress is the client's entry), so neither does
    // it: not relevant, with the rename said; --strict passes it.
    const auto* left = chart_entry(r.report.not_relevant, "ingress");
    REQUIRE(left);
    CHECK_THAT(left->reason, Catch::Contains("renamed `envoy.ingress` in chart 0.2.0"));
    CHECK(r.report.unknown.empty());
    // A 0.3.x file spelling 0.2.x's autoscaler: did-you-mean keda, and the version.
    std::ofstream(path) << "keda: {enabled: false}\nautoscaler: {maxReplicaCount: 4}\n";
    const auto old = import_supersonic(chart_options({path}));
    const auto* block = chart_entry(old.report.unknown, "autoscaler");
    REQUIRE(block);
    CHECK_THAT(block->reason, Catch::Contains("renamed `keda` in chart 0.3.0"));
  }
  SECTION("no key tells: the newest release; an unknown --chart-version is refused") {
    test::ScratchDir dir("supersonic-chart-none");
    const auto path = (dir.path / "none.yaml").string();
    std::ofstream(path) << "triton: {replicas: 2}\n";
    const auto r = import_supersonic(chart_options({path}));
    CHECK(r.report.chart_version == "0.3.1");
    CHECK_THAT(r.report.chart_source, Catch::Contains("no key tells"));
    CHECK_THAT(chart_refusal(chart_options({chart_fixture("minimal.yaml")}, "0.4.0")),
               Catch::Contains("found 0.4.0, expected one of 0.1.0, 0.1.1, 0.1.2, 0.2.0, 0.2.1, "
                               "0.3.0, 0.3.1"));
  }
}

TEST_CASE("supersonic chart: values.schema.json's types and Envoy's durations, as they refuse",
          "[supersonic][chart]") {
  test::ScratchDir dir("supersonic-chart-types");
  const auto write = [&](const std::string& name, const std::string& text) {
    const auto path = (dir.path / name).string();
    std::ofstream(path) << text;
    return path;
  };
  SECTION("values.schema.json: serverLoadThreshold is an integer, a CPU count too") {
    CHECK_THAT(chart_refusal(chart_options({write("t.yaml", "serverLoadThreshold: 0.5\n")})),
               Catch::Contains("serverLoadThreshold: line 1, column 22: found 0.5 (number), "
                               "expected an integer") &&
                   Catch::Contains("Invalid type. Expected: integer, given: number"));
    // An integral float is an integer to JSON Schema.
    CHECK_NOTHROW(sonicsim::deployment::import_supersonic(
        chart_options({write("u.yaml", "serverLoadThreshold: 20.0\n")})));
    CHECK_THAT(chart_refusal(chart_options(
                   {write("c.yaml", "triton:\n  resources:\n    limits: {cpu: 500m}\n")})),
               Catch::Contains("triton.resources.limits.cpu: line 3") &&
                   Catch::Contains("found 500m (string), expected an integer"));
    // envoy.resources.*.cpu became a number in 0.2.1: 0.5 passes at 0.3.1, not at 0.2.0.
    const auto half = write("h.yaml", "envoy:\n  resources:\n    limits: {cpu: 0.5}\n");
    CHECK_NOTHROW(sonicsim::deployment::import_supersonic(chart_options({half})));
    CHECK_THAT(chart_refusal(chart_options({half}, "0.2.0")),
               Catch::Contains("chart 0.2.0's values.schema.json"));
  }
  SECTION("configmaps.yaml:63: the route timeout is a protobuf duration; 5m stops Envoy") {
    const auto msg =
        chart_refusal(chart_options({write("r.yaml", "envoy: {grpc_route_timeout: 5m}\n")}));
    CHECK_THAT(msg, Catch::Contains("envoy.grpc_route_timeout: line 1") &&
                        Catch::Contains("found \"5m\"") && Catch::Contains("Envoy refuses"));
    const auto ok = sonicsim::deployment::import_supersonic(
        chart_options({write("s.yaml", "envoy: {grpc_route_timeout: 300s}\n")}));
    CHECK(ok.scenario["workload"]["client"]["timeout"] == "300s");
  }
  SECTION("configmaps.yaml:25-28: a fill_interval under 50 ms, or in Go's form, is refused") {
    const std::string on = "envoy:\n  rate_limiter:\n    listener_level:\n      enabled: true\n";
    CHECK_THAT(chart_refusal(chart_options({write("f.yaml", on + "      fill_interval: 0.02s\n")})),
               Catch::Contains("at least 0.05s"));
    CHECK_THAT(chart_refusal(chart_options({write("g.yaml", on + "      fill_interval: 1m\n")})),
               Catch::Contains("found \"1m\""));
    const auto r = sonicsim::deployment::import_supersonic(
        chart_options({write("h.yaml", on + "      fill_interval: 0.05s\n")}));
    CHECK(r.scenario["load_balancer"]["admission"]["fill_interval"] == "50ms");
    CHECK(r.scenario["load_balancer"]["admission"]["tokens_per_fill"] == 1);  // chart default
    CHECK(r.scenario["load_balancer"]["admission"]["burst"] == 5);
    // An overlay's continuous rate is another bucket: the values' timer replaces it, said.
    nlohmann::json overlay;
    std::ifstream(chart_fixture("overlay.json")) >> overlay;
    overlay["load_balancer"] = {{"admission", {{"rate", 2}, {"burst", 3}}}};
    auto o = chart_options({write("i.yaml", on + "      fill_interval: 1s\n")});
    o.overlay = write("o.json", overlay.dump());
    const auto c = sonicsim::deployment::import_supersonic(o);
    CHECK(!c.scenario["load_balancer"]["admission"].contains("rate"));
    CHECK(chart_entry(c.report.conflicts, "envoy.rate_limiter.listener_level.fill_interval"));
  }
}

TEST_CASE("supersonic chart: --strict passes what changes nothing, refuses what cannot be mapped",
          "[supersonic][chart]") {
  using sonicsim::deployment::import_supersonic;
  // Every key at the chart's default: KEDA's block while KEDA is off, the listener bucket while
  // it is off, Envoy's own resources, the threshold nobody reads.
  auto o = chart_options({chart_fixture("chart-defaults-0.3.yaml")});
  o.strict = true;
  const auto r = import_supersonic(o);
  CHECK(r.report.not_mapped.empty());
  CHECK(r.report.unknown.empty());
  CHECK_THAT(chart_entry(r.report.not_relevant, "keda.maxReplicaCount")->reason,
             Catch::Contains("keda.enabled is false"));
  CHECK(chart_entry(r.report.not_relevant, "envoy.resources"));
  // Two Envoys, each counting its own requests for least_request: that changes the balance.
  test::ScratchDir dir("supersonic-chart-strict");
  const auto two = (dir.path / "two.yaml").string();
  std::ofstream(two) << "envoy: {replicas: 2}\n";
  auto s = chart_options({two});
  s.strict = true;
  CHECK_THAT(chart_refusal(s), Catch::Contains("envoy.replicas: line 1") &&
                                   Catch::Contains("each Envoy counts only the requests"));
  // The same two Envoys round-robin alike: one balancer in sonicsim, passes.
  std::ofstream(two) << "envoy: {replicas: 2, loadBalancerPolicy: ROUND_ROBIN}\n";
  CHECK_NOTHROW(import_supersonic(s));
}

TEST_CASE("supersonic chart: --chart DIR reads a checkout's defaults and schema",
          "[supersonic][chart]") {
  test::ScratchDir dir("supersonic-chart-dir");
  const auto chart = dir.path / "supersonic";
  std::filesystem::create_directories(chart);
  std::ofstream(chart / "Chart.yaml") << "apiVersion: v2\nname: supersonic\nversion: 0.4.0\n";
  // A newer release's own defaults: four replicas and KEDA on.
  std::ofstream(chart / "values.yaml")
      << "serverLoadThreshold: 100\ntriton: {replicas: 4}\nkeda: {enabled: true, "
         "maxReplicaCount: 8}\n";
  std::ofstream(chart / "values.schema.json")
      << R"({"type": "object", "properties": {"serverLoadThreshold": {"type": "integer"},
            "keda": {"type": "object", "properties": {"maxReplicaCount": {"type": "integer"}}}}})";
  auto o = chart_options({chart_fixture("minimal.yaml")});
  o.chart_dir = chart.string();
  o.values_files = {(dir.path / "site.yaml").string()};
  std::ofstream(o.values_files[0]) << "keda: {maxReplicaCount: 6}\n";
  const auto r = sonicsim::deployment::import_supersonic(o);
  CHECK(r.report.chart_version == "0.4.0");
  CHECK_THAT(r.report.chart_source,
             Catch::Contains("templates are taken to render as chart 0.3.1"));
  CHECK(r.scenario["servers"][0]["autoscaler"]["max_replicas"] == 6);      // the site's
  CHECK(r.scenario["servers"][0]["autoscaler"]["initial_replicas"] == 4);  // the checkout's default
  std::ofstream(o.values_files[0]) << "keda: {maxReplicaCount: six}\n";
  CHECK_THAT(chart_refusal(o), Catch::Contains("the chart's values.schema.json"));
  // A checkout of a release sonicsim knows: its defaults and the site's keys are read under
  // 0.3.1's names as well.
  std::ofstream(chart / "Chart.yaml") << "apiVersion: v2\nname: supersonic\nversion: 0.2.1\n";
  std::ofstream(chart / "values.yaml")
      << "serverLoadThreshold: 100\nautoscaler: {enabled: true, maxReplicaCount: 5}\n";
  std::filesystem::remove(chart / "values.schema.json");
  std::ofstream(o.values_files[0]) << "autoscaler: {minReplicaCount: 2}\n";
  const auto old = sonicsim::deployment::import_supersonic(o);
  CHECK(old.report.chart_version == "0.2.1");
  CHECK(old.scenario["servers"][0]["autoscaler"]["max_replicas"] == 5);
  CHECK(old.scenario["servers"][0]["autoscaler"]["min_replicas"] == 2);
  CHECK(old.scenario["servers"][0]["autoscaler"]["window"] == "15s");
}

TEST_CASE("supersonic chart: a MIG slice is a fraction of its GPU", "[supersonic][chart]") {
  // NVIDIA's device plugin: "mixed" strategy, a resource nvidia.com/mig-<g>g.<m>gb; "single"
  // strategy, nvidia.com/gpu with the product label <GPU>-MIG-<g>g.<m>gb.
  test::ScratchDir dir("supersonic-chart-mig");
  const auto write = [&](const std::string& name, const std::string& text) {
    const auto path = (dir.path / name).string();
    std::ofstream(path) << text;
    return path;
  };
  SECTION("mixed: nvidia.com/mig-1g.10gb on an A100 80GB is 1/7 of it, with 10 GB") {
    const auto r = sonicsim::deployment::import_supersonic(chart_options(
        {write("m.yaml",
               "triton:\n  resources:\n    limits: {nvidia.com/mig-1g.10gb: 1}\n    requests: "
               "{nvidia.com/mig-1g.10gb: 1}\n  nodeSelector: {nvidia.com/gpu.product: "
               "NVIDIA-A100-SXM4-80GB}\n")}));
    const std::string slice = "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb";
    CHECK(r.scenario["servers"][0]["device"] == slice);
    const auto& d = r.scenario["devices"][slice];
    CHECK(d["slice"]["of"] == "NVIDIA-A100-SXM4-80GB");
    CHECK(d["slice"]["fraction"].get<double>() == Approx(1.0 / 7));
    CHECK(d["memory"] == "10GB");
    CHECK(chart_note(r.report.notes, "each execution takes 7/1 as long"));
    // The loader gives the slice the whole GPU's times over the fraction: 7x as long.
    const auto s = sonicsim::scenario::load_json(r.scenario);
    const auto& m = s.models.front();
    const auto& whole = m.service_time.at("NVIDIA-A100-SXM4-80GB");
    const auto& part = m.service_time.at(slice);
    REQUIRE(part.seconds.size() == whole.seconds.size());
    for (std::size_t i = 0; i < whole.seconds.size(); ++i)
      CHECK(part.seconds[i] == Approx(whole.seconds[i] * 7));
  }
  SECTION("single: the product label names the profile; an A30 has 4 compute slices") {
    const auto r = sonicsim::deployment::import_supersonic(
        chart_options({write("s.yaml",
                             "triton:\n  resources: {limits: {nvidia.com/gpu: 1}}\n  nodeSelector: "
                             "{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB-MIG-3g.40gb}\n")}));
    const auto& d = r.scenario["devices"]["NVIDIA-A100-SXM4-80GB-MIG-3g.40gb"];
    CHECK(d["slice"]["fraction"].get<double>() == Approx(3.0 / 7));
    auto a30 = chart_options(
        {write("a.yaml",
               "triton:\n  resources: {limits: {nvidia.com/mig-2g.12gb: 1}}\n  nodeSelector: "
               "{nvidia.com/gpu.product: NVIDIA-A30}\n")});
    a30.device = "";
    // The overlay has no A30 times: the import says which device the loader misses.
    CHECK_THAT(chart_refusal(a30), Catch::Contains("NVIDIA-A30-MIG-2g.12gb"));
    CHECK_THAT(chart_refusal(chart_options({write(
                   "b.yaml",
                   "triton:\n  resources: {limits: {nvidia.com/mig-5g.12gb: 1}}\n  nodeSelector: "
                   "{nvidia.com/gpu.product: NVIDIA-A30}\n")})),
               Catch::Contains("at most 4g on NVIDIA-A30"));
  }
}

TEST_CASE("supersonic chart: triton/service.yaml:17 clusterIP None: Envoy balances every pod",
          "[supersonic][chart]") {
  // The Triton Service is headless at every release (triton-service.yaml:17 before 0.2.1,
  // triton/service.yaml:17 after), so Envoy's STRICT_DNS cluster (envoy/configmaps.yaml:166-179)
  // resolves each ready pod and balances requests over them: per request, never per client.
  test::ScratchDir dir("supersonic-chart-headless");
  const auto path = (dir.path / "h.yaml").string();
  for (const auto& [policy, ours] : std::vector<std::pair<std::string, std::string>>{
           {"ROUND_ROBIN", "round_robin"}, {"LEAST_REQUEST", "least_request"}}) {
    std::ofstream(path) << "triton: {replicas: 4}\nenvoy: {loadBalancerPolicy: " << policy << "}\n";
    const auto r = sonicsim::deployment::import_supersonic(chart_options({path}));
    CHECK(r.scenario["load_balancer"]["policy"] == ours);
    CHECK(r.scenario["servers"][0]["count"] == 4);
  }
  // Without Envoy a client resolves the same headless name itself, and gRPC's default
  // pick_first keeps its connection on one pod: sticky, as ring_hash keeps a job on one server.
  std::ofstream(path) << "triton: {replicas: 4}\nenvoy: {enabled: false}\n";
  const auto r = sonicsim::deployment::import_supersonic(chart_options({path}));
  CHECK(r.scenario["load_balancer"]["policy"] == "ring_hash");
}
