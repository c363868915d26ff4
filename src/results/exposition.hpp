// What Prometheus' text exposition (0.0.4) and OpenMetrics share: Triton's metric families (names
// and help as Triton documents them, with sonicsim's notes), label escaping and sample values.
// prometheus.cpp writes one scrape at the end of a run, openmetrics.cpp the whole run over time.
#pragma once

#include <cmath>
#include <string>

#include <sonicsim/util/format.hpp>

namespace sonicsim::results::exposition {

struct Family {
  const char* name;
  const char* type;
  const char* help;
};

// Triton's per-model counters, in the order Triton lists them.
enum TritonCounter {
  kRequestSuccess,
  kRequestFailure,
  kInferenceCount,
  kExecCount,
  kRequestDuration,
  kQueueDuration,
  kComputeInput,
  kComputeInfer,
  kComputeOutput,
  kTritonCounters
};
inline constexpr Family kTriton[kTritonCounters] = {
    {"nv_inference_request_success", "counter",
     "Number of successful inference requests, all batch sizes"},
    {"nv_inference_request_failure", "counter",
     "Number of failed inference requests, all batch sizes (rejected by the queue policy or "
     "max_batch_size)"},
    {"nv_inference_count", "counter",
     "Number of inferences performed (a batch of n items counts n; does not include cached "
     "requests)"},
    {"nv_inference_exec_count", "counter",
     "Number of model executions performed (does not include cached requests)"},
    {"nv_inference_request_duration_us", "counter",
     "Cumulative inference request duration in microseconds: queue and compute (sonicsim: "
     "without the server-side request overhead)"},
    {"nv_inference_queue_duration_us", "counter",
     "Cumulative inference queuing duration in microseconds"},
    {"nv_inference_compute_input_duration_us", "counter",
     "Cumulative compute input duration in microseconds (sonicsim: 0, all compute is infer)"},
    {"nv_inference_compute_infer_duration_us", "counter",
     "Cumulative compute inference duration in microseconds, each request charged its "
     "execution's whole duration"},
    {"nv_inference_compute_output_duration_us", "counter",
     "Cumulative inference compute output duration in microseconds (sonicsim: 0, all compute "
     "is infer)"},
};

// Label values escape backslash, double quote and newline (both formats).
inline std::string label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

inline std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return util::exact_number(v);  // counters of requests print as integers
}

}  // namespace sonicsim::results::exposition
