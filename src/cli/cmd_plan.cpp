// plan: capacity questions answered by search (analytic bracket, simulated refinement).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/pipeline/status_line.hpp>
#include <sonicsim/plan/plan.hpp>
#include <sonicsim/plan/robust.hpp>
#include <sonicsim/plan/timeline.hpp>
#include <sonicsim/points/children.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct PlanArgs {
  ScenarioArgs scenario;
  std::string question, reference = "ideal", vary, link = plan::Options{}.link, range, max_p99,
                        output, workload;
  double slowdown = -1.0, min_per_job_throughput = -1.0, tolerance = 0.02;
  // -1: not given (the scenario's own, if any).
  double gpu_hour = -1.0, core_hour = -1.0, gpu_watts = -1.0, core_watts = -1.0, kwh = -1.0;
  int replications = 3, workers = 0, probes = 0, min_replications = 2;
  bool exhaustive_replications = false;
  double short_run = 0.0;
  bool json = false, analytic_only = false, quiet = false;
  // Robust answers (docs/plan.md, "Robust answers"): -1 / empty: not given.
  double confidence = -1.0, narrow = 2.0;
  int samples = 0, sample_replications = 1;
  long long sampling_seed = -1;
  std::string sampling, uncertainty, check;
  bool no_tornado = false;
  // plan timeline (docs/plan.md, "When to buy").
  std::string timeline_for = "min-devices";
  plan::GrowthFlags growth;
};

// A bound of --range: a bandwidth (min-bandwidth), an arrival rate (--vary ...arrivals.rate) or
// a positive integer.
double parse_bound(const std::string& text, std::optional<scenario::Quantity> quantity,
                   const std::string& flag) {
  if (quantity) {
    std::string error;
    // Text that is not JSON (`10Gbps`, or nested too deep) is read as a quantity's text.
    const nlohmann::json value = parse_json_value(text).value_or(nlohmann::json(text));
    const auto v = scenario::parse_quantity(value, *quantity, error);
    const char* what =
        *quantity == scenario::Quantity::Bandwidth ? "a positive bandwidth" : "a positive rate";
    if (!v || !(*v > 0.0))
      throw UsageError(flag + ": " +
                       (error.empty() ? "found `" + text + "`, expected " + what : error));
    return *v;
  }
  if (const auto v = util::parse_whole_number(text, 1, std::numeric_limits<std::int64_t>::max()))
    return static_cast<double>(*v);
  throw UsageError(flag + ": found `" + text + "`, expected a positive integer");
}

