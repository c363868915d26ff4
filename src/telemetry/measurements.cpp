// The measurements file: its keys, named once in the tables below, which the writer and the
// reader both walk, so that the two cannot drift apart.
#include <sonicsim/telemetry/measurements.hpp>

#include <cmath>
#include <cstddef>
#include <string>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/wall_time.hpp>

namespace sonicsim::telemetry {

namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

namespace key {
constexpr const char* format = "format";
constexpr const char* version = "version";
constexpr const char* source = "source";
constexpr const char* files = "files";
constexpr const char* path = "path";
constexpr const char* sha256 = "sha256";
constexpr const char* pool_label = "pool_label";
constexpr const char* replica_label = "replica_label";
constexpr const char* start = "start";
constexpr const char* step_s = "step_s";
constexpr const char* t = "t";
constexpr const char* pools = "pools";
constexpr const char* name = "name";
constexpr const char* models = "models";
constexpr const char* clients = "clients";
}  // namespace key

template <class T>
struct SeriesKey {
  const char* key;
  Series T::*member;
};

constexpr SeriesKey<ModelSeries> kModelSeries[] = {
    {"requests_per_s", &ModelSeries::requests_per_s},
    {"failures_per_s", &ModelSeries::failures_per_s},
    {"inferences_per_s", &ModelSeries::inferences_per_s},
    {"executions_per_s", &ModelSeries::executions_per_s},
    {"batch_size", &ModelSeries::batch_size},
    {"queue_time_s", &ModelSeries::queue_time_s},
    {"compute_input_time_s", &ModelSeries::compute_input_time_s},
    {"compute_infer_time_s", &ModelSeries::compute_infer_time_s},
    {"compute_output_time_s", &ModelSeries::compute_output_time_s},
    {"request_time_s", &ModelSeries::request_time_s},
};
constexpr SeriesKey<PoolSeries> kPoolSeries[] = {
    {"replicas", &PoolSeries::replicas},
    {"gpu_utilization", &PoolSeries::gpu_utilization},
    {"autoscaler_metric_ms", &PoolSeries::autoscaler_metric_ms},
};
constexpr SeriesKey<ClientSeries> kClientSeries[] = {
    {"connected", &ClientSeries::connected},
    {"requests_per_s", &ClientSeries::requests_per_s},
    {"request_time_s", &ClientSeries::request_time_s},
};

// Far above a year of 5 s windows for a few dozen models; far below what would exhaust memory
// as a JSON tree.
constexpr std::size_t kMaxBytes = std::size_t{256} << 20;
constexpr std::size_t kMaxWindows = 10'000'000;

ojson series_json(const Series& s) {
  ojson a = ojson::array();
  for (const auto& v : s) a.push_back(v ? ojson(*v) : ojson(nullptr));
  return a;
}

template <class T, std::size_t N>
void write_series(ojson& j, const T& x, const SeriesKey<T> (&keys)[N]) {
  for (const auto& k : keys) j[k.key] = series_json(x.*k.member);
}

std::string describe(const json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "the boolean " + text;
    case json::value_t::string:
      return "the string " + text;
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array of " + std::to_string(v.size());
    default:
      return "the number " + text;
  }
}

// Reads one document, throwing at the first problem with its path.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw InputError(file_, {Problem{path, message}});
  }
  const json& member(const json& obj, const std::string& path, const char* k,
                     const char* expected) const {
    if (!obj.is_object()) fail(path, "found " + describe(obj) + ", expected an object");
    const auto it = obj.find(k);
    if (it == obj.end()) fail(path, std::string("no key `") + k + "`, expected " + expected);
    return *it;
  }
  std::string string(const json& obj, const std::string& path, const char* k) const {
    const json& v = member(obj, path, k, "a string");
    if (!v.is_string()) fail(at(path, k), "found " + describe(v) + ", expected a string");
    return v.get<std::string>();
  }
  double number(const json& obj, const std::string& path, const char* k) const {
    const json& v = member(obj, path, k, "a number");
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      fail(at(path, k), "found " + describe(v) + ", expected a finite number");
    return v.get<double>();
  }
  const json& array(const json& obj, const std::string& path, const char* k) const {
    const json& v = member(obj, path, k, "an array");
    if (!v.is_array()) fail(at(path, k), "found " + describe(v) + ", expected an array");
    return v;
  }
  Series series(const json& obj, const std::string& path, const char* k, std::size_t n) const {
    const json& a = array(obj, path, k);
    const std::string p = at(path, k);
    if (a.size() != n)
      fail(p, "found " + std::to_string(a.size()) + " values, expected one per window (" +
                  std::to_string(n) + ")");
    Series s;
    s.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const json& v = a[i];
      if (v.is_null()) {
        s.emplace_back();
        continue;
      }
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0.0)
        fail(index(p, i), "found " + describe(v) + ", expected a number >= 0 or null");
      s.emplace_back(v.get<double>());
    }
    return s;
  }
  template <class T, std::size_t N>
  void read_series(const json& obj, const std::string& path, T& x, const SeriesKey<T> (&keys)[N],
                   std::size_t n) const {
    for (const auto& k : keys) x.*k.member = series(obj, path, k.key, n);
  }
  static std::string at(const std::string& path, const char* k) {
    return path.empty() ? std::string(k) : path + "." + k;
  }
  static std::string index(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }

 private:
  std::string file_;
};

}  // namespace

