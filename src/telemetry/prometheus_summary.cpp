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

namespace sonicsim::telemetry {

namespace {

using ojson = nlohmann::ordered_json;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

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

std::optional<double> parse_timestamp(std::string_view text) {
  if (const auto v = util::parse_number(text)) return v;
  // RFC 3339: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
  int y, mo, d, h, mi, sec;
  if (!digits(text, 0, 4, y) || text.size() < 20 || text[4] != '-' || !digits(text, 5, 2, mo) ||
      text[7] != '-' || !digits(text, 8, 2, d) ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !digits(text, 11, 2, h) ||
      text[13] != ':' || !digits(text, 14, 2, mi) || text[16] != ':' || !digits(text, 17, 2, sec))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  std::size_t i = 19;
  double frac = 0.0;
  if (i < text.size() && text[i] == '.') {
    double scale = 0.1;
    ++i;
    const std::size_t first = i;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      frac += (text[i] - '0') * scale;
      scale /= 10.0;
    }
    if (i == first) return std::nullopt;
  }
  double offset = 0.0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int oh, om;
    if (!digits(text, i + 1, 2, oh) || i + 3 >= text.size() || text[i + 3] != ':' ||
        !digits(text, i + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset = (text[i] == '+' ? 1.0 : -1.0) * (oh * 3600.0 + om * 60.0);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  const double days =
      static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)));
  return days * 86400.0 + h * 3600.0 + mi * 60.0 + sec + frac - offset;
}

std::string format_timestamp(double unix_seconds) {
  const auto t = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm tm{};
  if (!gmtime_r(&t, &tm)) return util::exact_number(unix_seconds);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

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
  s += "span       " + format_timestamp(m.start) + " to " + format_timestamp(m.start + span) +
       " (" + util::format_time(span) + "), step " + util::format_time(m.step_s) + ", " +
       std::to_string(m.t.size()) + " windows\n";
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
