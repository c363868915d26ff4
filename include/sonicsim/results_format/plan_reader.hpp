// Reading a plan JSON (`sonicsim plan ... -o FILE.json`, docs/plan.md "Output") by what it
// holds, as reader.hpp reads results: the document and its blocks are views, the small objects
// of its arrays plain data, and every key is named by plan_keys.hpp. A plan file is a file a
// user hands over (`sonicsim report`): each figure read that is missing or not what it should be
// becomes a problem naming its JSON pointer, and check() throws them all at once.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sonicsim/results_format/reader.hpp>

namespace sonicsim::results {

// [low, high]; either may be null (no value in range).
struct PlanInterval {
  std::optional<double> low, high;
};

// The readers the plan's views share beside View's.
class PlanView : public View {
 public:
  explicit PlanView(View v) : View(std::move(v)) {}

 protected:
  PlanView(std::shared_ptr<const detail::DocumentState> doc, std::string pointer)
      : View(std::move(doc), std::move(pointer)) {}

  bool is_set(std::string_view key) const;  // present and not null
  // A string; "" and a problem when missing or not a string.
  std::string required_text(std::string_view key) const;
  // true or false; false and a problem when missing or not a boolean.
  bool required_flag(std::string_view key) const;
  // A month "YYYY-MM"; "" and a problem otherwise (nullable: null reads nullopt).
  std::string month(std::string_view key) const;
  std::optional<std::string> nullable_month(std::string_view key) const;
  // [a, b] of numbers or nulls; a problem unless an array of two.
  PlanInterval interval(std::string_view key) const;
  // An array of numbers or nulls; a problem unless an array.
  std::vector<std::optional<double>> nullable_numbers(std::string_view key) const;
};

// `constraint`: what the search held the metric to (no threshold for cost).
struct PlanConstraint {
  std::string kind, metric, comparison, text;
  std::optional<double> threshold;
};

// `answer`.
struct PlanAnswer {
  std::string status;
  std::optional<double> value;  // null when unsatisfiable
  PlanInterval interval;
};

// An element of `points`: one value simulated.
struct PlanPoint {
  double value = 0.0, round = 0.0;
  std::optional<double> mean, ci95;  // the metric over the replications
  std::optional<bool> ok, certain;   // absent for cost
};

// An element of `robust.inputs`: one uncertain input and its plausible range.
struct PlanInput {
  std::string name, path, dist;
  double nominal = 0.0, low = 0.0, high = 0.0;
};

// An element of `robust.distribution`: how many samples answered `value`.
struct AnswerBin {
  double value = 0.0, count = 0.0, cumulative = 0.0;
};

// `robust.answer`: the answer met in `confidence` of the plausible cases.
struct RobustAnswer {
  std::optional<double> value;
  double fraction_met = 0.0;
  PlanInterval fraction_met_ci95;
};

// `robust.check`: the chance that a value given to check meets the constraint.
struct RobustCheck {
  double value = 0.0, probability = 0.0;
  PlanInterval ci95;
};

// An element of `robust.tornado`: the answer with one input at its low and its high value.
struct Swing {
  std::string name, path;
  double low_value = 0.0, high_value = 0.0, swing = 0.0;
  std::optional<double> answer_at_low, answer_at_high;
};

// `robust.narrowing`: the central 95% of answers if one input were known better.
struct Narrowing {
  std::string name;
  double to_percent = 0.0, from_percent = 0.0;
  PlanInterval before, after;
};

// `robust`: the answer under the inputs' uncertainty (issue 38).
class Robust : public PlanView {
 public:
  explicit Robust(View v) : PlanView(std::move(v)) {}
  using View::text;  // beside text() below
  double confidence() const;
  std::string method() const;
  double samples() const;
  std::vector<PlanInput> inputs() const;
  std::vector<std::optional<double>> answers() const;  // per sample; nullopt: none in range
  std::vector<AnswerBin> distribution() const;
  RobustAnswer answer() const;
  std::optional<double> median() const;
  PlanInterval central95() const;
  std::optional<double> nominal() const;
  std::optional<RobustCheck> check() const;
  std::vector<Swing> tornado() const;
  std::optional<Narrowing> narrowing() const;
  double simulations() const;
  double searches() const;
  std::string text() const;
};

// An element of `timeline.growth` (no date) or `timeline.steps`.
struct TimelineChange {
  std::string path, date, text;
};

// An element of `timeline.periods`: the devices one period requires, and the fleet it has.
struct TimelinePeriod {
  std::string date;
  double month = 0.0;
  std::vector<std::pair<std::string, double>> demand;  // by path
  std::optional<double> required, required_median, required_low, required_high;
  double fleet = 0.0;
  bool meets = false;
};

// An element of `timeline.purchases`.
struct Purchase {
  double add = 0.0;
  std::string needed_by, order_by;
  bool late = false;
};

// `timeline` (`plan timeline`): required devices against the fleet over the periods.
class Timeline : public PlanView {
 public:
  explicit Timeline(View v) : PlanView(std::move(v)) {}
  using View::text;  // beside text() below
  std::string start() const;
  double period_months() const;
  double horizon_months() const;
  double lead_time_months() const;
  std::optional<double> confidence() const;  // null: the nominal inputs only
  double fleet() const;
  std::string device() const;
  std::vector<TimelineChange> growth() const;
  std::vector<TimelineChange> steps() const;
  std::vector<TimelinePeriod> periods() const;
  std::optional<std::string> stops_meeting() const;  // null: the fleet meets every period
  std::vector<Purchase> purchases() const;
  double simulations() const;
  std::string text() const;
};

// A whole plan document.
class PlanDocument : public PlanView {
 public:
  // Reads a plan file. Throws InputError naming the file when it cannot be read or is not a
  // JSON object.
  static PlanDocument read(const std::string& file);
  // Whether the file is a JSON object whose top level has the keys of a plan (question,
  // answer, points); false when it cannot be read or parsed. Builds no document.
  static bool is_plan_file(const std::string& file);

  const std::string& file() const;
  std::string scenario() const;  // "" when absent
  std::string question() const;
  std::string vary() const;
  PlanConstraint constraint() const;
  PlanAnswer answer() const;
  std::vector<PlanPoint> points() const;
  bool has_robust() const;
  Robust robust() const;
  bool has_timeline() const;
  Timeline timeline() const;

  // Throws InputError naming the file as a plan file, with the JSON pointer of every figure
  // read so far that was missing or not what it should be.
  void check() const;

 private:
  explicit PlanDocument(View v) : PlanView(std::move(v)) {}
  explicit PlanDocument(std::shared_ptr<const detail::DocumentState> state)
      : PlanView(std::move(state), "") {}
};

}  // namespace sonicsim::results
