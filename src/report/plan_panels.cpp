// A plan's charts (docs/report.md "A plan"): the search's points, the distribution of answers,
// the tornado of inputs and the timeline of required devices against the fleet.
#include <algorithm>
#include <cmath>
#include <limits>

#include <sonicsim/report/plan_report.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::report {

namespace {

using chart::kBlack;
using chart::Style;
using chart::Unit;

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
// The palette's green and vermillion: a value that meets and one that misses.
constexpr std::size_t kMeets = 2, kMisses = 3;

int month_number(const std::string& date) {
  return std::stoi(date.substr(0, 4)) * 12 + std::stoi(date.substr(5, 2)) - 1;
}

double value_or_nan(std::optional<double> v) {
  return v.value_or(kNoValue);
}

Unit value_unit(const PlanFigures& plan) {
  return plan.question == "min-bandwidth" ? Unit::BytesPerSecond : Unit::Plain;
}

std::string value_label(const PlanFigures& plan, std::optional<double> v) {
  return v ? chart::format_value(*v, value_unit(plan)) : "none";
}

Unit metric_unit(const PlanFigures& plan) {
  const auto& m = plan.constraint.metric;
  return m.size() > 2 && m.compare(m.size() - 2, 2, "_s") == 0 ? Unit::Seconds : Unit::Plain;
}

// The points of one verdict (meets, misses, or every point when there are no verdicts), with
// each one's tooltip.
chart::Series verdict_series(const PlanFigures& plan, std::optional<bool> ok,
                             std::vector<std::string>& tips) {
  chart::Series s;
  s.label = !ok ? "simulated" : *ok ? "meets" : "misses";
  s.style = Style::Points;
  s.colour = !ok ? 0 : *ok ? kMeets : kMisses;
  for (const auto& p : plan.points) {
    if (p.ok != ok) continue;
    s.x.push_back(p.value);
    s.y.push_back(value_or_nan(p.mean));
    tips.push_back(plan.vary + " = " + value_label(plan, p.value) + ": " +
                   chart::format_value(value_or_nan(p.mean), metric_unit(plan)) +
                   (p.ci95 ? " ± " + chart::format_value(*p.ci95, metric_unit(plan)) : "") +
                   (ok ? (*ok ? ", meets" : ", misses") : "") +
                   (p.certain == false ? " (uncertain)" : "") + ", round " + num(p.round));
  }
  return s;
}

// x from the start of a timeline, in months: the periods' steps from each period to the next.
struct Steps {
  std::vector<double> x;
  double end = 0.0;  // the last period's end
};
Steps period_steps(const TimelineFigures& t) {
  Steps s;
  for (std::size_t i = 0; i < t.periods.size(); ++i) {
    const double from = t.periods[i].month;
    const double to =
        i + 1 < t.periods.size() ? t.periods[i + 1].month : from + std::max(t.period_months, 1.0);
    s.x.insert(s.x.end(), {from, to});
    s.end = to;
  }
  return s;
}

// One value per period drawn as a step line (each period's value until the next period).
chart::Series step_series(const TimelineFigures& t, const Steps& steps, const std::string& label,
                          double (*value)(const results::TimelinePeriod&)) {
  chart::Series s{label, steps.x, {}, {}, Style::Line, 0};
  for (const auto& p : t.periods) s.y.insert(s.y.end(), 2, value(p));
  return s;
}

// Dates along the x axis: every k-th period, so that the labels do not overlap, to the end of
// the last period.
std::vector<std::pair<double, std::string>> date_ticks(const TimelineFigures& t,
                                                       const Steps& steps) {
  const double step = std::max(t.period_months, 1.0);
  const double room = 560.0 / 48.0;  // labels of 7 characters in a 560 px plot
  const double every = step * std::ceil(steps.end / step / room);
  const bool dated = std::all_of(steps.x.begin(), steps.x.end(),
                                 [&](double m) { return m >= 0 && m <= steps.end; });
  // Months out of order or beyond a century: months from the start on a plain axis instead.
  if (!(every >= 1 && steps.end <= 1200) || !dated) return {};
  std::vector<std::pair<double, std::string>> out;
  for (double m = 0; m < steps.end + every; m += every)
    out.emplace_back(m, month_after(t.start, static_cast<int>(m)));
  out.back().second = "";  // the end of the last period, at the plot's edge: no room for it
  return out;
}

void timeline_markers(const TimelineFigures& t, chart::XYChart& c) {
  for (const auto& p : t.purchases) {
    // Appended rather than "+" + ...: GCC 12 warns (-Wrestrict) on the temporary's concatenation.
    const std::string add =
        std::string("+").append(num(p.add)).append(t.device.empty() ? "" : " " + t.device);
    c.markers.push_back({static_cast<double>(months_between(t.start, p.order_by)),
                         "order " + add + (p.late ? " (late)" : ""), kMisses});
    c.markers.push_back(
        {static_cast<double>(months_between(t.start, p.needed_by)), add + " arrive", 1});
  }
  if (t.stops_meeting)
    c.markers.push_back({static_cast<double>(months_between(t.start, *t.stops_meeting)),
                         "fleet of " + num(t.fleet) + " stops meeting", kBlack});
}

}  // namespace

