// `sonicsim calibrate perf-analyzer`: a model's service-time curve and request overheads from
// perf_analyzer scans, with provenance, fit statistics and a round-trip check.
//
// What a row measures. At concurrency C with requests of B items, Triton's dynamic batcher
// merges the requests queued when an instance frees up, so a row's `Server Compute` is the time
// of executions of about k B items (k = 2 to 3 at C = 4), not of B items. The deconvolution:
// with the instance always busy (the closed loop keeps a queue), items in execution =
// throughput x compute time (Little's law over the execution stage), which gives a first point
// (n = X E / instances, E) per row. The curves are fitted to those points and the one with
// the smallest held-out error is kept. The points assume every execution of a row had the
// row's mean size, which is not so (groups of 1 and 3 requests, 2 and 2, ...), so the simulator
// then corrects the chosen curve: a factor per row, anchored at the items per execution of its
// replay, moved until every replayed throughput matches (docs/calibration.md). Per-request
// overheads (Client Send, Network+Server Send/Recv, Client Recv) are fitted as fixed + per-item
// terms and recorded as measured at each request size.
//
// Quality checks: a closed loop obeys Little's law exactly (X = C B / mean latency), so a row
// whose throughput disagrees with its own latencies by more than 5% is reported as internally
// inconsistent and kept out of the curve fit (it still appears, flagged, in the round trip).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/perf_analyzer.hpp>
#include <sonicsim/calibration/perf_emulation.hpp>
#include <sonicsim/calibration/service_fit.hpp>

namespace sonicsim::calibration {

// The server the scans were measured on: Triton's batching settings shape what each row means.
struct ServerSettings {
  int max_batch_size = 0;  // 0: unlimited
  bool dynamic_batching = true;
  std::vector<int> preferred_batch_size;
  double max_queue_delay = 0.0;  // seconds
  int instances = 1;
  std::string source = "defaults (dynamic batching, no limit, 1 instance)";
};

// The measured server's host, for the host stage (`--host-cores`): its cores and the request
// payload per batch item, which turn the server column's per-item slope into per-byte costs.
struct HostSpec {
  int cores = 1;
  double input_bytes_per_item = 0.0, output_bytes_per_item = 0.0;
  std::string bytes_from;  // where the bytes came from: the Triton config's tensors, or flags
};

struct PerfCalibrationInput {
  std::string model;
  std::string device = "GPU";  // the pool device name the curve is for
  std::string hardware, tool_version, notes;
  std::vector<PerfAnalyzerScan> scans;
  ServerSettings server;
  std::optional<CurveKind> curve;  // forced; otherwise chosen by held-out error
  bool refine = true;
  int refine_iterations = 8;             // simulator passes correcting the curve
  std::uint64_t refine_requests = 5000;  // requests per replayed row while refining
  std::string command_line;
  double consistency_tolerance = 0.05;
  // With a host, the server column becomes host CPU work (`host_cost`, in_server_overhead) on
  // that many cores, and the replays run the host stage; without, the server is a delay only.
  std::optional<HostSpec> host;
  // How rows are replayed in the simulator (the command's: emulation::emulator()).
  Emulator emulate;
};

struct PerfCalibration {
  nlohmann::ordered_json doc;  // the calibration file
  std::string report;          // human summary
  // Round trip, per row: simulated / measured - 1.
  struct RoundTrip {
    std::string file;
    int line = 0, batch_size = 0;
    LoadMode mode = LoadMode::Concurrency;
    double load = 0.0;  // concurrency, or requests per second
    bool consistent = true;
    double measured_ips = 0.0, simulated_ips = 0.0, ips_error = 0.0;
    double measured_p50_us = 0.0, simulated_p50_us = 0.0, p50_error = 0.0;
    double measured_compute_us = 0.0, simulated_compute_us = 0.0;  // per request
    double measured_queue_us = 0.0, simulated_queue_us = 0.0;
    double requests_per_execution = 0.0;  // simulated, request-weighted
  };
  std::vector<RoundTrip> round_trip;
};

// Throws scenario::InputError when the scans cannot be calibrated (a batch size above
// max_batch_size, no usable row).
PerfCalibration calibrate_perf_analyzer(const PerfCalibrationInput& in);

}  // namespace sonicsim::calibration
