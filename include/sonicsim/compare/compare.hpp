// `sonicsim compare`: the simulation and the analytic models held against measurements, point by
// point, with the statistics a planner decides on (MAPE, worst point, Spearman rank correlation)
// and a one-line verdict. Running the points is the caller's business (pipeline/points.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/measurements.hpp>

namespace sonicsim::compare {

// Ranks 1..n, ties get the mean of the ranks they span.
std::vector<double> ranks(const std::vector<double>& v);
// Spearman's rank correlation (Pearson's on the ranks, ties averaged); NaN with fewer than two
// points or when either side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

// How far predictions are from measurements; errors are relative to the measurement, in percent.
struct Errors {
  std::size_t points = 0;     // pairs with a finite prediction
  double mape_percent = 0.0;  // mean absolute percentage error; NaN without points
  double max_abs_error_percent = 0.0;
  double max_at_x = 0.0;  // x of the worst point
  double spearman = 0.0;  // measured vs predicted, NaN when undefined
};
// Pairs whose prediction is NaN (a failed point) are left out.
Errors errors_of(const std::vector<double>& x, const std::vector<double>& predicted,
                 const std::vector<double>& measured);

struct Row {
  double x = 0.0;
  int line = 0;  // of the measurements file
  double measured = 0.0;
  double stddev = 0.0;     // 0: none given
  double simulated = 0.0;  // NaN when the point failed
  std::string error;       // why it failed
  double formula = 0.0;    // the SONIC formula's prediction; NaN when the point did not load
  double mva = 0.0;        // exact MVA's; NaN without MVA (async mode) or when the point failed
};

struct Report {
  std::string scenario_file;
  std::string measurements_file;
  std::string vary;      // the --vary path
  std::string x_column;  // its column in the file
  calibration::Metric metric = calibration::Metric::PerJobThroughput;
  bool has_stddev = false;
  std::vector<Row> rows;
  Errors simulation, formula, mva;
  std::string verdict;
};

// Fills the three Errors and the verdict from the rows.
void summarize(Report& r);
// One plain-words line: whether to trust the simulation over this range, and why.
std::string verdict_of(const Report& r);

nlohmann::ordered_json to_json(const Report& r);
std::string to_csv(const Report& r);
// Aligned table with units, the summary and the verdict, for a terminal.
std::string to_text(const Report& r);

// A metric value with its unit, to 4 significant digits ("12.31 /s", "62.00 ms").
std::string format_value(calibration::Metric m, double v);

}  // namespace sonicsim::compare
