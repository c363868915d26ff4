#include <sonicsim/report/server_report.hpp>

#include <algorithm>
#include <cmath>

#include <sonicsim/report/chart.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::report {

namespace {

using PoolFigures = RunFigures::Pool;

bool has_host(const PoolFigures& p) {
  return p.host_utilization.has_value();
}
bool has_memory(const PoolFigures& p) {
  return p.memory_used_bytes.has_value();
}

// The pool that `better` prefers of those that have a figure; nullptr when none has.
template <class Has, class Better>
const PoolFigures* pick(const RunFigures& r, Has has, Better better) {
  const PoolFigures* best = nullptr;
  for (const auto& p : r.pools)
    if (has(p) && (!best || better(p, *best))) best = &p;
  return best;
}

const PoolFigures* busiest_host(const RunFigures& r) {
  return pick(r, has_host, [](const PoolFigures& a, const PoolFigures& b) {
    return *a.host_utilization > *b.host_utilization;
  });
}

// Memory held as a share of the device when it has a size, else in bytes.
double fullness(const PoolFigures& p) {
  return p.memory_capacity_bytes ? *p.memory_used_bytes / *p.memory_capacity_bytes
                                 : *p.memory_used_bytes;
}

const PoolFigures* fullest_memory(const RunFigures& r) {
  return pick(r, has_memory,
              [](const PoolFigures& a, const PoolFigures& b) { return fullness(a) > fullness(b); });
}

std::string memory_text(const PoolFigures& p) {
  std::string s = util::format_bytes(*p.memory_used_bytes);
  if (p.memory_capacity_bytes)
    s += " of " + util::format_bytes(*p.memory_capacity_bytes) + " (" +
         pct(*p.memory_used_bytes / *p.memory_capacity_bytes) + ")";
  return s + ", " + p.name;
}

}  // namespace

void read_servers(const results::Document& doc, RunFigures& f) {
  for (const auto& pool : doc.servers()) {
    PoolFigures p;
    p.name = pool.name().value_or("");
    p.devices = pool.count();
    p.utilization = pool.utilization();
    p.host_utilization = pool.host_utilization();
    p.host_time_per_request_s = pool.host_time_per_request_s();
    if (const double used = pool.memory_used_bytes(); std::isfinite(used)) {
      p.memory_used_bytes = used;
      p.memory_capacity_bytes = pool.memory_capacity_bytes();
      p.model_loads = pool.model_loads();
    }
    f.pools.push_back(std::move(p));
  }
}

void add_server_rows(Table& t, const std::vector<RunFigures>& runs) {
  const bool host = std::any_of(runs.begin(), runs.end(),
                                [](const RunFigures& r) { return busiest_host(r) != nullptr; });
  const bool memory = std::any_of(runs.begin(), runs.end(),
                                  [](const RunFigures& r) { return fullest_memory(r) != nullptr; });
  if (host) {
    t.add("host utilization (busiest pool)", runs.size(), [&](std::size_t i) -> std::string {
      const PoolFigures* p = busiest_host(runs[i]);
      return p ? pct(*p->host_utilization) + ", " + p->name : "–";
    });
    t.add("host time per request", runs.size(), [&](std::size_t i) -> std::string {
      const PoolFigures* p = busiest_host(runs[i]);
      return p && p->host_time_per_request_s ? time_text(*p->host_time_per_request_s) : "–";
    });
  }
  if (memory)
    t.add("device memory (fullest pool)", runs.size(), [&](std::size_t i) -> std::string {
      const PoolFigures* p = fullest_memory(runs[i]);
      return p ? memory_text(*p) : "–";
    });
}

std::vector<Panel> server_panels(const RunFigures& run) {
  std::vector<Panel> out;
  if (busiest_host(run)) {
    chart::BarChart c;
    c.title = "Devices and hosts busy, per pool";
    c.note =
        "servers[i].utilization and servers[i].host.utilization after warm-up: a host "
        "busier than its devices is the bottleneck (docs/servers.md#hosts)";
    c.y = {"busy fraction", chart::Unit::Fraction, true};
    c.series = {"devices", "host cores"};
    c.values.assign(2, {});
    for (const auto& p : run.pools) {
      c.categories.push_back(p.name);
      c.values[0].push_back(p.utilization);
      c.values[1].push_back(p.host_utilization.value_or(0.0));
    }
    out.push_back({c.title, chart::render(c), ""});
  }
  if (fullest_memory(run)) {
    chart::BarChart c;
    c.title = "Device memory per pool";
    c.note =
        "servers[i].memory_used_bytes (the most one device held) against "
        "memory_capacity_bytes (docs/servers.md#device-memory-and-model-loading)";
    c.y = {"GB", chart::Unit::Plain, true};
    c.series = {"models loaded (peak)", "device memory"};
    c.values.assign(2, {});
    for (const auto& p : run.pools) {
      if (!has_memory(p)) continue;
      c.categories.push_back(p.name);
      c.values[0].push_back(*p.memory_used_bytes / 1e9);
      c.values[1].push_back(p.memory_capacity_bytes.value_or(0.0) / 1e9);
    }
    out.push_back({c.title, chart::render(c), ""});
  }
  return out;
}

}  // namespace sonicsim::report
