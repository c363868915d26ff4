// run, validate, analytic: one scenario, simulated or predicted (pipeline/scenario_run.hpp).
#include <cmath>
#include <ctime>
#include <iostream>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/timeline.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/memory.hpp>
#include <sonicsim/runner/work_estimate.hpp>
#include <sonicsim/uncertainty/inputs.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/wall_time.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

void add_scenario_args(CLI::App* cmd, ScenarioArgs& a, bool positional) {
  if (positional)
    cmd->add_option("scenario", a.scenario_path, "Scenario JSON file")->required();
  else
    cmd->add_option("--scenario", a.scenario_path, "Scenario JSON file")->required();
  cmd->add_option("--set", a.sets,
                  "Override a scenario value: dotted.path=JSON (e.g. workload.jobs=400, "
                  "servers.0.count=2, models.m.dynamic_batching=null); repeatable")
      ->take_all();
  cmd->add_option("--seed", a.seed, "Override the scenario seed")
      ->check(whole_number(0, std::numeric_limits<std::int64_t>::max()));
  cmd->add_flag("--strict-units", a.strict_units,
                "Refuse a time, size or bandwidth written as a bare number (other than 0): every "
                "such quantity must carry its unit (\"5ms\", \"10Gbps\", \"4.7MB\")");
}

void print_warnings(const std::string& file, const std::vector<Problem>& warnings) {
  for (const auto& w : warnings) std::cerr << scenario::warning_line(file, w) << "\n";
}

void check_scenario(const ScenarioArgs& a) {
  print_warnings(a.scenario_path, load(a).warnings);
}

void add_budget(CLI::App* cmd, runner::Budget& budget, const std::string& help,
                const std::string& type_name) {
  cmd->add_option_function<std::string>(
         budget.flag(),
         [&budget](const std::string& text) {
           double v = 0.0;
           std::string error;
           if (budget.parse(text, v, error)) budget.set(v);
         },
         help)
      ->type_name(type_name)
      ->check(CLI::Validator(
          [&budget](std::string& text) {
            double v = 0.0;
            std::string error;
            return budget.parse(text, v, error) ? std::string() : error;
          },
          ""));
}

void add_budgets(CLI::App* cmd) {
  add_budget(cmd, runner::memory_budget(),
             "Refuse a run whose estimated peak memory is above SIZE (512MiB, 8GiB, unlimited); "
             "default: the smaller of 8 GiB and 75% of the machine's memory",
             "SIZE");
  add_budget(cmd, runner::time_budget(),
             "Refuse a simulation whose estimated wall time is above DURATION (30min, 12h, "
             "unlimited); default: 1h",
             "DURATION");
}

