// The class solver of MaxMinFlows (src/flows/flow_classes.cpp) against the per-flow reference
// solver, driven side by side as the transport drives them: random topologies (client NICs, a
// shared uplink, server NICs, routes that skip links, weights), random joins and bandwidth
// changes, several components; every finish time and every token's delivered bytes must agree,
// and the class path must actually have absorbed changes (else the comparison proves nothing).
#include "support.hpp"

#include <map>
#include <random>

#include <sonicsim/flows/max_min.hpp>

using sonicsim::flows::MaxMinFlows;

namespace {

struct ClassJoin {
  double time;
  std::uint32_t component;
  std::vector<std::uint32_t> route;
  double weight, bytes;
};
struct ClassStep {
  double time;
  std::uint32_t constraint;
  double bandwidth;
};
struct ClassCase {
  std::vector<double> capacity;
  std::vector<std::uint32_t> component_of;  // per constraint
  std::size_t components = 1;
  std::vector<ClassJoin> joins;  // by time
  std::vector<ClassStep> steps;  // by time
  double end = 0.0;
};

// What a solver did: each token's finish time and bytes delivered, bytes per constraint per
// time bin (to check no link carries more than its bandwidth), and its counters.
struct ClassOutcome {
  std::map<std::uint32_t, double> finished;
  std::map<std::uint32_t, double> bytes;
  std::vector<std::vector<double>> binned;  // [constraint][bin]
  MaxMinFlows::Counters counters;
};

constexpr double kClassBin = 0.25;

void bin_delivery(std::vector<double>& bins, double from, double to, double bytes) {
  if (!(to > from)) {
    const auto b = static_cast<std::size_t>(from / kClassBin);
    if (b < bins.size()) bins[b] += bytes;
    return;
  }
  for (auto b = static_cast<std::size_t>(from / kClassBin); b < bins.size(); ++b) {
    const double lo = std::max(from, b * kClassBin), hi = std::min(to, (b + 1) * kClassBin);
    if (hi <= lo) break;
    bins[b] += bytes * (hi - lo) / (to - from);
  }
}

// `grid`: the class solver logs bytes once per bin (the transport's way), else once per level.
ClassOutcome drive_classes(const ClassCase& cs, bool classes, bool grid = false) {
  MaxMinFlows flows(cs.capacity, cs.components, classes);
  std::vector<MaxMinFlows::Delivery> log;
  if (grid) {
    flows.set_delivery_log(&log, {{0.0, kClassBin}});
  } else {
    flows.set_delivery_log(&log);
  }
  ClassOutcome out;
  out.binned.assign(cs.capacity.size(),
                    std::vector<double>(static_cast<std::size_t>(cs.end / kClassBin) + 2, 0.0));
  std::vector<const ClassJoin*> of_token;
  for (const auto& j : cs.joins) of_token.push_back(&j);
  const auto account = [&]() {
    for (const auto& d : log) {
      out.bytes[d.token] += d.bytes;
      for (std::uint32_t c : of_token[d.token]->route)
        bin_delivery(out.binned[c], d.from, d.to, d.bytes);
    }
    log.clear();
  };
  std::size_t next_join = 0, next_step = 0;
  std::vector<std::uint32_t> done;
  std::vector<char> must_solve(cs.components, 0);
  while (true) {
    double t = sonicsim::kInf;
    for (std::uint32_t k = 0; k < cs.components; ++k) t = std::min(t, flows.next_finish(k));
    if (next_join < cs.joins.size()) t = std::min(t, cs.joins[next_join].time);
    if (next_step < cs.steps.size()) t = std::min(t, cs.steps[next_step].time);
    if (!(t <= cs.end)) break;
    done.clear();
    for (std::uint32_t k = 0; k < cs.components; ++k)
      if (flows.next_finish(k) <= t && !flows.take_finished(k, t, done)) must_solve[k] = 1;
    for (; next_step < cs.steps.size() && cs.steps[next_step].time <= t; ++next_step) {
      const ClassStep& s = cs.steps[next_step];
      flows.set_capacity(s.constraint, s.bandwidth);
      must_solve[cs.component_of[s.constraint]] = 1;
    }
    for (; next_join < cs.joins.size() && cs.joins[next_join].time <= t; ++next_join) {
      const ClassJoin& j = cs.joins[next_join];
      if (!flows.add(j.component, j.route, j.weight, j.bytes, static_cast<std::uint32_t>(next_join),
                     t, must_solve[j.component] != 0))
        must_solve[j.component] = 1;
    }
    for (std::uint32_t k = 0; k < cs.components; ++k)
      if (must_solve[k]) {
        flows.solve(k, t);
        must_solve[k] = 0;
      }
    for (std::uint32_t token : done) {
      INFO("token " << token << " finished twice");
      CHECK(out.finished.count(token) == 0);
      out.finished[token] = t;
    }
    account();
  }
  flows.flush(cs.end);
  account();
  out.counters = flows.counters();
  return out;
}

// Client NICs, an uplink and server NICs per component; most routes client -> uplink -> server,
// some skip a NIC or the uplink; the uplink offered from half to twice its bandwidth.
ClassCase random_class_case(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto below = [&](std::size_t n) {
    return static_cast<std::uint32_t>(std::min<double>(n - 1, std::floor(u(rng) * n)));
  };
  ClassCase cs;
  cs.components = 1 + below(2);
  cs.end = 20.0;
  struct Site {
    std::vector<std::uint32_t> clients, servers;
    std::uint32_t uplink;
  };
  std::vector<Site> sites(cs.components);
  const bool equal_weights = u(rng) < 0.3;
  for (std::uint32_t k = 0; k < cs.components; ++k) {
    Site& s = sites[k];
    const auto add = [&](double bw) {
      cs.capacity.push_back(bw);
      cs.component_of.push_back(k);
      return static_cast<std::uint32_t>(cs.capacity.size() - 1);
    };
    const std::size_t nc = 2 + below(30), ns = 1 + below(8);
    const double nic = 5.0 + 20.0 * u(rng);
    for (std::size_t i = 0; i < nc; ++i)
      s.clients.push_back(add(u(rng) < 0.8 ? nic : nic * u(rng)));
    s.uplink = add(40.0 + 60.0 * u(rng));
    for (std::size_t i = 0; i < ns; ++i) s.servers.push_back(add(20.0 + 40.0 * u(rng)));
    // Offered load: flows per second x mean bytes against the uplink.
    const double offered = (0.5 + 1.5 * u(rng)) * cs.capacity[s.uplink];
    const double mean_bytes = 2.0 + 8.0 * u(rng);
    const double rate = offered / mean_bytes;
    for (double t = 0.0;;) {
      t += -std::log(1.0 - u(rng)) / rate;
      if (t > cs.end * 0.9) break;
      ClassJoin j;
      j.time = t;
      j.component = k;
      const double shape = u(rng);
      if (shape > 0.05) j.route.push_back(s.clients[below(s.clients.size())]);
      if (shape < 0.95) j.route.push_back(s.uplink);
      if (shape > 0.1 || j.route.size() < 2) j.route.push_back(s.servers[below(s.servers.size())]);
      j.weight = equal_weights ? 1.0 : (u(rng) < 0.5 ? 1.0 : 1.0 + 3.0 * u(rng));
      j.bytes = mean_bytes * -std::log(1.0 - u(rng)) + 1e-3;
      cs.joins.push_back(j);
    }
    // Now and then the uplink or a NIC loses bandwidth (down to an outage) and gets it back.
    if (u(rng) < 0.5) {
      const std::uint32_t c = u(rng) < 0.5 ? s.uplink : s.servers[below(s.servers.size())];
      const double at = cs.end * u(rng) * 0.8;
      cs.steps.push_back({at, c, u(rng) < 0.3 ? 0.0 : cs.capacity[c] * u(rng)});
      cs.steps.push_back({at + 2.0 * u(rng), c, cs.capacity[c]});
    }
  }
  std::stable_sort(cs.joins.begin(), cs.joins.end(),
                   [](const ClassJoin& a, const ClassJoin& b) { return a.time < b.time; });
  std::stable_sort(cs.steps.begin(), cs.steps.end(),
                   [](const ClassStep& a, const ClassStep& b) { return a.time < b.time; });
  return cs;
}

bool class_close(double a, double b, double rel) {
  return std::abs(a - b) <= rel * std::max({std::abs(a), std::abs(b), 1e-12});
}

// The two solvers' outcomes agree, and the class solver's is sound on its own.
void compare_class_outcomes(const ClassCase& cs, const ClassOutcome& ref, const ClassOutcome& cls) {
  REQUIRE(ref.finished.size() == cls.finished.size());
  for (const auto& [token, at] : ref.finished) {
    INFO("token " << token);
    REQUIRE(cls.finished.count(token) == 1);
    CHECK(class_close(cls.finished.at(token), at, 1e-9));
  }
  for (std::size_t token = 0; token < cs.joins.size(); ++token) {
    INFO("token " << token);
    const double r = ref.bytes.count(token) ? ref.bytes.at(token) : 0.0;
    const double c = cls.bytes.count(token) ? cls.bytes.at(token) : 0.0;
    INFO("class solver " << c << " bytes, per-flow " << r << ", of " << cs.joins[token].bytes);
    CHECK(class_close(c, r, 1e-9));
    // Every request accounted for: a finished transfer delivered all its bytes, one under
    // way no more than it has.
    if (cls.finished.count(token)) {
      CHECK(class_close(c, cs.joins[token].bytes, 1e-9));
    } else {
      CHECK(c <= cs.joins[token].bytes * (1 + 1e-9));
    }
  }
  // No link carries more than its bandwidth allows in any bin (bandwidth changes make the
  // bound the link's largest bandwidth).
  for (std::size_t c = 0; c < cs.capacity.size(); ++c)
    for (std::size_t b = 0; b < cls.binned[c].size(); ++b) {
      INFO("constraint " << c << " bin " << b);
      CHECK(cls.binned[c][b] <= cs.capacity[c] * kClassBin * (1 + 1e-9));
      CHECK(class_close(cls.binned[c][b], ref.binned[c][b], 1e-7));
    }
}

}  // namespace

