#include <sonicsim/report/trouble.hpp>

#include <algorithm>
#include <cmath>

namespace sonicsim::report {

namespace {

using results::zero_if_missing;
using Trouble = RunFigures::Trouble;

// "T4s" for several, "T4" for one; "devices" when the results do not name the device.
std::string devices_noun(const std::string& device, double n) {
  if (device.empty()) return n == 1.0 ? "device" : "devices";
  return n == 1.0 || device.back() == 's' ? device : device + "s";
}

const Trouble::Crashes* crashes_of(const Trouble& t, const std::string& pool) {
  for (const auto& c : t.crashes)
    if (c.pool == pool) return &c;
  return nullptr;
}

const Trouble::Link* link_of(const Trouble& t, const std::string& name) {
  for (const auto& l : t.links)
    if (l.name == name) return &l;
  return nullptr;
}

// "out for 60 s and at reduced bandwidth for 2 min more", "at reduced bandwidth for 30 s",
// "at full bandwidth".
std::string link_state(double degraded_s, double outage_s) {
  const double reduced = degraded_s - outage_s;
  if (outage_s > 0.0 && reduced > 0.0)
    return "out for " + time_text(outage_s) + " and at reduced bandwidth for " +
           time_text(reduced) + " more";
  if (outage_s > 0.0) return "out for " + time_text(outage_s);
  if (reduced > 0.0) return "at reduced bandwidth for " + time_text(reduced);
  return "at full bandwidth";
}

// "19 lost in a crash or drain, 2 timed out": the failed tries by why, the non-zero ones.
std::string failed_tries_by_why(const Trouble& t) {
  std::string out;
  const auto add = [&out](double n, const char* why) {
    if (n > 0.0) out += (out.empty() ? "" : ", ") + num(n) + " " + why;
  };
  add(t.server_lost, "lost in a crash or drain");
  add(t.timed_out, "timed out");
  add(t.refused, "refused by Triton");
  add(t.no_server, "found no server up");
  return out;
}

// Crashes, not devices: a device that crashes twice (random_crashes) counts twice.
std::string crashes_text(double n) {
  return n == 0.0 ? "no crash" : num(n) + (n == 1.0 ? " crash" : " crashes");
}

void crash_changes(const Trouble& base, const Trouble& r, std::vector<std::string>& said) {
  for (const auto& c : r.crashes) {
    const auto* b = crashes_of(base, c.pool);
    const double was = b ? b->crashed : 0.0;
    if (unchanged(was, c.crashed)) continue;
    said.push_back(crashes_text(c.crashed) + " among the " + num(c.devices) + " " +
                   devices_noun(c.device, c.devices) + " of pool " + c.pool + " (was " + num(was) +
                   ")");
  }
  // A pool that crashed in the baseline and cannot crash in this run (no faults on it now).
  for (const auto& b : base.crashes)
    if (b.crashed > 0.0 && !crashes_of(r, b.pool))
      said.push_back("no crash in pool " + b.pool + " (was " + num(b.crashed) + ")");
}

void link_changes(const Trouble& base, const Trouble& r, std::vector<std::string>& said) {
  const Trouble::Link none;
  for (const auto& l : r.links) {
    const auto* b = link_of(base, l.name);
    const Trouble::Link& was = b ? *b : none;
    if (unchanged(was.degraded_s, l.degraded_s) && unchanged(was.outage_s, l.outage_s)) continue;
    said.push_back("the " + l.name + " was " + link_state(l.degraded_s, l.outage_s) + " (was " +
                   link_state(was.degraded_s, was.outage_s) + ")");
  }
  for (const auto& b : base.links)
    if (b.degraded_s > 0.0 && !link_of(r, b.name))
      said.push_back("the " + b.name + " was at full bandwidth (was " +
                     link_state(b.degraded_s, b.outage_s) + ")");
}

void tries_changes(const Trouble& base, const Trouble& r, std::vector<std::string>& said) {
  const bool same = unchanged(base.retries, r.retries) &&
                    unchanged(base.server_lost, r.server_lost) &&
                    unchanged(base.timed_out, r.timed_out) && unchanged(base.refused, r.refused) &&
                    unchanged(base.no_server, r.no_server);
  if (same) return;
  const std::string why = failed_tries_by_why(r);
  said.push_back((r.failed_tries() > 0.0
                      ? num(r.failed_tries()) + (r.failed_tries() == 1.0 ? " try" : " tries") +
                            " failed (" + why + ")"
                      : std::string("no try failed")) +
                 " and " + num(r.retries) + " were retried (was " + num(base.failed_tries()) +
                 " and " + num(base.retries) + ")");
}

}  // namespace

void read_trouble(const results::Document& doc, RunFigures& f) {
  Trouble& t = f.trouble;
  const auto pools = doc.servers();
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const double crashed = pools[i].crashes();
    if (std::isnan(crashed)) continue;  // neither autoscaler nor faults: it cannot crash
    t.crashes.push_back({pools[i].name().value_or("pool " + std::to_string(i)),
                         pools[i].device().value_or(""), pools[i].count(), crashed});
  }
  const auto links = doc.links();
  for (std::size_t i = 0; i < links.size(); ++i) {
    const double degraded = links[i].degraded_s();
    if (std::isnan(degraded)) continue;  // the scenario degrades no link
    t.links.push_back({links[i].name().value_or("link " + std::to_string(i)), degraded,
                       zero_if_missing(links[i].outage_s())});
  }
  const auto r = doc.requests().resilience();
  t.retries = zero_if_missing(r.retries());
  t.refused = zero_if_missing(r.refused());
  t.no_server = zero_if_missing(r.no_server());
  t.server_lost = zero_if_missing(r.server_lost());
  t.timed_out = zero_if_missing(r.client_timeout());
}