plan::Options options_of(const PlanArgs& a) {
  plan::Options o;
  const auto q = plan::question_from_name(a.question);
  if (!q)
    throw UsageError("unknown question `" + a.question + "`; expected one of " +
                     plan::question_names());
  o.question = *q;
  o.vary = a.vary;
  o.link = a.link;
  o.replications = a.replications;
  o.sequential = !a.exhaustive_replications;
  o.interval_from_edge = !a.exhaustive_replications;
  o.min_replications = a.min_replications;
  if (!(a.short_run >= 0.0 && a.short_run < 1.0))
    throw UsageError("--short-run: found " + util::formatted("%g", a.short_run) +
                     ", expected a fraction of the measured span in [0, 1) (0: off)");
  o.short_run = a.short_run;
  // Searched bandwidths keep 4 significant digits: a narrower bracket cannot be told apart, and
  // below 1e-16 the search's steps did not even move (it never ended). Above 1 its steps could
  // overflow to infinity.
  if (!(a.tolerance >= plan::kMinTolerance && a.tolerance <= plan::kMaxTolerance))
    throw UsageError("--tolerance: found " + util::formatted("%g", a.tolerance) +
                     ", expected a ratio in [" + util::formatted("%g", plan::kMinTolerance) + ", " +
                     util::formatted("%g", plan::kMaxTolerance) +
                     "]: searched bandwidths keep 4 significant digits, so a narrower bracket "
                     "cannot be told apart");
  o.tolerance = a.tolerance;
  o.analytic_only = a.analytic_only;
  o.workload = a.workload;

  const int constraints =
      (a.slowdown >= 0) + (a.min_per_job_throughput >= 0) + static_cast<int>(!a.max_p99.empty());
  if (constraints > 1)
    throw UsageError(
        "give one constraint: --slowdown, --min-per-job-throughput or --max-p99-latency");
  if (o.question == plan::Question::Cost) {
    if (constraints > 0)
      throw UsageError(
          "cost takes prices, not a constraint (--slowdown, ...): it minimises the "
          "cost per million events");
    if ((a.gpu_hour < 0) != (a.core_hour < 0))
      throw UsageError(
          "cost needs both --gpu-hour-price and --core-hour-price (or neither: the scenario's "
          "`prices`)");
    const auto given = [](double v) { return v >= 0 ? std::optional<double>(v) : std::nullopt; };
    o.prices = {given(a.gpu_hour), given(a.core_hour), given(a.gpu_watts), given(a.core_watts),
                given(a.kwh)};
  } else if (a.gpu_hour >= 0 || a.core_hour >= 0 || a.kwh >= 0 || a.gpu_watts >= 0 ||
             a.core_watts >= 0) {
    throw UsageError("prices (--gpu-hour-price, ...) belong to the cost question");
  }
  if (a.min_per_job_throughput >= 0) {
    o.constraint = plan::Constraint::PerJobThroughput;
    o.min_per_job_throughput = a.min_per_job_throughput;
  } else if (!a.max_p99.empty()) {
    o.constraint = plan::Constraint::P99Latency;
    std::string error;
    const nlohmann::json value = parse_json_value(a.max_p99).value_or(nlohmann::json(a.max_p99));
    const auto t = scenario::parse_quantity(value, scenario::Quantity::Time, error);
    if (!t || !(*t > 0.0))
      throw UsageError("--max-p99-latency: " +
                       (error.empty() ? "expected a positive time such as 20ms" : error));
    o.max_p99_latency_s = *t;
  } else {
    o.constraint = plan::Constraint::Slowdown;
    if (a.slowdown >= 0) o.slowdown_percent = a.slowdown;
  }
  if (a.reference == "ideal")
    o.reference = plan::Reference::Ideal;
  else if (a.reference == "cpu-only")
    o.reference = plan::Reference::CpuOnly;
  else
    throw UsageError("--reference: found `" + a.reference + "`, expected ideal or cpu-only");
  if (!a.range.empty()) {
    const auto colon = a.range.find(':');
    if (colon == std::string::npos)
      throw UsageError("--range: found `" + a.range + "`, expected LO:HI (either may be empty)");
    std::optional<scenario::Quantity> q;
    if (o.question == plan::Question::MinBandwidth) q = scenario::Quantity::Bandwidth;
    if (plan::varies_rate(a.vary)) q = scenario::Quantity::Rate;
    const std::string lo = a.range.substr(0, colon), hi = a.range.substr(colon + 1);
    // max-cpu's default --vary is an open loop's rate: a bound with a rate's unit is read as one
    // here, and plan() refuses it where the varied path is an integer after all.
    const auto bound = [&](const std::string& text) {
      const bool unit = text.find_first_not_of("0123456789") != std::string::npos;
      if (!q && unit && a.vary.empty() && o.question == plan::Question::MaxCpu &&
          text.find('/') != std::string::npos) {
        o.range_is_rate = true;
        return parse_bound(text, scenario::Quantity::Rate, "--range");
      }
      return parse_bound(text, q, "--range");
    };
    if (!lo.empty()) o.range_min = bound(lo);
    if (!hi.empty()) o.range_max = bound(hi);
  }
  return o;
}

