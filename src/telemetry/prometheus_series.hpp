// The series of query_range exports as the import works on them: read and checked file by file
// (prometheus_read.cpp), then laid on the windows (prometheus_import.cpp). Private to
// src/telemetry.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <sonicsim/telemetry/prometheus_import.hpp>

namespace sonicsim::telemetry::prom {

struct Sample {
  double t = 0.0, v = 0.0;
};

// One series: its metric name, the labels the import uses and its samples, time-ordered, NaN
// and infinities already skipped.
struct StoredSeries {
  std::string metric, pool, model, version, replica;
  bool has_model = false;
  std::vector<Sample> samples;
};

struct ReadState {
  // Keyed by the whole label set, so that the same series exported twice (overlapping files)
  // is merged rather than counted twice.
  std::map<std::string, StoredSeries> series;
  // Series read but not used, by (metric name, why): how many.
  std::map<std::pair<std::string, std::string>, std::size_t> unused;
  ImportReport report;
  std::vector<SourceFile> files;  // read, with their SHA-256
};

// Reads one file (a response or an array of responses) into `state`; throws InputError naming
// the file and the JSON path.
void read_export(const std::string& path, const ImportOptions& o, ReadState& state);

}  // namespace sonicsim::telemetry::prom
