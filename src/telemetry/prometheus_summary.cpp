// What `import prometheus` tells a person (and a script) about what it read, its timestamps,
// and the measured client load as a partial scenario.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

#include <sonicsim/telemetry/prometheus_import.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/wall_time.hpp>

namespace sonicsim::telemetry {

namespace {

using ojson = nlohmann::ordered_json;

struct Totals {
  double requests = 0.0;
  double min_replicas = 0.0, max_replicas = 0.0;
  bool any_replicas = false;
};

Totals totals(const Measurements& m) {
  Totals t;
  for (const auto& p : m.pools) {
    for (const auto& r : p.replicas)
      if (r) {
        t.min_replicas = t.any_replicas ? std::min(t.min_replicas, *r) : *r;
        t.max_replicas = t.any_replicas ? std::max(t.max_replicas, *r) : *r;
        t.any_replicas = true;
      }
    for (const auto& mo : p.models)
      for (const auto& x : mo.requests_per_s)
        if (x) t.requests += *x * m.step_s;
  }
  return t;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

}  // namespace

std::string summary_text(const ImportResult& r) {
  const Measurements& m = r.measurements;
  const ImportReport& rep = r.report;
  const Totals tot = totals(m);
  const double span = m.step_s * static_cast<double>(m.t.size());
  std::string s;
  char buf[512];
  std::snprintf(buf, sizeof buf, "read       %zu file(s): %zu series, %zu samples", rep.files,
                rep.series, rep.samples);
  s += buf;
  if (rep.non_finite_samples)
    s += " (" + std::to_string(rep.non_finite_samples) + " NaN or infinite, skipped)";
  s += "\n";
  s += "span       " + util::format_wall_time(m.start) + " to " +
       util::format_wall_time(m.start + span) + " (" + util::format_time(span) + "), step " +
       util::format_time(m.step_s) + ", " + std::to_string(m.t.size()) + " windows\n";
  for (const auto& p : m.pools) {
    std::vector<std::string> models;
    for (const auto& mo : p.models)
      models.push_back(mo.name + (mo.version.empty() ? "" : " v" + mo.version));
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& x : p.replicas)
      if (x) {
        lo = any ? std::min(lo, *x) : *x;
        hi = any ? std::max(hi, *x) : *x;
        any = true;
      }
    std::snprintf(buf, sizeof buf, "pool       %s: %.0f to %.0f replicas; models %s\n",
                  p.name.c_str(), lo, hi, joined(models).c_str());
    s += buf;
  }
  if (m.pools.empty()) s += "pool       none (no Triton series)\n";
  std::snprintf(buf, sizeof buf, "requests   %.4g per second on average (%.0f successful)\n",
                span > 0 ? tot.requests / span : 0.0, tot.requests);
  s += buf;
  s += "found      " + joined(rep.found) + "\n";
  if (!rep.missing.empty())
    s += "missing    " + joined(rep.missing) + " (what they give is null)\n";
  for (const auto& i : rep.ignored)
    s += "ignored    " + i.metric + ": " + std::to_string(i.series) + " series (" + i.why + ")\n";
  return s;
}

nlohmann::ordered_json summary_json(const ImportResult& r) {
  const Measurements& m = r.measurements;
  const ImportReport& rep = r.report;
  const Totals tot = totals(m);
  const double span = m.step_s * static_cast<double>(m.t.size());
  ojson pools = ojson::array();
  for (const auto& p : m.pools) {
    ojson models = ojson::array();
    for (const auto& mo : p.models) models.push_back({{"name", mo.name}, {"version", mo.version}});
    pools.push_back({{"name", p.name}, {"models", models}});
  }
  ojson ignored = ojson::array();
  for (const auto& i : rep.ignored)
    ignored.push_back({{"metric", i.metric}, {"series", i.series}, {"why", i.why}});
  return {{"files", rep.files},
          {"series", rep.series},
          {"samples", rep.samples},
          {"non_finite_samples", rep.non_finite_samples},
          {"start", m.start},
          {"span_s", span},
          {"step_s", m.step_s},
          {"windows", m.t.size()},
          {"pools", pools},
          {"replicas_min", tot.any_replicas ? ojson(tot.min_replicas) : ojson(nullptr)},
          {"replicas_max", tot.any_replicas ? ojson(tot.max_replicas) : ojson(nullptr)},
          {"mean_requests_per_s", span > 0 ? tot.requests / span : 0.0},
          {"metrics_found", rep.found},
          {"metrics_missing", rep.missing},
          {"ignored", ignored}};
}

nlohmann::ordered_json flow_overlay(const Measurements& m, const std::string& flag) {
  ojson t = ojson::array(), jobs = ojson::array();
  // A window's count holds from the window's start: the replay runs it during the window.
  for (std::size_t k = 0; k < m.t.size(); ++k)
    if (const auto& c = m.clients.connected[k]) {
      t.push_back(std::max(0.0, m.t[k] - m.step_s));
      jobs.push_back(static_cast<long long>(std::llround(*c)));
    }
  if (t.empty())
    throw InputError(flag, {Problem{"",
                                    "found no Envoy connection counts "
                                    "(envoy_http_downstream_cx_active) in the windows, "
                                    "expected them: the measured client load is the "
                                    "connections Envoy held"}});
  // Laid over a scenario as a JSON merge patch (import supersonic --overlay A --overlay B), the
  // nulls take out what the profile replaces: the workload's own job count and flow.
  return {{"workload",
           {{"jobs", nullptr},
            {"flow",
             {{"events_per_job", nullptr},
              {"waves", nullptr},
              {"ramp", nullptr},
              {"start_times", nullptr},
              {"running", {{"t", t}, {"jobs", jobs}}}}}}}};
}

}  // namespace sonicsim::telemetry
