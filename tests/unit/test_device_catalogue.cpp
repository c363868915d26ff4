// The device catalogue (docs/devices.md): every name and alias finds its entry, every figure
// says where it comes from (idle powers as estimates), and a run's energy is the catalogue's
// power integrated over the device's utilization, checked against a hand computation. How a
// scenario takes, overrides or opts out of the catalogue's figures is
// scenario/test_load_catalogue.cpp.
#include <cctype>
#include <set>

#include "results_support.hpp"
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/devices/catalogue.hpp>
#include <sonicsim/results/energy.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/results_format/keys.hpp>

using namespace test;
using namespace sonicsim;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// The T4's catalogue figures: NVIDIA's 70 W power limit, the estimate rule's quarter of it.
constexpr double kT4LimitW = 70.0, kT4IdleW = 17.5;

std::string spaced_lower(std::string name) {
  for (char& c : name) c = c == '-' ? ' ' : static_cast<char>(std::tolower(c));
  return name;
}

}  // namespace

TEST_CASE("device catalogue: every name and alias finds its own entry, in any case and spacing",
          "[devices]") {
  std::set<std::string> seen;
  for (const devices::Entry& e : devices::catalogue()) {
    std::vector<std::string> names = e.aliases;
    names.push_back(e.name);
    for (const std::string& n : names) {
      INFO(n);
      CHECK(devices::find(n) == &e);
      CHECK(devices::find(spaced_lower(n)) == &e);
      // No name resolves to two entries: the first would hide the second.
      CHECK(seen.insert(spaced_lower(n)).second);
    }
  }
  // The names pools use: the gallery's, Kubernetes' nvidia.com/gpu.product labels.
  CHECK(devices::find("Tesla-T4")->name == "T4");
  CHECK(devices::find("Tesla T4")->name == "T4");
  CHECK(devices::find("NVIDIA-A100-SXM4-80GB")->name == "A100-SXM4-80GB");
  CHECK(devices::find("NVIDIA-A100-80GB-PCIe")->name == "A100-PCIE-80GB");
  CHECK(devices::find("A100")->name == "A100-SXM4-40GB");
  CHECK(devices::find("V100")->name == "V100-SXM2-16GB");
  CHECK(devices::find("H100")->name == "H100-SXM5-80GB");
  CHECK(devices::find("MI100")->kind == devices::Kind::Gpu);
  CHECK(devices::find("Brainwave")->kind == devices::Kind::Fpga);
  CHECK(devices::find("U250")->name == "Alveo-U250");
  CHECK(devices::find("T5") == nullptr);
  CHECK(devices::find("") == nullptr);
  CHECK(devices::find("CPU") == nullptr);
}

TEST_CASE("device catalogue: each figure names its source, and every idle power is an estimate",
          "[devices]") {
  for (const devices::Entry& e : devices::catalogue()) {
    INFO(e.name);
    CHECK(!e.description.empty());
    for (const devices::Figure* f : {&e.memory, &e.power_limit, &e.idle_power})
      CHECK(!f->source.empty());
    CHECK(!e.memory.estimate);
    CHECK(!e.power_limit.estimate);
    if (e.power_limit.value) {
      REQUIRE(e.idle_power.value);
      CHECK(e.idle_power.estimate);
      CHECK(e.idle_power.source.rfind("estimate:", 0) == 0);
      CHECK(*e.idle_power.value == Approx(0.25 * *e.power_limit.value));
      CHECK(e.power_limit.source.find("estimate") == std::string::npos);
    } else {
      CHECK(!e.idle_power.value);
    }
    if (e.memory.value) CHECK(e.memory.source.find("estimate") == std::string::npos);
  }
  const devices::Entry& t4 = *devices::find("T4");
  CHECK(*t4.memory.value == 16 * kGiB);
  CHECK(*t4.power_limit.value == kT4LimitW);
  CHECK(*t4.idle_power.value == kT4IdleW);
  const devices::Entry& brainwave = *devices::find("Brainwave");
  CHECK(!brainwave.memory.value);
  CHECK(brainwave.memory.source.find("not published") != std::string::npos);
}

