// Reading Prometheus query_range exports: the response's envelope, each series' labels and its
// samples, every problem named by file and JSON path; and where the series of every format
// (these and Grafana's, prometheus_grafana.cpp) enter the import.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/sha256.hpp>
#include <sonicsim/util/wall_time.hpp>

#include "prometheus_keys.hpp"
#include "prometheus_series.hpp"

namespace sonicsim::telemetry::prom {

std::string shown(const nlohmann::json& v) {
  using value_t = nlohmann::json::value_t;
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 60) + "...";
  switch (v.type()) {
    case value_t::null:
      return "null";
    case value_t::object:
      return "an object";
    case value_t::array:
      return "an array of " + std::to_string(v.size());
    case value_t::string:
      return "the string " + text;
    case value_t::boolean:
      return "the boolean " + text;
    default:
      return "the number " + text;
  }
}

namespace {

// Prometheus writes sample values as strings: decimal numbers, "NaN", "+Inf", "-Inf".
std::optional<double> prom_sample_value(const std::string& s) {
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "+Inf" || s == "Inf") return std::numeric_limits<double>::infinity();
  if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  return util::parse_number(s);
}

bool is_recognized_metric(const std::string& metric) {
  const auto& names = recognized_metrics();
  return std::find(names.begin(), names.end(), metric) != names.end();
}

bool is_triton_per_model(const std::string& metric) {
  return metric.rfind("nv_inference_", 0) == 0;
}

std::string found_or_nothing(const nlohmann::json& obj, nlohmann::json::const_iterator it) {
  return it == obj.end() ? std::string("nothing") : shown(*it);
}

}  // namespace

void over_budget(double bytes, double budget, const std::string& largest) {
  throw InputError(
      "--memory-budget",
      {Problem{"", "the import would need about " + util::format_bytes(bytes) +
                       " of memory, above a budget of " + util::format_binary_bytes(budget) +
                       "; the largest parts: " + largest +
                       ". Lower these counts (a larger --step, a shorter --start/--end, fewer "
                       "series or files), or raise the budget with --memory-budget SIZE (e.g. "
                       "32GiB, or unlimited) if the machine has the memory (docs/limits.md)"}});
}

void SeriesIntake::fail(const std::string& path, const std::string& message) const {
  throw InputError(file_, {Problem{path, message}});
}

void SeriesIntake::count_series(const std::string& path) {
  if (++s_.report.series > PrometheusLimits::max_series)
    fail(path, "found more than " + std::to_string(PrometheusLimits::max_series) +
                   " series in the files, expected at most that many: export fewer metrics or "
                   "a narrower selection");
}

void SeriesIntake::count_sample(const std::string& path) {
  if (++s_.report.samples > PrometheusLimits::max_samples)
    fail(path, "found more than " + std::to_string(PrometheusLimits::max_samples) +
                   " samples in the files, expected at most that many: export a shorter span or "
                   "a larger step");
}

void SeriesIntake::check_value(double v, const std::string& metric, const std::string& path,
                               const std::string& found) const {
  // Every metric sonicsim reads counts or measures something that cannot be negative.
  if (v < 0.0 && is_recognized_metric(metric))
    fail(path, "found " + found + ", expected a value >= 0 (" + metric +
                   " is a count, a duration or a utilisation)");
}

void SeriesIntake::check_order(double t, double& last_t, const std::string& path) const {
  if (t <= last_t)
    fail(path, "found " + util::exact_number(t) + " after " + util::exact_number(last_t) +
                   ", expected times that increase within a series");
  last_t = t;
}

std::string SeriesIntake::no_name_message(const nlohmann::json& labels) {
  return "found a series without __name__ (labels " + labels.dump().substr(0, 80) +
         "): the result of an expression such as rate() or sum(), expected a raw metric: "
         "export the raw counter (query=nv_inference_count); sonicsim computes the rates itself";
}

