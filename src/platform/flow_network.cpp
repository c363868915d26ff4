#include <sonicsim/platform/flow_network.hpp>
#include <sonicsim/util/numbers.hpp>

#include "platform_build.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <xbt/log.h>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>

namespace sonicsim::platform {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::timer::Timer;

namespace {
// SimGrid's clock resolution: timers and completions are exact to about a nanosecond.
constexpr double kTimeEps = 1e-9;
FlowNetwork* g_active = nullptr;  // SimGrid's completion signal is global
}  // namespace

struct FlowNetwork::Impl {
  engine::TransferSink& sink;
  engine::EventCore& sim;
  std::unique_ptr<sg4::Engine> engine;
  std::vector<sg4::CommPtr> live;  // by token (request id)
  // Finished transfers whose last reference must outlive SimGrid's handling of their end:
  // dropping it inside the completion callback frees the activity while SimGrid still walks
  // it (a crash in EngineImpl::handle_ended_actions). Released at the next timer.
  std::vector<sg4::CommPtr> retired;

  BuiltPlatform platform;
  // Run-ahead: no flow can arrive before start + path latency + bytes / narrowest bandwidth,
  // whatever it shares, so the core may process its events up to the earliest such bound
  // without waking SimGrid; it stops early when it wants to start a flow (hold_at).
  std::set<std::pair<double, std::uint32_t>> earliest;  // (lower bound of arrival, token)
  std::vector<double> earliest_of;                      // by token
  // By token: when its bytes start to move (after the route's latency), and how many. SimGrid
  // gives no history of a flow's rate, so its bytes are counted evenly over that span: a
  // window's figure can then differ from what passed in it, not the run's (docs/model.md).
  std::vector<double> moving_from, bytes_of;
  struct Pending {
    double time;
    std::uint32_t node, device, token;
    engine::Direction dir;
    double bytes;
  };
  std::vector<Pending> pending;
  Timer* timer = nullptr;
  double timer_at = kInf;
  double end = 0.0;
  Impl(const scenario::Scenario& s, engine::TransferSink& arrivals, engine::EventCore& core)
      : sink(arrivals), sim(core) {
    // SimGrid must not see the user's command line (it would take --help as its own).
    static int argc = 1;
    static char arg0[] = "sonicsim";
    static char* argv[] = {arg0, nullptr};
    xbt_log_control_set("root.thres:critical");
    engine = std::make_unique<sg4::Engine>(&argc, argv);
    // Literal latencies and bandwidths: no latency factor (CM02), and no TCP window bound, which
    // by default caps each flow at TCP-gamma / (2 x latency) and slowed a 1 GB transfer over a
    // 1 ms, 100 Gbps link six-fold in our measurements.
    engine->set_config("network/model:CM02");
    engine->set_config("network/TCP-gamma:0");
    engine->set_config("network/crosstraffic:0");
    platform = build_platform(s);
    degrade();
  }

  // Link degradations change the links' bandwidths at their times, by SimGrid's own timers: the
  // flows crossing them slow down or stall, and resume. An outage keeps a trickle (1e-9 of the
  // bandwidth): a link of bandwidth 0 is not something SimGrid's sharing model accepts.
  void degrade() {
    for (const auto& group : platform.degradable)
      for (const auto& [at, factor] : group.factors) {
        if (at <= 0.0 && factor == 1.0) continue;
        const double value = group.bandwidth * std::max(factor, 1e-9);
        Timer::set(at, [links = group.links, value] {
          for (auto* link : links) {
            link->get_link_up()->set_bandwidth(value);
            link->get_link_down()->set_bandwidth(value);
          }
        });
      }
  }

  void arm(double t) {
    if (!(t <= end) || (timer != nullptr && timer_at <= t)) return;
    if (timer != nullptr) timer->remove();
    timer_at = t;
    timer = Timer::set(t, [this] { on_timer(); });
  }

