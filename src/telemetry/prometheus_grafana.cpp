// Reading what Grafana gives for a Prometheus panel (docs/deployment.md, "From Grafana"): the
// /api/ds/query response, the query inspector's copy of it, the panel inspector's "DataFrame
// JSON (from Query)" (an array of frames as JSON, schema and data apart) and its "Panel data"
// (frames with their values inline). Grafana's Prometheus data source makes one frame per series:
// a time field (milliseconds since 1970) and a number field carrying the series' labels, NaN and
// infinities written as null; its "wide" option puts several number fields beside one time field.
// Each number field becomes one series, checked and capped as query_range series are.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/wall_time.hpp>

#include "prometheus_keys.hpp"
#include "prometheus_series.hpp"

namespace sonicsim::telemetry::prom {

namespace {

std::string grafana_at(const std::string& base, const std::string& k) {
  return base.empty() ? k : base + "." + k;
}

std::string grafana_item(const std::string& base, std::size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

const nlohmann::json* grafana_find(const nlohmann::json& obj, const char* k) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(k);
  return it == obj.end() ? nullptr : &*it;
}

std::string grafana_string(const nlohmann::json& obj, const char* k) {
  const auto* v = grafana_find(obj, k);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

bool is_grafana_frame(const nlohmann::json& x) {
  return x.is_object() && (x.contains(key::schema) || x.contains(key::fields));
}

// A name Prometheus could give a metric: what a legend or a frame name must be to stand for
// __name__ when the labels lack it.
bool is_bare_metric_name(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Whether a PromQL expression is a plain selector (`name` or `name{matchers}`), whose result is
// the raw series; anything else (rate(), sum(), arithmetic, a range) computed something else.
bool is_plain_selector(std::string e) {
  while (!e.empty() && (e.back() == ' ' || e.back() == '\t' || e.back() == '\n')) e.pop_back();
  const std::size_t i = e.find_first_not_of(" \t\n");
  if (i == std::string::npos) return false;
  const std::size_t j = std::min(e.find('{', i), e.size());
  if (!is_bare_metric_name(e.substr(i, j - i))) return false;
  if (j == e.size()) return true;
  return e.back() == '}' && e.find_first_of("[]", j) == std::string::npos;
}

// The panel query's expression as Grafana's Prometheus data source records it in the frame's
// meta ("Expr: nv_inference_count\nStep: 15s"); empty when the frame does not say.
std::string executed_expression(const nlohmann::json* meta) {
  if (!meta) return {};
  const std::string q = grafana_string(*meta, key::executed_query);
  const std::string prefix = key::executed_expr_prefix;
  if (q.rfind(prefix, 0) != 0) return {};
  return q.substr(prefix.size(), q.find('\n') == std::string::npos ? std::string::npos
                                                                   : q.find('\n') - prefix.size());
}

class GrafanaReader {
 public:
  explicit GrafanaReader(SeriesIntake& in) : in_(in) {}

  void document(const nlohmann::json& doc) {
    if (doc.is_array()) return frame_list(doc, "");
    if (const auto* r = grafana_find(doc, key::results)) return results(*r, key::results);
    // The query inspector's copy: {"request", "response": {"results"}}.
    if (const auto* r = grafana_find(doc, key::response); r && r->contains(key::results))
      return results((*r)[key::results], grafana_at(key::response, key::results));
    if (const auto* f = grafana_find(doc, key::frames)) return frame_list(*f, key::frames);
    if (grafana_find(doc, key::series)) return panel_data(doc);
    if (is_grafana_frame(doc)) return frame(doc, "");
    if (grafana_find(doc, key::arrow_frames)) arrow_refusal(key::arrow_frames);
    in_.fail(key::message, "found Grafana's message \"" + grafana_string(doc, key::message) +
                               "\", expected query results: the request failed (a wrong "
                               "datasource uid, a missing token or permission); fix it and "
                               "export again");
  }

 private:
  [[noreturn]] void arrow_refusal(const std::string& path) const {
    in_.fail(path,
             "found frames as base64 Apache Arrow (Grafana 7), expected frames as JSON "
             "(Grafana 8 or later): export with a newer Grafana, or query Prometheus' "
             "/api/v1/query_range directly");
  }

  // {"<refId>": {"status": 200, "frames": [...]}} or {"<refId>": {"error": "...", "status": 4xx}}
  void results(const nlohmann::json& rs, const std::string& path) {
    if (!rs.is_object())
      in_.fail(path, "found " + shown(rs) + ", expected the queries' results by refId (an object)");
    for (auto it = rs.begin(); it != rs.end(); ++it) {
      const std::string rpath = path + "." + it.key();
      const auto& r = it.value();
      if (!r.is_object())
        in_.fail(rpath, "found " + shown(r) + ", expected a query's result {status, frames}");
      const auto* status = grafana_find(r, key::status);
      const auto* error = grafana_find(r, key::error);
      if (error && !error->is_null() &&
          !(error->is_string() && error->get<std::string>().empty())) {
        const std::string said = error->is_string() ? error->get<std::string>() : error->dump();
        in_.fail(grafana_at(rpath, key::error),
                 "found the error \"" + said + "\"" +
                     (status ? " (status " + status->dump() + ")" : std::string()) +
                     ", expected the query's frames: Grafana could not run the query; fix it "
                     "in the panel and export again");
      }
      if (status && !(status->is_number() && status->get<double>() == 200.0))
        in_.fail(grafana_at(rpath, key::status), "found " + shown(*status) +
                                                     ", expected 200: the query failed; fix it and "
                                                     "export again");
      if (grafana_find(r, key::arrow_frames)) arrow_refusal(grafana_at(rpath, key::arrow_frames));
      // A result without frames is a query that found nothing.
      if (const auto* fs = grafana_find(r, key::frames))
        frame_list(*fs, grafana_at(rpath, key::frames));
    }
  }

  // The panel inspector's "Panel data": {"state", "series": [frames], "error"/"errors"}.
  void panel_data(const nlohmann::json& doc) {
    std::string said;
    if (const auto* e = grafana_find(doc, key::error); e && !e->is_null())
      said = e->is_object() ? grafana_string(*e, key::message) : e->dump();
    if (const auto* es = grafana_find(doc, key::errors); said.empty() && es && es->is_array())
      for (const auto& e : *es)
        if (said.empty()) said = e.is_object() ? grafana_string(e, key::message) : e.dump();
    if (!said.empty() || grafana_string(doc, key::state) == key::state_error)
      in_.fail(said.empty() ? key::state : key::error,
               "found the error \"" + said +
                   "\", expected the panel's data: the panel's query failed; fix it and "
                   "export again");
    const auto& series = doc[key::series];
    if (!series.is_array())
      in_.fail(key::series, "found " + shown(series) + ", expected the panel's frames (an array)");
    frame_list(series, key::series);
  }

  void frame_list(const nlohmann::json& fs, const std::string& path) {
    if (!fs.is_array())
      in_.fail(path, "found " + shown(fs) + ", expected Grafana's data frames (an array)");
    for (std::size_t i = 0; i < fs.size(); ++i) frame(fs[i], grafana_item(path, i));
  }

  // One frame, as JSON ({"schema", "data": {"values"}}) or as the browser holds it ({"fields":
  // [{..., "values"}]}).
  void frame(const nlohmann::json& f, const std::string& path) {
    if (!f.is_object() || !is_grafana_frame(f))
      in_.fail(path, "found " + shown(f) +
                         ", expected a data frame ({\"schema\", \"data\"} or {\"fields\"})");
    const bool split = f.contains(key::schema);
    const auto& schema = split ? f[key::schema] : f;
    const std::string spath = split ? grafana_at(path, key::schema) : path;
    if (!schema.is_object())
      in_.fail(spath, "found " + shown(schema) + ", expected the frame's schema (an object)");
    const auto* meta = grafana_find(schema, key::meta);
    if (meta && !meta->is_object()) meta = nullptr;
    // Annotations and exemplars ride along with a panel's frames; they are not series.
    if (meta && grafana_string(*meta, key::data_topic) == key::topic_annotations) return;
    if (meta && grafana_find(*meta, key::meta_custom) &&
        grafana_string((*meta)[key::meta_custom], key::result_type) == key::result_type_exemplar)
      return;
    if (grafana_string(schema, key::name) == key::result_type_exemplar) return;
    if (meta && grafana_string(*meta, key::meta_type) == key::frame_type_heatmap)
      in_.fail(grafana_at(grafana_at(spath, key::meta), key::meta_type),
               "found a native histogram (\"heatmap-cells\"), expected a time series: native "
               "histograms are not read: export their _sum and _count");
    const std::string fpath0 = grafana_at(spath, key::fields);
    const auto* fields = grafana_find(schema, key::fields);
    if (!fields || !fields->is_array())
      in_.fail(fpath0, "found " + (fields ? shown(*fields) : std::string("nothing")) +
                           ", expected the frame's fields (an array)");
    const std::size_t n = fields->size();
    if (n == 0) return;  // a query that found nothing

    std::vector<const nlohmann::json*> values(n, nullptr), entities(n, nullptr);
    std::vector<std::string> vpaths(n);
    if (split) {
      const std::string dpath = grafana_at(path, key::data);
      const auto* data = grafana_find(f, key::data);
      if (!data || !data->is_object())
        in_.fail(dpath, "found " + (data ? shown(*data) : std::string("nothing")) +
                            ", expected the frame's values {\"values\": [...]}: \"DataFrame "
                            "structure\" leaves them out; export \"DataFrame JSON (from "
                            "Query)\"");
      const std::string vpath = grafana_at(dpath, key::values);
      const auto* vs = grafana_find(*data, key::values);
      if (!vs || !vs->is_array() || vs->size() != n)
        in_.fail(vpath, "found " + (vs ? shown(*vs) : std::string("nothing")) +
                            ", expected one array of values per field (" + std::to_string(n) + ")");
      const auto* es = grafana_find(*data, key::entities);
      for (std::size_t i = 0; i < n; ++i) {
        values[i] = &(*vs)[i];
        vpaths[i] = grafana_item(vpath, i);
        if (es && es->is_array() && i < es->size()) entities[i] = &(*es)[i];
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const std::string fp = grafana_item(fpath0, i);
        if (!(*fields)[i].is_object())
          in_.fail(fp, "found " + shown((*fields)[i]) + ", expected a field");
        vpaths[i] = grafana_at(fp, key::values);
        values[i] = grafana_find((*fields)[i], key::values);
        if (!values[i]) in_.fail(vpaths[i], "found nothing, expected the field's values");
        entities[i] = grafana_find((*fields)[i], key::entities);
      }
    }

    std::optional<std::size_t> time;
    std::vector<std::size_t> numbers;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& field = (*fields)[i];
      const std::string fp = grafana_item(fpath0, i);
      if (!field.is_object()) in_.fail(fp, "found " + shown(field) + ", expected a field");
      const std::string type = field_type(field);
      if (type == key::type_time) {
        if (time)
          in_.fail(fp,
                   "found a second time field, expected one per frame (export the query's "
                   "frames, not a join of them)");
        time = i;
      } else if (type == key::type_number) {
        numbers.push_back(i);
      } else {
        in_.fail(grafana_at(fp, key::type),
                 "found " + (type.empty() ? std::string("no type") : "\"" + type + "\"") +
                     " (field \"" + grafana_string(field, key::name) +
                     "\"), expected \"time\" or \"number\": a time series frame; set the "
                     "query's Format to \"Time series\", not \"Table\"");
      }
      if (!values[i]->is_array())
        in_.fail(vpaths[i], "found " + shown(*values[i]) +
                                ", expected the field's values (an "
                                "array)");
    }
    if (numbers.empty()) return;
    if (!time)
      in_.fail(fpath0,
               "found a frame without a time field (only numbers), expected a \"time\" "
               "field beside them: export a time series query's frames");
    const auto& tvalues = *values[*time];
    const std::size_t rows = tvalues.size();
    for (const auto k : numbers)
      if (values[k]->size() != rows)
        in_.fail(vpaths[k], "found " + std::to_string(values[k]->size()) + " values, expected " +
                                std::to_string(rows) + ", as many as the time field (" +
                                vpaths[*time] + ")");

    // Grafana writes times in milliseconds since 1970; a null time is a row without an instant.
    std::vector<std::optional<double>> times(rows);
    double last_t = -std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < rows; ++r) {
      const auto& x = tvalues[r];
      if (x.is_null()) continue;
      if (!x.is_number() || !util::is_wall_time(x.get<double>() / 1000.0))
        in_.fail(grafana_item(vpaths[*time], r),
                 "found " + shown(x) + ", expected a time in milliseconds since 1970 " +
                     util::wall_time_range(true));
      times[r] = x.get<double>() / 1000.0;
      in_.check_order(*times[r], last_t, grafana_item(vpaths[*time], r));
    }

    const std::string expression = executed_expression(meta);
    for (const auto k : numbers)
      number_field((*fields)[k], grafana_item(fpath0, k), schema, expression, *values[k], vpaths[k],
                   entities[k], times);
  }

  // "time", "number", ...: the field's `type`, else what its Go type (`typeInfo.frame`) implies.
  static std::string field_type(const nlohmann::json& field) {
    const std::string type = grafana_string(field, key::type);
    if (!type.empty()) return type;
    const auto* info = grafana_find(field, key::type_info);
    std::string go = info ? grafana_string(*info, key::type_info_frame) : std::string();
    if (!go.empty() && go[0] == '*') go.erase(0, 1);  // nullable
    if (go == "time.Time") return key::type_time;
    for (const char* num : {"int", "uint", "float"})
      if (go.rfind(num, 0) == 0) return key::type_number;
    return {};
  }

  void number_field(const nlohmann::json& field, const std::string& fpath,
                    const nlohmann::json& schema, const std::string& expression,
                    const nlohmann::json& vals, const std::string& vpath,
                    const nlohmann::json* entities, const std::vector<std::optional<double>>& t) {
    const std::string lpath = grafana_at(fpath, key::labels);
    nlohmann::json labels = nlohmann::json::object();
    if (const auto* l = grafana_find(field, key::labels); l && !l->is_null()) {
      if (!l->is_object())
        in_.fail(lpath, "found " + shown(*l) + ", expected the series' labels (an object)");
      for (auto it = l->begin(); it != l->end(); ++it)
        if (!it.value().is_string())
          in_.fail(lpath + "." + it.key(), "found " + shown(it.value()) + ", expected a string");
      labels = *l;
    }
    std::string metric = grafana_string(labels, key::metric_name_label);
    if (metric.empty()) {
      // Without __name__ a legend or the frame's name may still name a raw series, unless the
      // frame says its query was an expression.
      std::string named;
      if (const auto* c = grafana_find(field, key::config))
        named = grafana_string(*c, key::display_name_from_ds);
      if (named.empty()) named = grafana_string(schema, key::name);
      if (!is_bare_metric_name(named) || (!expression.empty() && !is_plain_selector(expression)))
        in_.fail(lpath, SeriesIntake::no_name_message(labels) +
                            (expression.empty()
                                 ? std::string()
                                 : " (the panel's query is `" + expression.substr(0, 80) + "`)") +
                            ". Grafana's export holds what the panel's query computed, not the "
                            "counter: set the query to the bare metric (nv_inference_count, "
                            "no rate()) before exporting");
      metric = named;
      labels[key::metric_name_label] = named;
    }
    in_.count_series(fpath);

    // Grafana writes NaN and infinities as null and lists where they were in `entities`; other
    // nulls are instants the series has no sample at (a wide frame's rows).
    std::vector<char> special(t.size(), 0);
    if (entities && entities->is_object())
      for (const char* which : {key::entity_nan, key::entity_inf, key::entity_neg_inf})
        if (const auto* idx = grafana_find(*entities, which); idx && idx->is_array())
          for (const auto& i : *idx)
            if (i.is_number_unsigned() && i.get<std::size_t>() < t.size())
              special[i.get<std::size_t>()] = 1;

    std::vector<Sample> samples;
    samples.reserve(t.size());
    for (std::size_t r = 0; r < t.size(); ++r) {
      if (!t[r]) continue;
      const std::string p = grafana_item(vpath, r);
      in_.count_sample(p);
      const auto& x = vals[r];
      if (x.is_null()) {
        if (special[r]) in_.count_non_finite();
        continue;
      }
      if (!x.is_number())
        in_.fail(p, "found " + shown(x) + ", expected a number (or null, Grafana's NaN)");
      const double v = x.get<double>();
      in_.check_value(v, metric, p, shown(x));
      samples.push_back({*t[r], v});
    }
    in_.store(labels, metric, std::move(samples));
  }

  SeriesIntake& in_;
};

}  // namespace

bool is_grafana_export(const nlohmann::json& doc) {
  if (doc.is_array()) return !doc.empty() && is_grafana_frame(doc[0]);
  if (!doc.is_object()) return false;
  for (const char* k : {key::results, key::frames, key::series, key::arrow_frames})
    if (doc.contains(k)) return true;
  if (const auto* r = grafana_find(doc, key::response); r && r->contains(key::results)) return true;
  if (is_grafana_frame(doc)) return true;
  // A failed Grafana API call is {"message": ...}; Prometheus' failures carry "status".
  return doc.contains(key::message) && !doc.contains(key::status);
}

void read_grafana(const nlohmann::json& doc, SeriesIntake& in) {
  GrafanaReader(in).document(doc);
}

}  // namespace sonicsim::telemetry::prom
