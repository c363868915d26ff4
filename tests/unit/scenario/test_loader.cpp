// Scenario loading (SPEC section 4): valid files, defaults, extensions, --set overrides, and a
// catalogue of bad inputs, each checked for the JSON path and the wording of its message.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "problems.hpp"
#include "support.hpp"

using nlohmann::json;
using test::deterministic;
using test::dump;
using test::has_problem;
using test::scenario_of;
using namespace sonicsim::scenario;

namespace {

namespace fs = std::filesystem;

const std::string kLoaderData = SONICSIM_TEST_DATA_DIR;

// A per-process folder, so parallel ctest processes never collide; removed at exit.
struct LoaderTempDir {
  fs::path path = fs::temp_directory_path() / ("sonicsim-loader-" + std::to_string(::getpid()));
  LoaderTempDir() { fs::create_directories(path); }
  ~LoaderTempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::string loader_write_temp(const std::string& text) {
  static LoaderTempDir dir;
  static int counter = 0;
  const fs::path file = dir.path / ("scenario-" + std::to_string(counter++) + ".json");
  std::ofstream(file) << text;
  return file.string();
}

// A valid scenario exercising most of the format; bad cases are small edits of it.
json base_doc() {
  return json::parse(R"({
    "name": "base",
    "seed": 7,
    "duration": "1h",
    "warmup": "5min",
    "workload": {
      "jobs": 10,
      "threads_per_job": 4,
      "jobs_per_node": 2,
      "mode": "sync",
      "cpu_time_per_event": {"dist": "lognormal", "mean": "1.03s", "cv": 0.3},
      "requests": [
        {"model": "pn", "offload_fraction": 0.05, "per_event": 1,
         "items": {"dist": "empirical", "values": [4, 8, 12], "weights": [1, 2, 1]}},
        {"model": "dm", "offload_fraction": 0.01}
      ]
    },
    "models": {
      "pn": {
        "input_bytes_per_item": "9.8kB",
        "output_bytes_per_item": "16B",
        "service_time": {"batch": [1, 16, 64], "seconds": [0.0012, 0.0034, 0.0118]},
        "max_batch_size": 500,
        "dynamic_batching": {"preferred_batch_size": [200, 100], "max_queue_delay": "100us"}
      },
      "dm": {
        "inputs": [{"name": "x", "shape": [2, 100], "dtype": "FP32"},
                   {"name": "mask", "shape": [100], "dtype": "TYPE_BOOL"}],
        "outputs": [{"name": "y", "shape": [2], "dtype": "FP16"}],
        "service_time": {"T4": {"batch": [1, 8], "seconds": ["1ms", "3ms"]},
                         "*": {"batch": [1], "seconds": [0.01]}}
      }
    },
    "servers": [{"name": "t4", "count": 2, "device": "T4", "models": ["pn", "dm"]}],
    "network": {
      "client_nic": {"bandwidth": "10Gbps", "latency": "50us"},
      "site_uplink": {"bandwidth": "100Gbps", "latency": "1ms"},
      "server_nic": {"bandwidth": "25Gbps", "latency": "50us"}
    }
  })");
}

std::vector<Override> parsed_overrides(const std::vector<std::string>& texts) {
  std::vector<Override> out;
  for (const auto& t : texts) out.push_back(parse_override(t));
  return out;
}

Scenario load_text(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return load_file(loader_write_temp(text), parsed_overrides(overrides));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Valid scenarios

TEST_CASE("minimal scenario gets the documented defaults", "[loader]") {
  const Scenario s = load_file(kLoaderData + "/valid_minimal.json");
  CHECK(s.name == "valid_minimal");
  CHECK(s.seed == 1);
  CHECK(s.duration == 600);
  CHECK(s.warmup == 0);
  CHECK(s.workload().jobs == 4);
  CHECK(s.workload().threads_per_job == 2);
  CHECK(s.workload().jobs_per_node == 1);
  CHECK(s.workload().n_threads() == 8);
  CHECK(s.workload().n_nodes() == 4);
  CHECK(s.workload().mode == Mode::Sync);
  CHECK(s.workload().async.independent_work_fraction == 1.0);
  CHECK(s.workload().async.events_in_flight == 1);
  CHECK(s.workload().cpu_time_per_event.kind == Distribution::Kind::Constant);
  CHECK(s.workload().cpu_time_per_event.expected() == 1.0);
  CHECK(s.workload().requests.empty());
  CHECK(s.workload().offload_fraction() == 0.0);
  CHECK(s.models.empty());
  CHECK(s.servers.empty());
  CHECK(std::holds_alternative<sonicsim::balancing::RoundRobin::Settings>(s.load_balancer.policy));
  CHECK_FALSE(s.network.client_nic);
  CHECK_FALSE(s.network.site_uplink);
  CHECK_FALSE(s.network.wan);
  CHECK_FALSE(s.network.server_nic);
  CHECK(s.network.flow_model == FlowModel::Auto);
  CHECK(s.network.auto_tolerance == 0.01);
  CHECK(s.source_file == kLoaderData + "/valid_minimal.json");
  CHECK(
      s.canonical_json ==
      R"({"duration":"10min","workload":{"cpu_time_per_event":"1s","jobs":4,"threads_per_job":2}})");
  // sha256sum of the canonical text above.
  CHECK(s.sha256 == "875524cf8c9d281c336b94c67870769f846a9a56ad622d2f13f60cf5e6ec9e2a");
  CHECK(validate_file(kLoaderData + "/valid_minimal.json").empty());
}

TEST_CASE("full scenario: values, units, models, pools and links", "[loader]") {
  const Scenario s = load_json(base_doc(), "<test>");
  CHECK(s.name == "base");
  CHECK(s.seed == 7);
  CHECK(s.duration == 3600);
  CHECK(s.warmup == 300);
  CHECK(s.source_file.empty());
  const Workload& w = s.workload();
  CHECK(w.jobs == 10);
  CHECK(w.n_nodes() == 5);
  CHECK(w.cpu_time_per_event.kind == Distribution::Kind::Lognormal);
  CHECK(w.cpu_time_per_event.mean == Approx(1.03));
  CHECK(w.cpu_time_per_event.cv == Approx(0.3));
  REQUIRE(w.requests.size() == 2);
  CHECK(w.requests[0].model == "pn");
  CHECK(w.requests[0].items.kind == Distribution::Kind::Empirical);
  CHECK(w.requests[0].items.weights == std::vector<double>{0.25, 0.5, 0.25});
  CHECK(w.requests[0].items.expected() == Approx(8));
  CHECK(w.requests[1].items.expected() == 1);
  CHECK(w.requests[1].per_event == 1);
  CHECK(w.offload_fraction() == Approx(0.06));

  REQUIRE(s.models.size() == 2);
  CHECK(s.models[0].name == "dm");  // sorted by name
  CHECK(s.model_index("pn") == 1);
  CHECK(s.model_index("nope") == -1);
  CHECK(s.find_model("nope") == nullptr);
  const Model& pn = *s.find_model("pn");
  CHECK(pn.input_bytes_per_item == Approx(9800));
  CHECK(pn.output_bytes_per_item == 16);
  CHECK(pn.max_batch_size == 500);
  CHECK(pn.instances == 1);
  REQUIRE(pn.dynamic_batching);
  CHECK(pn.dynamic_batching->preferred_batch_size == std::vector<int>{100, 200});
  CHECK(pn.dynamic_batching->max_queue_delay == Approx(100e-6));
  CHECK(pn.spread.kind == Distribution::Kind::Constant);
  CHECK(pn.curve_for("T4").source == "table");
  CHECK(pn.curve_for("anything").at(16) == Approx(0.0034));

  const Model& dm = *s.find_model("dm");
  CHECK(dm.input_bytes_per_item == 2 * 100 * 4 + 100);
  CHECK(dm.output_bytes_per_item == 2 * 2);
  REQUIRE(dm.inputs.size() == 2);
  CHECK(dm.inputs[1].dtype == "BOOL");
  CHECK(dm.max_batch_size == 0);
  CHECK_FALSE(dm.dynamic_batching);
  CHECK(dm.curve_for("T4").at(8) == Approx(0.003));
  CHECK(dm.curve_for("A100").at(8) == Approx(0.01));

  REQUIRE(s.servers.size() == 1);
  CHECK(s.servers[0].count == 2);
  CHECK(s.devices_hosting("pn") == 2);
  CHECK(s.devices_hosting("other") == 0);
  REQUIRE(s.network.client_nic);
  CHECK(s.network.client_nic->bandwidth == Approx(1.25e9));
  CHECK(s.network.client_nic->latency == Approx(50e-6));
  CHECK(s.network.site_uplink->bandwidth == Approx(12.5e9));
  CHECK_FALSE(s.network.wan);
  CHECK(s.sha256.size() == 64);
}

TEST_CASE("extensions: async, load balancer, flow model, spread, Triton delay", "[loader]") {
  json doc = base_doc();
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 0.4}, {"events_in_flight", 3}};
  doc["load_balancer"] = {{"policy", "random"}};
  doc["network"]["flow_model"] = "analytic";
  doc["network"]["auto_tolerance"] = 0.01;
  doc["network"]["wan"] = {{"bandwidth", "1.25GBps"}, {"latency", "10ms"}};
  doc["network"]["site_uplink"] = nullptr;
  doc["models"]["pn"]["service_time"]["dist"] = "gamma";
  doc["models"]["pn"]["service_time"]["cv"] = 0.2;
  doc["models"]["pn"]["dynamic_batching"] = {{"preferred_batch_size", 64},
                                             {"max_queue_delay_microseconds", 500}};
  doc["models"]["pn"]["instances"] = 2;
  doc["models"]["dm"]["service_time"]["dist"] = "exponential";
  doc["$schema"] = "../docs/scenario.schema.json";
  const Scenario s = load_json(doc);
  CHECK(s.workload().mode == Mode::Async);
  CHECK(s.workload().async.independent_work_fraction == 0.4);
  CHECK(s.workload().async.events_in_flight == 3);
  CHECK(std::holds_alternative<sonicsim::balancing::Random::Settings>(s.load_balancer.policy));
  CHECK(s.network.flow_model == FlowModel::Analytic);
  CHECK(s.network.auto_tolerance == 0.01);
  CHECK(s.network.wan->bandwidth == 1.25e9);
  CHECK_FALSE(s.network.site_uplink);
  const Model& pn = *s.find_model("pn");
  CHECK(pn.spread.kind == Distribution::Kind::Gamma);
  CHECK(pn.spread.cv == 0.2);
  CHECK(pn.instances == 2);
  CHECK(pn.dynamic_batching->preferred_batch_size == std::vector<int>{64});
  CHECK(pn.dynamic_batching->max_queue_delay == Approx(500e-6));
  CHECK(s.find_model("dm")->spread.kind == Distribution::Kind::Exponential);
  CHECK(s.name == "base");
}

