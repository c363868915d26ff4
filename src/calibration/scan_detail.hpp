// What the parts of `calibrate scan` share: scan.cpp (the parameters' names and the analytic
// model of a scan), scan_fit.cpp (the fit and its refinement against the simulator),
// scan_scenario.cpp (the fit back onto the scenario) and scan_report.cpp (its report).
#pragma once

#include <string>
#include <vector>

#include <sonicsim/calibration/scan.hpp>

namespace sonicsim::calibration::scan_detail {

// 4 significant digits: parameters move by fractions of a percent between rounds.
std::string show(ScanParam k, double v);
bool has(const std::vector<ScanParam>& list, ScanParam k);
std::string names_of(const std::vector<ScanParam>& list, const char* sep = ",");
// Models whose requests some pool serves: the ones t_gpu and t_latency act on.
std::vector<std::string> served_models(const scenario::Scenario& s);
// Whether some pool serving `model` has host cores (its host_cost is then work on them).
bool on_host(const scenario::Scenario& s, const std::string& model);

// A point's formula terms once the scenario's parameters `base` become `v`.
struct Moved {
  double a_g = 1.0;  // t_GPU factor
  double cpu = 0.0, t_gpu = 0.0, t_latency = 0.0;
  double ideal = 0.0, binding = 0.0;
  // The host work per event, and the delay left of t_latency once the host work that is part of
  // the server overhead is taken off it (what the simulator does).
  double t_host = 0.0, delay = 0.0;
};

Moved moved(const ScanPoint& pt, const ScanValues& base, const ScanValues& v);

}  // namespace sonicsim::calibration::scan_detail
