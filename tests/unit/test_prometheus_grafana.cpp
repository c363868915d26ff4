// import prometheus from Grafana: the three shapes Grafana gives for a Prometheus panel (the
// /api/ds/query response, the panel inspector's "DataFrame JSON (from Query)" and "Panel data";
// tests/data/prometheus/grafana_*.json, written by grafana_from_query_range.py from day.json in
// the format of grafana-plugin-sdk-go's data/frame_json.go and @grafana/data's DataFrameJSON)
// give the measurements of the query_range export of the same day; frames' own cases (wide
// frames, nulls, names from a legend) and every refusal with the file and the JSON path.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <sonicsim/telemetry/measurements.hpp>
#include <sonicsim/telemetry/prometheus_import.hpp>
#include <sonicsim/util/errors.hpp>

#include "support.hpp"

// Names qualified in full: this file shares a unity build with test_prometheus_import.cpp.
namespace {

const std::string kGrafanaData = std::string(SONICSIM_TEST_DATA_DIR) + "/prometheus/";
constexpr double kGrafanaT0 = 1732700000;

sonicsim::telemetry::ImportResult grafana_import(const std::vector<std::string>& paths) {
  return sonicsim::telemetry::import_prometheus(paths, {});
}

// The measurements without the list of files read (names and checksums differ by design).
sonicsim::telemetry::Measurements grafana_without_files(sonicsim::telemetry::Measurements m) {
  m.source.files.clear();
  return m;
}

std::string grafana_refusal(const std::vector<std::string>& paths) {
  try {
    sonicsim::telemetry::import_prometheus(paths, {});
  } catch (const sonicsim::InputError& e) {
    return e.what();
  }
  return "";
}

// A Grafana Prometheus frame as /api/ds/query writes it: a time field (ms) and one number field
// per entry of `series` (labels, values); `meta` goes to the schema when not null.
nlohmann::json grafana_frame(const std::vector<double>& times_ms,
                             const std::vector<std::pair<nlohmann::json, nlohmann::json>>& series,
                             const nlohmann::json& meta = nullptr) {
  nlohmann::json fields = nlohmann::json::array(
      {{{"name", "Time"}, {"type", "time"}, {"typeInfo", {{"frame", "time.Time"}}}}});
  nlohmann::json values = nlohmann::json::array({times_ms});
  for (const auto& [labels, v] : series) {
    fields.push_back({{"name", "Value"},
                      {"type", "number"},
                      {"typeInfo", {{"frame", "float64"}}},
                      {"labels", labels}});
    values.push_back(v);
  }
  nlohmann::json f;
  f["schema"]["refId"] = "A";
  if (!meta.is_null()) f["schema"]["meta"] = meta;
  f["schema"]["fields"] = fields;
  f["data"]["values"] = values;
  return f;
}

// (A vector, not a braced json: `{frame}` would make a json of the frame itself.)
nlohmann::json grafana_ds_query(const std::vector<nlohmann::json>& frames) {
  return {{"results", {{"A", {{"status", 200}, {"frames", nlohmann::json(frames)}}}}}};
}

nlohmann::json grafana_labels(const std::string& pod, const char* name = "nv_inference_count") {
  nlohmann::json l = {{"model", "pn"}, {"version", "1"}, {"pod", pod}, {"release", "r"}};
  if (name) l["__name__"] = name;
  return l;
}

// The same counters as query_range: one response, a series per pod.
nlohmann::json grafana_query_range(
    const std::vector<std::pair<std::string, std::vector<std::pair<double, std::string>>>>& s) {
  nlohmann::json result = nlohmann::json::array();
  for (const auto& [pod, samples] : s) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& [t, v] : samples) values.push_back({t, v});
    result.push_back({{"metric", grafana_labels(pod)}, {"values", values}});
  }
  return {{"status", "success"}, {"data", {{"resultType", "matrix"}, {"result", result}}}};
}

}  // namespace

