// `sonicsim calibrate scan` as one call: read the measured scan, load the scenario at each measured
// point, fit t_GPU, p, t_latency (t_CPU) with the formula or MVA, refine with the simulator, and
// build the fitted scenario, checked to load from where it will be written. The CLI only parses
// flags, writes the files and prints.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/measurements.hpp>
#include <sonicsim/calibration/scan.hpp>
#include <sonicsim/scenario/overrides.hpp>

namespace sonicsim::calibration {

struct ScanCalibrationRequest {
  std::string scenario_path;
  std::vector<scenario::Override> common;  // --set, applied to every point
  std::string measurements_path;
  std::string vary;      // the scenario path the scan varies
  std::string x_column;  // "" : default_x_column(vary)
  std::string metric;    // "" : from the file
  std::string free;      // "" : the default free parameters
  AnalyticModel model = AnalyticModel::Auto;
  bool refine = true;          // refine with the simulator
  int workers = 0;             // simulations at a time; 0: points::default_workers()
  points::Simulator simulate;  // each refinement point's (the command's: pipeline::simulator())
  std::string output_path;     // where the fitted scenario will be written (its relative paths)
  // A line for the user before the simulator's rounds start (the CLI prints it on a terminal).
  std::function<void(const std::string&)> progress;
};

struct ScanCalibration {
  Measurements measurements;
  ScanResult result;
  nlohmann::ordered_json fitted;     // the fitted scenario, valid where it is to be written
  std::vector<std::string> mapping;  // how the fitted values map onto scenario keys
};

// Throws InputError for bad input (naming the measurements file and line where a point's value
// is rejected by the scenario), std::runtime_error when the fitted scenario does not validate.
ScanCalibration calibrate_scan(const ScanCalibrationRequest& request);

}  // namespace sonicsim::calibration
