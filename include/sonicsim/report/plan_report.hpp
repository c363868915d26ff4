// The report's view of a plan JSON (`sonicsim plan ... -o FILE.json`, docs/plan.md "Output";
// docs/report.md "A plan"): the search's points against the threshold, and with the inputs'
// uncertainty (`robust`) the distribution of answers and the tornado of inputs, with a
// timeline (`timeline`) the devices required against the fleet over time. Tables for text and
// Markdown, panels for the HTML page and --svg-dir. Reports without plans are as before.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <sonicsim/report/chart.hpp>
#include <sonicsim/report/panels.hpp>
#include <sonicsim/report/table.hpp>
#include <sonicsim/report/whatif.hpp>
#include <sonicsim/results_format/plan_reader.hpp>

namespace sonicsim::report {

// `robust`, read.
struct RobustFigures {
  double confidence = 0.0, samples = 0.0, simulations = 0.0, searches = 0.0;
  std::string method, text;
  std::vector<results::PlanInput> inputs;
  std::vector<std::optional<double>> answers;  // per sample; nullopt: none in range
  std::vector<results::AnswerBin> distribution;
  results::RobustAnswer answer;
  std::optional<double> median, nominal;
  results::PlanInterval central95;
  std::optional<results::RobustCheck> check;
  std::vector<results::Swing> tornado;  // by swing, the largest first
  std::optional<results::Narrowing> narrowing;
};

// `timeline`, read.
struct TimelineFigures {
  std::string start, device, text;
  double period_months = 0.0, horizon_months = 0.0, lead_time_months = 0.0;
  double fleet = 0.0, simulations = 0.0;
  std::optional<double> confidence;  // null: the nominal inputs only
  std::vector<results::TimelineChange> growth, steps;
  std::vector<results::TimelinePeriod> periods;
  std::optional<std::string> stops_meeting;
  std::vector<results::Purchase> purchases;
};

// The figures of one plan file the report speaks of and draws.
struct PlanFigures {
  std::string file, scenario, question, vary;
  results::PlanConstraint constraint;
  results::PlanAnswer answer;
  std::vector<results::PlanPoint> points;  // in the order simulated
  std::optional<RobustFigures> robust;
  std::optional<TimelineFigures> timeline;
};

// Throws InputError naming the file and the JSON path of what is missing or wrong.
PlanFigures read_plan(const std::string& path);

// Months from `from` to `to`, both "YYYY-MM" ("2027-01" to "2028-04": 15); and the month
// `months` after `from`.
int months_between(const std::string& from, const std::string& to);
std::string month_after(const std::string& from, int months);

// The charts' data, each drawn by chart::render: the metric at each value simulated (meets and
// misses apart) with the threshold and the answer; the samples per answer with the robust
// answer and the median; the answer with each input at its low and high value, by swing; the
// devices required (quantile, median, low-high band) against the fleet over the periods, with
// the purchases and the date the fleet stops meeting.
chart::XYChart points_chart(const PlanFigures& plan);
chart::BarChart answers_chart(const RobustFigures& robust, const PlanFigures& plan);
chart::RangeBarChart tornado_chart(const RobustFigures& robust, const PlanFigures& plan);
chart::XYChart timeline_chart(const TimelineFigures& timeline);

// Every chart of a plan, in the page's order.
std::vector<Panel> plan_panels(const PlanFigures& plan);

// The plan's figures (one row per figure), its points, its answers' distribution, its tornado,
// its periods and its purchases (empty tables for what the plan has none of).
Table plan_table(const PlanFigures& plan);
Table points_table(const PlanFigures& plan);
Table distribution_table(const RobustFigures& robust, const PlanFigures& plan);
Table tornado_table(const RobustFigures& robust, const PlanFigures& plan);
Table periods_table(const TimelineFigures& timeline);
Table purchases_table(const TimelineFigures& timeline);
// What the plan says in words: robust.text, the check, the narrowing, the timeline's text,
// growth and steps, where the fleet stops meeting.
std::vector<std::string> plan_sentences(const PlanFigures& plan);

// --format text or md: each plan's tables and sentences.
std::string plan_text(const std::vector<PlanFigures>& plans, Format format);
// The HTML page's section of the plans ("" when none).
std::string plan_html(const std::vector<PlanFigures>& plans);

}  // namespace sonicsim::report
