// The device catalogue's figures in a scenario (src/scenario/load_catalogue.cpp): a pool's device
// takes the catalogue's memory and power where the scenario leaves them out, a scenario value
// overrides them field by field, `devices.D.catalogue` opts out or names another entry, and a
// name the catalogue does not know is refused with the JSON path and a did-you-mean.
#include "results_support.hpp"
#include "support.hpp"

#include <sonicsim/results/results.hpp>
#include <sonicsim/results_format/keys.hpp>

using namespace test;
using namespace sonicsim;

namespace {

constexpr double kLcGiB = 1024.0 * 1024.0 * 1024.0;
// The T4's catalogue figures: NVIDIA's 70 W power limit, the estimate rule's quarter of it.
constexpr double kLcT4LimitW = 70.0, kLcT4IdleW = 17.5;

const scenario::DeviceSpec& lc_device_of(const scenario::Scenario& s, const std::string& name) {
  const scenario::DeviceSpec* d = s.find_device(name);
  REQUIRE(d != nullptr);
  return *d;
}

}  // namespace

TEST_CASE("device catalogue: a pool's device takes the catalogue's memory and power", "[devices]") {
  const auto s = scenario_of(deterministic(2, 1));  // one T4, no `devices`
  const auto& d = lc_device_of(s, "T4");
  CHECK(d.catalogue == "T4");
  CHECK(*d.memory == 16 * kLcGiB);
  REQUIRE(d.power);
  CHECK(d.power->idle() == kLcT4IdleW);
  CHECK(d.power->busy() == kLcT4LimitW);
  CHECK(d.power->linear());
  CHECK(d.from_catalogue.memory);
  CHECK(d.from_catalogue.power_idle);
  CHECK(d.from_catalogue.power_busy);
  CHECK(d.from_catalogue.idle_estimate);

  // A Kubernetes label names the same card; a device the catalogue does not know has nothing.
  json doc = deterministic(2, 1);
  doc["servers"][0]["device"] = "Tesla-T4";
  CHECK(lc_device_of(scenario_of(doc), "Tesla-T4").catalogue == "T4");
  doc["servers"][0]["device"] = "GPU";
  CHECK(scenario_of(doc).find_device("GPU") == nullptr);
}

TEST_CASE("device catalogue: a scenario value overrides the catalogue field by field",
          "[devices]") {
  json doc = deterministic(2, 1);
  SECTION("memory") {
    doc["devices"] = {{"T4", {{"memory", "15GiB"}}}};
    const auto s = scenario_of(doc);
    const auto& d = lc_device_of(s, "T4");
    CHECK(*d.memory == 15 * kLcGiB);
    CHECK(!d.from_catalogue.memory);
    CHECK(d.power->idle() == kLcT4IdleW);  // power still from the catalogue
    CHECK(d.from_catalogue.power_idle);
  }
  SECTION("idle power alone: busy stays the power limit") {
    doc["devices"] = {{"T4", {{"power", {{"idle", "36W"}}}}}};
    const auto s = scenario_of(doc);
    const auto& d = lc_device_of(s, "T4");
    CHECK(d.power->idle() == 36.0);
    CHECK(d.power->busy() == kLcT4LimitW);
    CHECK(!d.from_catalogue.power_idle);
    CHECK(!d.from_catalogue.idle_estimate);
    CHECK(d.from_catalogue.power_busy);
    CHECK(d.from_catalogue.memory);
  }
  SECTION("busy power alone: idle stays the estimate") {
    doc["devices"] = {{"T4", {{"power", {{"busy", "60W"}}}}}};
    const auto s = scenario_of(doc);
    const auto& d = lc_device_of(s, "T4");
    CHECK(d.power->idle() == kLcT4IdleW);
    CHECK(d.power->busy() == 60.0);
    CHECK(d.from_catalogue.power_idle);
    CHECK(d.from_catalogue.idle_estimate);
    CHECK(!d.from_catalogue.power_busy);
  }
  SECTION("a curve replaces the catalogue's line") {
    doc["devices"] = {{"T4", {{"power", {{"utilization", {0, 0.5, 1}}, {"watts", {30, 50, 65}}}}}}};
    const auto s = scenario_of(doc);
    const auto& d = lc_device_of(s, "T4");
    CHECK(d.power->watts.size() == 3);
    CHECK(!d.from_catalogue.power_idle);
    CHECK(!d.from_catalogue.power_busy);
  }
  SECTION("busy below the catalogue's idle is refused, naming where idle came from") {
    doc["devices"] = {{"T4", {{"power", {{"busy", "10W"}}}}}};
    const std::string e = load_error(doc);
    CHECK(e.find("devices.T4.power.busy") != std::string::npos);
    CHECK(e.find("17.5 W from the catalogue's T4") != std::string::npos);
  }
  SECTION("a device without a catalogue entry still needs both ends") {
    doc["servers"][0]["device"] = "GPU";
    doc["models"]["m"]["service_time"] = {{"GPU", {{"batch", {1}}, {"seconds", {0.01}}}}};
    doc["devices"] = {{"GPU", {{"power", {{"idle", "36W"}}}}}};
    CHECK(load_error(doc).find("devices.GPU.power.busy") != std::string::npos);
  }
}

