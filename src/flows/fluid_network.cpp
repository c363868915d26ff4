#include <sonicsim/flows/fluid_network.hpp>
#include <sonicsim/flows/topology.hpp>
#include <sonicsim/util/numbers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
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

  double next_finish = kInf;
  std::vector<std::uint32_t> route, done;

  Impl(const scenario::Scenario& s, engine::TransferSink& arrivals, engine::EventCore& events)
      : sink(arrivals), core(events), topology(s), flows(capacities(topology)) {
    const auto& groups = topology.degradable();
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (const auto& [at, factor] : groups[g].factors) {
        if (at <= 0.0 && factor == 1.0) continue;
        steps.push_back({std::max(at, 0.0), g, factor});
      }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const Step& a, const Step& b) { return a.time < b.time; });
  }

  static std::vector<double> capacities(const Topology& t) {
    std::vector<double> c(t.constraints());
    for (std::uint32_t i = 0; i < c.size(); ++i) c[i] = t.bandwidth(i);
    return c;
  }

  double next_event() const {
    double t = next_finish;
    if (!latent.empty()) t = std::min(t, latent.top().time);
    if (next_step < steps.size()) t = std::min(t, steps[next_step].time);
    return t;
  }

  // Everything the network does at time t, then one solve for what changed.
  void handle(double t) {
    flows.advance(t);
    done.clear();
    bool changed = false;
    if (next_finish <= t) {
      flows.take_finished(t, done);
      changed = true;
    }
    for (; next_step < steps.size() && steps[next_step].time <= t; ++next_step) {
      const auto& group = topology.degradable()[steps[next_step].group];
      for (std::uint32_t c : group.constraints)
        flows.set_capacity(c, group.bandwidth * steps[next_step].factor);
      changed = true;
    }
    while (!latent.empty() && latent.top().time <= t) {
      const Latent l = latent.top();
      latent.pop();
      const double latency = topology.route(l.node, l.device, l.dir, route);
      if (l.bytes > 0.0) {
        // SimGrid's CM02 sharing penalty: the route's latency.
        flows.add(route, latency > 0.0 ? latency : 1.0, l.bytes, l.token);
        changed = true;
      } else {
        done.push_back(l.token);
      }
    }
    if (changed) {
      flows.solve();
      next_finish = flows.next_finish();
    }
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
  const double latency = im.topology.route(client_node, device, dir, im.route);
  const double t = now + latency;
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
}

const MaxMinFlows::Counters& FluidNetwork::counters() const {
  return impl_->flows.counters();
}

}  // namespace sonicsim::flows
