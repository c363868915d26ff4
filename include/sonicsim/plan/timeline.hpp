// When to buy: the plan's min-devices question asked at every date of a growth path (more jobs
// or events per period, a new model from a given date), with the same confidence as a robust
// plan. It answers when the fleet the scenario has stops meeting the constraint, and what to
// add and when to order it for a given procurement lead time. docs/plan.md, "When to buy".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/plan/robust.hpp>

namespace sonicsim::plan {

// A path that grows: compound (`factor` over `over_months`) or linear (`add` per `per_months`).
struct GrowthPath {
  std::string path;
  bool compound = true;
  double factor = 1.0, over_months = 12.0;  // compound
  double add = 0.0, per_months = 12.0;      // linear
  std::string text() const;                 // "x2 over 36 months", "+100 per 12 months"
};
// A change from a date on: a new model's request, a new release's CPU time.
struct GrowthStep {
  int month = 0;  // months after the start
  std::string path, value, name;
};
struct Growth {
  int start_month = 0;  // year x 12 + month - 1 of `start` ("2027-01")
  int period_months = 3, horizon_months = 36, lead_time_months = 6;
  std::vector<GrowthPath> paths;
  std::vector<GrowthStep> steps;
  std::vector<uncertainty::NumericValue> base;  // each path's value in the scenario (load_growth)
};

// "2027-01" <-> months since year 0; nullopt for anything else.
std::optional<int> parse_month(const std::string& text);
std::string format_month(int month);
// "3mo", "1y", "18mo", "2.5y" in months (rounded to whole months); nullopt otherwise.
std::optional<int> parse_months(const std::string& text);

// The scenario's `growth` block (after `common`), and the flags over it: `--growth PATH=x2/3y`
// (compound) or `PATH=+100/1y` (linear), --start, --period, --horizon, --lead-time. Throws
// scenario::InputError (the block's JSON path) or the flag's message.
struct GrowthFlags {
  std::vector<std::string> growth;
  std::string start, period, horizon, lead_time;
};
Growth load_growth(const std::string& scenario_path, const std::vector<scenario::Override>& common,
                   const GrowthFlags& flags);

// The overrides that put the scenario at `month` after the start: every growing path at its
// value then (from Growth::base), every step taken by then.
std::vector<scenario::Override> growth_overrides(const Growth& g, int month);

struct TimelinePeriod {
  int month = 0;                                       // after the start
  std::vector<std::pair<std::string, double>> demand;  // each growing path's value
  std::vector<std::string> steps;                      // steps in force
  std::optional<double> required;                      // robust (or plain) answer; unset: none
  std::optional<double> required_median, required_low, required_high;
  double fleet = 0.0;  // after the purchases needed by then
  bool meets = false;  // the fleet as it was at the start meets it
  int simulations = 0;
};
struct Purchase {
  double add = 0.0;
  int needed_by = 0, order_by = 0;  // months since year 0
  bool late = false;                // the order date is before the start
};
struct Timeline {
  Growth growth;
  Report start_report;  // the plain plan at the start: the plan JSON the timeline extends
  std::optional<double> confidence;
  double fleet = 0.0;  // the varied path's value in the scenario
  std::string device;  // the pool's device, for min-devices
  std::vector<TimelinePeriod> periods;
  std::optional<int> stops_meeting;  // months since year 0
  std::vector<Purchase> purchases;
  int simulations = 0;
};

// Asks `options`' question (min-devices or min-bandwidth) at every period. With `robust`, each
// period is a robust plan warm-started from the previous period's sample answers.
Timeline timeline(const std::string& scenario_path, const std::vector<scenario::Override>& common,
                  const Options& options, const Growth& growth, const SimulateFor& simulate,
                  const std::optional<RobustOptions>& robust);

nlohmann::json to_json(const Timeline& t, const Options& options);
std::string to_text(const Timeline& t, const Options& options);

}  // namespace sonicsim::plan
