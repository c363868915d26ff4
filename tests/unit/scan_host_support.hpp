// What the two tests of the host stage in `calibrate scan` share: the knee scenario (t_CPU
// 100 ms, p 0.5, one 10 ms request, 30 ms of server overhead) with hosts, its scan simulated
// with a known host cost, and the fit's estimates.
#pragma once

#include "support.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <sonicsim/calibration/scan.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/points/points.hpp>

namespace scan_host {

using namespace sonicsim;
using namespace sonicsim::calibration;
using test::json;

inline const std::vector<double> kHostJobs = {1, 2, 3, 4, 6, 8, 12, 16};

// `cores` per host, the scenario's guess of `per_request` host work, part of the overhead.
inline json hosted_knee(int cores, double per_request) {
  return {{"name", "scan-host"},
          {"seed", 1},
          {"duration", 120.0},
          {"warmup", 10.0},
          {"workload",
           {{"jobs", 4},
            {"threads_per_job", 1},
            {"cpu_time_per_event", 0.1},
            {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.5}}})}}},
          {"models",
           {{"m",
             {{"input_bytes_per_item", "1kB"},
              {"output_bytes_per_item", "1kB"},
              {"request_overhead", {{"server", 0.030}}},
              {"host_cost", {{"per_request", per_request}, {"in_server_overhead", true}}},
              {"service_time", {{"batch", {1}}, {"seconds", {0.01}}}}}}}},
          {"servers", json::array({{{"name", "gpu"},
                                    {"count", 1},
                                    {"device", "T4"},
                                    {"models", {"m"}},
                                    {"host", {{"cores", cores}}}}})}};
}

struct ScanFile {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sonicsim-scan-host-" + std::to_string(::getpid()));
  std::string file;
  explicit ScanFile(const json& doc) {
    std::filesystem::create_directories(dir);
    file = (dir / "scan.json").string();
    std::ofstream(file) << doc.dump(2);
  }
  ~ScanFile() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

// Per-job throughput simulated at every x with the truth's overrides.
inline Measurements simulated_scan(const std::string& file,
                                   const std::vector<scenario::Override>& truth) {
  std::vector<std::vector<scenario::Override>> sets;
  for (double j : kHostJobs) sets.push_back({{"workload.jobs", format_x(j)}});
  const auto results = points::run_points(pipeline::simulator(), file, truth, sets, 2);
  Measurements m;
  m.file = "scan.csv";
  m.x_column = "jobs";
  m.metric = Metric::PerJobThroughput;
  for (std::size_t i = 0; i < results.size(); ++i) {
    REQUIRE(results[i].ok);
    m.rows.push_back({kHostJobs[i], metric_of_results(results[i].results, m.metric), 0.0,
                      static_cast<int>(i) + 2});
  }
  return m;
}

inline std::vector<ScanPoint> host_points(const json& doc) {
  std::vector<ScanPoint> out;
  for (double j : kHostJobs) {
    json d = doc;
    d["workload"]["jobs"] = static_cast<int>(j);
    out.push_back(scan_point(test::scenario_of(d), j));
  }
  return out;
}

inline const ParamEstimate& host_estimate(const ScanResult& r, ScanParam k) {
  for (const auto& e : r.fit.params)
    if (e.param == k) return e;
  FAIL("no estimate of " << param_name(k));
  return r.fit.params.front();
}

// The scan fitted with t_gpu and t_host free, refined against the simulator.
inline ScanResult fit_hosted(const json& doc, const ScanFile& f, const Measurements& m) {
  const auto s = scenario::load_file(f.file);
  const ScanValues base = scan_point(s).values;
  ScanOptions o;
  o.free = {ScanParam::TGpu, ScanParam::THost};
  o.free_given = true;
  o.model = resolve_model(AnalyticModel::Auto, s);
  const auto sim =
      point_simulator(pipeline::simulator(), f.file, {}, s, base, o.free, m, "workload.jobs", 2);
  return fit_scan(host_points(doc), base, m, o, &sim);
}

}  // namespace scan_host
