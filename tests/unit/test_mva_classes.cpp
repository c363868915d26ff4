// Multi-class MVA for the threads of several sites (analytic/mva_classes.cpp): one class is
// single-class MVA, the classes conserve their customers, Schweitzer's approximation is close to
// the exact recursion, and a two-site simulation of a product-form network agrees with it per
// site.
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/analytic/mva.hpp>

using namespace test;
namespace an = sonicsim::analytic;

namespace {

an::ClosedNetwork mc_network() {
  an::ClosedNetwork net;
  net.think_time_s = 0.04;
  net.stations = {{0.01, 4}, {0.02, 1}};
  return net;
}

}  // namespace

TEST_CASE("multi-class MVA: classes of equal think time are single-class MVA", "[mva][sites]") {
  const auto net = mc_network();
  const auto one = an::solve_mva(net, 30);
  const auto two = an::solve_mva_classes(net, {0.04, 0.04}, {12, 18});
  REQUIRE(two.exact);
  CHECK(two.total.throughput == Approx(one.throughput).epsilon(1e-12));
  CHECK(two.throughput[0] / 12 == Approx(two.throughput[1] / 18).epsilon(1e-12));
  for (std::size_t s = 0; s < net.stations.size(); ++s) {
    CHECK(two.total.queue_length[s] == Approx(one.queue_length[s]).epsilon(1e-12));
    CHECK(two.total.arrival_queue[s] == Approx(one.arrival_queue[s]).epsilon(1e-12));
  }
}

TEST_CASE("multi-class MVA: customers are conserved, Schweitzer is close", "[mva][sites]") {
  const auto net = mc_network();
  const std::vector<double> think = {0.04, 0.09};
  const std::vector<std::int64_t> n = {20, 15};
  const auto exact = an::solve_mva_classes(net, think, n);
  REQUIRE(exact.exact);
  // Each class: N_c = X_c (Z_c + its residence); all: queues + thinking = N.
  double thinking = 0.0, queued = 0.0;
  for (std::size_t c = 0; c < 2; ++c) thinking += exact.throughput[c] * think[c];
  for (std::size_t s = 0; s < net.stations.size(); ++s)
    queued += exact.total.queue_length[s] * static_cast<double>(net.stations[s].count);
  CHECK(thinking + queued == Approx(35.0).epsilon(1e-9));
  // The far class (50 ms more think) cycles about that much slower: the devices treat both alike.
  CHECK(exact.cycle_time_s[1] - exact.cycle_time_s[0] == Approx(0.05).epsilon(0.1));
  const auto approx = an::solve_mva_classes(net, think, n, 1.0);
  CHECK_FALSE(approx.exact);
  for (std::size_t c = 0; c < 2; ++c)
    CHECK(approx.throughput[c] == Approx(exact.throughput[c]).epsilon(0.03));
}

TEST_CASE("two sites of a product-form network: the simulation agrees with multi-class MVA",
          "[mva][sites]") {
  // Exponential CPU and service times, random routing: MVA is exact. Site x is next to the
  // GPUs, site y 30 ms away (a pure delay, which product form allows with any distribution).
  json nic = {{"bandwidth", "100Gbps"}, {"latency", "100us"}};
  json doc = {
      {"seed", 3},
      {"duration", 4000.0},
      {"warmup", 100.0},
      {"workload",
       {{"sites", {{"x", 1}, {"y", 1}}},
        {"jobs", 24},
        {"threads_per_job", 1},
        {"cpu_time_per_event", {{"dist", "exponential"}, {"mean", "50ms"}}},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.2}}})}}},
      {"models",
       {{"m",
         {{"input_bytes_per_item", 0},
          {"output_bytes_per_item", 0},
          {"max_batch_size", 1},
          {"service_time", {{"batch", {1}}, {"seconds", {"10ms"}}, {"dist", "exponential"}}}}}}},
      {"servers",
       json::array(
           {{{"name", "gpu"}, {"site", "x"}, {"count", 4}, {"device", "T4"}, {"models", {"m"}}}})},
      {"load_balancer", {{"policy", "random"}}},
      {"sites",
       {{{"name", "x"}, {"network", {{"client_nic", nic}}}},
        {{"name", "y"}, {"network", {{"client_nic", nic}}}}}},
      {"wan",
       {{"links",
         json::array(
             {{{"between", {"x", "y"}}, {"bandwidth", "100Gbps"}, {"latency", "15ms"}}})}}}};
  const auto pr = an::predict(scenario_of(doc));
  REQUIRE(pr.sites.size() == 2);
  REQUIRE(pr.sites[0].mva_time_per_event_s.has_value());
  REQUIRE(pr.sites[1].mva_time_per_event_s.has_value());
  const auto m = run(doc);
  REQUIRE(m.sites.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    CHECK(m.sites[i].time_per_event.mean() ==
          Approx(*pr.sites[i].mva_time_per_event_s).epsilon(0.02));
  }
  REQUIRE(pr.mva.has_value());
  CHECK(throughput(m) == Approx(pr.mva->throughput_per_s).epsilon(0.02));
}
