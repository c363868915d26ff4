// Reading Prometheus query_range exports: the response's envelope, each series' labels and its
// samples, every problem named by file and JSON path.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/sha256.hpp>

#include "prometheus_series.hpp"

namespace sonicsim::telemetry::prom {

namespace {

using json = nlohmann::json;

std::string shown(const json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 60) + "...";
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array of " + std::to_string(v.size());
    case json::value_t::string:
      return "the string " + text;
    case json::value_t::boolean:
      return "the boolean " + text;
    default:
      return "the number " + text;
  }
}

// Prometheus writes sample values as strings: decimal numbers, "NaN", "+Inf", "-Inf".
std::optional<double> sample_value(const std::string& s) {
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "+Inf" || s == "Inf") return std::numeric_limits<double>::infinity();
  if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  return util::parse_number(s);
}

bool known(const std::string& metric) {
  const auto& names = recognized_metrics();
  return std::find(names.begin(), names.end(), metric) != names.end();
}

bool is_triton_per_model(const std::string& metric) {
  return metric.rfind("nv_inference_", 0) == 0;
}

class ExportReader {
 public:
  ExportReader(const std::string& file, const ImportOptions& o, ReadState& s)
      : file_(file), o_(o), s_(s) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw InputError(file_, {Problem{path, message}});
  }

  void response(const json& r, const std::string& base) {
    auto at = [&](const char* k) { return base.empty() ? std::string(k) : base + "." + k; };
    if (!r.is_object())
      fail(base, "found " + shown(r) +
                     ", expected a Prometheus API response (an object with "
                     "\"status\" and \"data\")");
    const auto status = r.find("status");
    if (status == r.end() || !status->is_string())
      fail(at("status"), "found " + (status == r.end() ? std::string("nothing") : shown(*status)) +
                             ", expected \"success\" (a response of /api/v1/query_range)");
    if (*status != "success") {
      std::string why;
      if (const auto e = r.find("error"); e != r.end() && e->is_string())
        why = ": Prometheus said \"" + e->get<std::string>() + "\"";
      if (const auto t = r.find("errorType"); t != r.end() && t->is_string())
        why += " (" + t->get<std::string>() + ")";
      fail(at("status"), "found " + shown(*status) + why +
                             ", expected \"success\": the query failed; fix it and export again");
    }
    const auto data = r.find("data");
    if (data == r.end() || !data->is_object())
      fail(at("data"), "found " + (data == r.end() ? std::string("nothing") : shown(*data)) +
                           ", expected an object with \"resultType\" and \"result\"");
    const std::string dpath = at("data");
    const auto type = data->find("resultType");
    if (type == data->end() || !type->is_string())
      fail(dpath + ".resultType",
           "found " + (type == data->end() ? std::string("nothing") : shown(*type)) +
               ", expected \"matrix\"");
    if (*type != "matrix") {
      const std::string hint =
          *type == "vector"
              ? ": an instant vector is one moment (/api/v1/query); export the history with "
                "/api/v1/query_range?query=...&start=...&end=...&step=..."
              : ": export raw metrics with /api/v1/query_range";
      fail(dpath + ".resultType", "found " + shown(*type) + ", expected \"matrix\"" + hint);
    }
    const auto result = data->find("result");
    if (result == data->end() || !result->is_array())
      fail(dpath + ".result",
           "found " + (result == data->end() ? std::string("nothing") : shown(*result)) +
               ", expected an array of series");
    for (std::size_t i = 0; i < result->size(); ++i)
      series((*result)[i], dpath + ".result[" + std::to_string(i) + "]");
  }

 private:
  std::string label(const json& metric, const std::string& name) const {
    const auto it = metric.find(name);
    return it != metric.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

  void series(const json& x, const std::string& path) {
    if (!x.is_object()) fail(path, "found " + shown(x) + ", expected a series {metric, values}");
    const auto metric = x.find("metric");
    if (metric == x.end() || !metric->is_object())
      fail(path + ".metric", "found " +
                                 (metric == x.end() ? std::string("nothing") : shown(*metric)) +
                                 ", expected the series' labels (an object)");
    for (auto it = metric->begin(); it != metric->end(); ++it)
      if (!it.value().is_string())
        fail(path + ".metric." + it.key(), "found " + shown(it.value()) + ", expected a string");
    const auto name = metric->find("__name__");
    if (name == metric->end())
      fail(path + ".metric",
           "found a series without __name__ (labels " + metric->dump().substr(0, 80) +
               "): the result of an expression such as rate() or sum(), expected a raw metric: "
               "export the raw counter (query=nv_inference_count); sonicsim computes the rates "
               "itself");
    if (++s_.report.series > PrometheusLimits::max_series)
      fail(path, "found more than " + std::to_string(PrometheusLimits::max_series) +
                     " series in the files, expected at most that many: export fewer metrics or "
                     "a narrower selection");
    const auto values = x.find("values");
    if (values == x.end() || !values->is_array())
      fail(path + ".values",
           "found " + (values == x.end() ? std::string("nothing") : shown(*values)) +
               ", expected the samples [[unix seconds, \"value\"], ...] (native histograms are "
               "not read: export their _sum and _count)");
    const std::string metric_name = name->get<std::string>();
    // Every sample is checked, used or not: a bad file is bad whatever it holds.
    std::vector<Sample> samples;
    samples.reserve(values->size());
    double last_t = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < values->size(); ++i) {
      const std::string vpath = path + ".values[" + std::to_string(i) + "]";
      const json& pair = (*values)[i];
      if (!pair.is_array() || pair.size() != 2)
        fail(vpath, "found " + shown(pair) + ", expected a sample [unix seconds, \"value\"]");
      if (!pair[0].is_number() || !std::isfinite(pair[0].get<double>()))
        fail(vpath + "[0]", "found " + shown(pair[0]) + ", expected a time in unix seconds");
      const double t = pair[0].get<double>();
      if (!pair[1].is_string())
        fail(vpath + "[1]", "found " + shown(pair[1]) +
                                ", expected a value as Prometheus writes it, a string (\"42\", "
                                "\"1.5e3\", \"NaN\", \"+Inf\")");
      const auto v = sample_value(pair[1].get<std::string>());
      if (!v)
        fail(vpath + "[1]", "found " + shown(pair[1]) +
                                ", expected a number as Prometheus writes it (\"42\", \"1.5e3\", "
                                "\"NaN\", \"+Inf\")");
      if (t <= last_t)
        fail(vpath + "[0]", "found " + util::exact_number(t) + " after " +
                                util::exact_number(last_t) +
                                ", expected times that increase within a series");
      last_t = t;
      if (++s_.report.samples > PrometheusLimits::max_samples)
        fail(vpath, "found more than " + std::to_string(PrometheusLimits::max_samples) +
                        " samples in the files, expected at most that many: export a shorter "
                        "span or a larger step");
      if (!std::isfinite(*v)) {
        ++s_.report.non_finite_samples;
        continue;
      }
      // Every metric sonicsim reads counts or measures something that cannot be negative.
      if (*v < 0.0 && known(metric_name))
        fail(vpath + "[1]", "found " + shown(pair[1]) + ", expected a value >= 0 (" + metric_name +
                                " is a count, a duration or a utilisation)");
      samples.push_back({t, *v});
    }
    if (!known(metric_name)) {
      ++s_.unused[{metric_name, "not a metric sonicsim uses"}];
      return;
    }
    StoredSeries st;
    st.metric = metric_name;
    st.pool = label(*metric, o_.pool_label);
    if (st.pool.empty()) st.pool = "all";
    st.replica = label(*metric, o_.replica_label);
    if (st.replica.empty()) st.replica = label(*metric, "instance");
    st.has_model = metric->contains("model");
    st.model = label(*metric, "model");
    st.version = label(*metric, "version");
    if (is_triton_per_model(metric_name) && !st.has_model) {
      ++s_.unused[{metric_name, "no `model` label"}];
      return;
    }
    st.samples = std::move(samples);
    auto [it, fresh] = s_.series.try_emplace(metric->dump(), std::move(st));
    if (!fresh) {
      // The same series in two exports (overlapping spans): one history, each instant once.
      auto& mine = it->second.samples;
      mine.insert(mine.end(), st.samples.begin(), st.samples.end());
      std::stable_sort(mine.begin(), mine.end(),
                       [](const Sample& a, const Sample& b) { return a.t < b.t; });
      mine.erase(std::unique(mine.begin(), mine.end(),
                             [](const Sample& a, const Sample& b) { return a.t == b.t; }),
                 mine.end());
    }
  }

  const std::string& file_;
  const ImportOptions& o_;
  ReadState& s_;
};

}  // namespace

void read_export(const std::string& path, const ImportOptions& o, ReadState& state) {
  std::string error;
  const std::string text = read_text(path, error, PrometheusLimits::max_file_bytes);
  if (!error.empty()) throw InputError(path, {Problem{"", "cannot read: " + error}});
  const auto doc = parse_json(text, path);
  if (!doc)
    throw InputError(path, {Problem{"",
                                    "found text that is not JSON, expected the response of "
                                    "Prometheus' /api/v1/query_range (JSON)"}});
  ExportReader r(path, o, state);
  if (doc->is_array()) {
    if (doc->empty()) r.fail("", "found an empty array, expected query_range responses");
    for (std::size_t i = 0; i < doc->size(); ++i)
      r.response((*doc)[i], "[" + std::to_string(i) + "]");
  } else {
    r.response(*doc, "");
  }
  ++state.report.files;
  state.files.push_back({path, sha256_hex(text)});
}

}  // namespace sonicsim::telemetry::prom
