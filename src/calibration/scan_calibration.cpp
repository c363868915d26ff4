#include <sonicsim/calibration/scan_calibration.hpp>

#include <filesystem>
#include <stdexcept>

#include <sonicsim/points/children.hpp>
#include <sonicsim/scenario/loader.hpp>

namespace sonicsim::calibration {

namespace {

// The scenario at each measured row, the row's x applied to the varied path.
std::vector<ScanPoint> measured_points(const ScanCalibrationRequest& q, const Measurements& m) {
  std::vector<ScanPoint> points;
  for (const auto& row : m.rows) {
    const scenario::Override set{q.vary, format_x(row.x)};
    auto overrides = q.common;
    overrides.push_back(set);
    try {
      points.push_back(scan_point(scenario::load_file(q.scenario_path, overrides), row.x));
    } catch (const InputError& e) {
      throw InputError(
          m.file, {{"line " + std::to_string(row.line) + ", column " + std::to_string(m.x_index) +
                        " (`" + m.x_column + "`)",
                    "the scenario rejects " + q.vary + "=" + set.value + ": " + e.what()}});
    }
  }
  return points;
}

}  // namespace

ScanCalibration calibrate_scan(const ScanCalibrationRequest& q) {
  ScanOptions opts;
  if (!q.free.empty()) {
    opts.free = parse_free(q.free);
    opts.free_given = true;
  }
  MeasurementOptions mo;
  mo.vary = q.vary;
  mo.x_column = q.x_column;
  mo.metric = q.metric;
  mo.min_rows = min_scan_rows(opts.free.size());
  mo.min_rows_reason = opts.free.size() == 1
                           ? "1 free parameter, exactly determined"
                           : std::to_string(opts.free.size()) + " free parameters + 1";
  ScanCalibration c;
  c.measurements = read_measurements(q.measurements_path, mo);
  const Measurements& m = c.measurements;
  opts.metric = m.metric;

  const auto base = scenario::load_file(q.scenario_path, q.common);
  opts.model = resolve_model(q.model, base);
  const auto base_values = scan_point(base).values;
  const auto points = measured_points(q, m);

  const int workers = q.workers > 0 ? q.workers : points::default_workers();
  const auto simulate = point_simulator(q.simulate, q.scenario_path, q.common, base, base_values,
                                        opts.free, m, q.vary, workers);
  if (q.refine && q.progress)
    q.progress("refining with the simulator: " + std::to_string(m.rows.size()) +
               " points a round, " + std::to_string(workers) + " at a time...");
  c.result = fit_scan(points, base_values, m, opts, q.refine ? &simulate : nullptr);
  c.fitted = fitted_scenario(base, c.result, m, q.output_path);
  // What is written must load from where it is written.
  std::string out_dir = std::filesystem::path(q.output_path).parent_path().string();
  if (out_dir.empty()) out_dir = ".";
  try {
    scenario::load_json(nlohmann::json::parse(c.fitted.dump()), q.output_path, out_dir);
  } catch (const InputError& e) {
    throw std::runtime_error(std::string("the fitted scenario does not validate: ") + e.what());
  }
  c.mapping = describe_mapping(base, c.result.base, c.result.fit.values, c.result.free);
  return c;
}

}  // namespace sonicsim::calibration