namespace {

struct RunArgs {
  ScenarioArgs scenario;
  std::string output, prometheus, trace;
  std::string openmetrics, openmetrics_start, release = "supersonic", namespace_name = "default";
  std::uint64_t trace_every = 100;
  std::size_t trace_max = 10000;
  bool json = false, quiet = false;
  SampleArgs samples;
};

// Simulated time 0 on the wall clock: given, or the run's duration before now (whole minutes),
// so that the simulated day ends about now and lies inside Prometheus' retention (blocks older
// than it are deleted when Prometheus starts).
double openmetrics_start(const RunArgs& a) {
  if (!a.openmetrics_start.empty()) {
    const auto t = util::parse_wall_time(a.openmetrics_start);
    if (!t)
      throw UsageError("--openmetrics-start: found '" + a.openmetrics_start +
                       "', expected seconds since the epoch (1732665600) or RFC 3339 "
                       "(2026-11-27T00:00:00Z) " +
                       util::wall_time_range());
    // Every sample's time, start + t, stays in the range times are read in: the file's last
    // sample too, whatever the start.
    const double duration = scenario::load(a.scenario).duration;
    if (*t + duration > util::kMaxWallTime)
      throw UsageError("--openmetrics-start: found '" + a.openmetrics_start + "', whose run of " +
                       util::format_time(duration) + " ends after " +
                       util::format_wall_time(util::kMaxWallTime) + ", expected a start at most " +
                       util::exact_number(util::kMaxWallTime - duration) + " (" +
                       util::format_wall_time(util::kMaxWallTime - duration) + ")");
    return *t;
  }
  const auto s = scenario::load(a.scenario);
  const double now = static_cast<double>(std::time(nullptr));
  return std::floor((now - s.duration) / 60.0) * 60.0;
}

// run --samples: one document for many runs; the files of one run do not apply.
int run_samples(const RunArgs& a) {
  const std::vector<std::pair<const char*, bool>> single{{"--prometheus", !a.prometheus.empty()},
                                                         {"--trace", !a.trace.empty()},
                                                         {"--openmetrics", !a.openmetrics.empty()}};
  for (const auto& [flag, given] : single)
    if (given)
      throw UsageError(std::string("run: ") + flag +
                       " with --samples: found both, expected one of them (" + flag +
                       " writes one run's file)");
  return cmd_run_samples(a.scenario, a.samples, a.output, a.json, a.quiet);
}

int cmd_run(const RunArgs& a) {
  if (sample_flags_given(a.samples)) return run_samples(a);
  pipeline::RunFiles files{
      a.output, a.prometheus, a.trace, a.openmetrics, {a.trace_every, a.trace_max}, {}};
  if (!a.openmetrics.empty())
    files.openmetrics_labels = {openmetrics_start(a), a.release, a.namespace_name};
  else if (!a.openmetrics_start.empty())
    throw UsageError("--openmetrics-start needs --openmetrics FILE");
  const auto run = pipeline::run(a.scenario, files, !a.quiet);
  if (a.json || a.quiet)
    for (const auto& w : results::run_warnings(run.scenario, run.output))
      std::cerr << "sonicsim: warning: " << w << "\n";
  if (a.json) {
    std::cout << run.results.dump(2) << "\n";
  } else if (!a.quiet) {
    std::cout << results::summary(run.scenario, run.output, run.analytic);
    if (!a.output.empty()) std::cout << "results    written to " << a.output << "\n";
    if (!a.prometheus.empty()) std::cout << "metrics    written to " << a.prometheus << "\n";
    if (!a.openmetrics.empty())
      std::cout << "history    written to " << a.openmetrics << " (OpenMetrics, every "
                << util::format_time(run.scenario.timeseries_interval) << " from "
                << util::format_wall_time(files.openmetrics_labels.start_unix)
                << "; load it with promtool tsdb create-blocks-from openmetrics)\n";
    if (!a.trace.empty())
      std::cout << "trace      " << run.output.metrics.trace.size() << " requests written to "
                << a.trace << " (open it in https://ui.perfetto.dev or chrome://tracing)\n";
  }
  return 0;
}

// Whether the scenario (after --set) has a `growth` block.
bool has_growth_block(const std::string& path, const std::vector<scenario::Override>& overrides) {
  std::string error;
  auto doc = parse_json(read_text(path, error), path);
  if (!doc) return false;
  std::vector<Problem> problems;
  scenario::apply_overrides(*doc, overrides, problems);
  const auto it = doc->find("growth");
  return it != doc->end() && !it->is_null();
}

int cmd_validate(const ScenarioArgs& a) {
  std::vector<scenario::Override> overrides;
  for (const auto& s : a.sets) overrides.push_back(scenario::parse_override(s));
  std::vector<Problem> problems, warnings;
  try {
    // A scenario that could not run is not valid: the memory budget too (without a trace).
    const auto s =
        scenario::load_file(a.scenario_path, overrides, {.strict_units = a.strict_units});
    runner::check_memory_budget(s, runner::estimate_memory(s));
    runner::check_time_budget(s, runner::estimate_work(s));
    // The blocks a run ignores but plans sample and grow (docs/uncertainty.md, docs/plan.md).
    uncertainty::load_spec(a.scenario_path, overrides);
    if (has_growth_block(a.scenario_path, overrides))
      plan::load_growth(a.scenario_path, overrides, {});
    warnings = s.warnings;
  } catch (const InputError& e) {
    problems = e.problems();
  }
  if (problems.empty()) {
    std::cout << a.scenario_path << ": valid\n";
    print_warnings(a.scenario_path, warnings);
    if (!warnings.empty())
      std::cerr << warnings.size() << (warnings.size() == 1 ? " warning\n" : " warnings\n");
    return 0;
  }
  for (const auto& p : problems)
    std::cerr << a.scenario_path << ": " << (p.path.empty() ? "" : p.path + ": ") << p.message
              << "\n";
  std::cerr << problems.size() << (problems.size() == 1 ? " problem\n" : " problems\n");
  return 2;
}

int cmd_analytic(const RunArgs& a) {
  const auto p = pipeline::predict(a.scenario, a.output);
  if (a.json)
    std::cout << p.json.dump(2) << "\n";
  else
    std::cout << analytic::to_text(p.prediction);
  return 0;
}

}  // namespace

