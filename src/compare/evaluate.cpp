#include <sonicsim/compare/evaluate.hpp>

#include <cmath>
#include <stdexcept>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/calibration/measurements.hpp>
#include <sonicsim/points/children.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::compare {

namespace {

// The analytic rows, and the override sets of the points that load (`simulated_rows` says
// which row each is); a point the scenario rejects keeps its error in its row.
void predict_rows(const Request& a, const std::vector<scenario::Override>& common,
                  const calibration::Measurements& m, Report& report,
                  std::vector<std::vector<scenario::Override>>& points,
                  std::vector<std::size_t>& simulated_rows) {
  std::vector<std::string> rejected;
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const auto& mr = m.rows[i];
    Row row;
    row.x = mr.x;
    row.line = mr.line;
    row.measured = mr.value;
    row.stddev = mr.stddev;
    row.simulated = row.formula = row.mva = kNaN;
    const scenario::Override set{a.vary, calibration::format_x(mr.x)};
    try {
      auto overrides = common;
      overrides.push_back(set);
      const auto s = scenario::load_file(a.scenario.scenario_path, overrides);
      const auto p = analytic::predict(s);
      const double threads = static_cast<double>(s.workload().n_threads());
      const double jobs = static_cast<double>(s.workload().jobs);
      row.formula = calibration::metric_of_throughput(m.metric, p.throughput_per_s, threads, jobs);
      if (p.mva)
        row.mva =
            calibration::metric_of_throughput(m.metric, p.mva->throughput_per_s, threads, jobs);
      points.push_back({set});
      simulated_rows.push_back(i);
    } catch (const scenario::InputError& e) {
      row.error = e.what();
      rejected.push_back("line " + std::to_string(mr.line) + ", column " +
                         std::to_string(m.x_index) + " (`" + m.x_column + "`): the scenario " +
                         "rejects " + a.vary + "=" + set.value + ": " + e.what());
    }
    report.rows.push_back(row);
  }
  // Not one point loads: the --vary path itself is wrong, not a value.
  if (points.empty()) throw scenario::InputError(m.file, {{"", rejected.front()}});
}

}  // namespace

Report evaluate(const Request& a,
                const std::function<void(std::size_t points, int workers)>& on_simulating) {
  calibration::MeasurementOptions mo;
  mo.vary = a.vary;
  mo.x_column = a.x_column;
  mo.metric = a.metric;
  mo.min_rows = 2;
  mo.min_rows_reason = "a comparison needs two points";
  const auto m = calibration::read_measurements(a.measurements, mo);
  const auto common = scenario::overrides_of(a.scenario);
  // A broken scenario is reported as itself, not as every point rejecting its x.
  scenario::load_file(a.scenario.scenario_path, common);

  Report report;
  report.scenario_file = a.scenario.scenario_path;
  report.measurements_file = a.measurements;
  report.vary = a.vary;
  report.x_column = m.x_column;
  report.metric = m.metric;
  report.has_stddev = m.has_stddev;

  // The analytic predictions come from this process; only the simulations need children.
  std::vector<std::vector<scenario::Override>> points;
  std::vector<std::size_t> simulated_rows;
  predict_rows(a, common, m, report, points, simulated_rows);

  const int workers = a.workers > 0 ? a.workers : points::default_workers();
  if (on_simulating) on_simulating(points.size(), workers);
  const auto results =
      points::run_points(a.simulate, a.scenario.scenario_path, common, points, workers);
  std::size_t ok = 0;
  bool internal = false;
  for (std::size_t k = 0; k < results.size(); ++k) {
    Row& row = report.rows[simulated_rows[k]];
    if (results[k].ok) {
      row.simulated = calibration::metric_of_results(results[k].results, m.metric);
      if (std::isfinite(row.simulated) && row.simulated > 0.0) {
        ++ok;
        continue;
      }
      // No event finished after the warm-up: a rate of 0, a time per event that does not exist.
      row.simulated = kNaN;
      row.error = std::string("the simulation finished no event after the warm-up, so it has no ") +
                  calibration::metric_name(m.metric) + " (a longer duration?)";
    } else {
      row.error = results[k].error;
      internal = internal || !results[k].input_error;
    }
  }
  summarize(report);
  if (ok < 2) {
    std::string why = "only " + std::to_string(ok) + " of " + std::to_string(report.rows.size()) +
                      " points simulated, a comparison needs two";
    for (const auto& row : report.rows)
      if (!row.error.empty())
        why += "\n  " + m.x_column + "=" + calibration::format_x(row.x) + ": " + row.error;
    if (internal) throw std::runtime_error(why);
    throw scenario::InputError(m.file, {{"", why}});
  }
  return report;
}

}  // namespace sonicsim::compare
