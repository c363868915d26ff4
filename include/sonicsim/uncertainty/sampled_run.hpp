// A scenario run once per sample of its uncertain inputs (`sonicsim run --samples N`,
// docs/uncertainty-samples.md): every sample's overrides simulated in its own child process
// (points::run_points, with the Simulator the command hands down), a fixed list of results read
// through the typed reader, and per metric its spread (mean, stddev, min, p05, p50, p95, max);
// with `sobol`, Saltelli's design (sensitivity.hpp) and each input's first and total indices.
// Nothing here links the engine.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/points/points.hpp>
#include <sonicsim/scenario/overrides.hpp>
#include <sonicsim/uncertainty/inputs.hpp>
#include <sonicsim/uncertainty/samples.hpp>
#include <sonicsim/uncertainty/sensitivity.hpp>

namespace sonicsim::uncertainty {

// The most simulations one sampled run may ask for (with --sobol: n (inputs + 2)).
inline constexpr long long kMaxSampledRuns = kMaxSamples;

struct SampledRequest {
  std::string scenario_path;
  std::vector<scenario::Override> common;  // --set and --seed
  Spec spec;
  int samples = 0;  // N; with sobol, the base rows
  Method method = Method::Lhs;
  std::uint64_t seed = 1;  // of the design (and of the bootstrap)
  bool sobol = false;
  int workers = 0;  // <= 0: the cores
  int bootstrap = 200;
  // The simulations this request runs: samples, or samples (inputs + 2) with sobol.
  long long runs() const;
};

// Refuses (InputError naming `flag`) a request above kMaxSampledRuns or below 1 sample (2 base
// rows with sobol).
void check_request(const SampledRequest& request, const std::string& flag = "--samples");

// The spread of one metric over the samples whose value is a number (NaN when none is).
struct Spread {
  std::size_t n = 0;
  double mean = 0.0, stddev = 0.0, min = 0.0, p05 = 0.0, p50 = 0.0, p95 = 0.0, max = 0.0;
};
// stddev with n - 1 (0 for one value); quantiles by stats.hpp's quantile_of.
Spread spread_of(const std::vector<double>& values);

// The metrics of one run's results, read through results::Document: the events' throughput,
// thread time per event and per-job throughput, the requests' latency p50 and p99, the busiest
// device's utilization (with servers), and each link's mean utilization. Named by their results
// paths (`links.NAME.mean_utilization` per link).
using MetricValues = std::vector<std::pair<std::string, double>>;
MetricValues sample_metrics(const nlohmann::json& results);

struct MetricSummary {
  std::string name;
  std::vector<double> values;       // per run, NaN when the run lacks it
  Spread spread;                    // over the independent samples (with sobol: rows A and B)
  std::vector<SobolIndex> indices;  // per input, with sobol
};

struct SampledRun {
  SampledRequest request;
  std::optional<SobolDesign> design;  // with sobol
  std::vector<Sample> samples;        // one per run, in run order
  std::vector<std::string> rows;      // per run: "sample", or with sobol "A", "B", "AB:INPUT"
  std::vector<MetricSummary> metrics;
};

// The runs' unit-cube rows and what each is (run order).
std::vector<std::vector<double>> sample_rows(const SampledRequest& request,
                                             std::optional<SobolDesign>& design,
                                             std::vector<std::string>& kinds);

// From the runs' results (run order): the metrics, their spreads and, with a design, indices.
SampledRun summarise(const SampledRequest& request, std::optional<SobolDesign> design,
                     std::vector<Sample> samples, std::vector<std::string> rows,
                     const std::vector<nlohmann::json>& results);

// Simulates every sample (run_points) and summarises. A run that fails throws: InputError when
// the child refused the scenario (naming the sample and its overrides), std::runtime_error else.
SampledRun run_samples(const points::Simulator& simulate, const SampledRequest& request,
                       const points::PointsWatch& watch = {});

// The samples document (docs/uncertainty-samples.md) and the summary people read.
nlohmann::ordered_json to_json(const SampledRun& run);
std::string to_text(const SampledRun& run);

}  // namespace sonicsim::uncertainty
