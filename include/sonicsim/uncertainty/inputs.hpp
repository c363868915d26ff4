// The uncertain inputs of a scenario: its `uncertainty` block (docs/uncertainty.md), read and
// validated. Each input names one scenario path (the --set spelling,
// `workload.cpu_time_per_event.mean`) and how its value is spread: a +- range, uniform, normal,
// lognormal, a list of alternatives, or a calibration file's own fitted intervals (a service-time
// curve that moves as one, correlated as the fit's covariance says).
//
// The block changes nothing in a run: `run`, `sweep` and `plan` simulate the scenario as written
// unless asked to sample it (`--samples`, `--confidence`). Nothing here simulates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/overrides.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::uncertainty {

enum class Dist { PlusMinus, Uniform, Normal, Lognormal, Choice, Calibration };
const char* dist_name(Dist d);

// A calibrated service-time curve (`calibrate perf-analyzer`): the chosen fit's parameters and
// their covariance, and the table the scenario reads. A sample draws the parameters from
// N(params, covariance) and scales the whole table by curve(drawn) / curve(fitted), so the
// simulator's refinement of the curve is kept and the curve moves as one.
struct CalibratedCurve {
  std::string file;  // as the scenario names it
  std::string kind;  // linear, saturating, piecewise (the fit's `chosen`)
  std::vector<std::string> param_names;
  std::vector<double> params;
  // Row-major k x k. From the file's `covariance` when it has one; else diagonal, from the 95%
  // half-widths (independent parameters, `covariance_from_file` false). A piecewise curve has no
  // parameters: one lognormal factor of its relative rms error moves it.
  std::vector<double> covariance;
  bool covariance_from_file = false;
  double rms_rel_error = 0.0;
  std::vector<double> batch, seconds;  // the file's service_time table
};

struct Input {
  std::string name;  // for reports; default: the path
  std::string path;  // dotted, as --set spells it
  std::string at;    // the JSON path of this input in the block, for messages
  Dist dist = Dist::PlusMinus;
  // The scenario's own value at `path` (SI), for numeric inputs.
  double nominal = 0.0;
  std::optional<scenario::Quantity> quantity;  // its unit kind when written with one
  bool integer = false;                        // written as an integer: samples are rounded
  // PlusMinus: half-width `a` (SI, absolute); Uniform: [a, b]; Normal: mean a, sd b; Lognormal:
  // median a, sigma b (of the log).
  double a = 0.0, b = 0.0;
  std::vector<nlohmann::json> values;  // Choice: the alternatives, written as given
  std::vector<double> weights;         // Choice: normalised to sum 1
  std::vector<std::string> labels;     // Choice: a label per alternative (default: the value)
  std::optional<CalibratedCurve> curve;
  // Design columns this input takes: 1, or a calibrated curve's parameter count.
  int dims() const;
};

struct Spec {
  std::vector<Input> inputs;
  // Defaults the block may set; command-line flags win.
  int samples = 32;
  std::string method = "lhs";  // lhs | sobol
  std::optional<std::uint64_t> seed;
  int dims() const;
};

// Limits: refused with a reason (exit 2) rather than run for hours.
inline constexpr int kMaxInputs = 64;
inline constexpr int kMaxSamples = 100000;
inline constexpr int kMaxChoices = 1000;

// Reads `doc["uncertainty"]` (after --set overrides): nullopt without one. Problems are appended
// under their JSON paths (`uncertainty.inputs[1].sd`); paths are checked against `doc`.
// Calibration files are read relative to `base_dir`.
std::optional<Spec> read_spec(const nlohmann::json& doc, const std::string& base_dir,
                              std::vector<Problem>& problems);

// The scenario file's block, with the common overrides applied (and, when `block_file` is not
// empty, that file's block instead of the scenario's: --uncertainty FILE). Throws
// scenario::InputError naming the file and the JSON path of every problem.
std::optional<Spec> load_spec(const std::string& scenario_path,
                              const std::vector<scenario::Override>& common,
                              const std::string& block_file = "");

// Reading and writing one scenario value, shared with the plans that grow a path over time.
// The value at a dotted --set path, read-only: nullptr, with `why`, when the path leads nowhere.
const nlohmann::json* find_path(const nlohmann::json& doc, const std::string& path,
                                std::string& why);
// A number (SI) or a quantity with its unit; nullopt for anything else.
struct NumericValue {
  double si = 0.0;
  std::optional<scenario::Quantity> quantity;  // written with a unit
  bool integer = false;                        // a JSON integer: written back rounded
};
std::optional<NumericValue> numeric_value(const nlohmann::json& v);
// `si` as JSON text written like `like`: an integer rounded, a quantity with its base unit (so
// that --strict-units accepts it), else a plain number.
std::string write_numeric(const NumericValue& like, double si);

}  // namespace sonicsim::uncertainty