const PoolSeries* Measurements::pool(std::string_view name) const {
  for (const auto& p : pools)
    if (p.name == name) return &p;
  return nullptr;
}

nlohmann::ordered_json to_json(const Measurements& m) {
  ojson d;
  d[key::format] = kMeasurementsFormat;
  d[key::version] = kMeasurementsVersion;
  ojson files = ojson::array();
  for (const auto& f : m.source.files)
    files.push_back({{key::path, f.path}, {key::sha256, f.sha256}});
  d[key::source] = {{key::files, files},
                    {key::pool_label, m.source.pool_label},
                    {key::replica_label, m.source.replica_label}};
  d[key::start] = m.start;
  d[key::step_s] = m.step_s;
  d[key::t] = m.t;
  ojson pools = ojson::array();
  for (const auto& p : m.pools) {
    ojson pj{{key::name, p.name}};
    write_series(pj, p, kPoolSeries);
    ojson models = ojson::array();
    for (const auto& mo : p.models) {
      ojson mj{{key::name, mo.name}, {key::version, mo.version}};
      write_series(mj, mo, kModelSeries);
      models.push_back(mj);
    }
    pj[key::models] = models;
    pools.push_back(pj);
  }
  d[key::pools] = pools;
  ojson clients;
  write_series(clients, m.clients, kClientSeries);
  d[key::clients] = clients;
  return d;
}

Measurements parse_measurements(std::string_view text, const std::string& file) {
  const auto doc = parse_json(text, file);
  Reader r(file);
  if (!doc) r.fail("", "found text that is not JSON, expected a measurements file (JSON)");
  if (!doc->is_object()) r.fail("", "found " + describe(*doc) + ", expected a JSON object");
  if (!doc->contains(key::format))
    r.fail("", std::string("no key `format`, expected \"") + kMeasurementsFormat +
                   "\" (a file written by `sonicsim import prometheus`)");
  const std::string format = r.string(*doc, "", key::format);
  if (format != kMeasurementsFormat)
    r.fail(key::format, "found \"" + format + "\", expected \"" + kMeasurementsFormat +
                            "\" (a file written by `sonicsim import prometheus`)");
  const double version = r.number(*doc, "", key::version);
  if (version != kMeasurementsVersion)
    r.fail(key::version, "found " + util::exact_number(version) + ", expected " +
                             std::to_string(kMeasurementsVersion));
  Measurements m;
  const json& src = r.member(*doc, "", key::source, "an object");
  const json& files = r.array(src, key::source, key::files);
  const std::string files_path = Reader::at(key::source, key::files);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string p = Reader::index(files_path, i);
    m.source.files.push_back(
        {r.string(files[i], p, key::path), r.string(files[i], p, key::sha256)});
  }
  m.source.pool_label = r.string(src, key::source, key::pool_label);
  m.source.replica_label = r.string(src, key::source, key::replica_label);
  m.start = r.number(*doc, "", key::start);
  if (!util::is_wall_time(m.start))
    r.fail(key::start, "found " + util::exact_number(m.start) + ", expected unix seconds " +
                           util::wall_time_range());
  m.step_s = r.number(*doc, "", key::step_s);
  if (m.step_s <= 0.0)
    r.fail(key::step_s, "found " + util::exact_number(m.step_s) + ", expected a window length > 0");
  const json& t = r.array(*doc, "", key::t);
  if (t.size() > kMaxWindows)
    r.fail(key::t, "found " + std::to_string(t.size()) + " windows, expected at most " +
                       std::to_string(kMaxWindows));
  for (std::size_t i = 0; i < t.size(); ++i) {
    const json& v = t[i];
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      r.fail(Reader::index(key::t, i), "found " + describe(v) + ", expected a number");
    const double x = v.get<double>();
    if (x <= (m.t.empty() ? 0.0 : m.t.back()))
      r.fail(Reader::index(key::t, i), "found " + util::exact_number(x) +
                                           ", expected window ends that increase from above 0");
    m.t.push_back(x);
  }
  const std::size_t n = m.t.size();
  const json& pools = r.array(*doc, "", key::pools);
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const std::string pp = Reader::index(key::pools, i);
    PoolSeries p;
    p.name = r.string(pools[i], pp, key::name);
    r.read_series(pools[i], pp, p, kPoolSeries, n);
    const json& models = r.array(pools[i], pp, key::models);
    const std::string mp = Reader::at(pp, key::models);
    for (std::size_t k = 0; k < models.size(); ++k) {
      const std::string path = Reader::index(mp, k);
      ModelSeries mo;
      mo.name = r.string(models[k], path, key::name);
      mo.version = r.string(models[k], path, key::version);
      r.read_series(models[k], path, mo, kModelSeries, n);
      p.models.push_back(std::move(mo));
    }
    m.pools.push_back(std::move(p));
  }
  const json& clients = r.member(*doc, "", key::clients, "an object");
  r.read_series(clients, key::clients, m.clients, kClientSeries, n);
  return m;
}

Measurements read_measurements(const std::string& path) {
  std::string error;
  const std::string text = read_text(path, error, kMaxBytes);
  if (!error.empty()) throw InputError(path, {Problem{"", "cannot read: " + error}});
  return parse_measurements(text, path);
}

}  // namespace sonicsim::telemetry