TEST_CASE(
    "flow classes: the class solver gives the per-flow solver's finishes and bytes on "
    "random topologies",
    "[flows][classes]") {
  std::int64_t absorbed = 0, solves_ref = 0, solves_cls = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const ClassCase cs = random_class_case(rng);
    const ClassOutcome ref = drive_classes(cs, false);
    const ClassOutcome cls = drive_classes(cs, true, seed % 2 == 0);
    CHECK(ref.counters.class_changes == 0);
    compare_class_outcomes(cs, ref, cls);
    absorbed += cls.counters.class_changes;
    solves_ref += ref.counters.solves;
    solves_cls += cls.counters.solves;
  }
  // The class path must have carried a good share of the work, or this compared nothing.
  CHECK(absorbed > 1000);
  CHECK(solves_cls < solves_ref);
}

TEST_CASE("flow classes: edge cases agree with the per-flow solver", "[flows][classes]") {
  const auto both = [](const ClassCase& cs) {
    const ClassOutcome ref = drive_classes(cs, false);
    const ClassOutcome cls = drive_classes(cs, true, true);
    compare_class_outcomes(cs, ref, cls);
    compare_class_outcomes(cs, ref, drive_classes(cs, true, false));
    return cls;
  };
  SECTION("one flow") {
    ClassCase cs;
    cs.capacity = {10.0, 5.0};
    cs.component_of = {0, 0};
    cs.end = 10.0;
    cs.joins = {{0.5, 0, {0, 1}, 1.0, 10.0}};
    const ClassOutcome o = both(cs);
    CHECK(o.finished.at(0) == Approx(2.5));
  }
  SECTION("ties: identical flows on one link finish together, in a class") {
    ClassCase cs;
    cs.capacity = {100.0, 100.0, 100.0, 30.0};
    cs.component_of = {0, 0, 0, 0};
    cs.end = 10.0;
    cs.joins = {
        {0.0, 0, {0, 3}, 1.0, 10.0}, {0.0, 0, {1, 3}, 1.0, 10.0}, {0.0, 0, {2, 3}, 1.0, 10.0}};
    const ClassOutcome o = both(cs);
    for (std::uint32_t t = 0; t < 3; ++t) CHECK(o.finished.at(t) == Approx(1.0));
  }
  SECTION("weights: a later join at a saturated link is absorbed by the class, weighted") {
    ClassCase cs;
    cs.capacity = {100.0, 100.0, 100.0, 30.0};
    cs.component_of = {0, 0, 0, 0};
    cs.end = 10.0;
    // Two flows of weight 1 fill the link (15 each, a class); a third of weight 2 joins at 0.5:
    // levels 30 / (1 + 1 + 0.5) = 12, so rates 12, 12, 6.
    cs.joins = {
        {0.0, 0, {0, 3}, 1.0, 15.0}, {0.0, 0, {1, 3}, 1.0, 30.0}, {0.5, 0, {2, 3}, 2.0, 6.0}};
    const ClassOutcome o = both(cs);
    CHECK(o.counters.class_changes >= 1);
    // Flow 0: 7.5 by 0.5, 7.5 more at 12/s.
    CHECK(o.finished.at(0) == Approx(0.5 + 7.5 / 12.0));
  }
  SECTION("zero bandwidth: an outage of the class link holds everyone, then they resume") {
    ClassCase cs;
    cs.capacity = {100.0, 100.0, 20.0};
    cs.component_of = {0, 0, 0};
    cs.end = 20.0;
    cs.joins = {{0.0, 0, {0, 2}, 1.0, 10.0}, {0.0, 0, {1, 2}, 1.0, 20.0}};
    cs.steps = {{0.5, 2, 0.0}, {2.5, 2, 20.0}};
    const ClassOutcome o = both(cs);
    // 5 each by 0.5; held 2 s; flow 0's last 5 at 10/s.
    CHECK(o.finished.at(0) == Approx(3.0));
  }
  SECTION("several components: a class in each, apart") {
    ClassCase cs;
    cs.capacity = {100.0, 100.0, 10.0, 100.0, 100.0, 40.0};
    cs.component_of = {0, 0, 0, 1, 1, 1};
    cs.components = 2;
    cs.end = 10.0;
    cs.joins = {{0.0, 0, {0, 2}, 1.0, 5.0},  {0.0, 1, {3, 5}, 1.0, 20.0},
                {0.0, 0, {1, 2}, 1.0, 10.0}, {0.0, 1, {4, 5}, 1.0, 40.0},
                {0.2, 0, {0, 2}, 1.0, 1.0},  {0.2, 1, {3, 5}, 1.0, 1.0}};
    both(cs);
  }
  SECTION("a NIC below the class level fixes its flow first, and a join there is solved") {
    ClassCase cs;
    cs.capacity = {3.0, 100.0, 100.0, 30.0};
    cs.component_of = {0, 0, 0, 0};
    cs.end = 20.0;
    // Flow 0 is held at 3 by its NIC; flows 1 and 2 share the rest: 13.5 each.
    cs.joins = {{0.0, 0, {0, 3}, 1.0, 30.0},
                {0.0, 0, {1, 3}, 1.0, 27.0},
                {0.0, 0, {2, 3}, 1.0, 60.0},
                {0.5, 0, {0, 3}, 1.0, 3.0}};
    const ClassOutcome o = both(cs);
    CHECK(o.finished.at(1) == Approx(2.0).epsilon(0.2));
  }
}