// ---------------------------------------------------------------------------------------------
// Overrides

TEST_CASE("overrides are applied before validation", "[loader][override]") {
  const std::string file = loader_write_temp(base_doc().dump(2));
  const Scenario plain = load_file(file);
  const Scenario s = load_file(
      file, parsed_overrides({"workload.jobs=400", "workload.mode=async", "servers.0.count=3",
                              "models.pn.dynamic_batching=null", "workload.requests.1.items=2",
                              "network.wan={\"bandwidth\": \"1Gbps\"}", "name=renamed",
                              "description=free text with = sign"}));
  CHECK(s.workload().jobs == 400);
  CHECK(s.workload().mode == Mode::Async);
  CHECK(s.servers[0].count == 3);
  CHECK_FALSE(s.find_model("pn")->dynamic_batching);
  CHECK(s.workload().requests[1].items.expected() == 2);
  CHECK(s.network.wan->bandwidth == 1.25e8);
  CHECK(s.name == "renamed");
  CHECK(s.description == "free text with = sign");
  CHECK(s.sha256 != plain.sha256);
  CHECK(json::parse(s.canonical_json)["workload"]["jobs"] == 400);

  const Override o = parse_override("a.b.c=x=y");
  CHECK(o.path == "a.b.c");
  CHECK(o.value == "x=y");
}