// --confidence and the flags that only it uses.
std::optional<plan::RobustOptions> robust_options_of(const PlanArgs& a, const plan::Options& o) {
  const bool any = a.samples > 0 || !a.sampling.empty() || !a.uncertainty.empty() ||
                   !a.check.empty() || a.sampling_seed >= 0 || a.no_tornado;
  if (a.confidence < 0) {
    if (any)
      throw UsageError(
          "--samples, --sampling, --uncertainty, --check, --sampling-seed and --no-tornado "
          "belong to a robust plan: add --confidence C (e.g. 0.95)");
    return std::nullopt;
  }
  if (!(a.confidence > 0 && a.confidence < 1))
    throw UsageError("--confidence: found " + util::formatted("%g", a.confidence) +
                     ", expected a fraction in (0, 1) such as 0.95");
  if (o.question == plan::Question::Cost)
    throw UsageError(
        "--confidence answers a constraint's question (max-cpu, min-devices, min-bandwidth); "
        "cost has no constraint to meet in a share of the cases");
  if (o.analytic_only)
    throw UsageError("--confidence simulates: it cannot go with --analytic-only");
  plan::RobustOptions ro;
  ro.confidence = a.confidence;
  if (a.samples > 0) ro.samples = a.samples;
  if (!a.sampling.empty()) {
    if (a.sampling != "lhs" && a.sampling != "sobol")
      throw UsageError("--sampling: found `" + a.sampling + "`, expected lhs or sobol");
    ro.method = a.sampling;
  }
  if (a.sampling_seed >= 0) ro.seed = static_cast<std::uint64_t>(a.sampling_seed);
  ro.uncertainty_file = a.uncertainty;
  ro.replications = a.sample_replications;
  ro.tornado = !a.no_tornado;
  ro.narrow_to = ro.tornado ? a.narrow / 100.0 : 0.0;
  return ro;
}

// --check PATH=VALUE: the varied path, and a value of it.
double check_value(const PlanArgs& a, const plan::Report& r) {
  const auto eq = a.check.find('=');
  if (eq == std::string::npos || a.check.substr(0, eq) != r.options.vary)
    throw UsageError("--check: found `" + a.check + "`, expected " + r.options.vary +
                     "=VALUE (the path the plan varies)");
  std::optional<scenario::Quantity> q;
  if (r.options.question == plan::Question::MinBandwidth) q = scenario::Quantity::Bandwidth;
  if (plan::varies_rate(r.options.vary)) q = scenario::Quantity::Rate;
  return parse_bound(a.check.substr(eq + 1), q, "--check");
}

int cmd_timeline(const PlanArgs& given);

