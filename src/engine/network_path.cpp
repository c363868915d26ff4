#include "network_path.hpp"

#include <algorithm>
#include <cmath>

#include "attached_devices.hpp"
#include "clients.hpp"
#include "link_windows.hpp"
#include "sampling.hpp"
#include "server_hosts.hpp"
#include "sites.hpp"

namespace sonicsim::engine {

void NetworkPath::build(std::size_t devices) {
  const auto& sc = ctx_.sc;
  auto& metrics = ctx_.metrics;
  const auto& net = sc.network;
  metrics.transport = "analytic";
  for (const auto& model : sc.models) {
    scenario::Distribution d;
    d.kind = model.overhead.spread.kind;
    d.mean = 1.0;
    d.cv = model.overhead.spread.cv;
    overhead_spreads_.push_back(d);
  }
  if (parts_.sites.several()) return build_sites(devices);
  path_latency_ = net.path_latency();
  path_bandwidth_ = net.path_bandwidth();
  if (!sc.faults.links.empty()) bandwidth_steps_ = scenario::path_bandwidth_steps(net, sc.faults);
  using scenario::LinkClass;
  auto add = [&](LinkClass c, int count) {
    if (const auto& spec = net.link(c))
      link_slot_[scenario::index_of(c)] =
          add_link(scenario::link_class_name(c), *spec, count, sc.faults.link_factors(c));
  };
  add(LinkClass::ClientNic, static_cast<int>(sc.client_nodes()));
  add(LinkClass::SiteUplink, 1);
  add(LinkClass::Wan, 1);
  int servers = 0;  // one NIC per Triton server: a host's devices share it
  for (const auto& pool : sc.servers) servers += pool.servers();
  add(LinkClass::ServerNic, servers);
  for (int s : link_slot_)
    if (s >= 0) path_slots_[path_links_++] = s;
  if (path_links_ > 0) {
    const RunMetrics::Link& first = metrics.links[path_slots_[0]];
    window_ = first.window;
    windows_ = first.window_bytes[0].size();
  }
  for (int dir = 0; dir < 2; ++dir) {
    if (net.client_nic) client_nic_bytes_[dir].assign(sc.client_nodes(), 0.0);
    if (net.server_nic) server_nic_bytes_[dir].assign(devices, 0.0);
  }
}

int NetworkPath::add_link(std::string name, const scenario::LinkSpec& spec, int count,
                          std::vector<std::pair<double, double>> factors) {
  RunMetrics::Link l;
  l.name = std::move(name);
  l.count = count;
  l.bandwidth = spec.bandwidth;
  l.latency = spec.latency;
  // Windows of bytes: one second each, or a hundredth of a shorter run (after the warm-up).
  const double span = ctx_.end - ctx_.warmup;
  l.window = span >= 100.0 ? 1.0 : span / 100.0;
  for (int d = 0; d < 2; ++d) {
    l.window_bytes[d].assign(static_cast<std::size_t>(std::ceil(span / l.window)) + 1, 0.0);
    l.offered_window_bytes[d].assign(l.window_bytes[d].size(), 0.0);
  }
  if (!ctx_.sc.faults.links.empty()) l.bandwidth_factors = std::move(factors);
  ctx_.metrics.links.push_back(std::move(l));
  return static_cast<int>(ctx_.metrics.links.size() - 1);
}

void NetworkPath::set_transport(Transport* t, bool to_servers, bool to_clients) {
  transport_ = t;
  flow_dir_[0] = t != nullptr && to_servers;
  flow_dir_[1] = t != nullptr && to_clients;
  const bool up = flow_dir_[0], down = flow_dir_[1];
  ctx_.metrics.transport = up && down ? "flow"
                           : up       ? "flow to servers, analytic to clients"
                           : down     ? "analytic to servers, flow to clients"
                                      : "analytic";
}

// `since`: seconds since the warm-up ended (>= 0), computed once for every link of the path.
void NetworkPath::offer_on(int slot, int direction, double bytes, double since) {
  RunMetrics::Link& l = ctx_.metrics.links[slot];
  l.offered[direction] += bytes;
  const auto w = static_cast<std::size_t>(since / l.window);
  if (w < l.offered_window_bytes[direction].size()) l.offered_window_bytes[direction][w] += bytes;
}

void NetworkPath::carry_on(int slot, int direction, double from, double to, double bytes,
                           double counted) {
  parts_.sampling.bytes_carried(static_cast<std::size_t>(slot), direction, from, to, bytes);
  if (counted <= 0.0) return;
  RunMetrics::Link& l = ctx_.metrics.links[slot];
  l.bytes[direction] += counted;
  // Bytes per window are statistics: seconds as doubles are precise enough for them.
  spread_over_windows(l.window_bytes[direction], ctx_.warmup_s, l.window,
                      std::max(from, ctx_.warmup_s), std::min(to, ctx_.end_s), counted);
}

// offer_on and carry_on for the whole one-site path at once. Every message crosses every link of
// the path, so each link's counts are the same sums of the same terms in the same order: they
// are kept on the path's first link alone and copied to the others when the run ends
// (finish), one add per message instead of one per link.
inline void NetworkPath::offer(Direction d, double bytes) {
  if (bytes <= 0.0 || ctx_.now < ctx_.warmup || path_links_ == 0) return;
  const int dir = d == Direction::ToServer ? 0 : 1;
  const double since = ctx_.now - ctx_.warmup;
  const auto w = static_cast<std::size_t>(since / window_);
  RunMetrics::Link& l = ctx_.metrics.links[path_slots_[0]];
  l.offered[dir] += bytes;
  if (w < windows_) l.offered_window_bytes[dir][w] += bytes;
}

void NetworkPath::carry(std::uint32_t node, std::uint32_t device, Direction d, double from,
                        double to, double bytes) {
  if (bytes <= 0.0) return;
  const int dir = d == Direction::ToServer ? 0 : 1;
  const double counted = bytes * share_within(from, to, ctx_.warmup_s, ctx_.end_s);
  if (parts_.sampling.on())
    for (int i = 0; i < path_links_; ++i)
      parts_.sampling.bytes_carried(static_cast<std::size_t>(path_slots_[i]), dir, from, to, bytes);
  if (counted <= 0.0) return;
  if (path_links_ > 0) {  // the path's counts, on its first link (see offer)
    RunMetrics::Link& first = ctx_.metrics.links[path_slots_[0]];
    first.bytes[dir] += counted;
    // Bytes per window are statistics: seconds as doubles are precise enough for them.
    std::vector<double>& windows = first.window_bytes[dir];
    for_each_window_share(windows_, ctx_.warmup_s, window_, std::max(from, ctx_.warmup_s),
                          std::min(to, ctx_.end_s), counted,
                          [&windows](std::size_t k, double share) { windows[k] += share; });
  }
  if (!client_nic_bytes_[dir].empty()) client_nic_bytes_[dir][node] += counted;
  if (!server_nic_bytes_[dir].empty()) server_nic_bytes_[dir][device] += counted;
}

void NetworkPath::send(std::uint32_t r, Direction dir, double bytes) {
  Request& rq = ctx_.requests[r];
  rq.dir = dir;
  const Time now = ctx_.now;
  // A device inside the client's node: no network, no gRPC (attached_devices.hpp).
  if (parts_.attached.is_attached(rq.device))
    return ctx_.queue.push(now, EventKind::TransferDone, r);
  const std::uint32_t node = rq.node;
  if (several_) return send_between_sites(r, dir, bytes, node);
  offer(dir, bytes);
  // No link at all: nothing to share, and no path SimGrid could route a flow on.
  if (flow_dir_[dir == Direction::ToServer ? 0 : 1] && path_bandwidth_ < kInf) {
    transport_->send(now.seconds(), node, rq.device, dir, bytes, r);
  } else {
    // Its bytes pass the narrowest link from now on, as fast as that link lets them.
    const double transfer = bytes > 0.0 ? bytes / path_bandwidth_ : 0.0;
    const double now_s = now.seconds();
    const double through = bandwidth_steps_.empty()
                               ? now_s + transfer
                               : degraded_transfer_end(bytes, bandwidth_steps_);
    carry(node, rq.device, dir, now_s, through, bytes);
    const Time t = bandwidth_steps_.empty() ? now + (path_latency_ + transfer)
                                            : Time::from_seconds(through) + path_latency_;
    ctx_.queue.push(t + overhead_after_transfer(r), EventKind::TransferDone, r);
  }
}

void NetworkPath::delivered(std::uint32_t r, double from, double to, double bytes) {
  const Request& rq = ctx_.requests[r];
  if (several_)
    return carry_sites(rq.node, rq.device, route_of(rq.node, rq.device), rq.dir, from, to, bytes);
  carry(rq.node, rq.device, rq.dir, from, to, bytes);
}

// When `bytes` sent now have passed the narrowest link as its bandwidth changes: an outage
// (bandwidth 0) holds everything, even an empty message, until it ends.
double NetworkPath::degraded_transfer_end(
    double bytes, const std::vector<std::pair<double, double>>& steps) const {
  const double now = ctx_.now.seconds();
  auto it = std::upper_bound(steps.begin(), steps.end(), std::make_pair(now, kInf));
  std::size_t i = static_cast<std::size_t>(it - steps.begin()) - 1;
  double t = now, left = bytes;
  while (true) {
    const double bw = steps[i].second;
    const double until = i + 1 < steps.size() ? steps[i + 1].first : kInf;
    if (bw > 0.0) {
      if (!std::isfinite(bw)) return t;
      if (t + left / bw <= until) return t + left / bw;
      left = std::max(0.0, left - bw * (until - t));
    }
    t = until;
    ++i;
  }
}

// The request overhead of a direction (serialization, gRPC send/receive on both ends) follows
// its transfer: for latency the order is immaterial, and with flows the bytes then start moving
// when the request is issued, which keeps the platform's run-ahead bound simple.
double NetworkPath::overhead_after_transfer(std::uint32_t r) {
  const Request& rq = ctx_.requests[r];
  const std::uint32_t model = ctx_.requests.kinds[rq.kind].model;
  const auto& o = ctx_.sc.models[model].overhead;
  // A host's calibrated work may be part of the measured server overhead: then it is taken
  // off the delay here (it is queued on the host's cores instead).
  const double mean =
      rq.dir != Direction::ToServer ? o.to_client(rq.items)
      : parts_.hosts.any()
          ? o.client_send.at(rq.items) + parts_.hosts.server_overhead_left(r, o.server.at(rq.items))
          : o.to_server(rq.items);
  const auto& jitter = overhead_spreads_[model];
  if (mean <= 0.0 || jitter.kind == scenario::Distribution::Kind::Constant) return mean;
  return mean * parts_.clients.draw(rq.thread, jitter);
}

double NetworkPath::refusal_round_trip(std::uint32_t thread) const {
  if (!several_) return 2.0 * path_latency_;
  const auto& sites = parts_.sites;
  const std::uint32_t s = sites.of_node(parts_.clients.node_of(thread));
  return 2.0 * site_routes_[s * sites.count() + s].latency;
}

void NetworkPath::finish() {
  if (several_) return finish_sites();
  auto& metrics = ctx_.metrics;
  // The path's counts, kept on its first link (offer, carry), are every one of its links'.
  for (int i = 1; i < path_links_; ++i) {
    const RunMetrics::Link& first = metrics.links[path_slots_[0]];
    RunMetrics::Link& l = metrics.links[path_slots_[i]];
    for (int dir = 0; dir < 2; ++dir) {
      l.bytes[dir] = first.bytes[dir];
      l.offered[dir] = first.offered[dir];
      l.window_bytes[dir] = first.window_bytes[dir];
      l.offered_window_bytes[dir] = first.offered_window_bytes[dir];
    }
  }
  auto busiest = [](const LargeVector<double>(&v)[2]) {
    double most = 0.0;
    for (const auto& dir : v)
      if (!dir.empty()) most = std::max(most, *std::max_element(dir.begin(), dir.end()));
    return most;
  };
  using scenario::LinkClass;
  if (const int slot = link_slot_[scenario::index_of(LinkClass::ClientNic)]; slot >= 0)
    metrics.links[slot].busiest_bytes = busiest(client_nic_bytes_);
  if (const int slot = link_slot_[scenario::index_of(LinkClass::ServerNic)]; slot >= 0)
    metrics.links[slot].busiest_bytes = busiest(server_nic_bytes_);
  for (auto& l : metrics.links) {
    if (l.count == 1) l.busiest_bytes = std::max(l.bytes[0], l.bytes[1]);
    // One site: a link's directions are the payload's.
    l.payload[0] = l.bytes[0];
    l.payload[1] = l.bytes[1];
  }
}

}  // namespace sonicsim::engine