void add_run_commands(CLI::App& app, Commands& out) {
  static RunArgs run_args, analytic_args;
  static ScenarioArgs validate_args;
  auto* run =
      app.add_subcommand("run", "Simulate one scenario; summary on stdout, results JSON to -o");
  add_scenario_args(run, run_args.scenario);
  add_budgets(run);
  run->add_option("-o,--output", run_args.output, "Write the results JSON here");
  run->add_option("--prometheus", run_args.prometheus,
                  "Write Triton's Prometheus metrics (text exposition format) here");
  run->add_option("--trace", run_args.trace,
                  "Write a sample of requests as Chrome trace-event JSON (Perfetto) here");
  run->add_option("--trace-every", run_args.trace_every,
                  "Trace every N-th request issued after the warm-up")
      ->check(whole_number(1, std::int64_t{1} << 40))
      ->capture_default_str();
  run->add_option("--trace-max", run_args.trace_max, "Trace at most this many requests")
      ->check(whole_number(1, 10000000))
      ->capture_default_str();
  run->add_option("--openmetrics", run_args.openmetrics,
                  "Write the run's time series in OpenMetrics with timestamps, under Triton's, "
                  "Envoy's and Kubernetes' metric names (docs/deployment.md)");
  run->add_option("--openmetrics-start", run_args.openmetrics_start,
                  "Wall-clock time of simulated time 0: seconds since the epoch or RFC 3339 "
                  "(default: the duration before now, whole minutes)");
  run->add_option("--release", run_args.release,
                  "--openmetrics: the Helm release (label `release`, pod names)")
      ->capture_default_str();
  run->add_option("--namespace", run_args.namespace_name,
                  "--openmetrics: the Kubernetes namespace (label `namespace`)")
      ->capture_default_str();
  run->add_flag("--json", run_args.json, "Print the results JSON on stdout instead of the summary");
  run->add_flag("-q,--quiet", run_args.quiet, "Print nothing on success");
  add_sample_args(run, run_args.samples);
  out.push_back({run, [] { return cmd_run(run_args); }, &run_args.scenario});

  auto* validate =
      app.add_subcommand("validate", "Check a scenario and print every problem (exit 0 or 2)");
  add_scenario_args(validate, validate_args);
  add_budgets(validate);
  out.push_back({validate, [] { return cmd_validate(validate_args); }});

  auto* an = app.add_subcommand("analytic",
                                "The SONIC formulas and exact MVA for a scenario, no simulation");
  add_scenario_args(an, analytic_args.scenario);
  an->add_option("-o,--output", analytic_args.output, "Write the prediction JSON here");
  an->add_flag("--json", analytic_args.json, "Print JSON instead of the table");
  out.push_back({an, [] { return cmd_analytic(analytic_args); }, &analytic_args.scenario});
}

}  // namespace sonicsim::cli
