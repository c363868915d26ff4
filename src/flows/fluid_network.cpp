#include <sonicsim/flows/fluid_network.hpp>
#include <sonicsim/flows/topology.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/numbers.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

namespace sonicsim::flows {

namespace {
// The last time strictly before t: the core stops there, so the network goes first at t.
double before(double t) {
  return std::nextafter(t, -kInf);
}
}  // namespace

struct FluidNetwork::Impl {
  engine::TransferSink& sink;
  engine::EventCore& core;
  Topology topology;
  MaxMinFlows flows;

  // Transfers paying their latency, by the time it is paid (then by the order they were sent).
  struct Latent {
    double time;
    std::uint64_t order;
    std::uint32_t node, device, token;
    engine::Direction dir;
    double bytes;
    bool operator>(const Latent& o) const {
      return time > o.time || (time == o.time && order > o.order);
    }
  };
  std::priority_queue<Latent, std::vector<Latent>, std::greater<>> latent;
  std::uint64_t sent = 0;

  // Link degradations in time order: (time, group, factor).
  struct Step {
    double time;
    std::size_t group;
    double factor;
  };
  std::vector<Step> steps;
  std::size_t next_step = 0;

  // Each component's earliest finish, and the components by it (entries go stale when a
  // component is solved again: the current one matches `finish`).
  std::vector<double> finish;
  using Due = std::pair<double, std::uint32_t>;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
  // Components that something happened to at the current event time, and those of them whose
  // rates must be solved again.
  std::vector<std::uint32_t> changed;
  std::vector<char> is_changed, must_solve;
  std::vector<std::uint32_t> route, done;
  std::vector<MaxMinFlows::Delivery> delivered;  // bytes through since the last handle()

  Impl(const scenario::Scenario& s, engine::TransferSink& arrivals, engine::EventCore& events)
      : sink(arrivals),
        core(events),
        topology(s),
        flows(capacities(topology), topology.components(), class_solver()),
        finish(topology.components(), kInf),
        is_changed(topology.components(), 0),
        must_solve(topology.components(), 0) {
    const auto& groups = topology.degradable();
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (const auto& [at, factor] : groups[g].factors) {
        if (at <= 0.0 && factor == 1.0) continue;
        steps.push_back({std::max(at, 0.0), g, factor});
      }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const Step& a, const Step& b) { return a.time < b.time; });
    flows.set_delivery_log(&delivered, sink.delivery_grids());
  }

  // The bytes that passed, before the transfers they complete are reported done.
  void report_delivered() {
    for (const auto& d : delivered) sink.on_delivered(d.token, d.from, d.to, d.bytes);
    delivered.clear();
  }

  // SONICSIM_FLOW_SOLVER=flows runs the per-flow reference solver (docs/model.md), to compare;
  // unset, empty or "classes" the class solver. Anything else is refused (exit 2), so that a
  // misspelt comparison never silently compares the class solver with itself.
  static bool class_solver() {
    const char* v = std::getenv("SONICSIM_FLOW_SOLVER");
    const std::string_view value = v == nullptr ? "" : v;
    if (value.empty() || value == "classes") return true;
    if (value == "flows") return false;
    throw InputError("SONICSIM_FLOW_SOLVER",
                     {{"", "found \"" + std::string(value) +
                               "\", expected \"classes\" (the default) or \"flows\" (the "
                               "per-flow reference solver)"}});
  }

  static std::vector<double> capacities(const Topology& t) {
    std::vector<double> c(t.constraints());
    for (std::uint32_t i = 0; i < c.size(); ++i) c[i] = t.bandwidth(i);
    return c;
  }

  double next_event() {
    while (!due.empty() && due.top().first != finish[due.top().second]) due.pop();
    double t = due.empty() ? kInf : due.top().first;
    if (!latent.empty()) t = std::min(t, latent.top().time);
    if (next_step < steps.size()) t = std::min(t, steps[next_step].time);
    return t;
  }

  void touch(std::uint32_t component, bool solve) {
    if (!is_changed[component]) {
      is_changed[component] = 1;
      changed.push_back(component);
    }
    if (solve) must_solve[component] = 1;
  }

  // Everything the network does at time t, then one solve of each component whose rates it
  // changed.
  void handle(double t) {
    done.clear();
    while (!due.empty() && due.top().first <= t) {
      const auto [at, component] = due.top();
      due.pop();
      if (at != finish[component]) continue;
      touch(component, !flows.take_finished(component, t, done));
    }
    for (; next_step < steps.size() && steps[next_step].time <= t; ++next_step) {
      const auto& group = topology.degradable()[steps[next_step].group];
      for (std::uint32_t c : group.constraints) {
        touch(topology.component(c), true);
        flows.set_capacity(c, group.bandwidth * steps[next_step].factor);
      }
    }
    while (!latent.empty() && latent.top().time <= t) {
      const Latent l = latent.top();
      latent.pop();
      const double latency = topology.route(l.node, l.device, l.dir, route);
      if (l.bytes > 0.0 && !route.empty()) {
        const std::uint32_t component = topology.component(route.front());
        // SimGrid's CM02 sharing penalty: the route's latency.
        const bool quiet = flows.add(component, route, latency > 0.0 ? latency : 1.0, l.bytes,
                                     l.token, t, must_solve[component] != 0);
        touch(component, !quiet);
      } else {
        done.push_back(l.token);  // nothing to share: through when its latency is paid
      }
    }
    for (std::uint32_t component : changed) {
      if (must_solve[component]) flows.solve(component, t);
      is_changed[component] = must_solve[component] = 0;
      // Its entry in `due` still stands when its earliest finish has not moved (an entry that
      // was due is gone, and what is left finishes later).
      const double next = flows.next_finish(component);
      if (next != finish[component] && next < kInf) due.emplace(next, component);
      finish[component] = next;
    }
    changed.clear();
    report_delivered();
    std::sort(done.begin(), done.end());
    for (std::uint32_t token : done) sink.on_transfer_done(token, t);
  }
};

FluidNetwork::FluidNetwork(const scenario::Scenario& s, engine::TransferSink& sink,
                           engine::EventCore& core)
    : impl_(std::make_unique<Impl>(s, sink, core)) {}

FluidNetwork::~FluidNetwork() = default;

void FluidNetwork::send(double now, std::uint32_t client_node, std::uint32_t device,
                        engine::Direction dir, double bytes, std::uint32_t token) {
  Impl& im = *impl_;
  const double t = now + im.topology.latency(client_node, device, dir);
  im.latent.push({t, im.sent++, client_node, device, token, dir, bytes});
  im.core.hold_at(before(t));
}

void FluidNetwork::drive(double end) {
  Impl& im = *impl_;
  while (true) {
    const double t_net = im.next_event();
    if (im.core.next_time() < t_net) {
      im.core.process_through(before(t_net));
      continue;
    }
    if (!(t_net <= end)) break;
    im.handle(t_net);
  }
  // Transfers still under way: what they delivered up to the end counts.
  im.flows.flush(end);
  im.report_delivered();
}

const MaxMinFlows::Counters& FluidNetwork::counters() const {
  return impl_->flows.counters();
}

}  // namespace sonicsim::flows
