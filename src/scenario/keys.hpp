// The scenario keys the typed writer writes, spelled once: the loaders read them by these names
// (load_*.cpp) and the writer (writer.cpp) writes them, so a key renamed here is renamed for both.
#pragma once

namespace sonicsim::scenario::keys {

// Top level.
inline constexpr const char* kName = "name";
inline constexpr const char* kDescription = "description";
inline constexpr const char* kSeed = "seed";
inline constexpr const char* kDuration = "duration";
inline constexpr const char* kWarmup = "warmup";
inline constexpr const char* kWorkload = "workload";
inline constexpr const char* kWorkloads = "workloads";
inline constexpr const char* kDevices = "devices";
inline constexpr const char* kModels = "models";
inline constexpr const char* kServers = "servers";
inline constexpr const char* kPrices = "prices";

// A workload.
inline constexpr const char* kPriority = "priority";
inline constexpr const char* kJobs = "jobs";
inline constexpr const char* kThreadsPerJob = "threads_per_job";
inline constexpr const char* kJobsPerNode = "jobs_per_node";
inline constexpr const char* kMode = "mode";
inline constexpr const char* kAsync = "async";
inline constexpr const char* kIndependentWorkFraction = "independent_work_fraction";
inline constexpr const char* kEventsInFlight = "events_in_flight";
inline constexpr const char* kCpuTimePerEvent = "cpu_time_per_event";
inline constexpr const char* kRequests = "requests";
inline constexpr const char* kArrivals = "arrivals";
inline constexpr const char* kFlow = "flow";
inline constexpr const char* kClient = "client";
inline constexpr const char* kSite = "site";
inline constexpr const char* kSites = "sites";
inline constexpr const char* kRouting = "routing";
inline constexpr const char* kCorePower = "core_power";
inline constexpr const char* kNode = "node";
inline constexpr const char* kStart = "start";
// workload.node
inline constexpr const char* kCores = "cores";
inline constexpr const char* kThreadsPerCore = "threads_per_core";
inline constexpr const char* kSpeed = "speed";
inline constexpr const char* kHyperthread = "hyperthread";
inline constexpr const char* kMemoryBandwidthThreads = "memory_bandwidth_threads";
inline constexpr const char* kBusyThreads = "busy_threads";
inline constexpr const char* kPerThread = "per_thread";
inline constexpr const char* kCpuTimeMeasuredAt = "cpu_time_measured_at";
// workload.start
inline constexpr const char* kPattern = "pattern";
inline constexpr const char* kWindow = "window";
// workload.arrivals
inline constexpr const char* kRate = "rate";
inline constexpr const char* kDistribution = "distribution";
inline constexpr const char* kMaxInFlight = "max_in_flight";
// workload.client
inline constexpr const char* kTimeout = "timeout";
inline constexpr const char* kAllowedTries = "allowed_tries";
inline constexpr const char* kRetryDelay = "retry_delay";
inline constexpr const char* kFallback = "fallback";
// workload.requests[i]
inline constexpr const char* kModel = "model";
inline constexpr const char* kOffloadFraction = "offload_fraction";
inline constexpr const char* kPerEvent = "per_event";
inline constexpr const char* kItems = "items";
inline constexpr const char* kModuleCpuTime = "module_cpu_time";

// Distributions, and the spread of a service time or an overhead.
inline constexpr const char* kDist = "dist";
inline constexpr const char* kMean = "mean";
inline constexpr const char* kCv = "cv";
inline constexpr const char* kMin = "min";
inline constexpr const char* kMax = "max";
inline constexpr const char* kValues = "values";
inline constexpr const char* kWeights = "weights";

// A model.
inline constexpr const char* kInputBytesPerItem = "input_bytes_per_item";
inline constexpr const char* kOutputBytesPerItem = "output_bytes_per_item";
inline constexpr const char* kServiceTime = "service_time";
inline constexpr const char* kMaxBatchSize = "max_batch_size";
inline constexpr const char* kInstances = "instances";
inline constexpr const char* kRequestOverhead = "request_overhead";
inline constexpr const char* kHostCost = "host_cost";
inline constexpr const char* kCalibration = "calibration";
// Curves and tables.
inline constexpr const char* kBatch = "batch";
inline constexpr const char* kSeconds = "seconds";
// Pipeline timings.
inline constexpr const char* kLatency = "latency";
inline constexpr const char* kInterval = "interval";
inline constexpr const char* kThroughput = "throughput";
// request_overhead and its phases.
inline constexpr const char* kClientSend = "client_send";
inline constexpr const char* kServer = "server";
inline constexpr const char* kClientRecv = "client_recv";
inline constexpr const char* kFixed = "fixed";
inline constexpr const char* kPerItem = "per_item";
// host_cost.
inline constexpr const char* kPerRequest = "per_request";
inline constexpr const char* kPerByteIn = "per_byte_in";
inline constexpr const char* kPerByteOut = "per_byte_out";
inline constexpr const char* kPerExecution = "per_execution";
inline constexpr const char* kInServerOverhead = "in_server_overhead";

// A server pool.
inline constexpr const char* kCount = "count";
inline constexpr const char* kStartupDelay = "startup_delay";
inline constexpr const char* kDrainTimeout = "drain_timeout";

// Power and prices.
inline constexpr const char* kPower = "power";
inline constexpr const char* kIdle = "idle";
inline constexpr const char* kBusy = "busy";
inline constexpr const char* kUtilization = "utilization";
inline constexpr const char* kWatts = "watts";
inline constexpr const char* kDeviceHour = "device_hour";
inline constexpr const char* kHostHour = "host_hour";
inline constexpr const char* kCoreHour = "core_hour";
inline constexpr const char* kKwh = "kwh";

}  // namespace sonicsim::scenario::keys
