#include <sonicsim/pipeline/scenario_run.hpp>

#include <utility>

#include <sonicsim/pipeline/status_line.hpp>
#include <sonicsim/results/formula.hpp>
#include <sonicsim/results/prometheus.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/results/trace.hpp>
#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::pipeline {

ScenarioRun simulate(scenario::Scenario s, const engine::TraceSettings& trace,
                     const engine::Watch& watch, const std::vector<runner::MemoryPart>& outputs) {
  ScenarioRun run;
  run.scenario = std::move(s);
  const auto prediction = analytic::predict(run.scenario);
  run.output = runner::run_checked(run.scenario, prediction, trace, watch, outputs);
  run.analytic = analytic::to_json(
      prediction, results::formed_batches(run.scenario, prediction, run.output.metrics));
  run.results = results::to_json(run.scenario, run.output, run.analytic);
  return run;
}

points::Simulator simulator() {
  return [](scenario::Scenario s) { return simulate(std::move(s)).results.dump(); };
}

void prepare_openmetrics(scenario::Scenario& s, const std::string& scenario_file) {
  if (s.timeseries_interval <= 0.0) {
    s.timeseries_interval = kScrapeInterval;
    if (s.duration / s.timeseries_interval > scenario::Limits::max_timeseries_windows)
      throw InputError(
          scenario_file,
          {{"timeseries", "--openmetrics samples every " + util::format_time(kScrapeInterval) +
                              " when the scenario sets no interval, which makes " +
                              util::formatted("%.0f", s.duration / kScrapeInterval) +
                              " windows for a duration of " + util::format_time(s.duration) +
                              "; expected at most 1,000,000: set timeseries.interval "
                              "(--set 'timeseries={\"interval\": \"1min\"}')"}});
  }
  s.timeseries_replicas = true;
  // The file is built in memory and written all or none with the run's other outputs.
  constexpr double kMaxBytes = 4.0 * (1ull << 30);
  const double bytes = results::openmetrics_samples(s) * results::kOpenMetricsBytesPerSample;
  if (bytes > kMaxBytes)
    throw InputError(scenario_file,
                     {{"timeseries.interval",
                       "--openmetrics would write about " + util::format_bytes(bytes) + " (" +
                           util::formatted("%.3g", results::openmetrics_samples(s)) +
                           " samples), expected at most " + util::format_bytes(kMaxBytes) +
                           ": lengthen timeseries.interval or shorten the duration"}});
}

namespace {

// The OpenMetrics text is one string grown sample by sample (its capacity doubling) while the
// results' JSON and text are alive too.
runner::MemoryPart openmetrics_memory(const scenario::Scenario& s) {
  const double samples = results::openmetrics_samples(s);
  return {util::formatted("an OpenMetrics file of %.3g samples", samples),
          samples * results::kOpenMetricsMemoryPerSample};
}

}  // namespace

ScenarioRun run(const scenario::Source& source, const RunFiles& files, bool progress) {
  auto s = scenario::load(source);
  check_distinct_outputs({{"-o", files.results},
                          {"--prometheus", files.prometheus},
                          {"--trace", files.trace},
                          {"--openmetrics", files.openmetrics}});
  if (!files.results.empty()) check_writable(files.results);
  if (!files.prometheus.empty()) check_writable(files.prometheus);
  if (!files.trace.empty()) check_writable(files.trace);
  if (!files.openmetrics.empty()) {
    check_writable(files.openmetrics);
    prepare_openmetrics(s, source.scenario_path);
  }
  std::vector<runner::MemoryPart> outputs;
  if (!files.openmetrics.empty()) outputs.push_back(openmetrics_memory(s));
  StatusLine line(progress);
  const double total_s = s.duration;
  ScenarioRun done =
      simulate(std::move(s), files.trace.empty() ? engine::TraceSettings{} : files.trace_sample,
               line.on() ? simulation_watch(line, total_s) : engine::Watch{}, outputs);
  line.finish(false);
  // All or none: a results file beside a missing trace would look like a complete run.
  std::vector<Output> out;
  if (!files.results.empty()) out.emplace_back(files.results, done.results.dump(2) + "\n");
  if (!files.prometheus.empty())
    out.emplace_back(files.prometheus, results::to_prometheus(done.scenario, done.output));
  if (!files.trace.empty())
    out.emplace_back(files.trace, results::to_chrome_trace(done.scenario, done.output.metrics));
  if (!files.openmetrics.empty())
    out.emplace_back(files.openmetrics,
                     results::to_openmetrics(done.scenario, done.output, files.openmetrics_labels));
  write_all_or_none(out);
  return done;
}

AnalyticRun predict(const scenario::Source& source, const std::string& output) {
  const auto s = scenario::load(source);
  if (!output.empty()) check_writable(output);
  AnalyticRun p{analytic::predict(s), {}};
  p.json = analytic::to_json(p.prediction);
  if (!output.empty()) write_atomically(output, p.json.dump(2) + "\n");
  return p;
}

}  // namespace sonicsim::pipeline
