// A plan JSON in the report (docs/report.md "A plan"): the typed reader, the input's detection,
// and what each chart holds: the search's points, the distribution of answers, the tornado and
// the timeline, from the hand-made plans in tests/data/report/.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/report/plan_report.hpp>
#include <sonicsim/report/report.hpp>
#include <sonicsim/results_format/plan_reader.hpp>
#include <sonicsim/util/errors.hpp>

using namespace sonicsim::report;

namespace {

const std::string kRobust = std::string(SONICSIM_TEST_DATA_DIR) + "/report/plan_robust.json";
const std::string kTimeline = std::string(SONICSIM_TEST_DATA_DIR) + "/report/plan_timeline.json";
// A plain plan as `sonicsim plan tests/data/plan_knee.json min-devices --set workload.jobs=200
// --slowdown 0.5 -o FILE` wrote it: no robust or timeline block.
const std::string kPlain = std::string(SONICSIM_TEST_DATA_DIR) + "/report/plan_min_devices.json";

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/sonicsim-plan-report-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

nlohmann::json load(const std::string& path) {
  return nlohmann::json::parse(std::ifstream(path));
}

// The message of the InputError reading `doc` as a plan throws ("" when none).
std::string problem_of(const nlohmann::json& doc) {
  const auto path = write_file("bad.json", doc.dump());
  std::string message;
  try {
    read_plan(path);
  } catch (const sonicsim::InputError& e) {
    message = e.what();
  }
  std::remove(path.c_str());
  return message;
}

}  // namespace

TEST_CASE("plan reader: a robust plan's blocks, by what they hold", "[report][plan]") {
  const auto doc = sonicsim::results::PlanDocument::read(kRobust);
  CHECK(doc.question() == "min-devices");
  CHECK(doc.vary() == "servers.0.count");
  CHECK(doc.constraint().threshold == Approx(0.0556517));
  CHECK(doc.answer().value == 7.0);
  REQUIRE(doc.points().size() == 5);
  CHECK(doc.points()[3].ok == false);
  CHECK(doc.points()[4].certain == false);
  CHECK_FALSE(doc.points()[0].ci95.has_value());  // null: one replication
  REQUIRE(doc.has_robust());
  CHECK_FALSE(doc.has_timeline());
  const auto r = doc.robust();
  CHECK(r.inputs().size() == 3);
  CHECK(r.inputs()[0].path == "workload.cpu_time_per_event.mean");
  const auto answers = r.answers();
  REQUIRE(answers.size() == 32);
  CHECK_FALSE(answers[10].has_value());  // null: no answer in range
  CHECK(r.distribution().size() == 4);
  CHECK(r.answer().fraction_met_ci95.high == 0.99);
  CHECK(r.central95().low == 5.0);
  REQUIRE(r.check());
  CHECK(r.check()->probability == 0.8125);
  REQUIRE(r.narrowing());
  CHECK(r.narrowing()->after.high == 7.0);
  CHECK(r.searches() == 34);
  CHECK_NOTHROW(doc.check());
}

TEST_CASE("plan reader: a missing or wrong key names the file and its JSON path",
          "[report][plan]") {
  auto doc = load(kRobust);
  doc["robust"]["tornado"][1]["swing"] = "big";
  doc["robust"]["answers"][2] = "seven";
  doc["answer"].erase("status");
  const std::string message = problem_of(doc);
  CHECK_THAT(message, Catch::Contains("bad.json") && Catch::Contains("a sonicsim plan file") &&
                          Catch::Contains("/robust/tornado/1/swing") &&
                          Catch::Contains("/robust/answers/2") &&
                          Catch::Contains("/answer/status"));
  auto tl = load(kTimeline);
  tl["timeline"]["periods"][0].erase("fleet");
  tl["timeline"]["purchases"][0]["order_by"] = "October";
  tl["timeline"]["stops_meeting"] = "2028-13";
  const std::string timeline = problem_of(tl);
  CHECK_THAT(timeline, Catch::Contains("/timeline/periods/0/fleet") &&
                           Catch::Contains("/timeline/purchases/0/order_by") &&
                           Catch::Contains("expected a month YYYY-MM") &&
                           Catch::Contains("/timeline/stops_meeting"));
  CHECK(problem_of(load(kTimeline)).empty());
}

