// Units that catch slips (issue 33): the plausibility warnings of a valid scenario, each with its
// JSON path and did-you-mean, --strict-units, and the units message that lists every spelling.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/units.hpp>

#include "problems.hpp"

using nlohmann::json;
using test::dump;
using test::has_problem;
using namespace sonicsim::scenario;

namespace {

namespace fs = std::filesystem;

const std::string kUnitsData = SONICSIM_TEST_DATA_DIR;

// Two models of about a millisecond, links of 10 and 100 Gbps: plausible in every respect.
json plausible_doc() {
  return json::parse(R"({
    "duration": "10min",
    "workload": {"jobs": 4, "threads_per_job": 2, "cpu_time_per_event": "1s",
                 "requests": [{"model": "a", "offload_fraction": 0.1},
                              {"model": "b", "offload_fraction": 0.1}]},
    "models": {
      "a": {"input_bytes_per_item": "10kB", "service_time": {"batch": [1, 8], "seconds": ["1.24ms", "3ms"]}},
      "b": {"input_bytes_per_item": "10kB", "service_time": {"batch": [1], "seconds": ["2ms"]}}
    },
    "servers": [{"name": "gpu", "count": 2, "device": "T4", "models": ["a", "b"]}],
    "network": {"client_nic": {"bandwidth": "10Gbps", "latency": "50us"},
                "site_uplink": {"bandwidth": "100Gbps", "latency": "100us"}}
  })");
}

std::vector<Problem> warnings_of(const json& doc) {
  try {
    return load_json(doc, "slips.json").warnings;
  } catch (const InputError& e) {
    FAIL("refused: " << e.what());
  }
  return {};
}

// The one warning at `path`, worded exactly.
void check_warning(const json& doc, const std::string& path, const std::string& message) {
  const auto w = warnings_of(doc);
  INFO(dump(w));
  REQUIRE(w.size() == 1);
  CHECK(w[0].path == path);
  CHECK(w[0].message == message);
}

struct UnitsTempDir {
  fs::path path = fs::temp_directory_path() / ("sonicsim-units-" + std::to_string(::getpid()));
  UnitsTempDir() { fs::create_directories(path); }
  ~UnitsTempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::string write_in(const UnitsTempDir& dir, const std::string& name, const std::string& text) {
  const fs::path file = dir.path / name;
  std::ofstream(file) << text;
  return file.string();
}

std::vector<Problem> strict_problems(const json& doc, const UnitsTempDir& dir) {
  const std::string file = write_in(dir, "strict.json", doc.dump());
  return validate_file(file, {}, {.strict_units = true});
}

}  // namespace

TEST_CASE("a plausible scenario and the shipped default have no warnings", "[loader][units]") {
  CHECK(warnings_of(plausible_doc()).empty());
  for (const char* file : {"/../../scenarios/default.json", "/with_calibration.json",
                           "/plan_two_sites.json", "/valid_minimal.json"}) {
    INFO(file);
    const auto s = load_file(kUnitsData + file);
    CHECK(dump(s.warnings).empty());
  }
}

TEST_CASE("a bandwidth under 1 Mbps warns with a unit in bits and one in bytes",
          "[loader][units]") {
  json doc = plausible_doc();
  doc["network"]["site_uplink"]["bandwidth"] = 100;
  check_warning(doc, "network.site_uplink.bandwidth",
                "100 is 100 B/s (800 bps): a bandwidth under 1 Mbps; did you mean \"100Gbps\" or "
                "\"100MB/s\"?");
  // With a unit too, wherever the bandwidth is (the balancer's NIC has no neighbours).
  doc = plausible_doc();
  doc["load_balancer"] = {{"capacity", {{"bandwidth", "500kbps"}}}};
  check_warning(doc, "load_balancer.capacity.bandwidth",
                "\"500kbps\" is 500 kbps: a bandwidth under 1 Mbps; did you mean \"500Mbps\" or "
                "\"500MB/s\"?");
}

TEST_CASE("a CPU time per event over 10 minutes warns, as a constant or in a distribution",
          "[loader][units]") {
  json doc = plausible_doc();
  doc["workload"]["cpu_time_per_event"] = 993.3;
  check_warning(doc, "workload.cpu_time_per_event",
                "993.3 is 993.3 s (16.6 min): a CPU time per event over 10 min; did you mean "
                "\"993.3ms\"?");
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 993.3}, {"cv", 0.3}};
  check_warning(doc, "workload.cpu_time_per_event.mean",
                "993.3 is 993.3 s (16.6 min): a CPU time per event over 10 min; did you mean "
                "\"993.3ms\"?");
  doc["workload"]["cpu_time_per_event"] = {{"dist", "empirical"}, {"values", {"0.9s", 1200}}};
  check_warning(doc, "workload.cpu_time_per_event.values[1]",
                "1200 is 1200 s (20.0 min): a CPU time per event over 10 min; did you mean "
                "\"1200ms\"?");
  // A spread is not the time itself: a stddev of 700 s on a mean of 10 min is left alone.
  doc["workload"]["cpu_time_per_event"] = {{"dist", "gamma"}, {"mean", "10min"}, {"stddev", 700}};
  CHECK(warnings_of(doc).empty());
  // In every workload of several, named by its own path.
  doc = plausible_doc();
  json w = doc["workload"];
  w["name"] = "reco";
  json w2 = w;
  w2["name"] = "analysis";
  w2["cpu_time_per_event"] = "1h";
  doc.erase("workload");
  doc["workloads"] = {w, w2};
  check_warning(doc, "workloads[1].cpu_time_per_event",
                "\"1h\" is 1.00 h: a CPU time per event over 10 min; did you mean \"1s\"?");
}