TEST_CASE("the hash ignores formatting and key order", "[loader]") {
  const Scenario a = load_text(R"({"workload": {"threads_per_job": 2, "jobs": 4,
      "cpu_time_per_event": "1s"}, "duration": "10min"})");
  const Scenario b = load_text(R"({ "duration" : "10min",
      "workload" : { "cpu_time_per_event" : "1s", "jobs" : 4, "threads_per_job" : 2 } })");
  CHECK(a.sha256 == b.sha256);
  CHECK(a.sha256 == "875524cf8c9d281c336b94c67870769f846a9a56ad622d2f13f60cf5e6ec9e2a");
}

TEST_CASE("InputError lists every problem as FILE: PATH: MESSAGE", "[loader]") {
  json doc = base_doc();
  doc["duration"] = -1;
  doc["workload"]["jobs"] = 0;
  doc["bogus"] = 1;
  try {
    load_json(doc, "scen.json");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.file() == "scen.json");
    REQUIRE(e.problems().size() == 3);
    const std::string what = e.what();
    CHECK_THAT(what,
               Catch::Contains("scen.json: duration: found -1, expected a non-negative time"));
    CHECK_THAT(what, Catch::Contains("scen.json: workload.jobs: found 0, expected an integer"));
    CHECK_THAT(what, Catch::Contains("scen.json: bogus: unknown key `bogus`"));
    CHECK(std::count(what.begin(), what.end(), '\n') == 2);
  }
  try {
    load_file("/nonexistent/scenario.json");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::StartsWith("/nonexistent/scenario.json: cannot read the scenario file"));
  }
}

// ---------------------------------------------------------------------------------------------
// Bad input catalogue: every case must fail with a problem at `path` whose message contains all
// `fragments`.

namespace {

struct BadFile {
  const char* name;
  std::function<void(json&)> edit;  // applied to base_doc(); unused when `text` is set
  std::string text;                 // raw file content instead of base_doc()
  std::vector<std::string> overrides;
  std::string path;
  std::vector<std::string> fragments;
};

void run_file_catalogue(const std::vector<BadFile>& cases) {
  for (const BadFile& c : cases) {
    json doc = base_doc();
    if (c.edit) c.edit(doc);
    const std::string text = c.text.empty() ? doc.dump(2) : c.text;
    const auto problems = validate_file(loader_write_temp(text), parsed_overrides(c.overrides));
    INFO("case: " << c.name << "\nproblems:\n" << dump(problems));
    CHECK(has_problem(problems, c.path, c.fragments));
  }
}

}  // namespace

