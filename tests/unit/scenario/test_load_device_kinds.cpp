// The loader reads `devices.D.kind`, `devices.D.overlap` and a model's pipeline timing, and
// refuses what the engine could not run as written (docs/servers.md).
#include "support.hpp"

using namespace test;

namespace {

json fpga_scenario() {
  json doc = deterministic(4, 1);
  doc["devices"] = {{"T4", {{"kind", "pipeline"}}}};
  doc["models"]["m"]["service_time"] = {{"T4", {{"latency", "1.8ms"}, {"throughput", "625/s"}}}};
  return doc;
}

}  // namespace

TEST_CASE("loader: device kinds, overlap curves and pipeline timings", "[loader][devices]") {
  SECTION("an overlap curve is read as given, linear between points and flat beyond") {
    json doc = deterministic(4, 1);
    doc["devices"] = {
        {"T4", {{"overlap", {{"executions", {1, 2, 4}}, {"throughput", {1.0, 1.6, 1.9}}}}}}};
    const auto s = scenario_of(doc);
    const auto* d = s.find_device("T4");
    REQUIRE(d);
    REQUIRE(d->overlap());
    CHECK(d->overlap()->at(1) == 1.0);
    CHECK(d->overlap()->at(3) == Approx(1.75));
    CHECK(d->overlap()->at(8) == Approx(1.9));
  }
  SECTION("a pipeline timing: interval from throughput, and a curve for the formulas") {
    const auto s = scenario_of(fpga_scenario());
    const auto& m = s.models.front();
    const auto& p = m.pipeline_time.at("T4");
    CHECK(p.latency == Approx(0.0018));
    CHECK(p.interval == Approx(1.0 / 625));
    // latency + (n - 1) x interval: a request of n items alone.
    CHECK(m.curve_for("T4").at(1) == Approx(0.0018));
    CHECK(m.curve_for("T4").at(4) == Approx(0.0018 + 3.0 / 625));
  }
  SECTION("a pipeline serves one model") {
    json doc = fpga_scenario();
    doc["models"]["n"] = doc["models"]["m"];
    doc["servers"][0]["models"] = {"m", "n"};
    CHECK_THAT(load_error(doc), Catch::Contains("servers[0].models: found 2 models on pipeline"));
  }
  SECTION("a pipeline device reached through the \"*\" curve is refused") {
    json doc = deterministic(4, 1);
    doc["devices"] = {{"T4", {{"kind", "pipeline"}}}};
    CHECK_THAT(load_error(doc), Catch::Contains("servers[0].models[0]: model `m` has only a"));
  }
  SECTION("a pipeline timing at the top of service_time names no device") {
    json doc = deterministic(4, 1);
    doc["models"]["m"]["service_time"] = {{"latency", "1ms"}, {"interval", "1ms"}};
    CHECK_THAT(load_error(doc), Catch::Contains("pipeline timing for no device"));
  }
}