int months_between(const std::string& from, const std::string& to) {
  return month_number(to) - month_number(from);
}

std::string month_after(const std::string& from, int months) {
  const int m = month_number(from) + months;
  const std::string month = std::to_string(m % 12 + 1);
  return std::to_string(m / 12) + (month.size() < 2 ? "-0" : "-") + month;
}

chart::XYChart points_chart(const PlanFigures& plan) {
  chart::XYChart c;
  c.title = "Values simulated: " + plan.constraint.metric + " against " + plan.vary;
  c.note = plan.constraint.text + "; points (docs/plan.md), the answer marked";
  c.x = {plan.vary, value_unit(plan), false};
  c.y = {plan.constraint.metric, metric_unit(plan), false};
  const bool verdicts = std::any_of(plan.points.begin(), plan.points.end(),
                                    [](const auto& p) { return p.ok.has_value(); });
  for (const auto ok : verdicts ? std::vector<std::optional<bool>>{true, false}
                                : std::vector<std::optional<bool>>{std::nullopt}) {
    std::vector<std::string> tips;
    auto s = verdict_series(plan, ok, tips);
    if (s.x.empty()) continue;
    c.series.push_back(std::move(s));
    c.tips.push_back(std::move(tips));
  }
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (const auto& p : plan.points) lo = std::min(lo, p.value), hi = std::max(hi, p.value);
  c.x.log = value_unit(plan) == Unit::BytesPerSecond && lo > 0 && hi >= 100 * lo;
  if (plan.constraint.threshold && lo <= hi)
    c.series.push_back({"threshold " + plan.constraint.comparison + " " +
                            chart::format_value(*plan.constraint.threshold, metric_unit(plan)),
                        {lo, hi},
                        {*plan.constraint.threshold, *plan.constraint.threshold},
                        {},
                        Style::Dashed,
                        kBlack});
  if (plan.answer.value)
    c.markers.push_back({*plan.answer.value, "answer " + value_label(plan, plan.answer.value), 0});
  return c;
}

chart::BarChart answers_chart(const RobustFigures& r, const PlanFigures& plan) {
  chart::BarChart c;
  c.title = "Answers over the plausible inputs";
  c.note = "robust.distribution: " + num(r.samples) + " samples (" + r.method +
           "); the answer met in " + util::percent(r.confidence, "%.0f") + " of them, the median";
  c.y = {"samples", Unit::Plain, true};
  c.series = {"samples"};
  c.values.emplace_back();
  for (const auto& b : r.distribution) {
    c.categories.push_back(value_label(plan, b.value));
    c.values[0].push_back(b.count);
  }
  const auto none = std::count(r.answers.begin(), r.answers.end(), std::nullopt);
  if (none > 0) {
    c.categories.push_back("none");
    c.values[0].push_back(static_cast<double>(none));
  }
  const auto mark = [&](std::optional<double> v, const std::string& what, std::size_t colour) {
    for (std::size_t i = 0; v && i < r.distribution.size(); ++i)
      if (r.distribution[i].value == *v)
        c.markers.push_back({static_cast<double>(i), what + " " + value_label(plan, v), colour});
  };
  mark(r.answer.value, "robust answer", kMisses);
  mark(r.median, "median", kBlack);
  return c;
}