bool has_trouble(const RunFigures& f) {
  const Trouble& t = f.trouble;
  return f.requests_failed > 0.0 || t.retries > 0.0 || t.failed_tries() > 0.0 ||
         std::any_of(t.crashes.begin(), t.crashes.end(),
                     [](const Trouble::Crashes& c) { return c.crashed > 0.0; }) ||
         std::any_of(t.links.begin(), t.links.end(),
                     [](const Trouble::Link& l) { return l.degraded_s > 0.0; });
}

void add_trouble_rows(Table& t, const std::vector<RunFigures>& runs) {
  if (std::none_of(runs.begin(), runs.end(), has_trouble)) return;
  t.add("device crashes (among devices, pool)", runs.size(), [&](std::size_t i) -> std::string {
    std::string cell;
    for (const auto& c : runs[i].trouble.crashes)
      if (c.crashed > 0.0)
        cell += (cell.empty() ? "" : ", ") + num(c.crashed) + " among " + num(c.devices) + " (" +
                c.pool + ")";
    return cell.empty() ? "0" : cell;
  });
  const bool links = std::any_of(runs.begin(), runs.end(),
                                 [](const RunFigures& r) { return !r.trouble.links.empty(); });
  if (links)
    t.add("links out / at reduced bandwidth", runs.size(), [&](std::size_t i) -> std::string {
      std::string cell;
      for (const auto& l : runs[i].trouble.links)
        if (l.degraded_s > 0.0)
          cell += (cell.empty() ? "" : ", ") + l.name + " " + time_text(l.outage_s) + " / " +
                  time_text(l.degraded_s - l.outage_s);
      return cell.empty() ? "none" : cell;
    });
  t.add("tries failed / retried", runs.size(), [&](std::size_t i) {
    return num(runs[i].trouble.failed_tries()) + " / " + num(runs[i].trouble.retries);
  });
}

void trouble_changes(const RunFigures& base, const RunFigures& r, std::vector<std::string>& said) {
  crash_changes(base.trouble, r.trouble, said);
  link_changes(base.trouble, r.trouble, said);
  tries_changes(base.trouble, r.trouble, said);
  if (!unchanged(base.requests_fallback, r.requests_fallback) ||
      !unchanged(base.requests_failed, r.requests_failed))
    said.push_back(num(r.requests_fallback) +
                   (r.requests_fallback == 1.0 ? " request" : " requests") +
                   " fell back to the CPU and " + num(r.requests_failed) + " failed (was " +
                   num(base.requests_fallback) + " and " + num(base.requests_failed) + ")");
}

}  // namespace sonicsim::report
