// Robust plans: the plan's question answered for every plausible value of the scenario's
// uncertain inputs (its `uncertainty` block, docs/uncertainty.md), and the answer that meets the
// constraint in a given fraction of them ("34 T4s meet <= 5% slowdown in 95% of the plausible
// cases; 31 at the median"). Which input matters is a one-at-a-time tornado of the answer, and
// what measuring the top input better would buy is the same samples with that input narrowed.
//
// Each sample's search reuses plan(): the samples are ordered by their analytic answer and each
// search starts from a bracket at the previous sample's answer scaled by the analytic ratio, so
// most samples take the two simulations that confirm a boundary. docs/plan.md, "Robust answers".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/plan/plan.hpp>
#include <sonicsim/uncertainty/inputs.hpp>

namespace sonicsim::plan {

struct RobustOptions {
  double confidence = 0.95;
  std::optional<int> samples;         // --samples; default the block's (32)
  std::optional<std::string> method;  // --sampling lhs|sobol; default the block's (lhs)
  std::optional<std::uint64_t> seed;  // default the block's, else the plan's seed
  std::string uncertainty_file;       // --uncertainty FILE: a block instead of the scenario's
  std::optional<double> check;        // --check PATH=VALUE: the value whose chance is asked
  int replications = 1;               // per sample value (--sample-replications)
  int workers = 2;                    // simulations at once: values per round, workers / R
  bool tornado = true;                // --no-tornado
  double narrow_to = 0.02;            // --narrow: the top input's 95% half-width; 0 = none
  std::function<void(const std::string&)> on_progress;  // after each search, when set
  // The answers of the same samples at a neighbouring question (a timeline's previous period):
  // each sample's search starts there instead of at the previous sample's answer.
  std::vector<std::optional<double>> warm_answers, warm_analytic;
};

// Simulate for a given set of common overrides (each sample's).
using SimulateFor = std::function<Simulate(const std::vector<scenario::Override>& common)>;

struct RobustInput {
  std::string name, path, dist;
  double nominal = 0.0, low = 0.0, high = 0.0;  // 2.5% and 97.5% quantiles (a curve: factors)
  std::string low_text, high_text;              // as written into the scenario, for people
};
struct TornadoBar {
  std::string name, path;
  double low_value = 0.0, high_value = 0.0;
  std::optional<double> answer_at_low, answer_at_high;  // unset: no answer in the range
  double swing = 0.0;
};
struct Narrowing {
  std::string name;
  double from_percent = 0.0, to_percent = 0.0;
  std::optional<double> before_low, before_high, after_low, after_high;  // central 95%
  std::optional<double> answer_before, answer_after;  // the robust answer (met in C of them)
};
struct Robust {
  double confidence = 0.95;
  std::string device;  // the pool's device when the plan varies its count ("T4"), else empty
  std::string method;
  int samples = 0;
  std::uint64_t seed = 0;
  int replications = 1;
  std::vector<RobustInput> inputs;
  std::vector<std::vector<double>> sample_inputs;  // per sample, per input (Sample::summary)
  std::vector<std::optional<double>> answers;      // per sample; unset: none in the range
  std::vector<std::optional<double>> analytic;     // per sample: the formula's (else MVA's)
  std::optional<double> answer;                    // met in >= confidence of the samples
  int met = 0;                                     // samples the answer meets
  std::optional<double> median, central_low, central_high;
  std::optional<double> nominal;  // the plain plan's answer
  std::optional<double> check_value;
  int check_met = 0;
  std::vector<TornadoBar> tornado;
  std::optional<Narrowing> narrowing;
  int simulations = 0, searches = 0;
  int sample_simulations = 0, tornado_simulations = 0;  // of `simulations`; the rest narrowing
  int plain_simulations = 0;                            // the nominal plan's
};

// The robust answer around `nominal` (the plain plan of the same question, already run).
// Throws scenario::InputError when the scenario has no uncertainty block (or a bad one).
Robust robust_plan(const std::string& scenario_path, const std::vector<scenario::Override>& common,
                   const Report& nominal, const SimulateFor& simulate, const RobustOptions& ro);

nlohmann::json to_json(const Robust& r, const Report& nominal);
std::string to_text(const Robust& r, const Report& nominal);

// The answer met in >= `confidence` of `answers` (unset: none in the range, counted as
// failing): the smallest such value for min-* questions (ok_below false), the largest for max-cpu.
struct Quantiled {
  std::optional<double> value;
  int met = 0;
};
Quantiled robust_quantile(const std::vector<std::optional<double>>& answers, double confidence,
                          bool ok_below);
// How many answers a value meets: <= value (min-*), >= value (max-cpu).
int meets_count(const std::vector<std::optional<double>>& answers, double value, bool ok_below);

}  // namespace sonicsim::plan
