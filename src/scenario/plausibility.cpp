// The plausibility rules. Each reading (checker.hpp: a quantity with a role, as written) gets at
// most one warning: the first rule below that it breaks.
//
//   every value       a bandwidth under 1 Mbps; a CPU time per event (a constant, a distribution's
//                     mean, min, max or values) over 10 min; a service time (every point of every
//                     curve, calibration files and pipeline timings included) over 10 s; a link
//                     latency over 1 s
//   neighbours        (only values > 0; "more than 1000x")
//     service times   a curve's first point (or a pipeline's latency) above every other one of the
//                     scenario, of any model or device
//     service vs CPU  a curve's first point above the mean CPU time per event of a workload that
//                     requests the model (the other way round is normal: 993 ms per event
//                     against 0.76 ms for DeepMET)
//     bandwidths      a link's bandwidth below every other link's of the same network (the top
//                     level's `network`, one site's `network`, the WAN's links)
//     latency         a link's latency above the largest first point of any service-time curve
//
// Slips make times too long (a bare 5.2 meant as ms) and bandwidths too small (a bare 100 meant as
// Gbps), so the rules point at the larger time and the smaller bandwidth of a pair.
#include "plausibility.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include <sonicsim/util/format.hpp>

namespace sonicsim::scenario::detail {
namespace {

// Where a suggested spelling must land to be offered, and what it is likely near.
struct Plausible {
  double lo, hi, typical;
};

Plausible plausible(Role role) {
  switch (role) {
    case Role::CpuTime:
      return {1e-6, kMostCpuTime, 1.0};
    case Role::ServiceTime:
      return {1e-6, kMostServiceTime, 1e-2};
    case Role::Latency:
      return {1e-7, kMostLatency, 1e-3};
    case Role::Bandwidth:
      return {kLeastBandwidth, 2e11, 1.25e9};  // 1 Mbps to 1.6 Tbps, near 10 Gbps
    case Role::None:
      break;
  }
  return {0.0, 0.0, 1.0};
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// "993.3 s (16.6 min)", "100 B/s (800 bps)" for a bare number; "5 s", "100 kbps" for a string.
std::string value_text(const Reading& r) {
  const bool time = r.kind == Quantity::Time;
  const std::string human = time ? util::format_time(r.value) : util::format_bandwidth(r.value);
  if (!r.bare) return human;
  const std::string si = short_number(r.value) + (time ? " s" : " B/s");
  const bool same = time && human.size() >= 2 && human.compare(human.size() - 2, 2, " s") == 0;
  return same ? si : si + " (" + human + ")";
}

// The same number with the units that make it plausible, nearest `ref` first: the best one (and
// the next if it is within a factor of ten as near); for a bandwidth the best in bits and the best
// in bytes.
std::vector<std::string> suggestions(const Reading& r, double ref) {
  const Plausible p = plausible(r.role);
  const double n = std::strtod(r.number.c_str(), nullptr);
  struct Candidate {
    std::string text;
    double distance;
    std::string_view family;
  };
  std::vector<Candidate> found;
  std::set<std::pair<std::string_view, double>> seen;
  for (const UnitSpelling& u : unit_spellings(r.kind)) {
    if (!seen.insert({u.family, u.factor}).second) continue;  // µs after us, MBps after MB/s
    const double v = n * u.factor;
    if (!(v >= p.lo && v <= p.hi) || v == r.value) continue;
    found.push_back({r.number + std::string(u.name), std::fabs(std::log10(v / ref)), u.family});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Candidate& a, const Candidate& b) { return a.distance < b.distance; });
  std::vector<std::string> out;
  if (r.kind == Quantity::Bandwidth) {
    for (const std::string_view family : {"bits per second", "bytes per second"}) {
      const auto it = std::find_if(found.begin(), found.end(),
                                   [&](const Candidate& c) { return c.family == family; });
      if (it != found.end()) out.push_back(it->text);
    }
    return out;
  }
  if (!found.empty()) out.push_back(found[0].text);
  if (found.size() > 1 && found[1].distance <= found[0].distance + 1.0)
    out.push_back(found[1].text);
  return out;
}

std::string did_you_mean_units(const Reading& r, double ref) {
  const std::vector<std::string> s = suggestions(r, ref);
  if (s.empty())
    return r.bare ? std::string(" (a number without a unit is in ") +
                        (r.kind == Quantity::Time ? "seconds" : "bytes per second") + ")"
                  : std::string();
  std::string out = "; did you mean \"" + s[0] + "\"";
  if (s.size() > 1) out += " or \"" + s[1] + "\"";
  return out + "?";
}

std::string ratio_text(double ratio) {
  return ratio < 1e6 ? util::formatted("%.0f", ratio) + "x" : util::formatted("%.2g", ratio) + "x";
}

std::string at(const Reading& r) {
  return r.inner.empty() ? r.path : r.path + " (" + r.inner + ")";
}

// The first rule `r` breaks, worded, or nullopt.
std::optional<std::string> absolute(const Reading& r) {
  const Plausible p = plausible(r.role);
  switch (r.role) {
    case Role::Bandwidth:
      if (r.value > 0.0 && r.value < kLeastBandwidth)
        return r.found + " is " + value_text(r) + ": a bandwidth under 1 Mbps" +
               did_you_mean_units(r, p.typical);
      break;
    case Role::CpuTime:
      if (r.value > kMostCpuTime)
        return r.found + " is " + value_text(r) + ": a CPU time per event over 10 min" +
               did_you_mean_units(r, p.typical);
      break;
    case Role::ServiceTime:
      if (r.value > kMostServiceTime)
        return r.found + " is " + value_text(r) + ": a service time over 10 s" +
               did_you_mean_units(r, p.typical);
      break;
    case Role::Latency:
      if (r.value > kMostLatency)
        return r.found + " is " + value_text(r) + ": a link latency over 1 s" +
               did_you_mean_units(r, p.typical);
      break;
    case Role::None:
      break;
  }
  return std::nullopt;
}

}  // namespace

std::vector<Problem> plausibility_warnings(const std::vector<Reading>& readings, const Scenario& s,
                                           const std::vector<std::string>& workload_paths) {
  std::vector<std::optional<std::string>> said(readings.size());
  for (std::size_t i = 0; i < readings.size(); ++i) said[i] = absolute(readings[i]);

  std::vector<std::size_t> leads;
  for (std::size_t i = 0; i < readings.size(); ++i)
    if (readings[i].lead && readings[i].value > 0.0) leads.push_back(i);

  // Service times against each other: a first point above every other one.
  for (std::size_t i : leads) {
    if (said[i]) continue;
    std::optional<std::size_t> next;  // the largest of the others
    for (std::size_t j : leads)
      if (j != i && (!next || readings[j].value > readings[*next].value)) next = j;
    if (!next) continue;
    const Reading& r = readings[i];
    const Reading& o = readings[*next];
    if (r.value > kNeighbourRatio * o.value)
      said[i] = r.found + " is " + value_text(r) + ": " + ratio_text(r.value / o.value) +
                " the next largest service time (" + util::format_time(o.value) + ", " + at(o) +
                ")" + did_you_mean_units(r, o.value);
  }

  // Service times against the CPU time per event of the workloads that request the model.
  for (std::size_t w = 0; w < s.workloads.size() && w < workload_paths.size(); ++w) {
    const double cpu = s.workloads[w].cpu_time_per_event.expected();
    if (!(cpu > 0.0)) continue;
    std::set<std::string> models;
    for (const RequestSpec& q : s.workloads[w].requests) models.insert(q.model);
    for (std::size_t i : leads) {
      const Reading& r = readings[i];
      if (said[i] || !models.count(r.group) || !(r.value > kNeighbourRatio * cpu)) continue;
      said[i] = r.found + " is " + value_text(r) + ": " + ratio_text(r.value / cpu) +
                " the CPU time per event (" + util::format_time(cpu) + ", " + workload_paths[w] +
                ".cpu_time_per_event)" + did_you_mean_units(r, cpu);
    }
  }

  // Bandwidths of one network against each other: one below every other. A site has a handful
  // of links and a scenario up to 500 sites: grouped first, not pair by pair over all readings.
  std::map<std::string, std::vector<std::size_t>> networks;
  for (std::size_t i = 0; i < readings.size(); ++i)
    if (readings[i].role == Role::Bandwidth && !readings[i].group.empty() &&
        readings[i].value > 0.0)
      networks[readings[i].group].push_back(i);
  for (const auto& [network, links] : networks) {
    for (std::size_t i : links) {
      if (said[i]) continue;
      std::optional<std::size_t> next;  // the smallest of the others
      for (std::size_t j : links)
        if (j != i && (!next || readings[j].value < readings[*next].value)) next = j;
      if (!next) continue;
      const Reading& r = readings[i];
      const Reading& o = readings[*next];
      if (o.value > kNeighbourRatio * r.value)
        said[i] = r.found + " is " + value_text(r) + ": " + ratio_text(o.value / r.value) +
                  " below the next smallest bandwidth of `" + network + "` (" +
                  util::format_bandwidth(o.value) + ", " + at(o) + ")" +
                  did_you_mean_units(r, o.value);
    }
  }

  // Link latencies against the largest first point of the service-time curves.
  std::optional<std::size_t> slowest;
  for (std::size_t j : leads)
    if (!slowest || readings[j].value > readings[*slowest].value) slowest = j;
  for (std::size_t i = 0; slowest && i < readings.size(); ++i) {
    const Reading& r = readings[i];
    const Reading& o = readings[*slowest];
    if (said[i] || r.role != Role::Latency || !(r.value > kNeighbourRatio * o.value)) continue;
    said[i] = r.found + " is " + value_text(r) + ": " + ratio_text(r.value / o.value) +
              " the largest service time (" + util::format_time(o.value) + ", " + at(o) + ")" +
              did_you_mean_units(r, plausible(Role::Latency).typical);
  }

  std::vector<Problem> out;
  for (std::size_t i = 0; i < readings.size(); ++i) {
    if (!said[i]) continue;
    const Reading& r = readings[i];
    out.push_back({r.path, r.inner.empty() ? *said[i] : r.inner + ": " + *said[i]});
  }
  return out;
}

}  // namespace sonicsim::scenario::detail
