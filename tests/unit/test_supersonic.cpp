// `import supersonic`: SuperSONIC Helm values (chart 0.3.1) into a scenario. The expected values
// come from the chart's templates (keda/so.yaml, envoy/configmaps.yaml, triton/deployment.yaml)
// applied by hand to the fixtures in tests/data/supersonic/, not from running the importer.
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <sonicsim/deployment/supersonic.hpp>
#include <sonicsim/scenario/loader.hpp>

#include "support.hpp"

namespace {

using sonicsim::InputError;
using sonicsim::deployment::import_supersonic;
using sonicsim::deployment::ReportEntry;
using sonicsim::deployment::SupersonicImport;
using sonicsim::deployment::SupersonicOptions;

// A values file written into the test's scratch folder; its path.
std::string write_values(const test::ScratchDir& dir, const std::string& name,
                         const std::string& text) {
  const auto path = (dir.path / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string fixture(const std::string& name) {
  return std::string(SONICSIM_TEST_DATA_DIR) + "/supersonic/" + name;
}

SupersonicImport import_values(std::vector<std::string> files,
                               const std::string& overlay = "overlay.json",
                               const std::string& device = "") {
  SupersonicOptions o;
  for (auto& f : files) o.values_files.push_back(f.find('/') == std::string::npos ? fixture(f) : f);
  if (!overlay.empty()) o.overlay = fixture(overlay);
  o.device = device;
  return import_supersonic(o);
}

// The message of the InputError the import throws ("" when it does not throw).
std::string refusal(const SupersonicOptions& o) {
  try {
    import_supersonic(o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

SupersonicOptions with(std::vector<std::string> files,
                       std::string overlay = fixture("overlay.json")) {
  SupersonicOptions o;
  o.values_files = std::move(files);
  o.overlay = std::move(overlay);
  return o;
}

const ReportEntry* find(const std::vector<ReportEntry>& list, const std::string& values_key,
                        const std::string& scenario_key = "") {
  for (const auto& e : list)
    if (e.values_key == values_key && (scenario_key.empty() || e.scenario_key == scenario_key))
      return &e;
  return nullptr;
}

const ReportEntry* find_scenario(const std::vector<ReportEntry>& list, const std::string& key) {
  for (const auto& e : list)
    if (e.scenario_key == key) return &e;
  return nullptr;
}

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("supersonic: a fixed pool, its GPU by node selector, Envoy's policy", "[supersonic]") {
  const auto r = import_values({"minimal.yaml"});
  const auto& pool = r.scenario["servers"][0];
  CHECK(pool["count"] == 3);            // triton.replicas, no KEDA
  CHECK(pool["device"] == "Tesla-T4");  // nodeSelector nvidia.com/gpu.product
  CHECK(pool["name"] == "supersonic");  // the release name: nameOverride is empty
  CHECK(!pool.contains("autoscaler"));
  CHECK(pool["models"] == nlohmann::json::array({"particlenet_ak4"}));  // from the overlay's pool
  // The chart's default args: --exit-timeout-secs=60, within the pod's 60 s grace period.
  CHECK(pool["drain_timeout"] == "60s");
  CHECK(pool["model_control"] == "none");
  // readinessProbe.initialDelaySeconds 10 (chart default) bounds the overlay's 5 s from below.
  CHECK(pool["startup_delay"] == "10s");
  CHECK(r.scenario["load_balancer"]["policy"] == "round_robin");
  CHECK(!r.scenario["load_balancer"].contains("admission"));  // both limiters off by default
  CHECK(r.scenario["workload"]["client"]["timeout"] == 0);    // grpc_route_timeout 0s: none

  const auto& rep = r.report;
  const auto* count = find(rep.filled, "triton.replicas", "servers[0].count");
  REQUIRE(count);
  CHECK(count->value == "3");
  CHECK(count->where == fixture("minimal.yaml") + ":3");
  REQUIRE(find_scenario(rep.defaulted, "servers[0].drain_timeout"));
  CHECK(find_scenario(rep.defaulted, "servers[0].drain_timeout")->where.find("chart 0.3.1") == 0);
  // The overlay's pool said otherwise: the values win, and it is said.
  CHECK(find_scenario(rep.conflicts, "servers[0].startup_delay"));
  CHECK(find_scenario(rep.conflicts, "servers[0].name"));
  CHECK_THAT(find(rep.not_relevant, "triton.resources.limits.cpu")->reason,
             Catch::Contains("host.cores"));
  CHECK(find(rep.not_relevant, "triton.resources.limits.memory"));
  CHECK(rep.unknown.empty());
  // What was written loads with sonicsim's own loader.
  CHECK_NOTHROW(sonicsim::scenario::load_json(r.scenario));
}

TEST_CASE("supersonic: KEDA, both rate limiters, explicit model control, GPU by affinity",
          "[supersonic]") {
  const auto r = import_values({"keda.yaml"});
  const auto& pool = r.scenario["servers"][0];
  CHECK(pool["name"] == "sonic-cms");
  CHECK(pool["count"] == 6);  // maxReplicaCount: the most devices the pool holds
  const auto& a = pool["autoscaler"];
  CHECK(a["metric"] == "queue_time");
  CHECK(a["threshold"] == "20ms");  // serverLoadThreshold, in ms per the default metric
  CHECK(a["target"] == "value");
  CHECK(a["window"] == "30s");
  CHECK(a["polling_interval"] == "30s");
  CHECK(a["cooldown"] == "120s");
  CHECK(a["min_replicas"] == 1);
  CHECK(a["max_replicas"] == 6);
  CHECK(a["initial_replicas"] == 2);  // triton.replicas: where the Deployment starts
  CHECK(a["scale_up"] ==
        nlohmann::json({{"stabilization_window", "30s"}, {"period", "15s"}, {"step", 2}}));
  CHECK(a["scale_down"] ==
        nlohmann::json({{"stabilization_window", "300s"}, {"period", "60s"}, {"step", 1}}));
  CHECK(pool["device"] == "NVIDIA-A100-SXM4-80GB");  // the affinity's first In value
  CHECK(pool["model_control"] == "explicit");
  CHECK(pool["drain_timeout"] == "45s");
  CHECK(pool["startup_delay"] == "30s");
  const auto& lb = r.scenario["load_balancer"];
  CHECK(lb["policy"] == "random");  // RING_HASH on a route without hash_policy
  // configmaps.yaml:18-30: Envoy's listener bucket, refilled 2 tokens every 10 s on a timer.
  CHECK(lb["admission"]["burst"] == 20);
  CHECK(lb["admission"]["tokens_per_fill"] == 2);
  CHECK(lb["admission"]["fill_interval"] == "10s");
  CHECK(!lb["admission"].contains("rate"));
  // cfg/envoy-filter.lua: Prometheus asked the load query against serverLoadThreshold.
  CHECK(lb["admission"]["refuse_above"] ==
        nlohmann::json({{"threshold", "20ms"}, {"window", "30s"}, {"scrape_interval", "5s"}}));
  CHECK(lb["admission"]["reconnect"] == false);  // TritonService asks once per job
  CHECK(r.scenario["workload"]["client"]["timeout"] == "5s");

  const auto& rep = r.report;
  const auto* other = find(rep.not_mapped, "triton.affinity");
  REQUIRE(other);
  CHECK(other->value == "NVIDIA-A100-80GB-PCIe");
  CHECK(has_note(rep.notes, "model repositories (triton.args): /cvmfs/cms.cern.ch/models/"));
  CHECK(find(rep.not_relevant, "triton.args"));  // --log-verbose
  CHECK(find(rep.not_relevant, "triton.image"));
  CHECK(find(rep.not_relevant, "triton.readinessProbe.periodSeconds"));
  // One line per key family, with its reason.
  CHECK(find(rep.not_relevant, "envoy.ingress"));
  CHECK(find(rep.not_relevant,
             "prometheus.enabled"));  // prometheus.server.global.scrape_interval is read
  CHECK(find(rep.not_relevant, "grafana")->reason == "dashboards");
  CHECK(find_scenario(rep.defaulted, "servers[0].autoscaler.polling_interval"));
  CHECK(find_scenario(rep.defaulted, "servers[0].autoscaler.tolerance")->where ==
        "sonicsim default");
  CHECK(rep.unknown.empty());
}

TEST_CASE("supersonic: files merge as Helm merges them", "[supersonic]") {
  const auto r = import_values({"keda.yaml", "later.yaml"});
  const auto& a = r.scenario["servers"][0]["autoscaler"];
  CHECK(a["threshold"] == "50ms");  // a scalar: the later file wins
  // keda.scaleUp: null deletes the map: the template's `default` of every field.
  CHECK(a["scale_up"] ==
        nlohmann::json({{"stabilization_window", "120s"}, {"period", "30s"}, {"step", 1}}));
  // A map merges key by key: stepsize from the later file, the rest from keda.yaml.
  CHECK(a["scale_down"] ==
        nlohmann::json({{"stabilization_window", "300s"}, {"period", "60s"}, {"step", 3}}));
  // A list replaces the whole list: --model-control-mode=explicit went with keda.yaml's args.
  CHECK(r.scenario["servers"][0]["model_control"] == "none");
  // --exit-timeout-secs=90 is cut by the pod's terminationGracePeriodSeconds (60).
  CHECK(r.scenario["servers"][0]["drain_timeout"] == "60s");
  CHECK(has_note(r.report.notes, "terminationGracePeriodSeconds"));
  CHECK(find(r.report.filled, "serverLoadThreshold")->where == fixture("later.yaml") + ":3");

  // The other order: keda.yaml now wins where both speak.
  const auto back = import_values({"later.yaml", "keda.yaml"});
  CHECK(back.scenario["servers"][0]["autoscaler"]["threshold"] == "20ms");
  CHECK(back.scenario["servers"][0]["model_control"] == "explicit");
}

TEST_CASE("supersonic: Helm's `default` takes 0 for unset, and switches that change the mapping",
          "[supersonic]") {
  test::ScratchDir dir("supersonic-zero");
  const auto write = [&](const std::string& name, const std::string& text) {
    return write_values(dir, name, text);
  };
  SECTION("zeros render as the template's defaults; zeroIdleReplicas scales to zero") {
    const auto r = import_values({write("z.yaml",
                                        "keda:\n  enabled: true\n  minReplicaCount: 0\n"
                                        "  maxReplicaCount: 0\n  zeroIdleReplicas: true\n"
                                        "  scaleUp: {stabilizationWindowSeconds: 0}\n")});
    const auto& a = r.scenario["servers"][0]["autoscaler"];
    CHECK(a["max_replicas"] == 14);
    CHECK(r.scenario["servers"][0]["count"] == 14);
    CHECK(a["min_replicas"] == 0);
    // values.yaml:223-226: the default metric comes from the Triton pods, so zero is for good;
    // triton/deployment.yaml:10: the Deployment starts at `triton.replicas | default 1`.
    CHECK(a["wake_from_zero"] == false);
    CHECK(a["initial_replicas"] == 1);
    CHECK(has_note(r.report.notes, "never wakes"));
    CHECK(a["scale_up"]["stabilization_window"] == "120s");
    CHECK(has_note(r.report.notes, "keda.maxReplicaCount = 0 renders as 14"));
  }
  // templates/envoy/configmaps.yaml:58-63 (0.3.1): the route to triton_grpc_service has no
  // hash_policy, and Envoy's thread_aware_lb_impl.cc chooseHost then hashes random_.random():
  // RING_HASH and MAGLEV balance every request at random.
  // templates/triton/deployment.yaml:10 (0.3.1): `replicas: {{ .Values.triton.replicas | default
  // 1 }}`; KEDA's HPA raises a Deployment below minReplicaCount to it at once.
  SECTION("triton/deployment.yaml:10: the pool starts as the Deployment, raised to the minimum") {
    const auto r = import_values(
        {write("i.yaml", "keda: {enabled: true, minReplicaCount: 3, maxReplicaCount: 8}\n")});
    CHECK(r.scenario["servers"][0]["autoscaler"]["initial_replicas"] == 3);
    const auto z =
        import_values({write("j.yaml",
                             "keda: {enabled: true, minReplicaCount: 2, maxReplicaCount: 8, "
                             "zeroIdleReplicas: true}\ntriton: {replicas: 1}\n")});
    // The pool starts at 2 although it may idle at 0.
    CHECK(z.scenario["servers"][0]["autoscaler"]["initial_replicas"] == 2);
    CHECK(z.scenario["servers"][0]["autoscaler"]["min_replicas"] == 0);
  }
  SECTION("configmaps.yaml:58-63: hashing policies without a hash_policy are random") {
    for (const char* policy : {"RING_HASH", "MAGLEV"}) {
      CAPTURE(policy);
      const auto r = import_values(
          {write("m.yaml", std::string("envoy: {loadBalancerPolicy: ") + policy + "}\n")});
      CHECK(r.scenario["load_balancer"]["policy"] == "random");
      CHECK(has_note(r.report.notes, "sets no hash_policy"));
      CHECK(!r.scenario["load_balancer"].contains("ring_entries_per_host"));
    }
  }
  SECTION("the other policies") {
    for (const auto& [envoy, ours] : std::vector<std::pair<std::string, std::string>>{
             {"LEAST_REQUEST", "least_request"}, {"RANDOM", "random"}}) {
      const auto r =
          import_values({write("p.yaml", "envoy: {loadBalancerPolicy: " + envoy + "}\n")});
      CHECK(r.scenario["load_balancer"]["policy"] == ours);
    }
  }
  // cfg/envoy-filter.lua (0.3.1): the filter asks Prometheus itself; KEDA plays no part.
  SECTION("envoy-filter.lua: the prometheus-based limiter works without KEDA") {
    const auto r = import_values({write(
        "p.yaml",
        "envoy: {rate_limiter: {prometheus_based: {enabled: true}}}\n"
        "serverLoadThreshold: 250\nprometheus: {server: {global: {scrape_interval: 15s}}}\n")});
    const auto& adm = r.scenario["load_balancer"]["admission"];
    CHECK(adm["refuse_above"]["threshold"] == "250ms");
    CHECK(adm["refuse_above"]["scrape_interval"] == "15s");
    CHECK(!adm.contains("refuse_above_threshold"));
    CHECK(!find(r.report.not_mapped, "envoy.rate_limiter.prometheus_based.enabled"));
    CHECK(find(r.report.filled, "prometheus.server.global.scrape_interval"));
    CHECK_NOTHROW(sonicsim::scenario::load_json(r.scenario));
    // A query of its own is what the filter would ask: not mapped, no gate.
    const auto q =
        import_values({write("pq.yaml",
                             "envoy: {rate_limiter: {prometheus_based: {enabled: true}}}\n"
                             "serverLoadMetric: 'sum(rate(x[1m]))'\n")});
    CHECK(!q.scenario["load_balancer"].contains("admission"));
    CHECK(find(q.report.not_mapped, "envoy.rate_limiter.prometheus_based.enabled"));
  }
}

TEST_CASE("supersonic: switches that change the mapping: Envoy, device, metric, probes, timeouts",
          "[supersonic]") {
  test::ScratchDir dir("supersonic-switches");
  const auto write = [&](const std::string& name, const std::string& text) {
    return write_values(dir, name, text);
  };
  SECTION("no Envoy: connections stay on one pod") {
    const auto r = import_values({"cpu_only.yaml"});
    CHECK(r.scenario["load_balancer"]["policy"] == "ring_hash");
    CHECK(find(r.report.not_mapped, "envoy.enabled"));
    // CPU-only Triton: the device is the overlay's.
    CHECK(r.scenario["servers"][0]["device"] == "Tesla-T4");
    CHECK(has_note(r.report.notes, "CPU-only Triton"));
  }
  SECTION("--device names the device over the values") {
    const auto r = import_values({"keda.yaml"}, "overlay.json", "Tesla-T4");
    CHECK(r.scenario["servers"][0]["device"] == "Tesla-T4");
  }
  SECTION("a custom serverLoadMetric is not mapped; queue_time stays") {
    const auto r = import_values({write("q.yaml",
                                        "serverLoadMetric: 'sum(rate(x[1m]))'\n"
                                        "keda: {enabled: true}\n")});
    CHECK(r.scenario["servers"][0]["autoscaler"]["metric"] == "queue_time");
    CHECK(find(r.report.not_mapped, "serverLoadMetric"));
  }
  SECTION("the probes bound the start from below; reset is Kubernetes' 0") {
    const auto later =
        import_values({write("s.yaml", "triton:\n  startupProbe: {initialDelaySeconds: 40}\n")});
    CHECK(later.scenario["servers"][0]["startup_delay"] == "40s");
    // Both reset: the bound is 0 and the overlay's 5 s stands.
    const auto reset = import_values({write(
        "r.yaml", "triton:\n  startupProbe: {reset: true}\n  readinessProbe: {reset: true}\n")});
    CHECK(reset.scenario["servers"][0]["startup_delay"] == "5s");
    CHECK(find_scenario(reset.report.defaulted, "servers[0].startup_delay"));
  }
  SECTION("poll is none; two GPUs per server are not mapped; no exit timeout is Triton's 30 s") {
    const auto r =
        import_values({write("g.yaml",
                             "triton:\n  args: [\"tritonserver --model-control-mode poll\"]\n"
                             "  resources: {limits: {nvidia.com/gpu: 2}}\n"
                             "  nodeSelector: {nvidia.com/gpu.product: Tesla-T4}\n")});
    CHECK(r.scenario["servers"][0]["model_control"] == "none");
    CHECK(r.scenario["servers"][0]["drain_timeout"] == "30s");
    CHECK(find(r.report.not_mapped, "triton.resources.limits.\"nvidia.com/gpu\""));
  }
  SECTION("a pod's CPU share is a note, which names the overlay's host cores when it has them") {
    nlohmann::json overlay;
    std::ifstream(fixture("overlay.json")) >> overlay;
    overlay["servers"][0]["host"] = {{"cores", 8}};
    const auto r = import_supersonic(with({fixture("minimal.yaml")}, dir.write("h.json", overlay)));
    CHECK_THAT(find(r.report.not_relevant, "triton.resources.requests.cpu")->reason,
               Catch::Contains("servers[0].host.cores = 8"));
    CHECK(r.scenario["servers"][0]["host"]["cores"] == 8);
  }
  SECTION("the route timeout goes to every workload") {
    nlohmann::json overlay;
    std::ifstream(fixture("overlay.json")) >> overlay;
    auto w = overlay["workload"];
    w["name"] = "a";
    auto w2 = w;
    w2["name"] = "b";
    overlay.erase("workload");
    overlay["workloads"] = {w, w2};
    const auto r = import_supersonic(
        with({fixture("minimal.yaml"), write("t.yaml", "envoy: {grpc_route_timeout: 90s}\n")},
             dir.write("w.json", overlay)));
    CHECK(r.scenario["workloads"][0]["client"]["timeout"] == "90s");
    CHECK(r.scenario["workloads"][1]["client"]["timeout"] == "90s");
  }
  SECTION("an overlay autoscaler goes when KEDA is off") {
    nlohmann::json overlay;
    std::ifstream(fixture("overlay.json")) >> overlay;
    overlay["servers"][0]["autoscaler"] = {{"threshold", "10ms"}};
    overlay["servers"][0]["count"] = 4;
    const auto path = dir.write("o.json", overlay);
    SupersonicOptions o = with({fixture("minimal.yaml")}, path);
    const auto r = import_supersonic(o);
    CHECK(!r.scenario["servers"][0].contains("autoscaler"));
    CHECK(find_scenario(r.report.conflicts, "servers[0].autoscaler"));
    CHECK(find_scenario(r.report.conflicts, "servers[0].count"));
  }
}

TEST_CASE("supersonic: bad values are refused with file, key path, line, found, expected",
          "[supersonic]") {
  test::ScratchDir dir("supersonic-bad");
  const auto write = [&](const std::string& name, const std::string& text) {
    return write_values(dir, name, text);
  };
  const auto malformed = refusal(with({fixture("malformed.yaml")}));
  CHECK_THAT(malformed, Catch::Contains(fixture("malformed.yaml") + ": line ") &&
                            Catch::Contains("malformed YAML"));
  CHECK_THAT(refusal(with({fixture("deep.yaml")})), Catch::Contains("nested deeper than 64"));
  CHECK_THAT(refusal(with({fixture("alias_bomb.yaml")})),
             Catch::Contains("more than 100000 values"));

  const auto types = refusal(with({fixture("wrong_types.yaml")}));
  const std::string file = fixture("wrong_types.yaml");
  // values.schema.json: Helm refuses a value of another type before it renders anything.
  CHECK_THAT(types, Catch::Contains(file + ": triton.replicas: line 2, column 13: found \"five\" "
                                           "(string), expected an integer (chart 0.3.1's "
                                           "values.schema.json; Helm refuses the install"));
  CHECK_THAT(types, Catch::Contains("keda.enabled: line 10, column 12: found maybe (string), "
                                    "expected a boolean"));
  CHECK_THAT(types, Catch::Contains("envoy.loadBalancerPolicy: line 4") &&
                        Catch::Contains("did you mean `LEAST_REQUEST`?"));
  CHECK_THAT(types, Catch::Contains("envoy.rate_limiter.listener_level.fill_interval: line 8"));

  CHECK_THAT(refusal(with({write("n.yaml", "triton:\n  replicas: -2\n")})),
             Catch::Contains("triton.replicas: line 2, column 13: found \"-2\""));
  // Quoted, "false" is a non-empty string, which the chart's `if keda.enabled` takes as true.
  CHECK_THAT(refusal(with({write("q.yaml", "keda:\n  enabled: \"false\"\n")})),
             Catch::Contains("keda.enabled: line 2, column 12: found \"false\" (string), "
                             "expected a boolean"));
  // yaml-cpp 0.7's LoadAll hands out null documents forever on a stray comma: refused instead.
  for (const std::string text : {",\n", "a: 1\n,\n", ",-a:`6\nb3:p*"})
    CHECK_THAT(refusal(with({write("c.yaml", text)})),
               Catch::Contains("c.yaml: line ") && Catch::Contains("malformed YAML"));
  // From a NUL byte, yaml-cpp made a key that is not UTF-8, which JSON cannot hold.
  CHECK_THAT(refusal(with({write("z.yaml", std::string("ri\0_:", 5))})),
             Catch::Contains("z.yaml: line 1, column 3: found the byte 0x00, a control character"));
  CHECK(
      import_values({write("crlf.yaml", "triton:\r\n  replicas: 2\t# two\r\n")}).scenario.dump() ==
      import_values({write("lf.yaml", "triton:\n  replicas: 2\n")}).scenario.dump());
  CHECK_THAT(refusal(with({write("t.yaml", "a: 1\n---\n---\nb: 2\n")})),
             Catch::Contains("t.yaml: line 4, column 1: found a second YAML document"));
  CHECK(import_values({write("e1.yaml", "---\n---\ntriton: {replicas: 2}\n")}).scenario.dump() ==
        import_values({write("e2.yaml", "triton: {replicas: 2}\n")}).scenario.dump());
  CHECK_THAT(refusal(with({write("l.yaml", "- a\n- b\n")})),
             Catch::Contains("found a list at the top level, expected a map"));
  CHECK_THAT(refusal(with({write("d.yaml", "keda:\n  enabled: true\n  enabled: false\n")})),
             Catch::Contains("keda.enabled: line 3, column 3: found the key a second time"));
  CHECK_THAT(refusal(with({write("m.yaml",
                                 "keda:\n  enabled: true\n  minReplicaCount: 5\n"
                                 "  maxReplicaCount: 3\n")})),
             Catch::Contains("keda.minReplicaCount: line 3") &&
                 Catch::Contains("expected at most keda.maxReplicaCount (3)"));
  CHECK_THAT(refusal(with({write("e.yaml", "envoy: 5\n")})),
             Catch::Contains("envoy: line 1, column 8: found \"5\", expected a map"));
  {
    const auto big = write("big.yaml", "a: " + std::string(1100000, 'x') + "\n");
    CHECK_THAT(refusal(with({big})), Catch::Contains(big));
  }
  // A later file's problem names that file.
  CHECK_THAT(refusal(with({fixture("minimal.yaml"), write("w.yaml", "keda: {enabled: maybe}\n")})),
             Catch::Contains("w.yaml: keda.enabled: line 1"));
}

TEST_CASE("supersonic: what the values cannot say must come from the overlay", "[supersonic]") {
  const auto missing = refusal(with({fixture("minimal.yaml")}, ""));
  CHECK_THAT(missing, Catch::Contains("duration: missing") && Catch::Contains("--overlay"));
  CHECK_THAT(missing, Catch::Contains("workload: missing"));
  CHECK_THAT(missing, Catch::Contains("models: missing"));
  CHECK_THAT(missing, Catch::Contains("servers[0].models: missing"));
  // A device the overlay's models have no service time for: the loader's own message.
  SupersonicOptions o = with({fixture("minimal.yaml")});
  o.device = "T4";
  CHECK_THAT(refusal(o), Catch::Contains("do not load as a scenario"));
}

TEST_CASE("supersonic: unknown keys get a hint, and --strict refuses them", "[supersonic]") {
  const auto r = import_values({"typos.yaml"});
  const auto& u = r.report.unknown;
  REQUIRE(find(u, "triton.replica"));
  CHECK(find(u, "triton.replica")->reason == "did you mean `replicas`?");
  CHECK(find(u, "triton.replica")->where == fixture("typos.yaml") + ":3");
  CHECK(find(u, "envoy.loadBalancerPolcy")->reason == "did you mean `loadBalancerPolicy`?");
  CHECK(find(u, "keda.maxReplicas")->reason == "did you mean `maxReplicaCount`?");
  CHECK(find(u, "tritonn")->reason == "did you mean `triton`?");
  CHECK(u.size() == 4);
  CHECK(find(r.report.not_mapped, "envoy.replicas"));
  // The typo is not applied: replicas stays the chart's 1.
  CHECK(r.scenario["servers"][0]["count"] == 1);

  SupersonicOptions strict = with({fixture("typos.yaml")});
  strict.strict = true;
  const auto message = refusal(strict);
  CHECK_THAT(message, Catch::Contains("triton.replica: line 3: found an unknown key (did you mean "
                                      "`replicas`?) (--strict)"));
  CHECK_THAT(message, Catch::Contains("envoy.replicas") && Catch::Contains("not mapped"));
}

TEST_CASE("supersonic: every documented key of the chart is classified", "[supersonic]") {
  // docs/.values-table.md of chart 0.3.1: its own keys, and the subcharts' families.
  const std::vector<std::string> documented{
      "nameOverride",
      "serverLoadMetric",
      "serverLoadThreshold",
      "triton.replicas",
      "triton.image",
      "triton.command",
      "triton.args",
      "triton.resources",
      "triton.annotations",
      "triton.nodeSelector",
      "triton.tolerations",
      "triton.affinity",
      "triton.modelRepository",
      "triton.modelRepository.mountPath",
      "triton.service.labels",
      "triton.service.annotations",
      "triton.service.ports",
      "triton.readinessProbe",
      "triton.readinessProbe.reset",
      "triton.startupProbe",
      "triton.startupProbe.reset",
      "envoy.enabled",
      "envoy.replicas",
      "envoy.image",
      "envoy.args",
      "envoy.external_config",
      "envoy.external_config.load_from_configmap",
      "envoy.external_config.configmap_name",
      "envoy.external_config.configmap_key",
      "envoy.resources",
      "envoy.annotations",
      "envoy.nodeSelector",
      "envoy.tolerations",
      "envoy.service.type",
      "envoy.service.ports",
      "envoy.ingress",
      "envoy.grpc_route_timeout",
      "envoy.rate_limiter.listener_level",
      "envoy.rate_limiter.listener_level.enabled",
      "envoy.rate_limiter.listener_level.max_tokens",
      "envoy.rate_limiter.listener_level.tokens_per_fill",
      "envoy.rate_limiter.listener_level.fill_interval",
      "envoy.rate_limiter.prometheus_based",
      "envoy.rate_limiter.prometheus_based.enabled",
      "envoy.loadBalancerPolicy",
      "envoy.auth.enabled",
      "envoy.auth.jwt_issuer",
      "envoy.auth.jwt_remote_jwks_uri",
      "envoy.auth.audiences",
      "envoy.auth.url",
      "envoy.auth.port",
      "envoy.tracing_sampling_rate",
      "keda.enabled",
      "keda.minReplicaCount",
      "keda.maxReplicaCount",
      "keda.zeroIdleReplicas",
      "keda.scaleUp.stabilizationWindowSeconds",
      "keda.scaleUp.periodSeconds",
      "keda.scaleUp.stepsize",
      "keda.scaleDown.stabilizationWindowSeconds",
      "keda.scaleDown.periodSeconds",
      "keda.scaleDown.stepsize",
      "prometheus.external.enabled",
      "prometheus.external.url",
      "prometheus.enabled",
      "prometheus.server.retention",
      "prometheus.server.ingress",
      "prometheus.serviceAccounts.server.create",
      "prometheus.rbac.create",
      "prometheus.alertmanager.enabled",
      "prometheus.kube-state-metrics.enabled",
      "prometheus.configmapReload.prometheus.enabled",
      "grafana.enabled",
      "grafana.adminUser",
      "grafana.datasources",
      "grafana.dashboardProviders",
      "grafana.\"grafana.ini\".auth.disable_login_form",
      "grafana.ingress",
      "grafana.resources.limits.cpu",
      "tempo.enabled",
      "tempo.tempo.metricsGenerator.enabled",
      "tempo.tempo.receivers.otlp.protocols.grpc.endpoint",
      "opentelemetry-collector.enabled",
      "opentelemetry-collector.image.repository",
      "opentelemetry-collector.config.exporters.otlp.endpoint",
      "opentelemetry-collector.config.connectors.spanmetrics.dimensions_cache_size",
      "metricsCollector.enabled",
      "metricsCollector.host",
      "metricsCollector.port",
      "metricsCollector.resources",
      "metricsCollector.service",
      "metricsCollector.ingress"};
  const auto r = import_values({"all_keys.yaml"});
  CHECK(r.report.unknown.empty());
  for (const auto& e : r.report.unknown) UNSCOPED_INFO("unknown: " + e.values_key);
  // One key covers another when it is the same, or one is the other's parent.
  const auto related = [](const std::string& a, const std::string& b) {
    const auto parent = [](const std::string& p, const std::string& c) {
      return c.size() > p.size() && c.compare(0, p.size(), p) == 0 &&
             (c[p.size()] == '.' || c[p.size()] == '[');
    };
    return a == b || parent(a, b) || parent(b, a);
  };
  const auto& rep = r.report;
  for (const auto& key : documented) {
    std::vector<std::string> lists;
    for (const auto& [name, list] :
         {std::pair{"filled", &rep.filled}, std::pair{"not mapped", &rep.not_mapped},
          std::pair{"not relevant", &rep.not_relevant}})
      for (const auto& e : *list)
        if (related(e.values_key, key)) lists.push_back(name);
    INFO(key);
    CHECK(!lists.empty());
  }
}

TEST_CASE("supersonic: the report as JSON lists every section", "[supersonic]") {
  const auto r = import_values({"keda.yaml", "typos.yaml"});
  const auto j = sonicsim::deployment::to_json(r.report);
  CHECK(j["chart"]["version"] == "0.3.1");
  CHECK(j["values_files"].size() == 2);
  for (const char* k : {"filled", "defaulted", "conflicts", "not_mapped", "not_relevant", "unknown",
                        "notes", "from_overlay"})
    CHECK(j.contains(k));
  CHECK(j["unknown"].size() == r.report.unknown.size());
  const auto text = sonicsim::deployment::to_text(r.report);
  CHECK_THAT(text, Catch::Contains("servers[0].count <- keda.maxReplicaCount = 6"));
  CHECK_THAT(text, Catch::Contains("triton.replica = 4: did you mean `replicas`?"));
}

TEST_CASE("supersonic: later overlays are merge patches: the measured load replaces the jobs",
          "[supersonic]") {
  SupersonicOptions o = with({std::string(SONICSIM_TEST_DATA_DIR) + "/twin/site.yaml"},
                             std::string(SONICSIM_TEST_DATA_DIR) + "/twin/base.json");
  o.more_overlays = {std::string(SONICSIM_TEST_DATA_DIR) + "/twin/truth-load.json"};
  const auto r = import_supersonic(o);
  // base.json's 40 jobs are gone (null); the profile starts 40 + 360 jobs and the loader counts
  // them; the rest of base.json stays.
  CHECK_FALSE(r.scenario["workload"].contains("jobs"));
  CHECK(r.scenario["workload"]["flow"]["running"]["jobs"] == nlohmann::json({40, 400, 150, 60}));
  CHECK(r.scenario["workload"]["threads_per_job"] == 4);
  CHECK(sonicsim::scenario::load_json(r.scenario).workload().jobs == 400);
  CHECK_THAT(r.report.overlay, Catch::EndsWith("base.json + " + o.more_overlays[0]));
  // A later overlay that is not a (partial) scenario names itself.
  o.more_overlays = {fixture("malformed.yaml")};
  CHECK_THAT(refusal(o), Catch::Contains("malformed.yaml"));
}
