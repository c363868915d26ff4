// A plan file in the report: reading it through the typed reader, its tables and sentences, and
// its section of the HTML page (the charts are plan_panels.cpp's).
#include <sonicsim/report/plan_report.hpp>

#include <algorithm>
#include <cmath>

#include <sonicsim/util/format.hpp>

namespace sonicsim::report {

namespace {

using chart::escape;

RobustFigures read_robust(const results::Robust& r) {
  RobustFigures f;
  f.confidence = r.confidence();
  f.method = r.method();
  f.samples = r.samples();
  f.inputs = r.inputs();
  f.answers = r.answers();
  f.distribution = r.distribution();
  f.answer = r.answer();
  f.median = r.median();
  f.central95 = r.central95();
  f.nominal = r.nominal();
  f.check = r.check();
  f.tornado = r.tornado();
  std::stable_sort(f.tornado.begin(), f.tornado.end(),
                   [](const auto& a, const auto& b) { return a.swing > b.swing; });
  f.narrowing = r.narrowing();
  f.simulations = r.simulations();
  f.searches = r.searches();
  f.text = r.text();
  return f;
}

TimelineFigures read_timeline(const results::Timeline& t) {
  TimelineFigures f;
  f.start = t.start();
  f.period_months = t.period_months();
  f.horizon_months = t.horizon_months();
  f.lead_time_months = t.lead_time_months();
  f.confidence = t.confidence();
  f.fleet = t.fleet();
  f.device = t.device();
  f.growth = t.growth();
  f.steps = t.steps();
  f.periods = t.periods();
  f.stops_meeting = t.stops_meeting();
  f.purchases = t.purchases();
  f.simulations = t.simulations();
  f.text = t.text();
  return f;
}

// A value of the varied parameter: bandwidths with their unit, counts as they are.
std::string value_text(const PlanFigures& plan, std::optional<double> v) {
  if (!v) return "none";
  return plan.question == "min-bandwidth" ? chart::format_value(*v, chart::Unit::BytesPerSecond)
                                          : num(*v);
}

std::string interval_text(const PlanFigures& plan, const results::PlanInterval& i) {
  return value_text(plan, i.low) + " to " + value_text(plan, i.high);
}

std::string share(std::optional<double> f) {
  return f ? util::percent(*f, "%.1f") : "–";
}

std::string metric_text(const PlanFigures& plan, std::optional<double> v) {
  if (!v) return "–";
  const auto& m = plan.constraint.metric;
  return m.size() > 2 && m.compare(m.size() - 2, 2, "_s") == 0 ? time_text(*v) : num(*v);
}

void add_robust_rows(Table& t, const PlanFigures& plan, const RobustFigures& r) {
  t.rows.push_back({"robust answer (" + util::percent(r.confidence, "%.0f") + " of cases)",
                    value_text(plan, r.answer.value)});
  t.rows.push_back({"cases it meets (95% CI)", share(r.answer.fraction_met) + " (" +
                                                   share(r.answer.fraction_met_ci95.low) + " to " +
                                                   share(r.answer.fraction_met_ci95.high) + ")"});
  t.rows.push_back({"median answer", value_text(plan, r.median)});
  t.rows.push_back({"central 95% of answers", interval_text(plan, r.central95)});
  t.rows.push_back({"answer at the nominal inputs", value_text(plan, r.nominal)});
  t.rows.push_back({"samples", num(r.samples) + " (" + r.method + ")"});
  t.rows.push_back({"simulations (uncertainty)", num(r.simulations)});
}

void add_timeline_rows(Table& t, const TimelineFigures& tl) {
  t.rows.push_back({"timeline", "from " + tl.start + ", " + num(tl.horizon_months) +
                                    " months in periods of " + num(tl.period_months)});
  t.rows.push_back({"lead time", num(tl.lead_time_months) + " months"});
  t.rows.push_back({"fleet", num(tl.fleet) + (tl.device.empty() ? "" : " " + tl.device)});
  t.rows.push_back({"stops meeting", tl.stops_meeting.value_or("never in the horizon")});
  t.rows.push_back({"purchases", std::to_string(tl.purchases.size())});
  t.rows.push_back({"simulations (timeline)", num(tl.simulations)});
}

std::string interval_sentence(const PlanFigures& plan, const results::PlanInterval& i) {
  return value_text(plan, i.low) + "–" + value_text(plan, i.high);
}

void robust_sentences(const PlanFigures& plan, const RobustFigures& r,
                      std::vector<std::string>& said) {
  said.push_back(r.text);
  if (r.check)
    said.push_back(value_text(plan, r.check->value) + " meets the constraint with probability " +
                   share(r.check->probability) + " (95% CI " + share(r.check->ci95.low) + " to " +
                   share(r.check->ci95.high) + ")");
  if (const auto& n = r.narrowing)
    said.push_back("knowing " + n->name + " to ±" + num(n->to_percent) + "% (now ±" +
                   num(n->from_percent) + "%) would narrow the central 95% of answers from " +
                   interval_sentence(plan, n->before) + " to " + interval_sentence(plan, n->after));
}

void timeline_sentences(const TimelineFigures& t, std::vector<std::string>& said) {
  said.push_back(t.text);
  for (const auto& g : t.growth) said.push_back("growth: " + g.path + " " + g.text);
  for (const auto& s : t.steps) said.push_back("step in " + s.date + ": " + s.path + " " + s.text);
  said.push_back(t.stops_meeting ? "the fleet of " + num(t.fleet) +
                                       " stops meeting the "
                                       "constraint in " +
                                       *t.stops_meeting
                                 : "the fleet of " + num(t.fleet) +
                                       " meets the constraint "
                                       "over the whole horizon");
}

// The tables of a plan, titled, in the order text, Markdown and HTML show them.
std::vector<std::pair<std::string, Table>> plan_tables(const PlanFigures& plan) {
  std::vector<std::pair<std::string, Table>> out{{"Figures", plan_table(plan)}};
  if (!plan.points.empty()) out.push_back({"Values simulated", points_table(plan)});
  if (const auto& r = plan.robust) {
    out.push_back({"Answers over the plausible inputs", distribution_table(*r, plan)});
    out.push_back({"Inputs by swing (tornado)", tornado_table(*r, plan)});
  }
  if (const auto& t = plan.timeline) {
    out.push_back({"Periods", periods_table(*t)});
    if (!t->purchases.empty()) out.push_back({"Purchases", purchases_table(*t)});
  }
  return out;
}

}  // namespace

PlanFigures read_plan(const std::string& path) {
  const auto doc = results::PlanDocument::read(path);
  PlanFigures f;
  f.file = path;
  f.scenario = doc.scenario();
  f.question = doc.question();
  f.vary = doc.vary();
  f.constraint = doc.constraint();
  f.answer = doc.answer();
  f.points = doc.points();
  if (doc.has_robust()) f.robust = read_robust(doc.robust());
  if (doc.has_timeline()) f.timeline = read_timeline(doc.timeline());
  doc.check();
  return f;
}

Table plan_table(const PlanFigures& plan) {
  Table t;
  t.headers = {"figure", plan.file};
  t.rows.push_back({"scenario", plan.scenario});
  t.rows.push_back({"question", plan.question + " (" + plan.vary + ")"});
  t.rows.push_back({"constraint", plan.constraint.text});
  t.rows.push_back(
      {"answer", value_text(plan, plan.answer.value) + " (" + plan.answer.status + ")"});
  t.rows.push_back({"uncertainty", interval_text(plan, plan.answer.interval)});
  t.rows.push_back({"values simulated", std::to_string(plan.points.size())});
  if (plan.robust) add_robust_rows(t, plan, *plan.robust);
  if (plan.timeline) add_timeline_rows(t, *plan.timeline);
  return t;
}

Table points_table(const PlanFigures& plan) {
  Table t;
  t.headers = {plan.vary, "round", plan.constraint.metric, "ci95", "verdict"};
  for (const auto& p : plan.points)
    t.rows.push_back({value_text(plan, p.value), num(p.round), metric_text(plan, p.mean),
                      metric_text(plan, p.ci95),
                      !p.ok   ? "–"
                      : *p.ok ? (p.certain.value_or(true) ? "ok" : "ok (uncertain)")
                      : p.certain.value_or(true) ? "miss"
                                                 : "miss (uncertain)"});
  return t;
}

Table distribution_table(const RobustFigures& r, const PlanFigures& plan) {
  Table t;
  t.headers = {"answer", "samples", "cumulative"};
  for (const auto& b : r.distribution)
    t.rows.push_back({value_text(plan, b.value), num(b.count), share(b.cumulative)});
  const auto none = std::count(r.answers.begin(), r.answers.end(), std::nullopt);
  if (none > 0) t.rows.push_back({"none in range", std::to_string(none), "–"});
  return t;
}

Table tornado_table(const RobustFigures& r, const PlanFigures& plan) {
  Table t;
  t.headers = {"input", "path", "low", "high", "answer at low", "answer at high", "swing"};
  for (const auto& s : r.tornado)
    t.rows.push_back({s.name, s.path, num(s.low_value), num(s.high_value),
                      value_text(plan, s.answer_at_low), value_text(plan, s.answer_at_high),
                      value_text(plan, s.swing)});
  return t;
}

Table periods_table(const TimelineFigures& tl) {
  const std::string q =
      tl.confidence ? "required (" + util::percent(*tl.confidence, "%.0f") + ")" : "required";
  Table t;
  t.headers = {"date", q, "median", "low", "high", "fleet", "meets"};
  const auto cell = [](std::optional<double> v) { return v ? num(*v) : "–"; };
  for (const auto& p : tl.periods)
    t.rows.push_back({p.date, cell(p.required), cell(p.required_median), cell(p.required_low),
                      cell(p.required_high), num(p.fleet), p.meets ? "yes" : "no"});
  return t;
}

Table purchases_table(const TimelineFigures& tl) {
  Table t;
  t.headers = {"add", "order by", "needed by", "late"};
  for (const auto& p : tl.purchases)
    t.rows.push_back({num(p.add), p.order_by, p.needed_by, p.late ? "yes" : "no"});
  return t;
}

std::vector<std::string> plan_sentences(const PlanFigures& plan) {
  std::vector<std::string> said;
  if (plan.robust) robust_sentences(plan, *plan.robust, said);
  if (plan.timeline) timeline_sentences(*plan.timeline, said);
  return said;
}

std::string plan_text(const std::vector<PlanFigures>& plans, Format format) {
  std::string out;
  const bool md = format == Format::Markdown;
  for (const auto& plan : plans) {
    out += md ? "\n## Plan: " + plan.file + "\n" : "\nplan: " + plan.file + "\n";
    for (const auto& s : plan_sentences(plan)) out += (md ? "\n- " : "  ") + s + (md ? "" : "\n");
    if (md && !plan_sentences(plan).empty()) out += "\n";
    for (const auto& [title, table] : plan_tables(plan))
      out += md ? "\n### " + title + "\n\n" + to_markdown(table)
                : "\n" + title + "\n" + to_text(table);
  }
  return out;
}

std::string plan_html(const std::vector<PlanFigures>& plans) {
  if (plans.empty()) return "";
  std::string out = "<section id=\"plans\">\n<h2>Plans</h2>\n";
  for (const auto& plan : plans) {
    out += "<h3>" + escape(plan.file) +
           (plan.scenario.empty() ? "" : " (" + escape(plan.scenario) + ")") + "</h3>\n";
    const auto said = plan_sentences(plan);
    if (!said.empty()) {
      out += "<ul>\n";
      for (const auto& s : said) out += "<li>" + escape(s) + "</li>\n";
      out += "</ul>\n";
    }
    out += panels_html(plan_panels(plan));
    for (const auto& [title, table] : plan_tables(plan))
      out += "<h4>" + escape(title) + "</h4>\n" + to_html(table);
  }
  return out + "</section>\n";
}

}  // namespace sonicsim::report
