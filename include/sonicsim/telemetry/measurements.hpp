// A service's measured history on a regular grid of windows: what `sonicsim import prometheus`
// writes (the measurements file, docs/deployment.md#2-import-a-day-of-metrics) and what
// `calibrate prometheus` and the comparisons read back. Plain data; every key of the file is
// named once, in measurements.cpp, by the writer and the reader together.
//
// A value per window, or none (null in the file) where the window had nothing to divide by or no
// sample: a missing value is never written as 0, which would read as "measured idle".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sonicsim::telemetry {

using Series = std::vector<std::optional<double>>;  // one value per window

// One model (and version) served by one pool. Rates are per second of the window; times are per
// successful request, as Triton charges them (compute_infer_time_s is the whole execution's
// compute time, whatever the request's share of the batch).
struct ModelSeries {
  std::string name, version;
  Series requests_per_s, failures_per_s, inferences_per_s, executions_per_s;
  Series batch_size;  // inferences / executions
  Series queue_time_s, compute_input_time_s, compute_infer_time_s, compute_output_time_s;
  Series request_time_s;
  bool operator==(const ModelSeries&) const = default;
};

// One pool of Triton servers (one SuperSONIC release by default).
struct PoolSeries {
  std::string name;
  Series replicas;              // servers with a sample in the window
  Series gpu_utilization;       // mean over the servers' GPUs, 0..1
  Series autoscaler_metric_ms;  // SuperSONIC's KEDA metric: queue time per execution, ms
  std::vector<ModelSeries> models;
  bool operator==(const PoolSeries&) const = default;
};

// What Envoy saw of the clients: in SONIC each client job holds one gRPC connection.
struct ClientSeries {
  Series connected;       // connections (running jobs), summed over Envoy pods
  Series requests_per_s;  // at the proxy
  Series request_time_s;  // mean, at the proxy
  bool operator==(const ClientSeries&) const = default;
};

struct SourceFile {
  std::string path, sha256;
  bool operator==(const SourceFile&) const = default;
};

struct Source {
  std::vector<SourceFile> files;
  std::string pool_label, replica_label;  // the labels that named pools and replicas
  bool operator==(const Source&) const = default;
};

struct Measurements {
  Source source;
  double start = 0.0;     // unix seconds: the start of the first window
  double step_s = 0.0;    // window length
  std::vector<double> t;  // each window's end, in seconds from start
  std::vector<PoolSeries> pools;
  ClientSeries clients;
  bool operator==(const Measurements&) const = default;

  const PoolSeries* pool(std::string_view name) const;
};

// The file's identity: "format": "sonicsim-measurements", "version": 1.
inline constexpr const char* kMeasurementsFormat = "sonicsim-measurements";
inline constexpr int kMeasurementsVersion = 1;

nlohmann::ordered_json to_json(const Measurements& m);

// Reads and checks a measurements file: every problem throws InputError naming the file and the
// JSON path, with what was found and what was expected (series of the wrong length, windows not
// increasing, a negative rate, an unknown format or version).
Measurements read_measurements(const std::string& path);
Measurements parse_measurements(std::string_view text, const std::string& file);

}  // namespace sonicsim::telemetry