TEST_CASE("report: a JSON with question, answer and points is a plan", "[report][plan]") {
  const auto in = read_inputs({kRobust, kTimeline});
  CHECK(in.runs.empty());
  CHECK(in.sweeps.empty());
  REQUIRE(in.plans.size() == 2);
  CHECK(in.plans[0].robust.has_value());
  CHECK_FALSE(in.plans[0].timeline.has_value());
  CHECK(in.plans[1].timeline.has_value());
  // Without `points` it is not a plan: read as results, whose keys it lacks.
  auto doc = load(kRobust);
  doc.erase("points");
  const auto path = write_file("no-points.json", doc.dump());
  CHECK_THROWS_WITH(read_inputs({path}), Catch::Contains("a sonicsim results file"));
  std::remove(path.c_str());
  const auto text = write_file("notes.txt", "hello\n");
  CHECK_THROWS_WITH(read_inputs({text}), Catch::Contains("a plan JSON (sonicsim plan -o"));
  std::remove(text.c_str());
}

TEST_CASE("report: a plan's points, meets and misses apart, with threshold and answer",
          "[report][plan]") {
  const auto plan = read_plan(kRobust);
  const auto c = points_chart(plan);
  REQUIRE(c.series.size() == 3);
  CHECK(c.series[0].label == "meets");
  CHECK(c.series[0].x == std::vector<double>{16, 8, 7});
  CHECK(c.series[1].label == "misses");
  CHECK(c.series[1].x == std::vector<double>{4, 6});
  CHECK(c.series[0].colour != c.series[1].colour);
  CHECK_THAT(c.tips[0][2], Catch::Contains("(uncertain)"));
  CHECK_THAT(c.series[2].label, Catch::StartsWith("threshold <="));
  CHECK(c.series[2].x == std::vector<double>{4, 16});
  CHECK(c.series[2].y[0] == Approx(0.0556517));
  REQUIRE(c.markers.size() == 1);
  CHECK(c.markers[0].x == 7);
  CHECK(c.markers[0].label == "answer 7");
}

TEST_CASE("report: a plain plan has its points chart and tables, and nothing robust",
          "[report][plan]") {
  const auto plan = read_plan(kPlain);
  CHECK(plan.question == "min-devices");
  CHECK(plan.answer.value == 4.0);
  CHECK(plan.points.size() == 5);
  CHECK_FALSE(plan.robust);
  CHECK_FALSE(plan.timeline);
  const auto panels = plan_panels(plan);
  REQUIRE(panels.size() == 1);
  CHECK_THAT(panels[0].svg, Catch::Contains("answer 4") && Catch::Contains("threshold &lt;="));
  CHECK(plan_sentences(plan).empty());

  // A cost plan: no verdicts and no threshold, one series of every value.
  auto doc = load(kPlain);
  doc["question"] = "cost";
  doc["constraint"]["threshold"] = nullptr;
  for (auto& p : doc["points"]) p.erase("ok"), p.erase("certain");
  const auto path = write_file("cost.json", doc.dump());
  const auto cost = points_chart(read_plan(path));
  std::remove(path.c_str());
  REQUIRE(cost.series.size() == 1);
  CHECK(cost.series[0].label == "simulated");
  CHECK(cost.series[0].x.size() == 5);
}

TEST_CASE("report: the answers' distribution marks the robust answer and the median",
          "[report][plan]") {
  const auto plan = read_plan(kRobust);
  const auto c = answers_chart(*plan.robust, plan);
  CHECK(c.categories == std::vector<std::string>{"5", "6", "7", "8", "none"});
  CHECK(c.values[0] == std::vector<double>{3, 12, 11, 5, 1});
  REQUIRE(c.markers.size() == 2);
  CHECK(c.markers[0].x == 3);  // robust answer 8: the fourth bar
  CHECK(c.markers[0].label == "robust answer 8");
  CHECK(c.markers[1].x == 2);  // median 7
  CHECK(c.markers[1].label == "median 7");
}

TEST_CASE("report: the tornado's bars by swing, largest on top, with their ends",
          "[report][plan]") {
  const auto plan = read_plan(kRobust);
  const auto c = tornado_chart(*plan.robust, plan);
  CHECK(c.centre == 7);
  REQUIRE(c.bars.size() == 3);
  CHECK(c.bars[0].label == "t_GPU (0.9 / 1.1)");
  CHECK(c.bars[0].low_end == 5);
  CHECK(c.bars[0].high_end == 8);
  CHECK(c.bars[1].label == "t_CPU (0.09 / 0.11)");
  CHECK(c.bars[1].low_end == 8);
  CHECK(c.bars[1].high_end == 6);
  CHECK(c.bars[2].label == "jobs (180 / 220)");
  CHECK(c.bars[2].high_end == 8);
  // Drawn top to bottom in that order, each half with its tooltip.
  const std::string svg = sonicsim::report::chart::render(c);
  const auto gpu = svg.find("t_GPU at 0.9: 5"), cpu = svg.find("t_CPU at 0.09: 8"),
             jobs = svg.find("jobs at 220: 8");
  REQUIRE(gpu != std::string::npos);
  REQUIRE(cpu != std::string::npos);
  REQUIRE(jobs != std::string::npos);
  CHECK(gpu < cpu);
  CHECK(cpu < jobs);
  CHECK_THAT(svg, Catch::Contains("nominal 7"));
}

