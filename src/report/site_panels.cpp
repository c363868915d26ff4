#include <sonicsim/report/site_panels.hpp>

#include <algorithm>
#include <cmath>

#include <sonicsim/report/chart.hpp>
#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/scenario/link_names.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::report {

namespace {

using results::Presence;
using results::Quantile;

// Named one by one: a using-directive would reach the later files of a unity batch.
using chart::Axis;
using chart::BarChart;
using chart::render;
using chart::Unit;
namespace rk = results::keys;

// A site without client nodes (servers only) has no events of its own: no value, not a zero.
void read_site(const results::Site& in, std::size_t index, RunFigures::Site& s) {
  s.name = in.name().value_or("site " + std::to_string(index));
  s.threads = in.threads();
  s.devices = in.devices();
  s.bytes_out = in.bytes_out();
  s.bytes_in = in.bytes_in();
  s.egress_cost = in.egress_cost();
  const auto events = in.events();
  const auto latency = in.requests().latency_s();
  s.events_per_s = events.throughput_per_s();
  s.time_per_event_s = events.thread_time_per_event_s();
  // An empty histogram's figures are written as null: a site whose requests all failed, or
  // one with no clients.
  s.latency_mean_s = latency.at(Quantile::Mean, Presence::Optional);
  s.latency_p99_s = latency.at(Quantile::P99, Presence::Optional);
  if (!(s.threads > 0.0))
    s.events_per_s = s.time_per_event_s = s.latency_mean_s = s.latency_p99_s = kNoValue;
}

std::string site_row_name(const std::string& site, const std::string& what) {
  return "site " + site + ": " + what;
}

// The names in first-seen order over the runs.
template <class Item>
std::vector<std::string> names_over(const std::vector<RunFigures>& runs,
                                    std::vector<Item> RunFigures::*items) {
  std::vector<std::string> names;
  for (const auto& r : runs)
    for (const auto& item : r.*items)
      if (std::find(names.begin(), names.end(), item.name) == names.end())
        names.push_back(item.name);
  return names;
}

template <class Item>
const Item* find_named(const std::vector<Item>& items, const std::string& name) {
  for (const auto& item : items)
    if (item.name == name) return &item;
  return nullptr;
}

std::string bytes_text(double bytes) {
  return std::isnan(bytes) ? "–" : util::format_bytes(bytes);
}

// Grouped bars with the sites (or WAN links) as categories; skipped when nothing is drawn.
Panel site_bars(const std::string& title, const std::string& note, const Axis& y,
                std::vector<std::string> categories, std::vector<std::string> series,
                std::vector<std::vector<double>> values) {
  const bool drawn = std::any_of(values.begin(), values.end(), [](const auto& v) {
    return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
  });
  if (!drawn) return {title, "", "no site has these figures"};
  BarChart c;
  c.title = title;
  c.note = note;
  c.y = y;
  c.categories = std::move(categories);
  c.series = std::move(series);
  c.values = std::move(values);
  return {title, render(c), ""};
}

}  // namespace

void read_sites(const results::Document& doc, RunFigures& f) {
  if (!doc.has_sites()) return;
  const auto sites = doc.sites();
  for (std::size_t i = 0; i < sites.size(); ++i) {
    RunFigures::Site s;
    read_site(sites[i], i, s);
    f.sites.push_back(std::move(s));
  }
  for (const auto& link : doc.links()) {
    const std::string name = link.name().value_or("");
    if (!scenario::wan_link_of(name)) continue;
    f.wan_links.push_back({name, link.bytes(), link.mean_utilization(), link.peak_utilization()});
  }
}

void add_site_rows(Table& t, const std::vector<RunFigures>& runs) {
  const auto row = [&](const std::string& name, const auto& cell) {
    t.add(name, runs.size(), [&](std::size_t i) { return cell(runs[i]); });
  };
  for (const auto& name : names_over(runs, &RunFigures::sites)) {
    const auto site = [&name](const RunFigures& r) { return find_named(r.sites, name); };
    row(site_row_name(name, "events/s, time per event, latency p99"),
        [&](const RunFigures& r) -> std::string {
          const auto* s = site(r);
          if (!s) return "–";
          return num(s->events_per_s) + ", " + time_text(s->time_per_event_s) + ", " +
                 time_text(s->latency_p99_s);
        });
    row(site_row_name(name, "bytes out / in over the WAN"),
        [&](const RunFigures& r) -> std::string {
          const auto* s = site(r);
          return s ? bytes_text(s->bytes_out) + " / " + bytes_text(s->bytes_in) : "–";
        });
    // Only sites with a price in some run: a row of dashes says nothing.
    if (std::any_of(runs.begin(), runs.end(), [&](const RunFigures& r) {
          const auto* s = site(r);
          return s && s->egress_cost;
        }))
      row(site_row_name(name, "egress cost"), [&](const RunFigures& r) -> std::string {
        const auto* s = site(r);
        return s && s->egress_cost ? num(*s->egress_cost) : "–";
      });
  }
  for (const auto& name : names_over(runs, &RunFigures::wan_links))
    row(name + ": bytes, mean / peak utilization", [&](const RunFigures& r) -> std::string {
      const auto* l = find_named(r.wan_links, name);
      if (!l) return "–";
      return bytes_text(l->bytes) + ", " + pct(l->mean_utilization) + " / " +
             pct(l->peak_utilization);
    });
}

