// perf_analyzer's CSV format (`perf_analyzer -f out.csv`), read and written.
//
// A file is one measurement scan: one row per concurrency (or request rate) of one model at one
// batch size. Columns are found by name, so optional columns (`Avg latency`,
// `request/response`, `response wait`, GPU metrics) and any column order are accepted; rows may
// come in any order. Times are microseconds, as perf_analyzer writes them. `Inferences/Second`
// counts batch items, not requests. The batch size is not in the file: it comes from the caller
// (a flag) or from the file name (`..._batch16.csv`, `...-b16...`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sonicsim::calibration {

enum class LoadMode { Concurrency, RequestRate };

struct PerfAnalyzerRow {
  int line = 0;       // in the file, for messages
  double load = 0.0;  // concurrency (outstanding requests) or request rate (requests/s)
  double inferences_per_s = 0.0;
  // Mean microseconds per request.
  double client_send_us = 0.0, network_server_us = 0.0, server_queue_us = 0.0;
  double compute_input_us = 0.0, compute_infer_us = 0.0, compute_output_us = 0.0;
  double client_recv_us = 0.0;
  double p50_us = 0.0, p90_us = 0.0, p95_us = 0.0, p99_us = 0.0;
  std::optional<double> avg_latency_us;
  // Any other column, numeric or per-GPU (`uuid:value;...`, averaged over GPUs).
  std::map<std::string, double> extra;

  double compute_us() const { return compute_input_us + compute_infer_us + compute_output_us; }
  // What the client waits for besides the server's queue and execution.
  double overhead_us() const { return client_send_us + network_server_us + client_recv_us; }
  // The sum of the components: perf_analyzer's average latency (its `Avg latency` column when
  // present agrees with it up to rounding).
  double mean_latency_us() const { return overhead_us() + server_queue_us + compute_us(); }
};

struct PerfAnalyzerScan {
  std::string file;
  std::string sha256;  // of the file's bytes
  LoadMode mode = LoadMode::Concurrency;
  int batch_size = 1;
  std::string batch_source;  // "flag" or "file name"
  std::vector<std::string> columns;
  std::vector<PerfAnalyzerRow> rows;  // sorted by load
};

// Reads one file. Throws scenario::InputError naming the file, the line and the column, what
// was found and what was expected: missing file, empty file, wrong delimiter, missing required
// column, non-numeric cell, negative time, no batch size.
PerfAnalyzerScan read_perf_analyzer_csv(const std::string& path,
                                        std::optional<int> batch_size = std::nullopt);

// The batch size in a file name (`particlenet_batch16.csv`, `pn-b16.csv`), if any.
std::optional<int> batch_size_from_name(const std::string& path);

// The native header, in perf_analyzer's order (without the optional columns).
std::vector<std::string> perf_analyzer_header(LoadMode mode);

// Writes rows the way perf_analyzer does: native header, rows sorted by throughput, times as
// integer microseconds. Returns the CSV text.
std::string write_perf_analyzer_csv(LoadMode mode, std::vector<PerfAnalyzerRow> rows,
                                    bool with_avg_latency = false);

}  // namespace sonicsim::calibration
