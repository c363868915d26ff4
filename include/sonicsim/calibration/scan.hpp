// `sonicsim calibrate scan`: the formula parameters t_GPU, p, t_latency (and t_CPU) of a
// scenario fitted to a measured scan (throughput or time per event at several N), first against
// the analytic model, then refined against the simulator by space mapping.
//
// The parameters are the SPEC's, for the scenario as given (with its --set values); each maps
// back onto the scenario by one documented change (docs/calibration.md):
//   t_gpu      every served model's service-time curve scaled by t_gpu / t_gpu(scenario)
//   p          every served request's offload_fraction scaled by p / p(scenario)
//   t_cpu      workload.cpu_time_per_event scaled by t_cpu / t_cpu(scenario) (its cv kept)
//   t_latency  the difference spread over the event's requests as a fixed server overhead
//              (models.NAME.request_overhead.server), so the per-event sum moves by exactly it
//   t_host     every served model's host_cost scaled by t_host / t_host(scenario) (or, without
//              any, spread over the requests as per_request work, part of the server overhead)
// Positive parameters are fitted in log space, p in logit space, by Levenberg-Marquardt.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/analytic/mva.hpp>
#include <sonicsim/calibration/least_squares.hpp>
#include <sonicsim/calibration/measurements.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::calibration {

enum class ScanParam { TGpu, P, TLatency, TCpu, THost };

const std::vector<ScanParam>& all_scan_params();  // t_gpu, p, t_latency, t_cpu, t_host
const char* param_name(ScanParam p);              // "t_gpu", "p", "t_latency", "t_cpu", "t_host"
// "t_gpu,p,t_latency" -> the list; throws scenario::InputError naming `--free` otherwise.
std::vector<ScanParam> parse_free(const std::string& text);

// The analytic model the fit and the space mapping start from. Auto: the formula when every
// time of the scenario is constant (it is exact there), exact MVA otherwise (sync mode).
enum class AnalyticModel { Auto, Formula, Mva };
std::optional<AnalyticModel> analytic_model_from_name(std::string_view name);
AnalyticModel resolve_model(AnalyticModel m, const scenario::Scenario& s);
const char* model_name(AnalyticModel m);

// The parameters, in seconds (t_*) and as a fraction (p). t_host is the host CPU work per event
// on the pools' server hosts (servers[i].host.cores), one execution per request.
struct ScanValues {
  double t_gpu = 0.0, p = 0.0, t_latency = 0.0, t_cpu = 0.0, t_host = 0.0;
  double get(ScanParam k) const;
  double& at(ScanParam k);
};

// One point of the scan as the analytic model sees it, at the scenario's own parameters.
struct ScanPoint {
  double x = 0.0;
  ScanValues values;  // t_latency includes the requests' overheads
  double p_fallback = 0.0;
  double t_gpu_binding = 0.0;  // the formula's saturating t_GPU (docs/analytic.md)
  double n_cpu = 0.0, n_gpu = 0.0, jobs = 0.0;
  analytic::ClosedNetwork network;  // device demands at the scenario's t_gpu
  double requests_per_event = 0.0;  // served requests (the carriers of t_latency's change)
  // The host stage (docs/calibration.md "The host stage in a scan"): a second station of
  // `host_cores` servers (the cores of every host serving the requests, over `hosts` hosts).
  double host_cores = 0.0, hosts = 0.0;
  // Server overhead per event, and whether the host work is part of it (in_server_overhead, or
  // no host_cost yet: t_host then comes out of the measured server time).
  double server_overhead = 0.0;
  bool host_in_overhead = true;
};
ScanPoint scan_point(const scenario::Scenario& s, double x = 0.0);

// The metric predicted at a point when the scenario's parameters `base` become `v`. With
// `host_station` false the hosts' work counts as a delay only, never as a queue or a bound (the
// fit of a free t_host puts their bound, cores / t_host, beside the corrected rest itself).
double predict_metric(const ScanPoint& point, const ScanValues& base, const ScanValues& v,
                      Metric metric, AnalyticModel model, bool host_station = true);

struct ParamEstimate {
  ScanParam param = ScanParam::TGpu;
  bool free = false;
  double scenario_value = 0.0;
  double value = 0.0;
  // 95% interval (Student t on the transformed parameter, mapped back); NaN without degrees of
  // freedom or when fixed. A parameter the data cannot identify has an infinite interval on the
  // transformed scale, so here the whole valid range: [0, inf) for times, [0, 1] for p.
  double ci_low = 0.0, ci_high = 0.0;
  bool identified = true;
};

// One least-squares fit of the analytic model, possibly corrected point by point.
struct FitOutcome {
  ScanValues values;
  std::vector<ParamEstimate> params;  // in all_scan_params() order; t_host only with hosts
  std::vector<double> predicted;      // per point, with the correction applied
  FitResult raw;                      // in transformed space, free parameters only
  double weighted_rss = 0.0;
  double reduced_chi2 = 0.0;  // weighted RSS / dof, NaN without degrees of freedom
};