void site_changes(const RunFigures& base, const RunFigures& run, std::vector<std::string>& said) {
  for (const auto& s : run.sites) {
    const auto* b = find_named(base.sites, s.name);
    if (!b) continue;
    const std::string who = "site " + s.name + "'s ";
    if (std::isfinite(b->events_per_s) && std::isfinite(s.events_per_s) &&
        !unchanged(b->events_per_s, s.events_per_s))
      said.push_back("changes " + who + "throughput by " +
                     signed_pct(s.events_per_s / b->events_per_s - 1.0) + " (" +
                     num(b->events_per_s) + " -> " + num(s.events_per_s) + " events/s)");
    if (!unchanged(b->bytes_out, s.bytes_out))
      said.push_back(who + "bytes out over the WAN " + bytes_text(b->bytes_out) + " -> " +
                     bytes_text(s.bytes_out));
    if (b->egress_cost && s.egress_cost && !unchanged(*b->egress_cost, *s.egress_cost))
      said.push_back(who + "egress cost " + num(*b->egress_cost) + " -> " + num(*s.egress_cost));
  }
}

std::vector<Panel> site_panels(const RunFigures& run) {
  std::vector<Panel> out;
  if (run.sites.empty()) return out;
  std::vector<std::string> names;
  std::vector<double> events, time, latency_mean, latency_p99, bytes_out, bytes_in, cost;
  bool priced = false;
  for (const auto& s : run.sites) {
    names.push_back(s.name);
    events.push_back(s.events_per_s);
    time.push_back(s.time_per_event_s);
    latency_mean.push_back(s.latency_mean_s);
    latency_p99.push_back(s.latency_p99_s);
    bytes_out.push_back(s.bytes_out);
    bytes_in.push_back(s.bytes_in);
    cost.push_back(s.egress_cost.value_or(kNoValue));
    priced = priced || s.egress_cost.has_value();
  }
  const std::string by_clients = "the events and requests of each site's client nodes (" +
                                 results::column({rk::top::sites, "*", rk::site::events}) + ")";
  out.push_back(site_bars("Events per second by site", by_clients, {"events/s", Unit::Plain, true},
                          names, {"events/s"}, {events}));
  out.push_back(site_bars("Time per event and request latency by site",
                          "time per event: the site's threads over its throughput; latency of its "
                          "requests, wherever they were served",
                          {"seconds", Unit::Seconds, true}, names,
                          {"time per event", "latency mean", "latency p99"},
                          {time, latency_mean, latency_p99}));
  out.push_back(site_bars("Bytes over the WAN by site",
                          "out: leaving the site over its uplink (requests to remote servers, "
                          "responses to remote clients); in: entering it",
                          {"bytes", Unit::Plain, true}, names, {"out", "in"},
                          {bytes_out, bytes_in}));
  if (priced)
    out.push_back(site_bars("Egress cost by site",
                            "bytes out at the site's egress_price_per_gb; unpriced sites left out",
                            {"cost", Unit::Plain, true}, names, {"egress cost"}, {cost}));
  else
    out.push_back({"Egress cost by site", "", "no site has an egress_price_per_gb"});
  if (run.wan_links.empty()) {
    out.push_back({"WAN links", "", "the results have no WAN link (links named wan/NAME)"});
    return out;
  }
  std::vector<std::string> links;
  std::vector<double> bytes, mean, peak;
  for (const auto& l : run.wan_links) {
    links.push_back(l.name);
    bytes.push_back(l.bytes);
    mean.push_back(l.mean_utilization);
    peak.push_back(l.peak_utilization);
  }
  out.push_back(site_bars("WAN links: utilization, mean and peak window",
                          "mean: the busier direction over the run; peak: its busiest window",
                          {"utilization", Unit::Fraction, true}, links, {"mean", "peak"},
                          {mean, peak}));
  out.push_back(site_bars("WAN links: bytes carried", "both directions, requests and responses",
                          {"bytes", Unit::Plain, true}, links, {"bytes"}, {bytes}));
  return out;
}

}  // namespace sonicsim::report