TEST_CASE("Grafana's three exports of a day give the measurements of its query_range export",
          "[prometheus][grafana]") {
  const auto day = grafana_import({kGrafanaData + "day.json"});
  REQUIRE(day.report.non_finite_samples == 1);  // one NaN of nv_gpu_utilization
  for (const char* name :
       {"grafana_ds_query.json", "grafana_frames.json", "grafana_panel_data.json"}) {
    INFO(name);
    const auto g = grafana_import({kGrafanaData + name});
    CHECK(grafana_without_files(g.measurements) == grafana_without_files(day.measurements));
    CHECK(g.report.series == day.report.series);
    CHECK(g.report.samples == day.report.samples);
    // Grafana writes the NaN as null and lists it in `entities`: still one NaN skipped. The JSON
    // tab's DataFrame JSON drops the list: its null is skipped as no sample.
    CHECK(g.report.non_finite_samples == (std::string(name) == "grafana_frames.json" ? 0 : 1));
    REQUIRE(g.report.ignored.size() == day.report.ignored.size());
    CHECK(g.report.ignored[0].metric == "nv_gpu_memory_used_bytes");
    CHECK(g.report.found == day.report.found);
  }
  // The same series from Prometheus and from Grafana (overlapping files) count once.
  const auto both =
      grafana_import({kGrafanaData + "day.json", kGrafanaData + "grafana_frames.json"});
  CHECK(grafana_without_files(both.measurements) == grafana_without_files(day.measurements));
}

TEST_CASE("Grafana: the query inspector's copy of a /api/ds/query response is read",
          "[prometheus][grafana]") {
  test::ScratchDir dir("grafana-inspector");
  std::ifstream in(kGrafanaData + "grafana_ds_query.json");
  nlohmann::json copy;
  copy["request"] = {{"url", "api/ds/query"}, {"method", "POST"}};
  copy["response"] = nlohmann::json::parse(in);
  const auto g = grafana_import({dir.write("copied.json", copy)});
  CHECK(grafana_without_files(g.measurements) ==
        grafana_without_files(grafana_import({kGrafanaData + "day.json"}).measurements));
}

TEST_CASE("Grafana: a wide frame holds a series per number field; nulls are no sample",
          "[prometheus][grafana]") {
  test::ScratchDir dir("grafana-wide");
  const double ms = kGrafanaT0 * 1000;
  // pod b has no sample at the first instant (a join's null); pod a's NaN at 30 s is a null
  // listed in `entities`.
  auto frame = grafana_frame({ms, ms + 15000, ms + 30000, ms + 45000},
                             {{grafana_labels("a"), {0, 30, nullptr, 90}},
                              {grafana_labels("b"), {nullptr, 100, 115, 130}}});
  frame["data"]["entities"] = {nullptr, {{"NaN", {2}}}, nullptr};
  const auto g = grafana_import({dir.write("wide.json", grafana_ds_query({frame}))});
  const auto q = grafana_import({dir.write(
      "q.json",
      grafana_query_range(
          {{"a", {{kGrafanaT0, "0"}, {kGrafanaT0 + 15, "30"}, {kGrafanaT0 + 45, "90"}}},
           {"b",
            {{kGrafanaT0 + 15, "100"}, {kGrafanaT0 + 30, "115"}, {kGrafanaT0 + 45, "130"}}}}))});
  CHECK(grafana_without_files(g.measurements) == grafana_without_files(q.measurements));
  CHECK(g.report.series == 2);
  CHECK(g.report.non_finite_samples == 1);  // the NaN, not pod b's missing instant
}