TEST_CASE("report: the timeline's steps, band, fleet, purchases and the date it stops meeting",
          "[report][plan]") {
  const auto plan = read_plan(kTimeline);
  REQUIRE(plan.timeline);
  const auto c = timeline_chart(*plan.timeline);
  REQUIRE(c.series.size() == 4);
  const auto& band = c.series[0];
  CHECK(band.style == sonicsim::report::chart::Style::Band);
  CHECK(band.y[0] - band.band[0] == 4);  // required_low of the first period
  CHECK(band.y[0] + band.band[0] == 7);  // required_high
  const auto& required = c.series[1];
  CHECK(required.label == "required (95% of cases)");
  CHECK(required.x ==
        std::vector<double>{0, 3, 3, 6, 6, 9, 9, 12, 12, 15, 15, 18, 18, 21, 21, 24, 24, 27});
  CHECK(required.y ==
        std::vector<double>{6, 6, 7, 7, 7, 7, 8, 8, 7, 7, 9, 9, 9, 9, 10, 10, 11, 11});
  CHECK(c.series[2].label == "required, median");
  CHECK(c.series[2].y[0] == 5);
  const auto& fleet = c.series[3];
  CHECK(fleet.y[8] == 8);    // 2028-01
  CHECK(fleet.y[10] == 10);  // 2028-04: the first purchase arrived
  REQUIRE(c.markers.size() == 5);
  CHECK(c.markers[0].x == 9);  // ordered 2027-10
  CHECK(c.markers[0].label == "order +2 T4");
  CHECK(c.markers[1].x == 15);  // needed by 2028-04
  CHECK(c.markers[1].label == "+2 T4 arrive");
  CHECK(c.markers[4].x == 15);
  CHECK(c.markers[4].label == "fleet of 8 stops meeting");
  REQUIRE(c.x_ticks.size() >= 2);
  CHECK(c.x_ticks.front().second == "2027-01");
  CHECK(c.x_ticks.back().first >= 27);
}

TEST_CASE("report: months between dates", "[report][plan]") {
  CHECK(months_between("2027-01", "2028-04") == 15);
  CHECK(months_between("2027-10", "2027-01") == -9);
  CHECK(month_after("2027-01", 15) == "2028-04");
  CHECK(month_after("2027-11", 2) == "2028-01");
}

TEST_CASE("report: a plan in text, Markdown, HTML and SVG files", "[report][plan]") {
  const auto in = read_inputs({kRobust, kTimeline});
  const std::string text = text_report(in, Format::Text);
  CHECK_THAT(text, Catch::StartsWith("plan: ") &&
                       Catch::Contains("8 T4s meet <= 5% slowdown in 95% of the plausible") &&
                       Catch::Contains("knowing t_GPU to ±2% (now ±10%) would narrow the "
                                       "central 95% of answers from 5–8 to 6–7") &&
                       Catch::Contains("7 meets the constraint with probability 81.2%") &&
                       Catch::Contains("Inputs by swing (tornado)") &&
                       Catch::Contains("stops meeting the constraint in 2028-04"));
  const std::string md = text_report(in, Format::Markdown);
  CHECK_THAT(md, Catch::Contains("## Plan: ") && Catch::Contains("| t_GPU |"));
  const std::string page = html_report(in);
  CHECK_THAT(page, Catch::Contains("<section id=\"plans\">") &&
                       Catch::Contains("Devices required against the fleet"));
  std::vector<std::string> names;
  for (const auto& [name, svg] : svg_files(in)) names.push_back(name);
  CHECK(std::count(names.begin(), names.end(), "answers-over-the-plausible-inputs.svg") == 1);
  CHECK(std::count(names.begin(), names.end(), "inputs-by-swing-of-the-answer-tornado.svg") == 1);
  CHECK(std::count(names.begin(), names.end(), "devices-required-against-the-fleet.svg") == 1);
}
