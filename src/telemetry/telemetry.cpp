// The telemetry layer: a service's measured history (Prometheus query_range exports of Triton's
// and Envoy's metrics) as a measurements file, and its typed reader.