  void on_timer() {
    retired.clear();
    timer = nullptr;
    timer_at = kInf;
    const double now = sg4::Engine::get_clock();
    // Only the transfers whose time has come: the timer also fires for completions and for the
    // core's events, possibly before a transfer the core sent ahead of SimGrid's clock, which
    // must not leave early (it would arrive before it was sent).
    std::vector<Pending> due;
    const auto later =
        std::stable_partition(pending.begin(), pending.end(),
                              [now](const Pending& p) { return p.time <= now + kTimeEps; });
    due.assign(pending.begin(), later);
    pending.erase(pending.begin(), later);
    for (const Pending& p : due) start(p.node, p.device, p.dir, p.bytes, p.token);
    const double horizon = earliest.empty() ? kInf : earliest.begin()->first - kTimeEps;
    sim.process_through(std::max(now + kTimeEps, horizon));
    double next = sim.next_time();
    for (const Pending& p : pending) next = std::min(next, p.time);
    arm(next);
  }

  // Starts a flow now; returns the earliest time it can arrive.
  double start(std::uint32_t node, std::uint32_t device, engine::Direction dir, double bytes,
               std::uint32_t token) {
    sg4::Host* client = platform.clients[node];
    sg4::Host* server = platform.devices[device];
    const bool up = dir == engine::Direction::ToServer;
    auto comm = sg4::Comm::sendto_init(up ? client : server, up ? server : client);
    comm->set_payload_size(static_cast<std::uint64_t>(std::llround(bytes)));
    comm->set_data(reinterpret_cast<void*>(static_cast<std::uintptr_t>(token)));
    if (token >= live.size()) {
      live.resize(static_cast<std::size_t>(token) * 2 + 16);
      earliest_of.resize(live.size(), kInf);
      moving_from.resize(live.size(), 0.0);
      bytes_of.resize(live.size(), 0.0);
    }
    moving_from[token] = sg4::Engine::get_clock() + platform.bound_latency(node, device);
    bytes_of[token] = bytes;
    const double bound = sg4::Engine::get_clock() + platform.bound_latency(node, device) +
                         bytes / platform.bound_bandwidth(node, device);
    earliest_of[token] = bound;
    earliest.emplace(bound, token);
    // Registered before start(): an empty transfer may complete inside start() itself.
    live[token] = comm;
    comm->start();
    return bound;
  }

  void on_completion(const sg4::Activity& activity) {
    if (activity.get_state() != sg4::Activity::State::FINISHED) return;
    const auto token =
        static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(activity.get_data<void>()));
    if (token >= live.size() || live[token].get() != &activity) return;
    retired.push_back(std::move(live[token]));
    live[token] = nullptr;
    earliest.erase({earliest_of[token], token});
    const double now = sg4::Engine::get_clock();
    if (bytes_of[token] > 0.0)
      sink.on_delivered(token, std::min(moving_from[token], now), now, bytes_of[token]);
    sink.on_transfer_done(token, now);
    arm(now);
  }
};

FlowNetwork::FlowNetwork(const scenario::Scenario& s, engine::TransferSink& sink,
                         engine::EventCore& core) {
  if (g_active != nullptr) throw std::logic_error("one FlowNetwork per process (SimGrid engine)");
  impl_ = std::make_unique<Impl>(s, sink, core);
  g_active = this;
  sg4::Activity::on_completion_cb([](const sg4::Activity& a) {
    if (g_active != nullptr) g_active->impl_->on_completion(a);
  });
}

FlowNetwork::~FlowNetwork() {
  g_active = nullptr;
  impl_->retired.clear();
  std::vector<sg4::CommPtr> pending;
  pending.swap(impl_->live);
  for (auto& c : pending)
    if (c) c->cancel();
  pending.clear();
}

void FlowNetwork::send(double now, std::uint32_t client_node, std::uint32_t device,
                       engine::Direction dir, double bytes, std::uint32_t token) {
  Impl& im = *impl_;
  if (now <= sg4::Engine::get_clock() + kTimeEps) {
    // The core, running ahead to the earliest arrival it knew of, must not pass this flow's.
    im.sim.hold_at(im.start(client_node, device, dir, bytes, token) - kTimeEps);
    return;
  }
  // The core ran ahead of SimGrid's clock: start the flow when SimGrid gets there.
  im.pending.push_back({now, client_node, device, token, dir, bytes});
  im.sim.hold_at(now);
}

void FlowNetwork::drive(double end) {
  Impl& im = *impl_;
  im.end = end;
  im.arm(im.sim.next_time());
  im.engine->run_until(end);
  if (im.timer != nullptr) {
    im.timer->remove();
    im.timer = nullptr;
  }
}

}  // namespace sonicsim::platform
