// What Prometheus' text exposition (0.0.4) and OpenMetrics share: Triton's metric families (names
// and help as Triton documents them, with sonicsim's notes), label escaping and sample values.
// prometheus.cpp writes one scrape at the end of a run, openmetrics.cpp the whole run over time.
#pragma once

#include <cmath>
#include <string>

#include <sonicsim/util/format.hpp>
#include <sonicsim/util/service_metrics.hpp>

namespace sonicsim::results::exposition {

struct Family {
  const char* name;
  const char* type;
  const char* help;
};

// Triton's per-model counters (util/service_metrics.hpp's order and names) with their help.
using service_metrics::kTritonCounters;
inline constexpr Family kTriton[kTritonCounters] = {
    {service_metrics::kTritonCounterNames[0], "counter",
     "Number of successful inference requests, all batch sizes"},
    {service_metrics::kTritonCounterNames[1], "counter",
     "Number of failed inference requests, all batch sizes (rejected by the queue policy or "
     "max_batch_size)"},
    {service_metrics::kTritonCounterNames[2], "counter",
     "Number of inferences performed (a batch of n items counts n; does not include cached "
     "requests)"},
    {service_metrics::kTritonCounterNames[3], "counter",
     "Number of model executions performed (does not include cached requests)"},
    {service_metrics::kTritonCounterNames[4], "counter",
     "Cumulative inference request duration in microseconds: queue and compute (sonicsim: "
     "without the server-side request overhead)"},
    {service_metrics::kTritonCounterNames[5], "counter",
     "Cumulative inference queuing duration in microseconds"},
    {service_metrics::kTritonCounterNames[6], "counter",
     "Cumulative compute input duration in microseconds (sonicsim: 0, all compute is infer)"},
    {service_metrics::kTritonCounterNames[7], "counter",
     "Cumulative compute inference duration in microseconds, each request charged its "
     "execution's whole duration"},
    {service_metrics::kTritonCounterNames[8], "counter",
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
