// Transfers: literal latencies and bandwidths, bandwidth sharing by the flow model (sonicsim's
// max-min flows; tests/unit/test_flows.cpp holds them to SimGrid's), and agreement between the
// analytic fast path and the flow path on lightly loaded links.
#include "support.hpp"

#include <map>
#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/platform/flow_network.hpp>

using namespace test;

namespace {

// Starts the transfers it is given at t = 0 and records when each arrives.
class Recorder final : public sonicsim::engine::TransferSink, public sonicsim::engine::EventCore {
 public:
  explicit Recorder(std::function<void()> start) : start_(std::move(start)) {}
  double next_time() const override { return started_ ? 1e300 : 0.0; }
  void process_through(double) override {
    if (!started_) start_();
    started_ = true;
  }
  void hold_at(double) override {}
  void on_transfer_done(std::uint32_t token, double now) override { arrived[token] = now; }
  std::map<std::uint32_t, double> arrived;

 private:
  std::function<void()> start_;
  bool started_ = false;
};

json two_nodes_one_device() {
  auto doc = deterministic(2, 1);
  doc["network"] = {{"client_nic", {{"bandwidth", "10Gbps"}, {"latency", "100us"}}},
                    {"site_uplink", {{"bandwidth", "1Gbps"}, {"latency", "1ms"}}},
                    {"server_nic", {{"bandwidth", "25Gbps"}, {"latency", "100us"}}}};
  return doc;
}

// 32 threads send ~300 requests/s of 2 MB: the 6 Gbps uplink is ~80% busy one way, the GPUs
// are not, and 100 B responses cross the other direction.
json loaded_uplink() {
  auto doc = deterministic(32, 4, 0.1, 0.1, 0.001);
  doc["workload"]["jobs_per_node"] = 8;
  doc["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 0.1}};
  doc["models"]["m"]["input_bytes_per_item"] = "2MB";
  doc["network"]["site_uplink"]["bandwidth"] = "6Gbps";
  doc["duration"] = 100.0;
  doc["warmup"] = 10.0;
  return doc;
}

// Arrival times of transfers started together at t = 0 on the two-node platform.
struct Send {
  std::uint32_t node;
  sonicsim::engine::Direction dir;
  double bytes;
  std::uint32_t token;
};
std::map<std::uint32_t, double> arrivals(const std::vector<Send>& sends) {
  const auto s = scenario_of(two_nodes_one_device());
  sonicsim::platform::FlowNetwork* net = nullptr;
  Recorder rec([&] {
    for (const Send& x : sends) net->send(0.0, x.node, 0, x.dir, x.bytes, x.token);
  });
  sonicsim::platform::FlowNetwork network(s, rec, rec);
  net = &network;
  network.drive(100.0);
  return rec.arrived;
}

using sonicsim::engine::Direction;

}  // namespace

TEST_CASE("flow model: one transfer of S bytes takes L + S/B", "[network][flow]") {
  auto arrived = arrivals({{0, Direction::ToServer, 1e7, 7}});
  REQUIRE(arrived.count(7) == 1);
  CHECK(arrived[7] == Approx(1.2e-3 + 1e7 / 1.25e8).epsilon(1e-9));
}

TEST_CASE("flow model: two flows share the bottleneck", "[network][flow]") {
  auto arrived = arrivals({{0, Direction::ToServer, 1e7, 1}, {1, Direction::ToServer, 1e7, 2}});
  // Both cross the 1 Gbps uplink together: each gets half of it.
  CHECK(arrived[1] == Approx(1.2e-3 + 2e7 / 1.25e8).epsilon(1e-9));
  CHECK(arrived[2] == Approx(arrived[1]).epsilon(1e-12));
}

TEST_CASE("flow model: opposite directions do not share (full duplex)", "[network][flow]") {
  auto arrived = arrivals({{0, Direction::ToServer, 1e7, 1}, {1, Direction::ToClient, 1e7, 2}});
  CHECK(arrived[1] == Approx(1.2e-3 + 1e7 / 1.25e8).epsilon(1e-9));
  CHECK(arrived[2] == Approx(1.2e-3 + 1e7 / 1.25e8).epsilon(1e-9));
}

TEST_CASE("analytic path: an idle round trip takes 2 x latency + S_in/B + S_out/B", "[network]") {
  auto doc = deterministic(1, 1);
  doc["warmup"] = 0.0;
  doc["models"]["m"]["service_time"]["seconds"] = {1e-6};
  const auto m = run(doc);
  const double expected = 2 * 600e-6 + 10100.0 / 1.25e9 + 1e-6;
  CHECK(m.latency.mean() == Approx(expected).epsilon(1e-9));
  CHECK(m.latency.max() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("flow path: an idle round trip takes the same time", "[network][flow]") {
  auto doc = deterministic(1, 1);
  doc["warmup"] = 0.0;
  doc["models"]["m"]["service_time"]["seconds"] = {1e-6};
  const auto m = run(doc, true);
  const double expected = 2 * 600e-6 + 10100.0 / 1.25e9 + 1e-6;
  CHECK(m.transport == "flow");
  CHECK(m.latency.mean() == Approx(expected).epsilon(1e-6));
}

TEST_CASE("fast path and flow path agree on lightly loaded links", "[network][flow]") {
  auto doc = deterministic(200, 4);
  doc["workload"]["jobs_per_node"] = 8;
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.1}, {"cv", 0.5}};
  doc["duration"] = 100.0;
  doc["warmup"] = 10.0;
  const auto s = scenario_of(doc);
  sonicsim::runner::TransportChoice analytic;
  const auto flow = sonicsim::runner::TransportChoice::all_flows();
  const auto a = sonicsim::runner::simulate(s, analytic).metrics;
  const auto f = sonicsim::runner::simulate(s, flow).metrics;
  CHECK(f.transport == "flow");
  CHECK(f.time_per_event.mean() == Approx(a.time_per_event.mean()).epsilon(0.005));
  CHECK(f.latency.mean() == Approx(a.latency.mean()).epsilon(0.01));
  CHECK(static_cast<double>(f.events_completed) ==
        Approx(static_cast<double>(a.events_completed)).epsilon(0.005));
}

TEST_CASE("flow path: a loaded uplink slows requests the analytic path cannot see",
          "[network][flow]") {
  const auto s = scenario_of(loaded_uplink());
  sonicsim::runner::TransportChoice analytic;
  const auto flow = sonicsim::runner::TransportChoice::all_flows();
  const auto a = sonicsim::runner::simulate(s, analytic).metrics;
  const auto f = sonicsim::runner::simulate(s, flow).metrics;
  // Processor sharing at ~80% load stretches the 2.7 ms serialisation several-fold.
  CHECK(f.latency.mean() > 1.5 * a.latency.mean());
  check_conservation(f);
}

TEST_CASE("auto transport: flows only where contention matters, per direction", "[network][flow]") {
  const auto s = scenario_of(loaded_uplink());
  const auto prediction = sonicsim::analytic::predict(s);
  const auto choice = sonicsim::runner::choose_transport(s, prediction);
  CHECK(choice.flow_to_servers);
  CHECK_FALSE(choice.flow_to_clients);
  // The uplink carries every request: the most events per second the devices allow (MVA's
  // asymptotic bound, the formula's) x 2 MB over 6 Gbps.
  const double events =
      std::max({prediction.mva->throughput_per_s, prediction.mva->bounds.asymptotic_upper,
                prediction.throughput_per_s});
  CHECK(events >= prediction.mva->throughput_per_s);
  const double load = events * 2e6 / 0.75e9;
  CHECK(load > 0.7);
  CHECK(choice.worst_link_utilization == Approx(load).epsilon(1e-9));
  // Responses alone on their direction: flows or not, the same results.
  const auto mixed = sonicsim::runner::simulate(s, choice).metrics;
  CHECK(mixed.transport == "flow to servers, analytic to clients");

  auto light = two_nodes_one_device();
  light["network"]["site_uplink"]["bandwidth"] = "100Gbps";
  const auto light_scenario = scenario_of(light);
  const auto none = sonicsim::runner::choose_transport(light_scenario,
                                                       sonicsim::analytic::predict(light_scenario));
  CHECK_FALSE(none.any_flow());
}