// The catalogues below are tables, one case per entry: clang-format would put every field on its
// own line.
// clang-format off
TEST_CASE("bad input catalogue: syntax, types and numbers", "[loader][bad]") {
  run_file_catalogue({
      {"malformed JSON: trailing comma", {}, "{\n  \"duration\": 1,\n}\n", {}, "",
       {"line 3, column 1", "invalid JSON"}},
      {"malformed JSON: bad literal", {}, "{\"duration\": tru}", {}, "",
       {"line 1", "invalid JSON", "invalid literal"}},
      {"empty file", {}, " ", {}, "", {"invalid JSON"}},
      {"number overflow 1e400 literal", {}, "{\n\"duration\": 1e400}", {}, "duration",
       {"line 2", "too large", "expected a finite number"}},
      {"duplicate key", {}, R"({"duration": 1, "duration": 2, "workload": {}})", {},
       "duration", {"duplicate key `duration`"}},
      {"document is not an object", {}, "[1, 2]", {}, "", {"found an array", "JSON object"}},
      {"missing duration", [](json& d) { d.erase("duration"); }, "", {}, "duration",
       {"missing", "expected"}},
      {"zero duration", [](json& d) { d["duration"] = 0; }, "", {}, "duration",
       {"found 0", "expected a time in (0"}},
      {"negative duration", [](json& d) { d["duration"] = "-5s"; }, "", {}, "duration",
       {"found \"-5s\"", "non-negative"}},
      {"bad unit", [](json& d) { d["duration"] = "10 parsecs"; }, "", {}, "duration",
       {"unknown unit \"parsecs\"", "ns, us, \u00b5s, ms, s, min, h"}},
      {"size unit for a time", [](json& d) { d["warmup"] = "5MB"; }, "", {}, "warmup",
       {"found \"5MB\"", "expected a time"}},
      {"warmup >= duration", [](json& d) { d["warmup"] = "2h"; }, "", {}, "warmup",
       {"found \"2h\"", "shorter than duration"}},
      {"string where number expected", [](json& d) { d["workload"]["jobs"] = "ten"; }, "", {},
       "workload.jobs", {"found \"ten\"", "expected an integer"}},
      {"non-integer jobs", [](json& d) { d["workload"]["jobs"] = 4.5; }, "", {}, "workload.jobs",
       {"found 4.5", "expected an integer in [1, 10000000]"}},
      {"zero jobs", [](json& d) { d["workload"]["jobs"] = 0; }, "", {}, "workload.jobs",
       {"found 0"}},
      {"absurd jobs as float 1e12", [](json& d) { d["workload"]["jobs"] = 1e12; }, "", {},
       "workload.jobs", {"found 1000000000000", "10000000"}},
      {"absurd jobs as integer", {}, R"({"duration": 1, "workload": {"jobs": 1000000000000,
         "threads_per_job": 1, "cpu_time_per_event": 1}})", {}, "workload.jobs",
       {"found 1000000000000", "10000000"}},
      {"jobs beyond 64 bits", {}, R"({"duration": 1, "workload": {"jobs": 99999999999999999999,
         "threads_per_job": 1, "cpu_time_per_event": 1}})", {}, "workload.jobs",
       {"expected an integer"}},
      {"too many threads in total",
       [](json& d) {
         d["workload"]["jobs"] = 100000;
         d["workload"]["threads_per_job"] = 1000;
       },
       "", {}, "workload.jobs", {"100000 x 1000", "client threads", "at most 10000000"}},
      {"negative seed", [](json& d) { d["seed"] = -1; }, "", {}, "seed", {"found -1"}},
      {"bool where object expected", [](json& d) { d["workload"] = true; }, "", {}, "workload",
       {"found true", "expected an object"}},
      {"latency of wrong type",
       [](json& d) { d["network"]["client_nic"]["latency"] = json::array({1}); }, "", {},
       "network.client_nic.latency", {"found an array", "expected a time"}},
      {"bandwidth with a bad unit",
       [](json& d) { d["network"]["server_nic"]["bandwidth"] = "10 Gbit"; }, "", {},
       "network.server_nic.bandwidth", {"unknown unit \"Gbit\"", "Gbps"}},
      {"zero bandwidth", [](json& d) { d["network"]["server_nic"]["bandwidth"] = 0; }, "", {},
       "network.server_nic.bandwidth", {"found 0", "> 0"}},
      {"link without bandwidth", [](json& d) { d["network"]["wan"] = {{"latency", "1ms"}}; },
       "", {}, "network.wan.bandwidth", {"missing"}},
      {"auto_tolerance out of (0,1)", [](json& d) { d["network"]["auto_tolerance"] = 1; }, "",
       {}, "network.auto_tolerance", {"found 1", "in (0, 1)"}},
      {"bad flow model", [](json& d) { d["network"]["flow_model"] = "flows"; }, "", {},
       "network.flow_model", {"found \"flows\"", "did you mean `flow`?"}},
      {"bad mode with hint", [](json& d) { d["workload"]["mode"] = "asynch"; }, "", {},
       "workload.mode", {"found \"asynch\"", "\"sync\", \"async\"", "did you mean `async`?"}},
      {"events_in_flight 0",
       [](json& d) { d["workload"]["async"] = {{"events_in_flight", 0}}; }, "", {},
       "workload.async.events_in_flight", {"found 0"}},
      {"independent_work_fraction > 1",
       [](json& d) { d["workload"]["async"] = {{"independent_work_fraction", 1.5}}; }, "", {},
       "workload.async.independent_work_fraction", {"found 1.5", "in [0, 1]"}},
      {"bad load balancer policy", [](json& d) { d["load_balancer"] = {{"policy", "least"}}; },
       "", {}, "load_balancer.policy", {"found \"least\"", "round_robin"}},
  });
}