std::string SeriesIntake::label(const nlohmann::json& labels, const std::string& name) const {
  const auto it = labels.find(name);
  return it != labels.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void SeriesIntake::store(const nlohmann::json& labels, const std::string& metric,
                         std::vector<Sample> samples) {
  if (!is_recognized_metric(metric)) {
    ++s_.unused[{metric, "not a metric sonicsim uses"}];
    return;
  }
  StoredSeries st;
  st.metric = metric;
  st.pool = label(labels, o_.pool_label);
  if (st.pool.empty()) st.pool = "all";
  st.replica = label(labels, o_.replica_label);
  if (st.replica.empty()) st.replica = label(labels, "instance");
  st.has_model = labels.contains("model");
  st.model = label(labels, "model");
  st.version = label(labels, "version");
  if (is_triton_per_model(metric) && !st.has_model) {
    ++s_.unused[{metric, "no `model` label"}];
    return;
  }
  st.samples = std::move(samples);
  // Keyed by the whole label set (nlohmann's objects dump their keys sorted), so the same series
  // from a query_range file and a Grafana file is one series.
  auto [it, fresh] = s_.series.try_emplace(labels.dump(), std::move(st));
  if (!fresh) {
    auto& mine = it->second.samples;
    mine.insert(mine.end(), st.samples.begin(), st.samples.end());
    it->second.repeated = true;
  }
}

void merge_repeated_series(ReadState& state) {
  for (auto& [key, st] : state.series) {
    if (!st.repeated) continue;
    // Stable: of the runs that hold an instant, the first read comes first and is kept.
    std::stable_sort(st.samples.begin(), st.samples.end(),
                     [](const Sample& a, const Sample& b) { return a.t < b.t; });
    st.samples.erase(std::unique(st.samples.begin(), st.samples.end(),
                                 [](const Sample& a, const Sample& b) { return a.t == b.t; }),
                     st.samples.end());
    st.repeated = false;
  }
}

namespace {

class QueryRangeReader {
 public:
  explicit QueryRangeReader(SeriesIntake& in) : in_(in) {}

  void response(const nlohmann::json& r, const std::string& base) {
    auto at = [&](const char* k) { return base.empty() ? std::string(k) : base + "." + k; };
    if (!r.is_object())
      in_.fail(base, "found " + shown(r) +
                         ", expected a Prometheus API response (an object with \"status\" and "
                         "\"data\") or one of Grafana's exports (docs/deployment.md)");
    const auto status = r.find(key::status);
    if (status == r.end() || !status->is_string())
      in_.fail(at(key::status),
               "found " + found_or_nothing(r, status) +
                   ", expected \"success\" (a response of /api/v1/query_range; Grafana's "
                   "exports are read too, see docs/deployment.md)");
    if (*status != key::success) {
      std::string why;
      if (const auto e = r.find(key::error); e != r.end() && e->is_string())
        why = ": Prometheus said \"" + e->get<std::string>() + "\"";
      if (const auto t = r.find(key::error_type); t != r.end() && t->is_string())
        why += " (" + t->get<std::string>() + ")";
      in_.fail(at(key::status), "found " + shown(*status) + why +
                                    ", expected \"success\": the query failed; fix it and "
                                    "export again");
    }
    const auto data = r.find(key::data);
    if (data == r.end() || !data->is_object())
      in_.fail(at(key::data), "found " + found_or_nothing(r, data) +
                                  ", expected an object with \"resultType\" and \"result\"");
    const std::string dpath = at(key::data);
    const auto type = data->find(key::result_type);
    if (type == data->end() || !type->is_string())
      in_.fail(dpath + "." + key::result_type,
               "found " + found_or_nothing(*data, type) + ", expected \"matrix\"");
    if (*type != key::matrix) {
      const std::string hint =
          *type == key::vector
              ? ": an instant vector is one moment (/api/v1/query); export the history with "
                "/api/v1/query_range?query=...&start=...&end=...&step=..."
              : ": export raw metrics with /api/v1/query_range";
      in_.fail(dpath + "." + key::result_type,
               "found " + shown(*type) + ", expected \"matrix\"" + hint);
    }
    const auto result = data->find(key::result);
    if (result == data->end() || !result->is_array())
      in_.fail(dpath + "." + key::result,
               "found " + found_or_nothing(*data, result) + ", expected an array of series");
    for (std::size_t i = 0; i < result->size(); ++i)
      series((*result)[i], dpath + "." + key::result + "[" + std::to_string(i) + "]");
  }

 private:
  void series(const nlohmann::json& x, const std::string& path) {
    if (!x.is_object())
      in_.fail(path, "found " + shown(x) + ", expected a series {metric, values}");
    const std::string mpath = path + "." + key::metric;
    const auto metric = x.find(key::metric);
    if (metric == x.end() || !metric->is_object())
      in_.fail(mpath, "found " + found_or_nothing(x, metric) +
                          ", expected the series' labels (an object)");
    for (auto it = metric->begin(); it != metric->end(); ++it)
      if (!it.value().is_string())
        in_.fail(mpath + "." + it.key(), "found " + shown(it.value()) + ", expected a string");
    const auto name = metric->find(key::metric_name_label);
    if (name == metric->end()) in_.fail(mpath, SeriesIntake::no_name_message(*metric));
    in_.count_series(path);
    const std::string vpath0 = path + "." + key::values;
    const auto values = x.find(key::values);
    if (values == x.end() || !values->is_array())
      in_.fail(vpath0, "found " + found_or_nothing(x, values) +
                           ", expected the samples [[unix seconds, \"value\"], ...] (native "
                           "histograms are not read: export their _sum and _count)");
    const std::string metric_name = name->get<std::string>();
    // Every sample is checked, used or not: a bad file is bad whatever it holds.
    std::vector<Sample> samples;
    samples.reserve(values->size());
    double last_t = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < values->size(); ++i) {
      const std::string vpath = vpath0 + "[" + std::to_string(i) + "]";
      const nlohmann::json& pair = (*values)[i];
      if (!pair.is_array() || pair.size() != 2)
        in_.fail(vpath, "found " + shown(pair) + ", expected a sample [unix seconds, \"value\"]");
      if (!pair[0].is_number() || !util::is_wall_time(pair[0].get<double>()))
        in_.fail(vpath + "[0]", "found " + shown(pair[0]) + ", expected a time in unix seconds " +
                                    util::wall_time_range());
      const double t = pair[0].get<double>();
      if (!pair[1].is_string())
        in_.fail(vpath + "[1]", "found " + shown(pair[1]) +
                                    ", expected a value as Prometheus writes it, a string "
                                    "(\"42\", \"1.5e3\", \"NaN\", \"+Inf\")");
      const auto v = prom_sample_value(pair[1].get<std::string>());
      if (!v)
        in_.fail(vpath + "[1]", "found " + shown(pair[1]) +
                                    ", expected a number as Prometheus writes it (\"42\", "
                                    "\"1.5e3\", \"NaN\", \"+Inf\")");
      in_.check_order(t, last_t, vpath + "[0]");
      in_.count_sample(vpath);
      if (!std::isfinite(*v)) {
        in_.count_non_finite();
        continue;
      }
      in_.check_value(*v, metric_name, vpath + "[1]", shown(pair[1]));
      samples.push_back({t, *v});
    }
    in_.store(*metric, metric_name, std::move(samples));
  }

  SeriesIntake& in_;
};

}  // namespace

