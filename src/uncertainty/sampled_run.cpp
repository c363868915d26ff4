// A scenario run once per sample of its uncertain inputs (sampled_run.hpp): the design's rows,
// their overrides simulated in children, the results read through the typed reader, the spreads
// and, with sobol, the indices; the samples document and its summary.
#include <sonicsim/uncertainty/sampled_run.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/uncertainty/stats.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::uncertainty {

namespace sampled_detail {

namespace k = results::keys;
using ojson = nlohmann::ordered_json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The samples document's keys (docs/uncertainty-samples.md), each spelled once.
namespace doc {
constexpr char version[] = "sonicsim_version";
constexpr char scenario_file[] = "scenario_file";
constexpr char sampling[] = "sampling";
constexpr char method[] = "method";
constexpr char seed[] = "seed";
constexpr char samples[] = "samples";
constexpr char runs[] = "runs";
constexpr char sobol[] = "sobol";
constexpr char bootstrap[] = "bootstrap";
constexpr char inputs[] = "inputs";
constexpr char name[] = "name";
constexpr char path[] = "path";
constexpr char dist[] = "dist";
constexpr char nominal[] = "nominal";
constexpr char metrics[] = "metrics";
constexpr char n[] = "n";
constexpr char mean[] = "mean";
constexpr char stddev[] = "stddev";
constexpr char min[] = "min";
constexpr char p05[] = "p05";
constexpr char p50[] = "p50";
constexpr char p95[] = "p95";
constexpr char max[] = "max";
constexpr char input[] = "input";
constexpr char first[] = "first";
constexpr char first_ci95[] = "first_ci95";
constexpr char total[] = "total";
constexpr char total_ci95[] = "total_ci95";
constexpr char run[] = "run";
constexpr char row[] = "row";
constexpr char values[] = "values";
}  // namespace doc

std::string joined(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto p : parts) out += (out.empty() ? "" : ".") + std::string(p);
  return out;
}

ojson number(double v) {
  return std::isfinite(v) ? ojson(v) : ojson(nullptr);
}

// The busiest device of any pool: a pool's utilization_max (its mean in older results).
double busiest_device(const std::vector<results::Pool>& pools) {
  double out = kNaN;
  for (const auto& p : pools) {
    double u = p.utilization_max();
    if (std::isnan(u)) u = p.utilization();
    if (!std::isnan(u) && !(u <= out)) out = u;
  }
  return out;
}

std::string input_name(const Spec& spec, std::size_t i) {
  const auto& in = spec.inputs[i];
  return in.name.empty() ? in.path : in.name;
}

ojson spread_json(const Spread& s) {
  return {{doc::n, s.n},
          {doc::mean, number(s.mean)},
          {doc::stddev, number(s.stddev)},
          {doc::min, number(s.min)},
          {doc::p05, number(s.p05)},
          {doc::p50, number(s.p50)},
          {doc::p95, number(s.p95)},
          {doc::max, number(s.max)}};
}

ojson indices_json(const Spec& spec, const std::vector<SobolIndex>& indices) {
  ojson out = ojson::array();
  for (std::size_t i = 0; i < indices.size(); ++i)
    out.push_back({{doc::input, input_name(spec, i)},
                   {doc::first, number(indices[i].first)},
                   {doc::first_ci95, number(indices[i].first_ci95)},
                   {doc::total, number(indices[i].total)},
                   {doc::total_ci95, number(indices[i].total_ci95)}});
  return out;
}

ojson sampling_json(const SampledRun& r) {
  const auto& q = r.request;
  ojson s = {{doc::method, method_name(q.method)},
             {doc::seed, q.seed},
             {doc::samples, q.samples},
             {doc::runs, r.samples.size()},
             {doc::sobol, q.sobol}};
  if (q.sobol) s[doc::bootstrap] = q.bootstrap;
  return s;
}

ojson inputs_json(const Spec& spec) {
  ojson out = ojson::array();
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    const auto& in = spec.inputs[i];
    out.push_back({{doc::name, input_name(spec, i)},
                   {doc::path, in.path},
                   {doc::dist, dist_name(in.dist)},
                   {doc::nominal, number(in.nominal)}});
  }
  return out;
}

ojson runs_json(const SampledRun& r) {
  ojson out = ojson::array();
  for (std::size_t k = 0; k < r.samples.size(); ++k) {
    ojson inputs = ojson::array(), values = ojson::array(), metrics = ojson::object();
    for (double v : r.samples[k].summary) inputs.push_back(number(v));
    for (const auto& v : r.samples[k].values) values.push_back(ojson::parse(v.dump()));
    for (const auto& m : r.metrics) metrics[m.name] = number(m.values[k]);
    out.push_back({{doc::run, k},
                   {doc::row, r.rows[k]},
                   {doc::inputs, inputs},
                   {doc::values, values},
                   {doc::metrics, metrics}});
  }
  return out;
}

std::string cell(double v) {
  return std::isfinite(v) ? util::formatted("%.5g", v) : "-";
}