TEST_CASE("Grafana: without __name__ a legend that is a bare metric name names the series",
          "[prometheus][grafana]") {
  test::ScratchDir dir("grafana-legend");
  const double ms = kGrafanaT0 * 1000;
  auto frame = grafana_frame({ms, ms + 15000}, {{grafana_labels("a", nullptr), {0, 30}}});
  frame["schema"]["fields"][1]["config"]["displayNameFromDS"] = "nv_inference_count";
  // No executed query in the frame: the legend is taken at its word.
  const auto g = grafana_import({dir.write("legend.json", nlohmann::json::array({frame}))});
  CHECK(g.report.found == std::vector<std::string>{"nv_inference_count"});
  // A plain selector as the panel's query: still the raw counter.
  frame["schema"]["meta"]["executedQueryString"] =
      "Expr: nv_inference_count{model=\"pn\"}\nStep: 15s";
  CHECK(grafana_import({dir.write("selector.json", nlohmann::json::array({frame}))})
            .report.found.size() == 1);
  // An expression: the legend names a rate, not the counter.
  frame["schema"]["meta"]["executedQueryString"] = "Expr: rate(nv_inference_count[1m])\nStep: 15s";
  CHECK_THAT(grafana_refusal({dir.write("expr.json", nlohmann::json::array({frame}))}),
             Catch::Contains("found a series without __name__") &&
                 Catch::Contains("`rate(nv_inference_count[1m])`"));
  // A legend that is not a metric name ({{pod}}) names nothing.
  frame["schema"]["meta"].erase("executedQueryString");
  frame["schema"]["fields"][1]["config"]["displayNameFromDS"] = "pod a";
  CHECK_THAT(grafana_refusal({dir.write("pod.json", nlohmann::json::array({frame}))}),
             Catch::Contains("pod.json: [0].schema.fields[1].labels: found a series without "
                             "__name__"));
}

TEST_CASE("Grafana: annotations and exemplars riding with the frames are not series",
          "[prometheus][grafana]") {
  test::ScratchDir dir("grafana-skip");
  const double ms = kGrafanaT0 * 1000;
  auto exemplar =
      grafana_frame({ms}, {{grafana_labels("a"), {1}}}, {{"custom", {{"resultType", "exemplar"}}}});
  exemplar["schema"]["fields"].push_back({{"name", "trace_id"}, {"type", "string"}});
  exemplar["data"]["values"].push_back({"abc"});
  auto annotation = exemplar;
  annotation["schema"]["meta"] = {{"dataTopic", "annotations"}};
  const auto g = grafana_import({dir.write(
      "skip.json",
      nlohmann::json::array({grafana_frame({ms, ms + 15000}, {{grafana_labels("a"), {0, 30}}}),
                             exemplar, annotation}))});
  CHECK(g.report.series == 1);
}

