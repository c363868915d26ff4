// Worker nodes from what a site can measure in ten minutes (`sonicsim calibrate nodes`,
// docs/nodes.md): the event throughput of each copy of a CPU-only job (direct inference) against
// how many copies share one idle node, fitted to the speed model of `workload.node`
// (scenario/node.hpp).
//
// A CPU-only job in a closed loop keeps every one of its threads computing, so with J jobs of T
// threads on a node all J x T threads are busy all the time, and each job runs
//   throughput_per_job = T x s(J x T) / t1
// events per second: t1 is the CPU time per event of a thread alone on the node
// (`cpu_time_per_event` with `cpu_time_measured_at` 1), s the node's speed factor
// (NodeSpec::speed_factor). The fit finds t1 and `hyperthread` (and `memory_bandwidth_threads`
// when asked) by least squares on the throughputs' relative errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/node.hpp>

namespace sonicsim::calibration {

// One measured row: `jobs_per_node` copies of a job of `threads_per_job` threads sharing one
// node, each running `throughput_per_job` events per second.
struct NodeRow {
  int line = 0;  // 1-based, as an editor shows it
  std::int64_t jobs_per_node = 0;
  std::int64_t threads_per_job = 0;
  double throughput_per_job = 0.0;
  double busy_threads() const { return static_cast<double>(jobs_per_node * threads_per_job); }
};

struct NodeMeasurements {
  std::string file;
  std::string sha256;  // of the file's bytes, for the provenance the output records
  std::vector<NodeRow> rows;
};

// What one file may hold: far above a ten-minute measurement (a few occupancies, a few repeats
// each), far below what would make the fit slow (it tries a cap at every occupancy).
struct NodeMeasurementLimits {
  static constexpr std::size_t max_rows = 1'000'000;
  static constexpr std::size_t max_occupancies = 1'000;  // distinct jobs_per_node x threads_per_job
  static constexpr std::int64_t max_jobs_per_node = 1'000'000;
  static constexpr std::int64_t max_threads_per_job = 100'000;
};

// Reads and checks a node measurements CSV (docs/nodes.md#calibrating-a-node): a header row with
// the columns `jobs_per_node`, `threads_per_job` and `throughput_per_job` (in any order; other
// columns are ignored), then one row per measured job. Throws InputError naming the file and,
// for each problem, the line and column: a missing or repeated column, a cell that is not a
// whole number >= 1 (jobs, threads) or a positive rate, a short row, more than max_rows rows,
// fewer than 2 or more than max_occupancies distinct occupancies.
NodeMeasurements read_node_measurements(const std::string& path);
NodeMeasurements parse_node_measurements(const std::string& text, const std::string& file);

// A job's events per second on `node` for the row's jobs and threads: the model the fit fits.
double per_job_throughput(const scenario::NodeSpec& node, double cpu_time_per_event,
                          const NodeRow& row);

struct NodeFitOptions {
  int cores = 1;
  int threads_per_core = 1;
  bool memory_bandwidth = false;  // also fit memory_bandwidth_threads
};

struct NodeParameter {
  bool fitted = false;  // false: not part of this fit (see NodeFit)
  double value = 0.0;
  // The 95% interval, clipped to the parameter's range; NaN without degrees of freedom, +inf
  // when the data leave the parameter undetermined.
  double low = 0.0, high = 0.0;
  bool at_bound = false;  // held at the end of its range (hyperthread 1)
};

// One distinct occupancy (busy hardware threads, jobs_per_node x threads_per_job).
struct NodeOccupancy {
  double busy_threads = 0.0;
  std::size_t rows = 0;
  // The per-thread speed relative to a thread alone: what this occupancy's rows give on their
  // own with the fitted t1 (their least-squares value), and what the fitted node gives.
  double measured_speed = 0.0, fitted_speed = 0.0;
  bool capped = false;  // the memory-bandwidth cap binds here
};

struct NodeResidual {
  double fitted = 0.0;    // the fitted per-job throughput, events per second
  double residual = 0.0;  // fitted / measured - 1
};

struct NodeFit {
  // The fitted node (cores, threads_per_core, hyperthread, memory_bandwidth_threads when
  // identified) and t1 = cpu_time_per_event.
  scenario::NodeSpec node;
  NodeParameter cpu_time_per_event, hyperthread, memory_bandwidth_threads;
  bool memory_bandwidth_asked = false;
  // Asked but not identified: the least cap the measurements allow (the fitted node's throughput
  // at its fullest measured occupancy, single-thread equivalents) and why.
  double memory_bandwidth_at_least = 0.0;
  std::string memory_bandwidth_why;
  std::size_t rows = 0;
  int dof = 0;
  double rms_residual = 0.0;
  std::string no_interval;                 // why the intervals are null, "" when they exist
  std::vector<NodeOccupancy> occupancies;  // by busy threads
  std::vector<NodeResidual> residuals;     // one per row, in the file's order
  std::vector<std::string> notes;
};

// Fits the node to the measurements. Throws InputError naming the file when the measurements
// cannot determine the model: with hyper-threads, no occupancy above `cores` busy threads (no
// core ever ran two threads); or no node of these cores and threads reproduces them.
NodeFit fit_node(const NodeMeasurements& m, const NodeFitOptions& options);

// {"workload": {"cpu_time_per_event": t1, "node": {...}}, "fit": {...}}: `workload` is the
// fragment for the scenario, `fit` the intervals, occupancies, residuals and provenance.
nlohmann::ordered_json to_json(const NodeFit& fit, const NodeMeasurements& m,
                               const std::string& command_line);
std::string to_text(const NodeFit& fit, const NodeMeasurements& m);

}  // namespace sonicsim::calibration