int cmd_plan(const PlanArgs& a) {
  if (a.question == "timeline") return cmd_timeline(a);
  if (!a.growth.growth.empty() || !a.growth.start.empty() || !a.growth.period.empty() ||
      !a.growth.horizon.empty() || !a.growth.lead_time.empty())
    throw UsageError(
        "--growth, --start, --period, --horizon and --lead-time belong to "
        "`plan SCENARIO timeline`");
  auto options = options_of(a);
  auto robust_options = robust_options_of(a, options);
  if (!a.output.empty()) check_writable(a.output);
  const auto common = overrides_of(a.scenario);
  if (robust_options && !a.check.empty()) {
    // The varied path is the plan's to resolve: ask it (milliseconds) before simulating.
    auto quick = options;
    quick.analytic_only = true;
    robust_options->check = check_value(a, plan::plan(a.scenario.scenario_path, common, quick, {}));
  }
  const int workers = a.workers > 0 ? a.workers : points::default_workers();
  if (robust_options) robust_options->workers = workers;
  // Workers left idle by the replications of one value bisect further in the same round.
  options.probes = a.probes > 0 ? a.probes : std::max(1, workers / options.replications);
  if (::isatty(2) && !options.analytic_only && !a.quiet)
    std::cerr << "planning: each value simulated " << options.replications << "x, " << workers
              << " at a time...\n";
  // The search's progress on a terminal: values simulated of about how many, this round's runs
  // as they finish, the bracket.
  pipeline::StatusLine line(!a.quiet && !options.analytic_only);
  plan::SearchStatus status;
  std::size_t runs_done = 0;
  const auto draw = [&] {
    const double done = status.values_done + static_cast<double>(runs_done) / options.replications;
    const double expected = std::max(1, status.values_expected);
    const double elapsed = line.elapsed_s();
    line.show(done / expected,
              "values " + std::to_string(status.values_done) + "/~" +
                  std::to_string(status.values_expected) + ", this round " +
                  std::to_string(runs_done) + "/" +
                  std::to_string(status.values_now * options.replications) + " runs" +
                  (status.bracket.empty() ? "" : ", bracket " + status.bracket),
              done > 0 ? elapsed / done * (expected - done) : -1.0);
  };
  points::PointsWatch watch;
  if (line.on()) {
    options.on_status = [&](const plan::SearchStatus& s) {
      status = s;
      runs_done = 0;
      draw();
    };
    watch.on_done = [&](std::size_t finished) {
      runs_done = finished;
      draw();
    };
    watch.on_tick = [&] {
      if (line.due()) draw();
    };
  }
  const auto report =
      plan::plan(a.scenario.scenario_path, common, options,
                 plan::simulate_with_run_points(pipeline::simulator(), a.scenario.scenario_path,
                                                common, workers, watch));
  line.finish(false);
  auto j = plan::to_json(report);
  std::string robust_text;
  if (robust_options) {
    pipeline::StatusLine robust_line(!a.quiet);
    if (robust_line.on())
      robust_options->on_progress = [&](const std::string& what) {
        robust_line.show(-1.0, what, -1.0);
      };
    const auto robust = plan::robust_plan(
        a.scenario.scenario_path, common, report,
        [&](const std::vector<scenario::Override>& c) {
          return plan::simulate_with_run_points(pipeline::simulator(), a.scenario.scenario_path, c,
                                                workers);
        },
        *robust_options);
    robust_line.finish(false);
    j["robust"] = plan::to_json(robust, report);
    robust_text = plan::to_text(robust, report);
  }
  if (!a.output.empty()) write_atomically(a.output, j.dump(2) + "\n");
  if (a.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << plan::to_text(report) << robust_text;
    if (!a.output.empty()) std::cout << "plan written to " << a.output << "\n";
  }
  return 0;
}