TEST_CASE("bad input catalogue: unknown keys and references", "[loader][bad]") {
  run_file_catalogue({
      {"unknown workload key with hint",
       [](json& d) {
         d["workload"]["jbos"] = 4;
       },
       "", {}, "workload.jbos", {"unknown key `jbos`", "did you mean `jobs`?"}},
      {"unknown top-level key with hint", [](json& d) { d["netwrok"] = json::object(); }, "", {},
       "netwrok", {"did you mean `network`?"}},
      {"unknown key without hint lists the keys",
       [](json& d) { d["models"]["pn"]["colour"] = "red"; }, "", {}, "models.pn.colour",
       {"unknown key `colour`", "expected one of", "service_time"}},
      // A key that is empty or holds path syntax is quoted, so that the path is never empty
      // and points at one place (an empty top-level key was a fuzzing finding).
      {"empty key at the top", [](json& d) { d[""] = json::object(); }, "", {}, "[\"\"]",
       {"unknown key ``", "expected one of"}},
      {"key holding a dot", [](json& d) { d["workload"]["jobs.x"] = 1; }, "", {},
       "workload[\"jobs.x\"]", {"unknown key `jobs.x`"}},
      {"key holding a newline", [](json& d) { d["workload"]["a\nb"] = 1; }, "", {},
       "workload[\"a\\nb\"]", {"unknown key"}},
      {"truncated key", [](json& d) { d["workload"]["requests"][0]["offload"] = 0.1; }, "", {},
       "workload.requests[0].offload", {"did you mean `offload_fraction`?"}},
      {"request naming a missing model",
       [](json& d) { d["workload"]["requests"][0]["model"] = "pnn"; }, "", {},
       "workload.requests[0].model", {"found \"pnn\"", "did you mean `pn`?"}},
      {"request without model", [](json& d) { d["workload"]["requests"][0].erase("model"); }, "",
       {}, "workload.requests[0].model", {"missing"}},
      {"pool hosting a missing model",
       [](json& d) { d["servers"][0]["models"].push_back("deepjet"); }, "", {},
       "servers[0].models[2]", {"found \"deepjet\"", "expected the name of a model"}},
      {"pool device without a curve",
       [](json& d) {
         d["models"]["dm"]["service_time"].erase("*");
         d["servers"][0]["device"] = "A100";
       },
       "", {}, "servers[0].models[1]", {"no service_time curve for device `A100`", "T4"}},
      {"pool count 0", [](json& d) { d["servers"][0]["count"] = 0; }, "", {}, "servers[0].count",
       {"found 0", "expected an integer in [1"}},
      {"duplicate pool names",
       [](json& d) { d["servers"].push_back(d["servers"][0]); }, "", {}, "servers[1].name",
       {"found \"t4\" again", "servers[0].name", "unique"}},
      {"too many devices",
       [](json& d) {
         d["servers"][0]["count"] = 600000;
         d["servers"].push_back(d["servers"][0]);
         d["servers"][1]["name"] = "t4b";
       },
       "", {}, "servers", {"1200000 devices", "at most 1000000"}},
      {"servers not an array", [](json& d) { d["servers"] = {{"name", "t4"}}; }, "", {},
       "servers", {"found an object", "expected an array of server pools"}},
      {"pool without models", [](json& d) { d["servers"][0]["models"] = json::array(); }, "", {},
       "servers[0].models", {"found an empty array", "non-empty"}},
  });
}