TEST_CASE("device catalogue: `catalogue` opts out, names another entry, or is refused",
          "[devices]") {
  json doc = deterministic(2, 1);
  SECTION("false: no catalogue figures, no energy") {
    doc["devices"] = {{"T4", {{"catalogue", false}}}};
    const auto s = scenario_of(doc);
    const auto& d = lc_device_of(s, "T4");
    CHECK(d.catalogue.empty());
    CHECK(!d.memory);
    CHECK(!d.power);
    const auto j = test::results_of(s, runner::simulate(s, runner::TransportChoice{}));
    CHECK(!j.contains(results::keys::top::energy));
    CHECK(!j.contains(results::keys::top::devices));
  }
  SECTION("false keeps the scenario's own figures") {
    doc["devices"] = {{"T4", {{"catalogue", false}, {"memory", "15GiB"}}}};
    const auto s = scenario_of(doc);
    const auto& d = lc_device_of(s, "T4");
    CHECK(*d.memory == 15 * kLcGiB);
    CHECK(!d.power);
  }
  SECTION("a name: a device the pools call \"GPU\" is an A30") {
    doc["servers"][0]["device"] = "GPU";
    doc["models"]["m"]["service_time"] = {{"GPU", {{"batch", {1}}, {"seconds", {0.01}}}}};
    doc["devices"] = {{"GPU", {{"catalogue", "NVIDIA-A30"}}}};
    const auto s = scenario_of(doc);
    const auto& d = lc_device_of(s, "GPU");
    CHECK(d.catalogue == "A30");
    CHECK(*d.memory == 24 * kLcGiB);
    CHECK(d.power->busy() == 165.0);
  }
  SECTION("an unknown name, with a hint") {
    doc["devices"] = {{"T4", {{"catalogue", "A3O"}}}};
    const std::string e = load_error(doc);
    CHECK(e.find("devices.T4.catalogue") != std::string::npos);
    CHECK(e.find("found \"A3O\"") != std::string::npos);
    CHECK(e.find("did you mean `A30`?") != std::string::npos);
  }
  SECTION("true for a device the catalogue does not know") {
    doc["servers"][0]["device"] = "T5";
    doc["models"]["m"]["service_time"] = {{"T5", {{"batch", {1}}, {"seconds", {0.01}}}}};
    doc["devices"] = {{"T5", {{"catalogue", true}}}};
    const std::string e = load_error(doc);
    CHECK(e.find("devices.T5.catalogue") != std::string::npos);
    CHECK(e.find("did you mean `T4`?") != std::string::npos);
  }
  SECTION("neither a boolean nor a name") {
    doc["devices"] = {{"T4", {{"catalogue", 4}}}};
    CHECK(load_error(doc).find("expected true, false") != std::string::npos);
  }
}