// `plan SCENARIO timeline`: the --for question at every date of the growth path.
int cmd_timeline(const PlanArgs& given) {
  PlanArgs a = given;
  if (a.timeline_for != "min-devices" && a.timeline_for != "min-bandwidth")
    throw UsageError("--for: found `" + a.timeline_for +
                     "`, expected min-devices or min-bandwidth");
  a.question = a.timeline_for;
  auto options = options_of(a);
  if (options.analytic_only) throw UsageError("a timeline simulates: drop --analytic-only");
  const auto robust = robust_options_of(a, options);
  if (!a.check.empty()) throw UsageError("--check belongs to a single robust plan, not a timeline");
  if (!a.output.empty()) check_writable(a.output);
  const auto common = overrides_of(a.scenario);
  const int workers = a.workers > 0 ? a.workers : points::default_workers();
  options.probes = a.probes > 0 ? a.probes : std::max(1, workers / options.replications);
  const auto growth = plan::load_growth(a.scenario.scenario_path, common, a.growth);
  auto ro = robust;
  if (ro) ro->workers = workers;
  pipeline::StatusLine line(!a.quiet);
  if (ro && line.on())
    ro->on_progress = [&](const std::string& what) { line.show(-1.0, what, -1.0); };
  const auto t = plan::timeline(
      a.scenario.scenario_path, common, options, growth,
      [&](const std::vector<scenario::Override>& c) {
        return plan::simulate_with_run_points(pipeline::simulator(), a.scenario.scenario_path, c,
                                              workers);
      },
      ro);
  line.finish(false);
  auto j = plan::to_json(t.start_report);
  j["timeline"] = plan::to_json(t, t.start_report.options);
  if (!a.output.empty()) write_atomically(a.output, j.dump(2) + "\n");
  if (a.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << plan::to_text(t.start_report) << plan::to_text(t, t.start_report.options);
    if (!a.output.empty()) std::cout << "plan written to " << a.output << "\n";
  }
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, Commands& out) {
  static PlanArgs args;
  auto* cmd = app.add_subcommand(
      "plan",
      "Answer a capacity question by search: the formulas and MVA bracket the answer, "
      "simulations with replications refine it (docs/plan.md)");
  add_scenario_args(cmd, args.scenario);
  add_budgets(cmd);
  cmd->add_option("question", args.question,
                  "max-cpu (largest --vary, default workload.jobs, meeting the constraint), "
                  "min-devices (smallest servers.0.count), min-bandwidth (smallest bandwidth of "
                  "--link), cost (cheapest workload.jobs per million events), timeline (--for "
                  "at every date of a growth path)")
      ->required();
  cmd->add_option("--slowdown", args.slowdown,
                  "Constraint: thread time per event within this many percent of the reference "
                  "(default 5)")
      ->check(non_negative());
  cmd->add_option("--reference", args.reference,
                  "What --slowdown is relative to: ideal (the formula's t_ideal) or cpu-only "
                  "(t_CPU, direct inference)")
      ->default_str("ideal");
  cmd->add_option("--min-per-job-throughput", args.min_per_job_throughput,
                  "Constraint: events per second per job at least this")
      ->check(non_negative());
  cmd->add_option("--max-p99-latency", args.max_p99,
                  "Constraint: p99 request latency at most this (e.g. 20ms)");
  cmd->add_option("--vary", args.vary,
                  "Integer scenario path searched (max-cpu and cost: workload.jobs; min-devices: "
                  "servers.0.count)");
  cmd->add_option("--workload", args.workload,
                  "With several workloads: the one the constraint is on, by name, or `all` "
                  "(default: every workload meets it)");
  cmd->add_option("--link", args.link,
                  "min-bandwidth: the link whose bandwidth is searched (" +
                      scenario::link_class_list() +
                      "; with sites, as results name them: SITE/client_nic, SITE/site_uplink, "
                      "SITE/server_nic, wan/NAME)")
      ->default_str(args.link);
  cmd->add_option("--range", args.range,
                  "LO:HI limits of the search (integers, or bandwidths such as 1Gbps:100Gbps); "
                  "default from the analytic answers");
  cmd->add_option("--tolerance", args.tolerance,
                  "min-bandwidth: stop when the bracket is narrower than this ratio, in [0.001, 1] "
                  "(default 0.02)");
  cmd->add_option("--gpu-hour-price", args.gpu_hour,
                  "cost: price of one device for one hour (over the scenario's prices.device_hour)")
      ->check(non_negative());
  cmd->add_option(
         "--core-hour-price", args.core_hour,
         "cost: price of one core (one client thread) for one hour (over prices.core_hour)")
      ->check(non_negative());
  cmd->add_option("--gpu-power", args.gpu_watts,
                  "cost: watts drawn per device, busy or idle (over devices.D.power)")
      ->check(non_negative());
  cmd->add_option("--core-power", args.core_watts,
                  "cost: watts drawn per client core, busy or idle (over workload.core_power)")
      ->check(non_negative());
  cmd->add_option("--kwh-price", args.kwh, "cost: price of one kWh (over prices.kwh)")
      ->check(non_negative());
  cmd->add_option("--replications", args.replications,
                  "Simulations per value, seeds SEED..SEED+R-1 (default 3)")
      ->check(whole_number(1, 1000));
  cmd->add_option("--min-replications", args.min_replications,
                  "Sequential stopping: seeds every value gets first; more, one at a time up to "
                  "--replications, only while its 95% interval straddles the threshold (default 2)")
      ->check(whole_number(1, 1000));
  cmd->add_flag("--exhaustive-replications", args.exhaustive_replications,
                "The search before issue 39: every value gets all --replications at once, and "
                "the answer's interval is searched from the range's ends (docs/plan.md)");
  cmd->add_option("--short-run", args.short_run,
                  "Adaptive run length: first judge each value from runs of warm-up + this "
                  "fraction of the measured span, full length only where they leave the verdict "
                  "open (default 0: off)");
  cmd->add_option("--workers", args.workers,
                  "Simulations running at once, each in its own process (default: the cores)")
      ->check(whole_number(1, 4096));
  cmd->add_option("--probes", args.probes,
                  "Values simulated together per bisection round (default: workers / "
                  "replications, at least 1; 1 is plain bisection, the fewest simulations)")
      ->check(whole_number(1, 1000));
  cmd->add_option(
      "--confidence", args.confidence,
      "Robust answer: the value that meets the constraint in this share of the "
      "samples of the scenario's uncertain inputs (its `uncertainty` block), e.g. 0.95");
  cmd->add_option("--samples", args.samples,
                  "Robust answer: samples of the uncertain inputs (default the block's, 32)")
      ->check(whole_number(1, 100000));
  cmd->add_option("--sampling", args.sampling, "Robust answer: lhs (default) or sobol");
  cmd->add_option("--sampling-seed", args.sampling_seed,
                  "Robust answer: the design's seed (default the block's, else the plan's seed)")
      ->check(non_negative());
  cmd->add_option("--uncertainty", args.uncertainty,
                  "Robust answer: a JSON file with the uncertainty block, instead of the "
                  "scenario's own");
  cmd->add_option("--check", args.check,
                  "Robust answer: PATH=VALUE, the share of the samples that VALUE of the varied "
                  "path is enough for (e.g. servers.0.count=32)");
  cmd->add_option("--sample-replications", args.sample_replications,
                  "Robust answer: simulations per value in each sample's search (default 1)")
      ->check(whole_number(1, 1000));
  cmd->add_option("--narrow", args.narrow,
                  "Robust answer: search again with the input that matters most measured within "
                  "this many percent (95% half-width; default 2, 0 = do not)")
      ->check(non_negative());
  cmd->add_flag("--no-tornado", args.no_tornado,
                "Robust answer: skip the tornado (one search per input end) and the narrowing");
  cmd->add_option("--for", args.timeline_for,
                  "timeline: the question asked at every date, min-devices (default) or "
                  "min-bandwidth");
  cmd->add_option("--growth", args.growth.growth,
                  "timeline: a growing path, PATH=xFACTOR/DURATION (compound, e.g. "
                  "workload.jobs=x2/3y) or PATH=+AMOUNT/DURATION (linear); repeatable, over the "
                  "scenario's `growth` block");
  cmd->add_option("--start", args.growth.start, "timeline: the first date, YYYY-MM");
  cmd->add_option("--period", args.growth.period, "timeline: the step between dates (default 3mo)");
  cmd->add_option("--horizon", args.growth.horizon, "timeline: how far ahead (default 3y)");
  cmd->add_option("--lead-time", args.growth.lead_time,
                  "timeline: procurement lead time, from order to use (default 6mo)");
  cmd->add_option("-o,--output", args.output, "Write the plan as JSON here");
  cmd->add_flag("--json", args.json, "Print the plan JSON on stdout instead of the summary");
  cmd->add_flag("-q,--quiet", args.quiet, "No progress on stderr (shown only on a terminal)");
  cmd->add_flag("--analytic-only", args.analytic_only,
                "Only the formula's and MVA's answers, in milliseconds: no simulation");
  out.push_back({cmd, [] { return cmd_plan(args); }, &args.scenario});
}

}  // namespace sonicsim::cli
