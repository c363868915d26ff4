// Capacity questions answered by search: the analytic models bracket the answer, simulations with
// replications refine it (bisection on integers, geometric bisection on bandwidth, a shrinking
// pattern search for the cost optimum). Every simulation used is kept for the report.
//
// The searches assume the constraint is monotone in the parameter (more jobs per device never
// make an event faster; more devices or bandwidth never slower). Replications are compared by
// their mean; the 95% confidence interval says how sure each verdict is. docs/plan.md has the
// questions, the algorithms and every output key.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/points/points.hpp>
#include <sonicsim/scenario/link_class.hpp>
#include <sonicsim/scenario/overrides.hpp>

namespace sonicsim::plan {

enum class Question { MaxCpu, MinDevices, MinBandwidth, Cost };
std::optional<Question> question_from_name(const std::string& name);
const char* question_name(Question q);
const char* question_names();  // for messages: "max-cpu, min-devices, min-bandwidth, cost"

enum class Constraint { Slowdown, PerJobThroughput, P99Latency, None };
enum class Reference { Ideal, CpuOnly };

// The cost question's prices and powers given as flags. Each one given overrides the scenario's
// own (`prices`, `devices.D.power`, `workload.core_power`; docs/servers.md): a device hour for
// every device, a constant draw per device and per client core. The cost itself is the results'
// `cost` (energy/account.hpp), the one formula for runs and plans.
struct Prices {
  std::optional<double> gpu_hour, core_hour, gpu_watts, core_watts, kwh;
  bool any() const { return gpu_hour || core_hour || gpu_watts || core_watts || kwh; }
};

// The overrides that put `flags` into the scenario at `scenario_path` (after `common`): whole
// `prices`, `devices` and `workload.core_power` objects, the scenario's own merged with the
// flags. Throws scenario::InputError when neither gives a price.
std::vector<scenario::Override> price_overrides(const std::string& scenario_path,
                                                const std::vector<scenario::Override>& common,
                                                const Prices& flags);

// The range of Options::tolerance: searched bandwidths keep 4 significant digits (a narrower
// bracket cannot be told apart), and one wider than a factor of 2 is no search at all.
inline constexpr double kMinTolerance = 1e-3;
inline constexpr double kMaxTolerance = 1.0;

// Where a search stands as a round of simulations begins, for a progress line: values simulated
// so far, about how many the search takes in all (it grows when a bracket must widen), the
// values of this round and the bracket ("" before one is known).
struct SearchStatus {
  int values_done = 0, values_expected = 0, values_now = 0;
  std::string bracket;
};

struct Options {
  Question question = Question::MaxCpu;
  std::string vary;  // default by question: workload.jobs, servers.0.count, network.LINK.bandwidth
  std::string link = scenario::link_class_name(scenario::LinkClass::SiteUplink);  // min-bandwidth
  Constraint constraint = Constraint::Slowdown;
  Reference reference = Reference::Ideal;
  double slowdown_percent = 5.0;
  double min_per_job_throughput = 0.0;  // events per second per job
  double max_p99_latency_s = 0.0;
  Prices prices;
  // price_overrides(prices): plan() fills them in, every point of the cost question carries them.
  std::vector<scenario::Override> price_overrides;
  bool scenario_priced = false;                // the scenario has prices or powers of its own
  std::optional<double> range_min, range_max;  // the search bracket's limits; default from analytic
  bool range_is_rate = false;                  // --range was given with a rate's unit (`100/s`)
  double tolerance = 0.02;  // geometric bisection stops when hi/lo <= 1 + tolerance, see below
  int replications = 3;
  // Sequential stopping (docs/plan.md, "Searches that simulate less"): each value is simulated
  // with min_replications seeds first, then one more at a time while its verdict is open (its 95%
  // interval straddles the threshold), up to `replications`. false (--exhaustive-replications):
  // every value gets all `replications` at once, the search before issue 39.
  bool sequential = true;
  int min_replications = 2;
  // Adaptive run length (--short-run F, off by default): each value is first simulated with
  // min_replications runs of warm-up + F x the measured span; a value whose verdict those
  // shorter runs decide (certain, and short_margin x the threshold clear of it) stops there, the
  // others are simulated at full length as above. Off for scenarios whose load changes over
  // the run (job flows, autoscalers, faults).
  double short_run = 0.0;
  double short_margin = 0.05;
  // The answer's interval (nearest certain values, docs/plan.md "Uncertainty"): searched from the
  // bisection's edge outward; false (with --exhaustive-replications): from the range's ends, the
  // search before issue 39, which costs about log2 of the range in values on each side when the
  // values near the edge are not certain.
  bool interval_from_edge = true;
  // Values simulated together in each bisection round: more finish sooner when workers exceed
  // replications, at the price of more simulations. 1 is plain bisection.
  int probes = 1;
  bool analytic_only = false;  // stop after the formula and MVA answers: no simulation
  // A first bracket given by the caller (a value expected to meet, one expected to miss) instead
  // of one around the analytic answers: robust plans start each sample's search at the answer
  // of a similar sample (plan/robust.hpp). Clamped to the range.
  std::optional<std::pair<double, double>> warm_start;
  // With several workloads: the one the constraint is on, by name; "" or "all": every one.
  std::string workload;
  // What the constraint reads in each run, filled in by plan() from the scenario (WorkloadScope).
  struct WorkloadScope {
    bool open_loop = false;  // one workload, an open loop: its metric is the mean event time
    bool several = false;
    std::optional<std::size_t> index;  // several: the workload the constraint is on; unset: all
    std::vector<bool> open;            // several: which workloads are open loops
    // several, every one, --slowdown: each workload's reference time, the metric being the
    // worst ratio of a workload's time per event to its own reference.
    std::vector<double> references;
  } scope;
  std::function<void(const SearchStatus&)> on_status;  // before each round, when set
};

// Mean and 95% confidence interval (Student t) of replications; ci95 is the half-width, 0 with one
// replication (no spread to estimate: reported as null).
struct Stat {
  std::vector<double> values;
  double mean = 0.0, stddev = 0.0, ci95 = 0.0;
};
Stat statistics(const std::vector<double>& values);
double student_t975(int dof);

// One value of the searched parameter, simulated with every replication.
struct Point {
  double value = 0.0;
  int order = 0;  // the search round that asked for it (1-based)
  Stat metric;
  bool ok = false;       // the mean meets the constraint (cost: unused)
  bool certain = false;  // the whole confidence interval is on the same side of the threshold
  std::vector<std::int64_t> seeds;
  // Why its replications stopped: "certain" (its verdict sure before the maximum, sequential
  // stopping), "max" (every replication the options allow), "short" (decided by the shortened
  // runs of --short-run).
  std::string stopped = "max";
  double run_s = 0.0;      // the simulated seconds of each of its runs
  nlohmann::json summary;  // means of a few results keys, for the report
};

// What the formula, MVA and MVA with batching and links say at one value.
struct AnalyticPoint {
  std::optional<double> formula, mva, mva_batched;
};

// A job flow's load as plan brackets it (docs/plan.md, "Job flows"): its jobs start and leave,
// so the formula and MVA are asked about the threads running on average over the measured span
// (after the warm-up), estimated from the flow's definition before anything is simulated.
struct FlowLoad {
  std::string path = "workload";            // its workload's path: "workload", "workloads.I"
  std::string rule;                         // "waves of 50 jobs every 10min"
  std::int64_t jobs = 0;                    // workload.jobs: the nominal population
  std::int64_t starts = 0;                  // of them, those that start before the end of the run
  std::optional<std::int64_t> most_starts;  // waves: the most any jobs value starts in the run
  double job_lifetime_s = 0.0;              // events per job / threads x the formula's t_SONIC
  double mean_running_jobs = 0.0, mean_running_threads = 0.0;  // time-weighted estimate
};

// An open loop or several workloads as plan sees them (docs/plan.md, "Open loops and several
// workloads"): what each workload puts on the servers, with the threads it runs on average (a job
// flow's time-weighted estimate; an open loop's events in flight by Little's law at t_ideal).
struct MixLoad {
  struct Term {
    std::string name;
    bool open_loop = false;
    double arrival_rate_per_s = 0.0;          // open loop only
    double n_cpu = 0.0, n_cpu_nominal = 0.0;  // threads running (estimated), jobs x threads
    double t_ideal_s = 0.0, reference_s = 0.0;
  };
  std::vector<Term> terms;
  std::string constrained;  // the workload the constraint is on; "" for every one
};

// Why the formula or MVA has no answer: what binds at the value of the varied path most
// favourable to the constraint, and which flag or key could change that.
struct NoAnswer {
  // link: a link past its bandwidth; pool: a device pool past its knee; flow: the job flow
  // starts no more jobs; time: the unloaded time (or latency, throughput) alone misses the
  // constraint; no_view: the model says nothing of this metric.
  std::string kind;
  std::string resource;               // the link or pool ("" otherwise)
  std::optional<double> utilization;  // the link's or pool's, at `value`
  std::optional<double> value;        // the varied path's value judged
  std::optional<double> n_cpu;        // the threads the models saw there
  std::string text;                   // the sentence the report prints
};

struct Answer {
  // found: the boundary lies inside the range; unsatisfiable: max-cpu fails already at the
  // range's low end; at_range_min: min-devices / min-bandwidth already met at the low end;
  // analytic_only: nothing simulated.
  std::string status;
  std::optional<double> value;
  std::optional<double> interval_low, interval_high;  // where the CI leaves the verdict open
  std::optional<double> fail_value;                   // nearest value that breaks the constraint
};

struct Report {
  std::string scenario_file, scenario_name;
  std::vector<scenario::Override> common;  // --set (and --seed) applied to every simulation
  Options options;
  std::string metric_key, comparison;  // results key compared, "<=" or ">="
  std::optional<double> reference_s, threshold;
  std::int64_t base_seed = 0;
  double range_min = 0.0, range_max = 0.0;
  bool geometric = false;
  std::optional<double> formula_answer, mva_answer;  // the analytic searches over the same range
  std::optional<NoAnswer> formula_none, mva_none;    // why one of them is missing
  // MVA with dynamic batching and link stations (analytic/mva_batched.hpp): the first round's
  // guess for max-cpu and min-devices where it differs from MVA's; the formula and MVA still set
  // the range. Per-job throughput and the thread time per event only.
  std::optional<double> mva_batched_answer;
  std::optional<FlowLoad> flow;  // the workload's job flow, estimated
  std::optional<MixLoad> mix;    // open loop or several workloads
  // The varied pool's autoscaler ("servers.0.autoscaler"): it scales between its min_replicas and
  // the count searched (detail::check_autoscaled_count). Empty for a fixed pool.
  std::string autoscaler;
  double bracket_low = 0.0, bracket_high = 0.0;  // first two values simulated
  Answer answer;
  std::vector<Point> points;  // in the order simulated
  int simulations = 0;
  double duration_s = 0.0;   // simulated seconds of one run (the scenario's duration)
  double simulated_s = 0.0;  // simulated seconds of every simulation together
  // --short-run: the shortened runs' duration (0: off, `short_run_off` says why) and how many
  // of the simulations were shortened (those of values they decided and of those they did not).
  double short_run_s = 0.0;
  std::string short_run_off;
  int short_simulations = 0;
  nlohmann::json base;  // n_cpu, n_gpu, t_ideal... of the scenario as given
};

// Runs one simulation per override set (each in its own process): run_points, or a test's stand-in.
using Simulate = std::function<std::vector<points::PointResult>(
    const std::vector<std::vector<scenario::Override>>& points)>;
// Each point in a child simulated by `simulator` (the command's: pipeline::simulator()).
Simulate simulate_with_run_points(const points::Simulator& simulator,
                                  const std::string& scenario_path,
                                  const std::vector<scenario::Override>& common, int workers,
                                  const points::PointsWatch& watch = {});

// Override sets exactly as plan() simulates `value`: the varied path then the replication seed.
std::vector<scenario::Override> point_overrides(const Options& o, double value, std::int64_t seed);
std::string format_value(const Options& o, double value);
// Whether a --vary path is an arrival rate (workload.arrivals.rate, workloads.N.arrivals.rate):
// searched geometrically, its --range given as rates.
bool varies_rate(const std::string& path);

// The metric plan() compares, from one results JSON (cost: per million events).
double metric_of(const Options& o, const nlohmann::json& results);

// Answers the question. Throws scenario::InputError for bad input (a path the scenario lacks, a
// bracket the constraint is not met in) and std::runtime_error when a simulation fails.
Report plan(const std::string& scenario_path, const std::vector<scenario::Override>& common,
            Options options, const Simulate& simulate);

nlohmann::json to_json(const Report& r);
std::string to_text(const Report& r);

// The searches on their own, on any evaluator (tests drive them with known functions).
struct Domain {
  bool geometric = false;
  double min = 1.0, max = 1.0;
  double tolerance = 0.02;
  double up(double x, int expansion = 0) const;  // the k-th step away from a bracket
  double down(double x, int expansion = 0) const;
  double mid(double a, double b) const;
  bool close(double a, double b) const;
  double clamp(double x) const;
};
struct Boundary {
  std::optional<double> ok, fail;  // the closest ok and failing values found
};
// ok_below: the constraint holds below the boundary (max-cpu) rather than above it (min-*).
// evaluate(values) returns the verdict for each value; guesses seed the first round. Each
// bisection round asks for `probes` values at once (a k-section, for idle workers).
Boundary find_boundary(const Domain& d, bool ok_below, double guess_a, double guess_b,
                       const std::function<std::vector<bool>(const std::vector<double>&)>& ok,
                       int probes = 1);
// Integer minimum of a unimodal function by pattern search: probe c-s, c, c+s; move to the best
// or halve s. Returns the best value.
double find_minimum(const Domain& d, double guess, double step,
                    const std::function<std::vector<double>(const std::vector<double>&)>& f);

}  // namespace sonicsim::plan
