// What a site board reads first: the key figures of one or more runs side by side, and what
// changed from the first run (the baseline) stated in words, from the runs' results files.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace sonicsim::report {

// The figures of one results file (SPEC section 6) that a what-if comparison speaks of.
struct RunFigures {
  std::string file, scenario;
  double threads = 0.0, devices = 0.0;  // N_CPU, N_GPU (analytic block)
  double events_per_s = 0.0;
  double time_per_event_s = 0.0, time_per_event_p99_s = 0.0;
  double t_ideal_s = 0.0, t_sonic_s = 0.0;
  double knee_threads = 0.0;        // N_CPU where the formula saturates: per device x devices
  double device_utilization = 0.0;  // device-weighted over the pools
  double requests_failed = 0.0, requests_fallback = 0.0, requests_sent = 0.0;
  struct Model {
    double latency_p50_s = 0.0, latency_p99_s = 0.0, mean_batch_size = 0.0;
  };
  std::map<std::string, Model> models;
  std::map<std::string, double> link_peak_utilization;  // by link name
};

// Throws scenario::InputError naming the file and the JSON path of what is missing or wrong.
RunFigures read_results(const std::string& path);

enum class Format { Text, Markdown };

// One run: its figures. Several: a table of figures by run, then one paragraph per run after
// the first saying what differs from it (changes under 1% are called unchanged).
std::string whatif(const std::vector<RunFigures>& runs, Format format);

}  // namespace sonicsim::report