void read_export(const std::string& path, const ImportOptions& o, ReadState& state) {
  std::string error;
  const std::string text = read_text(path, error, PrometheusLimits::max_file_bytes);
  if (!error.empty()) throw InputError(path, {Problem{"", "cannot read: " + error}});
  // The tree is built whole before anything in it is counted, beside the samples of the files
  // before: its size follows from the text's. (The windows come after, the tree freed.)
  const double tree = static_cast<double>(text.size()) * kImportCosts.json_tree_per_byte;
  const double kept = static_cast<double>(state.report.samples) * kImportCosts.sample;
  if (kImportCosts.fixed + tree + kept > o.memory_budget)
    over_budget(kImportCosts.fixed + tree + kept, o.memory_budget,
                "the JSON tree of " + path + " (" +
                    util::format_binary_bytes(static_cast<double>(text.size())) + ") ~ " +
                    util::format_bytes(tree) +
                    (kept > 0.0 ? ", the " + std::to_string(state.report.samples) +
                                      " samples of the files before ~ " + util::format_bytes(kept)
                                : std::string()));
  const auto doc = parse_json(text, path);
  if (!doc)
    throw InputError(path, {Problem{"",
                                    "found text that is not JSON, expected the response of "
                                    "Prometheus' /api/v1/query_range or one of Grafana's "
                                    "exports (JSON)"}});
  SeriesIntake in(path, o, state);
  if (is_grafana_export(*doc)) {
    read_grafana(*doc, in);
  } else if (doc->is_array()) {
    if (doc->empty())
      in.fail("", "found an empty array, expected query_range responses or Grafana's frames");
    QueryRangeReader r(in);
    for (std::size_t i = 0; i < doc->size(); ++i)
      r.response((*doc)[i], "[" + std::to_string(i) + "]");
  } else {
    QueryRangeReader(in).response(*doc, "");
  }
  ++state.report.files;
  state.files.push_back({path, sha256_hex(text)});
}

}  // namespace sonicsim::telemetry::prom