chart::RangeBarChart tornado_chart(const RobustFigures& r, const PlanFigures& plan) {
  chart::RangeBarChart c;
  c.title = "Inputs by swing of the answer (tornado)";
  c.note = "robust.tornado: the answer with one input at its low or high value, the others nominal";
  c.x = {"answer (" + plan.vary + ")", value_unit(plan), false};
  const auto centre = r.nominal ? r.nominal : plan.answer.value;
  c.centre = value_or_nan(centre);
  c.centre_label = "nominal " + value_label(plan, centre);
  c.low_part = "input at its low value";
  c.high_part = "input at its high value";
  for (const auto& s : r.tornado)
    c.bars.push_back(
        {s.name + " (" + num(s.low_value) + " / " + num(s.high_value) + ")",
         value_or_nan(s.answer_at_low), value_or_nan(s.answer_at_high),
         s.name + " at " + num(s.low_value) + ": " + value_label(plan, s.answer_at_low),
         s.name + " at " + num(s.high_value) + ": " + value_label(plan, s.answer_at_high)});
  return c;
}

chart::XYChart timeline_chart(const TimelineFigures& t) {
  chart::XYChart c;
  c.title = "Devices required against the fleet";
  c.note = "timeline.periods from " + t.start + ", lead time " + num(t.lead_time_months) +
           " months; purchases ordered and arriving";
  const Steps steps = period_steps(t);
  c.x = {"date", Unit::Plain, false};
  c.x_ticks = date_ticks(t, steps);
  if (c.x_ticks.empty()) c.x.label = "months from " + t.start;
  c.fit_markers = true;
  c.y = {"devices" + (t.device.empty() ? "" : " (" + t.device + ")"), Unit::Plain, true};
  if (t.confidence) {
    auto band =
        step_series(t, steps, "required, low to high", [](const results::TimelinePeriod& p) {
          return (value_or_nan(p.required_low) + value_or_nan(p.required_high)) / 2;
        });
    band.style = Style::Band;
    for (const auto& p : t.periods)
      band.band.insert(band.band.end(), 2,
                       (value_or_nan(p.required_high) - value_or_nan(p.required_low)) / 2);
    c.series.push_back(std::move(band));
  }
  c.series.push_back(
      step_series(t, steps,
                  t.confidence ? "required (" + util::percent(*t.confidence, "%.0f") + " of cases)"
                               : "required",
                  [](const results::TimelinePeriod& p) { return value_or_nan(p.required); }));
  if (t.confidence) {
    c.series.push_back(step_series(
        t, steps, "required, median",
        [](const results::TimelinePeriod& p) { return value_or_nan(p.required_median); }));
    c.series.back().style = Style::Dashed;
  }
  c.series.push_back(step_series(t, steps, "fleet (after purchases)",
                                 [](const results::TimelinePeriod& p) { return p.fleet; }));
  c.series.back().colour = 1;
  timeline_markers(t, c);
  return c;
}

std::vector<Panel> plan_panels(const PlanFigures& plan) {
  std::vector<Panel> out;
  const auto add = [&](const auto& c) { out.push_back({c.title, chart::render(c), ""}); };
  if (plan.points.empty())
    out.push_back({"Values simulated", "", "no value simulated (points is empty)"});
  else
    add(points_chart(plan));
  if (const auto& r = plan.robust) {
    add(answers_chart(*r, plan));
    if (r->tornado.empty())
      out.push_back({"Inputs by swing", "", "robust.tornado is empty"});
    else
      add(tornado_chart(*r, plan));
  }
  if (plan.timeline) add(timeline_chart(*plan.timeline));
  return out;
}

}  // namespace sonicsim::report