TEST_CASE("bad input catalogue: distributions, fractions and models", "[loader][bad]") {
  run_file_catalogue({
      {"offload fraction above 1",
       [](json& d) { d["workload"]["requests"][0]["offload_fraction"] = 1.5; }, "", {},
       "workload.requests[0].offload_fraction", {"found 1.5", "expected a number in [0, 1]"}},
      {"offload fractions summing above 1",
       [](json& d) {
         d["workload"]["requests"][0]["offload_fraction"] = 0.6;
         d["workload"]["requests"][1]["offload_fraction"] = 0.5;
       },
       "", {}, "workload.requests", {"summing to 1.1", "expected a sum <= 1"}},
      {"empty empirical distribution",
       [](json& d) {
         d["workload"]["requests"][0]["items"] = {{"dist", "empirical"}, {"values", json::array()}};
       },
       "", {}, "workload.requests[0].items.values", {"found an empty array", "non-empty"}},
      {"empirical weights of the wrong length",
       [](json& d) { d["workload"]["requests"][0]["items"]["weights"] = {1, 2}; }, "", {},
       "workload.requests[0].items.weights", {"found 2 weights", "expected 3"}},
      {"negative empirical weight",
       [](json& d) { d["workload"]["requests"][0]["items"]["weights"][1] = -1; }, "", {},
       "workload.requests[0].items.weights[1]", {"found -1", ">= 0"}},
      {"all-zero empirical weights",
       [](json& d) { d["workload"]["requests"][0]["items"]["weights"] = {0, 0, 0}; }, "", {},
       "workload.requests[0].items.weights", {"summing to 0"}},
      {"items below 1",
       [](json& d) { d["workload"]["requests"][1]["items"] = 0; }, "", {},
       "workload.requests[1].items", {"found 0", ">= 1"}},
      {"items above max_batch_size",
       [](json& d) { d["workload"]["requests"][0]["items"]["values"] = {4, 8, 600}; }, "", {},
       "workload.requests[0].items", {"up to 600", "max_batch_size 500"}},
      {"absurd mean of items",
       [](json& d) { d["workload"]["requests"][1]["items"] = {{"dist", "exponential"}, {"mean", 1e9}}; },
       "", {}, "workload.requests[1].items", {"mean of 1000000000", "at most 1000000"}},
      {"unknown distribution",
       [](json& d) { d["workload"]["cpu_time_per_event"]["dist"] = "weibull"; }, "", {},
       "workload.cpu_time_per_event.dist", {"found \"weibull\"", "\"lognormal\""}},
      {"distribution without dist",
       [](json& d) { d["workload"]["cpu_time_per_event"].erase("dist"); }, "", {},
       "workload.cpu_time_per_event.dist", {"missing"}},
      {"lognormal without cv",
       [](json& d) { d["workload"]["cpu_time_per_event"].erase("cv"); }, "", {},
       "workload.cpu_time_per_event.cv", {"missing", "stddev"}},
      {"cv and stddev together",
       [](json& d) { d["workload"]["cpu_time_per_event"]["stddev"] = "0.1s"; }, "", {},
       "workload.cpu_time_per_event.stddev", {"both `cv` and `stddev`"}},
      {"key of another distribution kind",
       [](json& d) {
         d["workload"]["cpu_time_per_event"] = {{"dist", "uniform"}, {"min", 1}, {"max", 2},
                                                {"cv", 0.1}};
       },
       "", {}, "workload.cpu_time_per_event.cv", {"does not apply to a uniform distribution"}},
      {"uniform with max < min",
       [](json& d) {
         d["workload"]["cpu_time_per_event"] = {{"dist", "uniform"}, {"min", "2s"}, {"max", "1s"}};
       },
       "", {}, "workload.cpu_time_per_event.max", {"below min", "max >= min"}},
      {"negative mean", [](json& d) { d["workload"]["cpu_time_per_event"]["mean"] = -1; }, "",
       {}, "workload.cpu_time_per_event.mean", {"found -1"}},
      {"cpu time missing",
       [](json& d) { d["workload"].erase("cpu_time_per_event"); }, "", {},
       "workload.cpu_time_per_event", {"missing"}},
      {"non-increasing batch table",
       [](json& d) { d["models"]["pn"]["service_time"]["batch"] = {1, 16, 16}; }, "", {},
       "models.pn.service_time.batch[2]", {"found 16 after 16", "strictly increasing"}},
      {"batch and seconds of different lengths",
       [](json& d) { d["models"]["pn"]["service_time"]["seconds"] = {0.001, 0.002}; }, "", {},
       "models.pn.service_time.seconds", {"found 2 times for 3 batch sizes"}},
      {"zero execution time",
       [](json& d) { d["models"]["pn"]["service_time"]["seconds"][0] = 0; }, "", {},
       "models.pn.service_time.seconds[0]", {"found 0", "> 0"}},
      {"empty batch table",
       [](json& d) {
         d["models"]["pn"]["service_time"] = {{"batch", json::array()},
                                              {"seconds", json::array()}};
       },
       "", {}, "models.pn.service_time.batch", {"found an empty array"}},
      {"missing service_time", [](json& d) { d["models"]["pn"].erase("service_time"); }, "", {},
       "models.pn.service_time", {"missing"}},
      {"spread cv inside a device curve",
       [](json& d) { d["models"]["dm"]["service_time"]["T4"]["cv"] = 0.1; }, "", {},
       "models.dm.service_time.T4.cv", {"set once per model", "models.dm.service_time.dist"}},
      {"spread lognormal without cv",
       [](json& d) { d["models"]["pn"]["service_time"]["dist"] = "lognormal"; }, "", {},
       "models.pn.service_time.cv", {"missing"}},
      {"typo in the curve keys",
       [](json& d) {
         d["models"]["pn"]["service_time"] = {{"bacth", {1}}, {"secnds", {0.1}}};
       },
       "", {}, "models.pn.service_time.bacth", {"did you mean `batch`?"}},
      {"missing calibration file",
       [](json& d) { d["models"]["pn"]["service_time"] = {{"calibration", "nope/cal.json"}}; },
       "", {}, "models.pn.service_time.calibration",
       {"cannot read calibration file", "nope/cal.json"}},
      {"bad calibration file",
       [](json& d) {
         d["models"]["pn"]["service_time"] = {{"calibration", kLoaderData + "/calibration/broken.json"}};
       },
       "", {}, "models.pn.service_time.calibration",
       {"broken.json", "service_time.batch[2]: found 8 after 16"}},
      {"preferred batch size above max_batch_size",
       [](json& d) { d["models"]["pn"]["dynamic_batching"]["preferred_batch_size"] = {600}; },
       "", {}, "models.pn.dynamic_batching.preferred_batch_size[0]",
       {"found 600", "max_batch_size 500"}},
      {"both queue delay spellings",
       [](json& d) { d["models"]["pn"]["dynamic_batching"]["max_queue_delay_microseconds"] = 5; },
       "", {}, "models.pn.dynamic_batching.max_queue_delay_microseconds", {"both"}},
      {"both bytes and inputs",
       [](json& d) { d["models"]["dm"]["input_bytes_per_item"] = "1kB"; }, "", {},
       "models.dm.inputs", {"both `input_bytes_per_item` and `inputs`"}},
      {"bad dtype", [](json& d) { d["models"]["dm"]["inputs"][0]["dtype"] = "FP8"; }, "", {},
       "models.dm.inputs[0].dtype", {"found \"FP8\"", "\"FP16\""}},
      {"variable dimension",
       [](json& d) { d["models"]["dm"]["inputs"][0]["shape"][1] = -1; }, "", {},
       "models.dm.inputs[0].shape[1]", {"found -1", "variable (-1) dimensions"}},
      {"negative max_batch_size", [](json& d) { d["models"]["pn"]["max_batch_size"] = -4; }, "",
       {}, "models.pn.max_batch_size", {"found -4", "0 means no limit"}},
      {"instances 0", [](json& d) { d["models"]["pn"]["instances"] = 0; }, "", {},
       "models.pn.instances", {"found 0"}},
      {"models as an array", [](json& d) { d["models"] = json::array(); }, "", {}, "models",
       {"found an empty array", "expected an object"}},
  });
}

