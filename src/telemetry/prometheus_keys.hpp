// Every key `import prometheus` reads, spelled once: Prometheus' /api/v1/query_range response and
// Grafana's data frames (the /api/ds/query response, the panel inspector's "DataFrame JSON (from
// Query)" and "Panel data"). Private to src/telemetry.
#pragma once

namespace sonicsim::telemetry::prom::key {

// Prometheus: {"status", "data": {"resultType", "result": [{"metric", "values"}]}} or
// {"status": "error", "errorType", "error"}.
inline constexpr const char* status = "status";
inline constexpr const char* data = "data";
inline constexpr const char* result_type = "resultType";
inline constexpr const char* result = "result";
inline constexpr const char* metric = "metric";
inline constexpr const char* values = "values";
inline constexpr const char* error = "error";
inline constexpr const char* error_type = "errorType";
inline constexpr const char* metric_name_label = "__name__";

// Grafana /api/ds/query: {"results": {"<refId>": {"status", "error", "frames": [frame]}}}; the
// query inspector's copy wraps it as {"request", "response": {"results"}}; Grafana 7 sent Arrow
// ("dataframes", base64); an API failure is {"message"}.
inline constexpr const char* results = "results";
inline constexpr const char* frames = "frames";
inline constexpr const char* response = "response";
inline constexpr const char* arrow_frames = "dataframes";
inline constexpr const char* message = "message";

// A frame as JSON (grafana-plugin-sdk-go data/frame_json.go, @grafana/data DataFrameJSON):
// {"schema": {"name", "refId", "meta", "fields": [{"name", "type", "typeInfo": {"frame"},
// "labels", "config"}]}, "data": {"values": [[...] per field], "entities": [{"NaN", "Inf",
// "NegInf"} or null per field]}}.
inline constexpr const char* schema = "schema";
inline constexpr const char* fields = "fields";
inline constexpr const char* name = "name";
inline constexpr const char* type = "type";
inline constexpr const char* type_info = "typeInfo";
inline constexpr const char* type_info_frame = "frame";
inline constexpr const char* labels = "labels";
inline constexpr const char* config = "config";
inline constexpr const char* display_name_from_ds = "displayNameFromDS";
inline constexpr const char* entities = "entities";
inline constexpr const char* meta = "meta";
inline constexpr const char* meta_type = "type";
inline constexpr const char* meta_custom = "custom";
inline constexpr const char* executed_query = "executedQueryString";
inline constexpr const char* data_topic = "dataTopic";

// The panel inspector's "Panel data": {"state", "series": [frame with "fields": [{..., "values"}]],
// "error"/"errors": [{"message"}]}.
inline constexpr const char* series = "series";
inline constexpr const char* state = "state";
inline constexpr const char* errors = "errors";

// Values of the keys above that the reader tests.
inline constexpr const char* success = "success";
inline constexpr const char* matrix = "matrix";
inline constexpr const char* vector = "vector";
inline constexpr const char* type_time = "time";
inline constexpr const char* type_number = "number";
inline constexpr const char* entity_nan = "NaN";
inline constexpr const char* entity_inf = "Inf";
inline constexpr const char* entity_neg_inf = "NegInf";
inline constexpr const char* topic_annotations = "annotations";
inline constexpr const char* result_type_exemplar = "exemplar";
inline constexpr const char* frame_type_heatmap = "heatmap-cells";
inline constexpr const char* state_error = "Error";
inline constexpr const char* executed_expr_prefix = "Expr: ";

}  // namespace sonicsim::telemetry::prom::key