std::string padded(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
}

std::string spreads_text(const SampledRun& r, std::size_t width) {
  std::ostringstream out;
  out << padded("metric", width);
  for (const char* h : {"p05", "p50", "p95", "mean", "stddev"}) out << padded(h, 12);
  out << "\n";
  for (const auto& m : r.metrics) {
    out << padded(m.name, width);
    for (double v : {m.spread.p05, m.spread.p50, m.spread.p95, m.spread.mean, m.spread.stddev})
      out << padded(cell(v), 12);
    out << "\n";
  }
  return out.str();
}

std::string ranking_text(const SampledRun& r, const MetricSummary& m) {
  std::vector<std::size_t> order(m.indices.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return m.indices[a].total > m.indices[b].total;
  });
  std::size_t width = 0;
  for (std::size_t i : order) width = std::max(width, input_name(r.request.spec, i).size());
  std::ostringstream out;
  out << m.name << "\n";
  for (std::size_t i : order) {
    const auto& x = m.indices[i];
    out << "  " << padded(input_name(r.request.spec, i), width) << "total "
        << util::formatted("%.3f", x.total) << " +- " << util::formatted("%.3f", x.total_ci95)
        << "   first " << util::formatted("%.3f", x.first) << " +- "
        << util::formatted("%.3f", x.first_ci95) << "\n";
  }
  return out.str();
}

std::vector<std::string> row_kinds(const SampledRequest& q) {
  std::vector<std::string> kinds;
  const std::size_t n = static_cast<std::size_t>(q.samples);
  kinds.insert(kinds.end(), n, "A");
  kinds.insert(kinds.end(), n, "B");
  for (std::size_t i = 0; i < q.spec.inputs.size(); ++i)
    kinds.insert(kinds.end(), n, "AB:" + input_name(q.spec, i));
  return kinds;
}

// The indices of one metric; NaN when a run lacks it (the estimator needs every row).
std::vector<SobolIndex> indices_of(const SampledRequest& q, const SobolDesign& d,
                                   const std::vector<double>& values) {
  const bool all_finite =
      std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  if (all_finite) return sobol_indices(d, values, q.bootstrap, q.seed);
  return std::vector<SobolIndex>(d.groups.size(), {kNaN, kNaN, kNaN, kNaN});
}

std::string overrides_text(const std::vector<scenario::Override>& overrides) {
  std::string out;
  for (const auto& o : overrides) out += (out.empty() ? "" : " ") + o.path + "=" + o.value;
  return out;
}

}  // namespace sampled_detail

using namespace sampled_detail;

long long SampledRequest::runs() const {
  const long long n = samples;
  return sobol ? n * (static_cast<long long>(spec.inputs.size()) + 2) : n;
}

void check_request(const SampledRequest& q, const std::string& flag) {
  const int least = q.sobol ? 2 : 1;
  const std::string found = "found " + std::to_string(q.samples);
  if (q.samples < least || q.samples > kMaxSamples)
    throw InputError(
        flag, {{"", found + ", expected a whole number of samples from " + std::to_string(least) +
                        " to " + std::to_string(kMaxSamples)}});
  if (q.runs() > kMaxSampledRuns)
    throw InputError(
        flag,
        {{"",
          found + " with --sobol over " + std::to_string(q.spec.inputs.size()) + " inputs: " +
              std::to_string(q.runs()) + " simulations (N (inputs + 2)), expected at most " +
              std::to_string(kMaxSampledRuns) + " (at most " +
              std::to_string(kMaxSampledRuns / static_cast<long long>(q.spec.inputs.size() + 2)) +
              " base rows)"}});
}

Spread spread_of(const std::vector<double>& values) {
  std::vector<double> v;
  for (double x : values)
    if (std::isfinite(x)) v.push_back(x);
  Spread s;
  s.n = v.size();
  if (v.empty()) {
    s.mean = s.stddev = s.min = s.p05 = s.p50 = s.p95 = s.max = kNaN;
    return s;
  }
  double sum = 0.0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double ss = 0.0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  s.p05 = quantile_of(v, 0.05);
  s.p50 = quantile_of(v, 0.50);
  s.p95 = quantile_of(v, 0.95);
  return s;
}

MetricValues sample_metrics(const nlohmann::json& results) {
  const results::Document d(results);
  const auto events = d.events();
  const auto latency = d.requests().latency_s();
  const std::string ev = k::top::events, rq = k::top::requests;
  MetricValues out{
      {joined({ev, k::events::throughput_per_s}), events.throughput_per_s()},
      {joined({ev, k::events::thread_time_per_event_s}), events.thread_time_per_event_s()},
      {joined({ev, k::events::per_job_throughput_per_s}), events.per_job_throughput_per_s()},
      {joined({rq, k::requests::latency_s, k::quantile::p50}),
       latency.at(results::Quantile::P50, results::Presence::Optional)},
      {joined({rq, k::requests::latency_s, k::quantile::p99}),
       latency.at(results::Quantile::P99, results::Presence::Optional)}};
  const auto pools = d.servers();
  if (!pools.empty())
    out.push_back({joined({k::top::servers, k::server::utilization_max}), busiest_device(pools)});
  for (const auto& l : d.links())
    out.push_back({joined({k::top::links, l.name().value_or("?"), k::link::mean_utilization}),
                   l.mean_utilization()});
  return out;
}