TEST_CASE("a service time over 10 s warns at every point", "[loader][units]") {
  json doc = plausible_doc();
  doc["models"]["a"]["service_time"]["seconds"] = {"1.24ms", 46.44};
  check_warning(doc, "models.a.service_time.seconds[1]",
                "46.44 is 46.44 s: a service time over 10 s; did you mean \"46.44ms\"?");
}

TEST_CASE("a service time 1000x the others' warns, naming the neighbour", "[loader][units]") {
  // Typed as milliseconds: 5.2 is 5.2 s, next to curves of 1.24 and 2 ms.
  json doc = plausible_doc();
  doc["models"]["b"]["service_time"]["seconds"] = {5.2};
  check_warning(doc, "models.b.service_time.seconds[0]",
                "5.2 is 5.2 s: 4194x the next largest service time (1.24 ms, "
                "models.a.service_time.seconds[0]); did you mean \"5.2ms\"?");
  // The devices of one model are neighbours too.
  doc = plausible_doc();
  doc["models"]["b"]["service_time"] = {{"T4", {{"batch", {1}}, {"seconds", {"2ms"}}}},
                                        {"CPU", {{"batch", {1}}, {"seconds", {"3s"}}}}};
  const auto w = warnings_of(doc);
  INFO(dump(w));
  CHECK(has_problem(w, "models.b.service_time.CPU.seconds[0]",
                    {"\"3s\" is 3.00 s: 1500x the next largest service time (2.00 ms, "
                     "models.b.service_time.T4.seconds[0]); did you mean \"3ms\"?"}));
  // 1000x is not more than 1000x.
  doc = plausible_doc();
  doc["models"]["b"]["service_time"]["seconds"] = {"3s"};
  doc["models"]["a"]["service_time"]["seconds"] = {"3ms", "4ms"};
  CHECK(warnings_of(doc).empty());
}

TEST_CASE("a service time 1000x the CPU time per event warns", "[loader][units]") {
  json doc = plausible_doc();
  doc["workload"]["cpu_time_per_event"] = "1ms";
  doc["models"]["a"]["service_time"]["seconds"] = {"1.5s", "2s"};
  doc["models"]["b"]["service_time"]["seconds"] = {"1s"};
  // b's 1 s is 1000x, not more.
  check_warning(doc, "models.a.service_time.seconds[0]",
                "\"1.5s\" is 1.50 s: 1500x the CPU time per event (1.00 ms, "
                "workload.cpu_time_per_event); did you mean \"1.5ms\"?");
  // A model no workload requests is not compared with the CPU time.
  doc["workload"]["requests"] = json::array({{{"model", "b"}, {"offload_fraction", 0.1}}});
  CHECK(warnings_of(doc).empty());
}

TEST_CASE("a link latency over 1 s, or 1000x the largest service time, warns", "[loader][units]") {
  json doc = plausible_doc();
  doc["network"]["wan"] = {{"bandwidth", "100Gbps"}, {"latency", 50}};
  check_warning(doc, "network.wan.latency",
                "50 is 50 s: a link latency over 1 s; did you mean \"50us\" or \"50ms\"?");
  doc["network"]["wan"]["latency"] = 0.9;
  CHECK(warnings_of(doc).empty());  // 450x the largest service time, 2 ms
  doc["models"]["a"]["service_time"]["seconds"] = {"0.3ms", "3ms"};
  doc["models"]["b"]["service_time"]["seconds"] = {"0.5ms"};
  check_warning(doc, "network.wan.latency",
                "0.9 is 0.9 s (900 ms): 1800x the largest service time (500 us, "
                "models.b.service_time.seconds[0]); did you mean \"0.9ms\"?");
}

TEST_CASE("a link's bandwidth 1000x below its network's others warns", "[loader][units]") {
  json doc = plausible_doc();
  doc["network"]["client_nic"]["bandwidth"] = "5Mbps";
  check_warning(doc, "network.client_nic.bandwidth",
                "\"5Mbps\" is 5.00 Mbps: 20000x below the next smallest bandwidth of `network` "
                "(100 Gbps, network.site_uplink.bandwidth); did you mean \"5Gbps\" or "
                "\"5GB/s\"?");
  // Sites' networks are compared each on its own: a practically unlimited site beside a 1 Gbps
  // one is no slip (tests/data/plan_two_sites.json, checked above).
}