struct ScanOptions {
  Metric metric = Metric::PerJobThroughput;
  std::vector<ScanParam> free = {ScanParam::TGpu, ScanParam::P, ScanParam::TLatency};
  bool free_given = false;  // the user chose them: confounded parameters are an error, not a note
  AnalyticModel model = AnalyticModel::Formula;  // resolved
  int max_refinements = 4;
  double tolerance = 0.005;  // parameters moving less than this (relative) have converged
};

// Simulated metric per point for the scenario with parameters v. A point that fails is the
// callback's to report, by throwing; fit_scan throws std::runtime_error on a value <= 0 or NaN.
using Simulator = std::function<std::vector<double>(const ScanValues& v)>;

// The simulator the refinement uses: every point in its own child process (points::run_points,
// each simulated by `simulate`),
// the scenario file with `common`, then apply_values(v) for `free`, then vary = the point's x.
// Point i runs with seed + 7919 (i + 1), so that the points' simulation noise is independent:
// it then shows in the residuals and widens the intervals, instead of bending the curve the
// same way at every point. A failed point throws (InputError when the child's was one).
Simulator point_simulator(const points::Simulator& simulate, const std::string& scenario_path,
                          const std::vector<scenario::Override>& common,
                          const scenario::Scenario& base, const ScanValues& base_values,
                          const std::vector<ScanParam>& free, const Measurements& m,
                          const std::string& vary, int workers);

struct Round {
  ScanValues values;              // simulated in this round
  std::vector<double> simulated;  // per point
  double mape_percent = 0.0;      // simulated against measured
  double max_change = 0.0;        // relative move of the free parameters since the last round
};

struct ScanResult {
  ScanValues base;              // the scenario's own parameters
  std::vector<ScanParam> free;  // after dropping what the data cannot tell apart
  AnalyticModel model = AnalyticModel::Formula;
  FitOutcome analytic_fit;    // against the analytic model alone
  FitOutcome fit;             // the one reported (= analytic_fit without refinement)
  std::vector<Round> rounds;  // simulations, in order
  bool refined = false, converged = false;
  std::vector<double> final_prediction;  // simulated at `fit.values` (analytic without refinement)
  double mape_percent = 0.0;             // of final_prediction against the measurements
  std::vector<std::string> notes;
  // A free t_host the measurements cannot determine (the hosts never bind): held, and all the
  // data say is that it is below this (the cores over the highest throughput); NaN otherwise.
  double t_host_upper = std::numeric_limits<double>::quiet_NaN();
};

// Rows a fit of `free` parameters needs: one more, for an error estimate; but one parameter may
// be set from one point (a production throughput fixing t_host), without an interval.
inline std::size_t min_scan_rows(std::size_t free) {
  return free == 1 ? 1 : free + 1;
}

// Fits the scan. `points[i]` is the scenario at measurements.rows[i].x, `base` the scenario's own
// parameters (scan_point of the scenario itself). Throws scenario::InputError (naming `--free`)
// for a parameter the scenario cannot carry or the data cannot identify when the user chose it.
ScanResult fit_scan(const std::vector<ScanPoint>& points, const ScanValues& base,
                    const Measurements& measurements, const ScanOptions& options,
                    const Simulator* simulator);

// The scenario with `v` applied for the free parameters, in its typed fields: curves (and
// pipeline timings) scaled, offload fractions and CPU time scaled, host work, the server
// overhead; scenario::write_scenario writes it. Throws scenario::InputError naming `what` when
// the scenario cannot carry v (p >= 1, a negative total overhead).
scenario::Scenario apply_values(const scenario::Scenario& s, const ScanValues& base,
                                const ScanValues& v, const std::vector<ScanParam>& free,
                                const std::string& what);

// Human-readable list of what apply_values changes ("models.m.service_time: seconds x 1.23").
std::vector<std::string> describe_mapping(const scenario::Scenario& s, const ScanValues& base,
                                          const ScanValues& v, const std::vector<ScanParam>& free);

// The fitted scenario as the file `output` will hold it: apply_values for the fit's free
// parameters, file references (calibration, triton_config, $schema) rewritten relative to the
// output's folder, keys in the order of the scenario's own file, and the fit noted in
// `description`. Not validated here: load it with scenario::load_json before writing.
nlohmann::ordered_json fitted_scenario(const scenario::Scenario& s, const ScanResult& r,
                                       const Measurements& m, const std::string& output);

// Report of a fit: terminal text and JSON.
std::string to_text(const ScanResult& r, const Measurements& m);
nlohmann::ordered_json to_json(const ScanResult& r, const Measurements& m);

}  // namespace sonicsim::calibration