TEST_CASE("bad input catalogue: overrides", "[loader][bad][override]") {
  run_file_catalogue({
      {"override index out of range", {}, "", {"servers.5.count=2"}, "servers.5.count",
       {"--set servers.5.count=2", "index 5 is out of range", "has 1 element"}},
      {"override through a missing parent", {}, "", {"network.wan.bandwidth=1e9"},
       "network.wan.bandwidth",
       {"--set network.wan.bandwidth=1e9", "`network.wan` does not exist"}},
      {"override with a non-numeric array index", {}, "", {"servers.first.count=2"},
       "servers.first.count", {"numeric index"}},
      {"override through a scalar", {}, "", {"duration.value=3"}, "duration.value",
       {"it has no member `value`"}},
      {"override giving inf", {}, "", {"duration=1e400"}, "duration",
       {"found inf", "finite", "(value from --set duration=1e400)"}},
      {"override with a bad value", {}, "", {"workload.jobs=-3"}, "workload.jobs",
       {"found -3", "(value from --set workload.jobs=-3)"}},
      {"override adding an unknown key", {}, "", {"workload.jbos=3"}, "workload.jbos",
       {"did you mean `jobs`?", "--set workload.jbos=3"}},
      {"override replacing an object", {}, "",
       {"models.pn.dynamic_batching={\"preferred_batch_size\": [1000]}"},
       "models.pn.dynamic_batching.preferred_batch_size[0]",
       {"found 1000", "value from --set models.pn.dynamic_batching="}},
      {"override with a string where a number is expected", {}, "", {"servers.0.count=two"},
       "servers[0].count", {"found \"two\"", "--set servers.0.count=two"}},
  });
  CHECK_THROWS_AS(parse_override("workload.jobs"), InputError);
  CHECK_THROWS_WITH(parse_override("=3"), Catch::Contains("KEY.PATH=VALUE"));
}

