// The metric names of a SONIC service as Prometheus knows them: Triton's per-model counters and
// GPU gauge, and Envoy's downstream request and connection metrics. sonicsim writes them (results/:
// `run --prometheus`, `run --openmetrics`) and reads them back (telemetry/: `import prometheus`);
// they are spelled once, here, so that what one side writes the other reads.
#pragma once

namespace sonicsim::service_metrics {

// Triton's counters of one model on one server, in the order Triton lists them.
enum TritonCounter {
  kRequestSuccess,
  kRequestFailure,
  kInferenceCount,
  kExecCount,
  kRequestDuration,  // microseconds, as are the four below
  kQueueDuration,
  kComputeInput,
  kComputeInfer,
  kComputeOutput,
  kTritonCounters
};
inline constexpr const char* kTritonCounterNames[kTritonCounters] = {
    "nv_inference_request_success",
    "nv_inference_request_failure",
    "nv_inference_count",
    "nv_inference_exec_count",
    "nv_inference_request_duration_us",
    "nv_inference_queue_duration_us",
    "nv_inference_compute_input_duration_us",
    "nv_inference_compute_infer_duration_us",
    "nv_inference_compute_output_duration_us"};

inline constexpr char kGpuUtilization[] = "nv_gpu_utilization";  // 0..1
// Triton's other GPU gauges (DCGM's readings, per GPU).
inline constexpr char kGpuMemoryTotal[] = "nv_gpu_memory_total_bytes";
inline constexpr char kGpuMemoryUsed[] = "nv_gpu_memory_used_bytes";
inline constexpr char kGpuPowerUsage[] = "nv_gpu_power_usage";  // watts
inline constexpr char kGpuPowerLimit[] = "nv_gpu_power_limit";  // watts

// Envoy's HTTP connection manager, downstream (the clients' side).
inline constexpr char kEnvoyRequests[] = "envoy_http_downstream_rq_total";
// A histogram family: its series are the names below and `_bucket`.
inline constexpr char kEnvoyTime[] = "envoy_http_downstream_rq_time";
inline constexpr char kEnvoyTimeSum[] = "envoy_http_downstream_rq_time_sum";  // milliseconds
inline constexpr char kEnvoyTimeCount[] = "envoy_http_downstream_rq_time_count";
inline constexpr char kEnvoyConnections[] = "envoy_http_downstream_cx_active";

}  // namespace sonicsim::service_metrics