TEST_CASE("a calibration file's service times are checked and named inside the file",
          "[loader][units]") {
  UnitsTempDir dir;
  write_in(dir, "cal.json", R"({"service_time": {"batch": [1, 2], "seconds": [0.002, 12]}})");
  json doc = plausible_doc();
  doc["models"]["b"]["service_time"] = {{"calibration", "cal.json"}};
  const std::string file = write_in(dir, "scenario.json", doc.dump());
  const auto s = load_file(file);
  INFO(dump(s.warnings));
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0].path == "models.b.service_time.calibration");
  CHECK(s.warnings[0].message == "in calibration file `" + (dir.path / "cal.json").string() +
                                     "`: service_time.seconds[1]: 12 is 12 s: a service time over "
                                     "10 s; did you mean \"12ms\"?");
  // sonicsim writes calibration files in seconds: --strict-units leaves them alone.
  CHECK(validate_file(file, {}, {.strict_units = true}).empty());
}

TEST_CASE("a warning made by --set says so", "[loader][units]") {
  UnitsTempDir dir;
  const std::string file = write_in(dir, "scenario.json", plausible_doc().dump());
  const auto s = load_file(file, {{"network.site_uplink.bandwidth", "100"}});
  REQUIRE(s.warnings.size() == 1);
  CHECK_THAT(s.warnings[0].message,
             Catch::Contains("did you mean") &&
                 Catch::Contains("(value from --set network.site_uplink.bandwidth=100)"));
  CHECK(warning_line("f.json", s.warnings[0])
            .rfind("f.json: network.site_uplink.bandwidth: warning: 100 is 100 B/s", 0) == 0);
}

TEST_CASE("under --strict-units a bare time, size or bandwidth other than 0 is refused",
          "[loader][units]") {
  UnitsTempDir dir;
  json doc = plausible_doc();
  CHECK(strict_problems(doc, dir).empty());
  doc["workload"]["cpu_time_per_event"] = 0.5;
  doc["models"]["a"]["input_bytes_per_item"] = 4700000;
  doc["models"]["a"]["service_time"]["seconds"] = {0.00124, "3ms"};
  doc["network"]["client_nic"]["bandwidth"] = 1.25e9;
  doc["network"]["client_nic"]["latency"] = "0.00005";  // a string of a bare number
  doc["network"]["site_uplink"]["latency"] = 0;         // 0 is 0 in every unit
  doc["models"]["a"]["dynamic_batching"] = {{"max_queue_delay_microseconds", 100}};  // named unit
  const auto p = strict_problems(doc, dir);
  INFO(dump(p));
  CHECK(p.size() == 5);
  CHECK(has_problem(p, "workload.cpu_time_per_event",
                    {"found 0.5, expected a time with its unit, such as \"500ms\" "
                     "(--strict-units)"}));
  CHECK(has_problem(p, "models.a.input_bytes_per_item",
                    {"found 4700000, expected a size with its unit, such as \"4.7MB\""}));
  CHECK(has_problem(p, "models.a.service_time.seconds[0]",
                    {"found 0.00124, expected a time with its unit, such as \"1.24ms\""}));
  CHECK(has_problem(p, "network.client_nic.bandwidth",
                    {"found 1250000000, expected a bandwidth with its unit, such as \"10Gbps\""}));
  CHECK(has_problem(p, "network.client_nic.latency",
                    {"found \"0.00005\", expected a time with its unit, such as \"50us\""}));
  // Without the flag the same file loads.
  CHECK(validate_file(write_in(dir, "lenient.json", doc.dump())).empty());
}

TEST_CASE("the units message lists every spelling the parser accepts", "[units]") {
  for (Quantity kind :
       {Quantity::Time, Quantity::Size, Quantity::Bandwidth, Quantity::Rate, Quantity::Power}) {
    const std::string listed = accepted_units(kind);
    std::string error;
    parse_quantity("1 furlongs", kind, error);
    CHECK_THAT(error, Catch::Contains(listed));
    for (const UnitSpelling& u : unit_spellings(kind)) {
      INFO(u.name);
      CHECK(listed.find(std::string(u.name)) != std::string::npos);
      std::string e;
      const auto v = parse_quantity("2" + std::string(u.name), kind, e);
      REQUIRE(v.has_value());
      CHECK(*v == Approx(2 * u.factor));
    }
  }
  CHECK(accepted_units(Quantity::Time) == "ns, us, \u00b5s, ms, s, min, h");
  CHECK_THAT(accepted_units(Quantity::Bandwidth),
             Catch::Contains("Tb/s (bits per second); B/s, kB/s, MB/s, GB/s, TB/s, Bps"));
  CHECK(with_unit(0.005, Quantity::Time) == "5ms");
  CHECK(with_unit(3600, Quantity::Time) == "3600s");
  CHECK(with_unit(1.25e9, Quantity::Bandwidth) == "10Gbps");
  CHECK(with_unit(4.7e6, Quantity::Size) == "4.7MB");
  CHECK(with_unit(3e-10, Quantity::Time) == "0.3ns");
  CHECK(written_bare(json(5)));
  CHECK(written_bare(json(" 0.5 ")));
  CHECK_FALSE(written_bare(json("5ms")));
  CHECK_FALSE(written_bare(json(nullptr)));
}