// clang-format on

TEST_CASE("every problem is reported at once", "[loader][bad]") {
  json doc = base_doc();
  doc["duration"] = "soon";
  doc["workload"]["threads_per_job"] = 0;
  doc["workload"]["requests"][0]["model"] = "missing";
  doc["models"]["pn"]["service_time"]["batch"] = {1, 16, 2};
  doc["servers"][0]["count"] = -1;
  doc["network"]["client_nic"]["latency"] = "1 fortnight";
  const auto problems = validate_file(loader_write_temp(doc.dump()));
  INFO(dump(problems));
  CHECK(problems.size() == 6);
}

TEST_CASE("NaN and inf built in code are refused", "[loader][bad]") {
  json doc = base_doc();
  doc["workload"]["requests"][0]["offload_fraction"] = std::nan("");
  doc["network"]["client_nic"]["bandwidth"] = std::numeric_limits<double>::infinity();
  doc["seed"] = std::numeric_limits<double>::infinity();
  try {
    load_json(doc);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    INFO(dump(e.problems()));
    CHECK(has_problem(e.problems(), "workload.requests[0].offload_fraction",
                      {"found NaN", "finite"}));
    CHECK(has_problem(e.problems(), "network.client_nic.bandwidth", {"found inf"}));
    CHECK(has_problem(e.problems(), "seed", {"found inf"}));
  }
}

TEST_CASE("did-you-mean prefers a dropped letter on a tie", "[loader]") {
  nlohmann::json doc = {{"duration", 10},
                        {"workload", {{"jobs", 1}, {"cpu_time_per_event", 1}}},
                        {"sever", nlohmann::json::array()}};
  try {
    sonicsim::scenario::load_json(doc, "t.json");
    FAIL("accepted an unknown key");
  } catch (const sonicsim::scenario::InputError& e) {
    CHECK(std::string(e.what()).find("did you mean `servers`?") != std::string::npos);
  }
}

TEST_CASE("a distribution's spread must be one a sampler can draw; a NUL byte ends no document",
          "[loader]") {
  const auto problems_with = [](const std::string& dist) {
    return validate_file(loader_write_temp(base_doc().dump()),
                         parsed_overrides({"workload.cpu_time_per_event=" + dist}));
  };
  for (const char* kind : {"gamma", "lognormal", "normal"}) {
    const std::string k = kind;
    CHECK(has_problem(problems_with(R"({"dist":")" + k + R"(","mean":"1s","cv":1e-160})"),
                      "workload.cpu_time_per_event.cv",
                      {"found a coefficient of variation of 1e-160",
                       "expected 0 or one from "
                       "1e-06 to 100"}));
    CHECK(has_problem(problems_with(R"({"dist":")" + k + R"(","mean":"1s","cv":1e155})"),
                      "workload.cpu_time_per_event.cv", {"1e+155"}));
    CHECK(has_problem(problems_with(R"({"dist":")" + k + R"(","mean":"1s","stddev":"1ns"})"),
                      "workload.cpu_time_per_event.stddev", {"1e-09"}));
    // 0 (no spread) and the ends of the range load.
    for (const char* cv : {"0", "1e-6", "100", "0.5"})
      CHECK(problems_with(R"({"dist":")" + k + R"(","mean":"1s","cv":)" + cv + "}").empty());
  }

  std::string text = base_doc().dump();
  text.insert(text.size() - 1, std::string("\0, \"x\": 1", 9));
  const auto problems = validate_file(loader_write_temp(text), {});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message.find("found a NUL byte, expected JSON text") != std::string::npos);
  CHECK(problems[0].message.rfind("line 1, column ", 0) == 0);
}

TEST_CASE("time series: bad settings name the key", "[results]") {
  json doc = deterministic(2, 1);
  doc["duration"] = "1h";
  doc["warmup"] = 1.0;
  doc["timeseries"] = {{"interval", "1ms"}};
  try {
    scenario_of(doc);
    FAIL("an interval giving 3.6 million samples was accepted");
  } catch (const sonicsim::scenario::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("timeseries.interval") &&
                             Catch::Contains("at most 1,000,000 samples"));
  }
  doc["timeseries"] = "often";
  CHECK_THROWS_WITH(scenario_of(doc), Catch::Contains("timeseries") &&
                                          Catch::Contains("expected true, false or an object"));
  doc["timeseries"] = {{"interval", "10s"}, {"every", 2}};
  CHECK_THROWS_WITH(scenario_of(doc), Catch::Contains("timeseries.every"));
  doc["timeseries"] = true;
  CHECK(scenario_of(doc).timeseries_interval == 10.0);
  doc["timeseries"] = false;
  CHECK(scenario_of(doc).timeseries_interval == 0.0);
}