TEST_CASE("Grafana: refusals name the file, the JSON path, what was found and what is expected",
          "[prometheus][grafana]") {
  const std::string& d = kGrafanaData;
  CHECK_THAT(grafana_refusal({d + "grafana_error.json"}),
             Catch::Contains("grafana_error.json: results.A.error: found the error \"bad_data: "
                             "invalid parameter") &&
                 Catch::Contains("(status 400)"));
  CHECK_THAT(grafana_refusal({d + "grafana_rate.json"}),
             Catch::Contains("grafana_rate.json: [0].schema.fields[1].labels: found a series "
                             "without __name__") &&
                 Catch::Contains("export the raw counter") &&
                 Catch::Contains("Grafana's export holds what the panel's query computed"));
  CHECK_THAT(grafana_refusal({d + "grafana_no_time.json"}),
             Catch::Contains("grafana_no_time.json: [0].schema.fields: found a frame without a "
                             "time field"));
  CHECK_THAT(grafana_refusal({d + "grafana_lengths.json"}),
             Catch::Contains("grafana_lengths.json: results.A.frames[0].data.values[1]: found 2 "
                             "values, expected 3, as many as the time field"));
  CHECK_THAT(grafana_refusal({d + "grafana_text_value.json"}),
             Catch::Contains("grafana_text_value.json: results.A.frames[0].data.values[1][2]: "
                             "found the string \"240\", expected a number"));

  test::ScratchDir dir("grafana-refusals");
  const double ms = kGrafanaT0 * 1000;
  const auto good = grafana_frame({ms, ms + 15000}, {{grafana_labels("a"), {0, 30}}});
  CHECK_THAT(grafana_refusal({dir.write("auth.json", {{"message", "Unauthorized"}})}),
             Catch::Contains("auth.json: message: found Grafana's message \"Unauthorized\""));
  CHECK_THAT(
      grafana_refusal({dir.write(
          "status.json",
          {{"results", {{"B", {{"status", 500}, {"frames", nlohmann::json::array({good})}}}}}})}),
      Catch::Contains("status.json: results.B.status: found the number 500, expected 200"));
  CHECK_THAT(grafana_refusal(
                 {dir.write("arrow.json", {{"results", {{"A", {{"dataframes", {"QVJST1cx"}}}}}}})}),
             Catch::Contains("arrow.json: results.A.dataframes: found frames as base64 Apache "
                             "Arrow (Grafana 7)"));
  auto table = good;
  table["schema"]["fields"].push_back({{"name", "pod"}, {"type", "string"}});
  table["data"]["values"].push_back({"a", "a"});
  CHECK_THAT(grafana_refusal({dir.write("table.json", nlohmann::json::array({table}))}),
             Catch::Contains("table.json: [0].schema.fields[2].type: found \"string\" (field "
                             "\"pod\"), expected \"time\" or \"number\"") &&
                 Catch::Contains("\"Time series\", not \"Table\""));
  auto structure = good;
  structure.erase("data");
  CHECK_THAT(grafana_refusal({dir.write("structure.json", nlohmann::json::array({structure}))}),
             Catch::Contains("structure.json: [0].data: found nothing") &&
                 Catch::Contains("DataFrame JSON (from Query)"));
  auto heatmap = good;
  heatmap["schema"]["meta"] = {{"type", "heatmap-cells"}};
  CHECK_THAT(grafana_refusal({dir.write("heatmap.json", nlohmann::json::array({heatmap}))}),
             Catch::Contains("heatmap.json: [0].schema.meta.type: found a native histogram"));
  auto seconds = good;
  seconds["data"]["values"][0] = {ms + 15000, ms};
  CHECK_THAT(grafana_refusal({dir.write("order.json", grafana_ds_query({seconds}))}),
             Catch::Contains("order.json: results.A.frames[0].data.values[0][1]: found "
                             "1732700000 after 1732700015, expected times that increase"));
  auto negative = good;
  negative["data"]["values"][1] = {0, -3};
  CHECK_THAT(grafana_refusal({dir.write("negative.json", grafana_ds_query({negative}))}),
             Catch::Contains("negative.json: results.A.frames[0].data.values[1][1]: found the "
                             "number -3, expected a value >= 0"));
  nlohmann::json failed_panel = {{"state", "Error"},
                                 {"series", nlohmann::json::array()},
                                 {"errors", {{{"message", "bad_data: parse error"}}}}};
  CHECK_THAT(grafana_refusal({dir.write("panel.json", failed_panel)}),
             Catch::Contains("panel.json: error: found the error \"bad_data: parse error\""));
}

TEST_CASE("Grafana: too many series are refused up front", "[prometheus][grafana]") {
  test::ScratchDir dir("grafana-caps");
  const std::string path = (dir.path / "many.json").string();
  {
    std::ofstream out(path);
    out << R"([{"schema":{"fields":[{"name":"Time","type":"time"})";
    for (std::size_t i = 0; i <= sonicsim::telemetry::PrometheusLimits::max_series; ++i)
      out << R"(,{"name":"x","type":"number","labels":{"__name__":"x"}})";
    out << R"(]},"data":{"values":[[])";
    for (std::size_t i = 0; i <= sonicsim::telemetry::PrometheusLimits::max_series; ++i)
      out << ",[]";
    out << "]}}]";
  }
  CHECK_THAT(grafana_refusal({path}), Catch::Contains("many.json: [0].schema.fields[100001]: "
                                                      "found more than 100000 series"));
}
