// The timeline's searches, period after period, and what it says: when the fleet stops meeting
// the constraint, and what to order when.
#include <algorithm>
#include <cmath>

#include <sonicsim/plan/timeline.hpp>
#include <sonicsim/uncertainty/inputs.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>

#include "questions.hpp"

namespace sonicsim::plan {

using nlohmann::json;

namespace {

std::vector<scenario::Override> joined(const std::vector<scenario::Override>& a,
                                       const std::vector<scenario::Override>& b) {
  auto out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

std::optional<double> analytic_of(const Report& r) {
  return r.formula_answer ? r.formula_answer : r.mva_answer;
}

struct PeriodAnswer {
  std::optional<Report> nominal;
  std::optional<double> plain;  // the plan as written at this date
  std::optional<double> required, median, low, high;
  std::vector<std::optional<double>> sample_answers, sample_analytic;
  int simulations = 0;
};

// One period: the plain search warm-started from the last requirement, then the robust one
// warm-started from the last period's sample answers.
PeriodAnswer answer_period(const std::string& scenario_path,
                           const std::vector<scenario::Override>& overrides, Options o,
                           const SimulateFor& simulate, const std::optional<RobustOptions>& robust,
                           const PeriodAnswer& last, bool first) {
  PeriodAnswer out;
  if (last.plain) {
    const bool ok_below = o.question == Question::MaxCpu;
    const double step = detail::is_continuous(o) ? 1.0 + 2.0 * o.tolerance : 1.0;
    // The last requirement, scaled as the analytic answers moved (milliseconds to ask).
    double r = *last.plain;
    Options quick = o;
    quick.analytic_only = true;
    const auto now = analytic_of(plan(scenario_path, overrides, quick, {}));
    const auto before = last.nominal ? analytic_of(*last.nominal) : std::nullopt;
    if (now && before && *before > 0) r *= *now / *before;
    if (!detail::is_continuous(o)) r = std::max(1.0, std::round(r));
    const double other = detail::is_continuous(o) ? (ok_below ? r * step : r / step)
                                                  : (ok_below ? r + step : r - step);
    o.warm_start = std::make_pair(r, other);
  }
  Report nominal;
  try {
    nominal = plan(scenario_path, overrides, o, simulate(overrides));
  } catch (const InputError& e) {
    // Beyond the range at a later date is an answer ("more than the range"); at the start it is
    // the plain plan's refusal.
    if (first || e.problems().empty() || e.problems().front().path != o.vary) throw;
    return out;
  }
  out.nominal = nominal;
  out.simulations = nominal.simulations;
  out.required = out.median = out.low = out.high = out.plain = nominal.answer.value;
  if (!robust) return out;
  RobustOptions ro = *robust;
  ro.tornado = false;
  ro.narrow_to = 0.0;
  ro.warm_answers = last.sample_answers;
  ro.warm_analytic = last.sample_analytic;
  const Robust rb = robust_plan(scenario_path, overrides, nominal, simulate, ro);
  out.simulations += rb.simulations;
  out.required = rb.answer;
  out.median = rb.median;
  out.low = rb.central_low;
  out.high = rb.central_high;
  out.sample_answers = rb.answers;
  out.sample_analytic = rb.analytic;
  return out;
}

// Keeps the fleet at the requirement: a purchase wherever it would fall behind, ordered the
// lead time before it is needed.
void buy(Timeline& t) {
  double have = t.fleet;
  for (auto& p : t.periods) {
    p.meets = p.required && *p.required <= t.fleet;  // min-*: a larger value is enough
    if (!p.meets && !t.stops_meeting) t.stops_meeting = t.growth.start_month + p.month;
    if (p.required && *p.required > have) {
      Purchase b;
      b.add = *p.required - have;
      b.needed_by = t.growth.start_month + p.month;
      b.order_by = b.needed_by - t.growth.lead_time_months;
      b.late = b.order_by < t.growth.start_month;
      t.purchases.push_back(b);
      have = *p.required;
    }
    p.fleet = have;
  }
}

}  // namespace

Timeline timeline(const std::string& scenario_path, const std::vector<scenario::Override>& common,
                  const Options& options, const Growth& growth, const SimulateFor& simulate,
                  const std::optional<RobustOptions>& robust) {
  if (options.question != Question::MinDevices && options.question != Question::MinBandwidth)
    throw InputError(scenario_path,
                     {{"", "a timeline asks min-devices or min-bandwidth at every date"}});
  Timeline t;
  t.growth = growth;
  if (robust) t.confidence = robust->confidence;
  // The varied path and the value the scenario has: the fleet as it is.
  Options first = options;
  first.analytic_only = true;
  const auto start = joined(common, growth_overrides(growth, 0));
  const Report r0 = plan(scenario_path, start, first, simulate(start));
  Options o = options;
  o.vary = r0.options.vary;
  o.link = r0.options.link;
  t.fleet = r0.base.value("value", 0.0);
  t.device = detail::device_of(scenario_path, o.vary);
  PeriodAnswer last;
  for (int month = 0; month <= growth.horizon_months; month += growth.period_months) {
    const auto at = growth_overrides(growth, month);
    TimelinePeriod p;
    p.month = month;
    for (const auto& ov : at) {
      const auto path = std::find_if(growth.paths.begin(), growth.paths.end(),
                                     [&](const GrowthPath& g) { return g.path == ov.path; });
      if (path != growth.paths.end())
        p.demand.emplace_back(ov.path, uncertainty::numeric_value(json::parse(ov.value))->si);
    }
    for (const auto& s : growth.steps)
      if (s.month <= month) p.steps.push_back(s.name);
    const auto a =
        answer_period(scenario_path, joined(common, at), o, simulate, robust, last, month == 0);
    if (month == 0) t.start_report = *a.nominal;
    p.required = a.required;
    p.required_median = a.median;
    p.required_low = a.low;
    p.required_high = a.high;
    p.simulations = a.simulations;
    t.simulations += a.simulations;
    t.periods.push_back(p);
    if (a.plain) last = a;
  }
  buy(t);
  return t;
}

namespace {

// One sentence: when the fleet stops meeting the constraint and what to order when.
std::string headline(const Timeline& t, const Options& o) {
  const auto show = [&](double v) { return detail::show_value(o, v); };
  const std::string unit = t.device.empty() ? "" : " " + t.device;
  if (!t.stops_meeting)
    return "the fleet of " + show(t.fleet) + unit + " meets the constraint to " +
           format_month(t.growth.start_month + t.growth.horizon_months);
  std::string out = "the fleet of " + show(t.fleet) + unit + " stops meeting the constraint at " +
                    format_month(*t.stops_meeting);
  for (std::size_t i = 0; i < t.purchases.size(); ++i) {
    const auto& b = t.purchases[i];
    out += (i == 0 ? "; order " : ", ") + show(b.add) + unit + " by " + format_month(b.order_by) +
           (b.late ? " (late)" : "");
  }
  return out;
}

}  // namespace

json to_json(const Timeline& t, const Options& o) {
  json growth = json::array(), steps = json::array(), periods = json::array(),
       purchases = json::array();
  for (const auto& g : t.growth.paths)
    growth.push_back({{"path", g.path},
                      {"factor", g.compound ? json(g.factor) : json(nullptr)},
                      {"over_months", g.compound ? json(g.over_months) : json(nullptr)},
                      {"add", g.compound ? json(nullptr) : json(g.add)},
                      {"per_months", g.compound ? json(nullptr) : json(g.per_months)},
                      {"text", g.text()}});
  for (const auto& s : t.growth.steps)
    steps.push_back({{"date", format_month(t.growth.start_month + s.month)},
                     {"path", s.path},
                     {"text", s.name}});
  for (const auto& p : t.periods) {
    json demand = json::object();
    for (const auto& [path, v] : p.demand) demand[path] = v;
    periods.push_back({{"date", format_month(t.growth.start_month + p.month)},
                       {"month", p.month},
                       {"demand", demand},
                       {"steps", p.steps},
                       {"required", detail::value_json(o, p.required)},
                       {"required_median", detail::value_json(o, p.required_median)},
                       {"required_low", detail::value_json(o, p.required_low)},
                       {"required_high", detail::value_json(o, p.required_high)},
                       {"fleet", detail::value_json(o, p.fleet)},
                       {"meets", p.meets},
                       {"simulations", p.simulations}});
  }
  for (const auto& b : t.purchases)
    purchases.push_back({{"add", detail::value_json(o, b.add)},
                         {"needed_by", format_month(b.needed_by)},
                         {"order_by", format_month(b.order_by)},
                         {"late", b.late}});
  return {{"start", format_month(t.growth.start_month)},
          {"period_months", t.growth.period_months},
          {"horizon_months", t.growth.horizon_months},
          {"lead_time_months", t.growth.lead_time_months},
          {"confidence", t.confidence ? json(*t.confidence) : json(nullptr)},
          {"vary", o.vary},
          {"fleet", detail::value_json(o, t.fleet)},
          {"device", t.device},
          {"growth", growth},
          {"steps", steps},
          {"periods", periods},
          {"stops_meeting", t.stops_meeting ? json(format_month(*t.stops_meeting)) : json(nullptr)},
          {"purchases", purchases},
          {"simulations", {{"count", t.simulations}}},
          {"text", headline(t, o)}};
}

std::string to_text(const Timeline& t, const Options& o) {
  const auto show = [&](const std::optional<double>& v) {
    return v ? detail::show_value(o, *v) : std::string("beyond the range");
  };
  const std::string unit = t.device.empty() ? "" : " " + t.device;
  std::string out = "timeline     " + o.vary + " from " + format_month(t.growth.start_month) +
                    " every " + std::to_string(t.growth.period_months) + " months for " +
                    std::to_string(t.growth.horizon_months) + " months";
  for (const auto& g : t.growth.paths) out += "; " + g.path + " " + g.text();
  out += t.confidence ? "; met in " + util::formatted("%.0f%%", *t.confidence * 100) +
                            " of the plausible cases\n"
                      : "\n";
  const std::string head = std::string("needs") + (t.confidence ? " (median, central 95%)" : "");
  out += "  date     " + head + std::string(head.size() < 28 ? 28 - head.size() : 1, ' ') +
         "fleet after purchases  demand\n";
  for (const auto& p : t.periods) {
    std::string demand;
    for (const auto& [path, v] : p.demand)
      demand += (demand.empty() ? "" : ", ") + path + " " + detail::fmt(v, 6);
    std::string needs = show(p.required);
    if (t.confidence)
      needs += " (" + show(p.required_median) + ", " + show(p.required_low) + "-" +
               show(p.required_high) + ")";
    out += "  " + format_month(t.growth.start_month + p.month) + "  " + needs +
           std::string(needs.size() < 28 ? 28 - needs.size() : 1, ' ') + show(p.fleet) +
           (p.meets ? "" : " (today's " + show(t.fleet) + " misses)") + "  " + demand + "\n";
  }
  if (!t.stops_meeting) {
    out += "  the fleet of " + show(t.fleet) + unit + " meets the constraint to the horizon\n";
  } else {
    out += "  the fleet of " + show(t.fleet) + unit + " stops meeting the constraint at " +
           format_month(*t.stops_meeting) + "\n";
  }
  for (const auto& b : t.purchases)
    out += "  order " + show(b.add) + unit + " more by " + format_month(b.order_by) + " (needed " +
           format_month(b.needed_by) + ", lead time " + std::to_string(t.growth.lead_time_months) +
           " months)" + (b.late ? ": LATE, that date is already past at the start" : "") + "\n";
  out += "  simulations  " + std::to_string(t.simulations) + "\n";
  return out;
}

}  // namespace sonicsim::plan