TEST_CASE("device catalogue: a T4's energy is its catalogue power integrated over its busy time",
          "[devices][energy]") {
  // One thread, one T4, constant times: every event is 50 ms of CPU work and one 10 ms
  // execution, so the device is busy exactly 10 ms per execution and idle otherwise.
  json doc = deterministic(1, 1, 0.1, 0.5, 0.01);
  doc["duration"] = 60.0;
  doc["warmup"] = 10.0;
  const auto s = scenario_of(doc);
  const auto out = runner::simulate(s, runner::TransportChoice{});
  const auto& m = out.metrics;
  const double T = 50.0;
  REQUIRE(m.span() == Approx(T));
  const double executions = static_cast<double>(m.pools[0].executions);
  REQUIRE(executions > 0);
  // By hand: 17.5 W all the time, and the 52.5 W between idle and the 70 W limit while busy.
  const double busy_s = executions * 0.01;
  const double by_hand = T * kT4IdleW + (kT4LimitW - kT4IdleW) * busy_s;
  // A cycle is 50 ms of CPU, a round trip of 2 x 0.6 ms of latency plus 8 us of transfer, and
  // the 10 ms execution: about 820 executions in 50 s.
  CHECK(executions == Approx(T / (0.05 + 0.0012 + 0.000008 + 0.01)).epsilon(0.01));

  const auto j = test::results_of(s, out);
  namespace k = results::keys;
  REQUIRE(j.contains(k::top::energy));
  const double devices_j =
      j[k::top::energy][k::energy::components][k::energy_component::devices].get<double>();
  CHECK(devices_j == Approx(by_hand).epsilon(1e-3));
  // Only the device draws: the catalogue gives no host or core power.
  CHECK(j[k::top::energy][k::energy::joules].get<double>() == Approx(devices_j).epsilon(1e-15));

  // The results say which figures it rests on.
  const auto& d = j[k::top::devices]["T4"];
  CHECK(d[k::device::catalogue] == "T4");
  CHECK(d[k::device::memory_bytes].get<double>() == 16 * kGiB);
  CHECK(d[k::device::memory_from] == k::figure_source::catalogue);
  CHECK(d[k::device::power_idle_w].get<double>() == kT4IdleW);
  CHECK(d[k::device::power_idle_from] == k::figure_source::catalogue_estimate);
  CHECK(d[k::device::power_busy_w].get<double>() == kT4LimitW);
  CHECK(d[k::device::power_busy_from] == k::figure_source::catalogue);
  // And the pool reports the memory it has.
  CHECK(j[k::top::servers][0][k::server::memory_capacity_bytes].get<double>() == 16 * kGiB);
}

TEST_CASE("device catalogue: idle and saturated T4s draw the catalogue's idle and limit",
          "[devices][energy]") {
  SECTION("no request reaches the device") {
    json doc = deterministic(2, 1);
    doc["duration"] = 60.0;
    doc["warmup"] = 10.0;
    doc["models"]["unused"] = doc["models"]["m"];
    doc["servers"][0]["models"] = {"unused"};
    const auto s = scenario_of(doc);
    const auto out = runner::simulate(s, runner::TransportChoice{});
    CHECK(results::run_account(s, out.metrics).joules[0] == Approx(50.0 * kT4IdleW));
  }
  SECTION("64 threads keep one device busy") {
    json doc = deterministic(64, 1, 0.1, 0.5, 0.01);
    doc["duration"] = 60.0;
    doc["warmup"] = 10.0;
    const auto s = scenario_of(doc);
    const auto out = runner::simulate(s, runner::TransportChoice{});
    REQUIRE(out.metrics.pools[0].utilization[0] > 0.999);
    CHECK(results::run_account(s, out.metrics).joules[0] == Approx(50.0 * kT4LimitW).epsilon(1e-3));
  }
}