std::vector<std::vector<double>> sample_rows(const SampledRequest& q,
                                             std::optional<SobolDesign>& design_out,
                                             std::vector<std::string>& kinds) {
  if (!q.sobol) {
    kinds.assign(static_cast<std::size_t>(q.samples), "sample");
    return design(q.method, q.samples, q.spec.dims(), q.seed);
  }
  design_out = sobol_design(q.method, q.samples, input_groups(q.spec), q.seed);
  kinds = row_kinds(q);
  return design_out->rows();
}

SampledRun summarise(const SampledRequest& q, std::optional<SobolDesign> design,
                     std::vector<Sample> samples, std::vector<std::string> rows,
                     const std::vector<nlohmann::json>& results) {
  SampledRun r{q, std::move(design), std::move(samples), std::move(rows), {}};
  const std::size_t runs = results.size();
  for (std::size_t k = 0; k < runs; ++k)
    for (const auto& metric : sample_metrics(results[k])) {
      // Not a structured binding: clang 14 cannot capture one in the lambda below.
      const auto& name = metric.first;
      const auto& value = metric.second;
      auto it = std::find_if(r.metrics.begin(), r.metrics.end(),
                             [&](const MetricSummary& m) { return m.name == name; });
      if (it == r.metrics.end()) {
        r.metrics.push_back({name, std::vector<double>(runs, kNaN), {}, {}});
        it = std::prev(r.metrics.end());
      }
      it->values[k] = value;
    }
  // With sobol, the spread is that of the independent rows A and B.
  const std::size_t independent = r.design ? 2 * static_cast<std::size_t>(q.samples) : runs;
  for (auto& m : r.metrics) {
    m.spread = spread_of({m.values.begin(), m.values.begin() + independent});
    if (r.design) m.indices = indices_of(q, *r.design, m.values);
  }
  return r;
}

SampledRun run_samples(const points::Simulator& simulate, const SampledRequest& q,
                       const points::PointsWatch& watch) {
  check_request(q);
  std::optional<SobolDesign> d;
  std::vector<std::string> kinds;
  const auto rows = sample_rows(q, d, kinds);
  std::vector<Sample> samples;
  std::vector<std::vector<scenario::Override>> sets;
  for (const auto& u : rows) {
    samples.push_back(realise(q.spec, u));
    sets.push_back(samples.back().overrides);
  }
  const auto outcomes =
      points::run_points(simulate, q.scenario_path, q.common, sets, q.workers, watch);
  std::vector<nlohmann::json> results;
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    const auto& o = outcomes[k];
    const std::string what =
        "sample " + std::to_string(k) + " (" + overrides_text(sets[k]) + "): " + o.error;
    if (o.input_error) throw InputError(q.scenario_path, {{"uncertainty", what}});
    if (!o.ok) throw std::runtime_error(what);
    results.push_back(o.results);
  }
  return summarise(q, std::move(d), std::move(samples), kinds, results);
}

nlohmann::ordered_json to_json(const SampledRun& r) {
  ojson metrics = ojson::object();
  for (const auto& m : r.metrics) {
    metrics[m.name] = spread_json(m.spread);
    if (r.design) metrics[m.name][doc::sobol] = indices_json(r.request.spec, m.indices);
  }
  return {{doc::version, SONICSIM_VERSION},  {doc::scenario_file, r.request.scenario_path},
          {doc::sampling, sampling_json(r)}, {doc::inputs, inputs_json(r.request.spec)},
          {doc::metrics, metrics},           {doc::runs, runs_json(r)}};
}

std::string to_text(const SampledRun& r) {
  const auto& q = r.request;
  std::ostringstream out;
  out << "sampled " << r.samples.size() << " runs of " << q.spec.inputs.size()
      << (q.spec.inputs.size() == 1 ? " uncertain input" : " uncertain inputs") << " ("
      << method_name(q.method) << ", seed " << q.seed;
  if (q.sobol) out << "; Saltelli design, " << q.samples << " base rows";
  out << ")\n";
  std::size_t width = 6;
  for (const auto& m : r.metrics) width = std::max(width, m.name.size());
  out << spreads_text(r, width);
  if (!r.design) return out.str();
  out << "\nSobol indices (95% bootstrap half-widths over " << q.bootstrap
      << " resamples), inputs by total index:\n";
  for (const auto& m : r.metrics)
    if (!m.indices.empty() && std::isfinite(m.indices.front().total)) out << ranking_text(r, m);
  return out.str();
}

}  // namespace sonicsim::uncertainty
