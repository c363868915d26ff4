// The intermediate results of `calibrate perf-analyzer`, shared by the fit (perf_calibration.cpp:
// the rows, the service curve, the overheads and the simulator's correction of the curve) and by
// what it writes (perf_calibration_summary.cpp: the calibration file and the report). Private to
// src/calibration.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/perf_analyzer.hpp>
#include <sonicsim/calibration/perf_calibration.hpp>
#include <sonicsim/calibration/perf_emulation.hpp>
#include <sonicsim/calibration/service_fit.hpp>
#include <sonicsim/scenario/devices.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::calibration::perf_fit {

using ojson = nlohmann::ordered_json;
constexpr double kUs = 1e-6;

// One perf_analyzer row as the fit sees it.
struct Row {
  const PerfAnalyzerScan* scan;
  const PerfAnalyzerRow* row;
  int batch;
  double little_error;  // measured throughput / (C B / mean latency) - 1; 0 in rate mode
  bool consistent;
  CurvePoint point;  // deconvolved: (items per execution, compute seconds)
};

// One direction's request overhead, fitted as fixed + per_item x request size.
struct PhaseFit {
  double fixed = 0.0, per_item = 0.0;  // seconds
  double rms_rel_error = 0.0;
  std::vector<double> batch, seconds;  // measured mean per request size
  // 95% half-widths of the two terms (NaN without degrees of freedom, +inf for a term the
  // request sizes cannot determine; 0 for a term held at zero).
  double fixed_ci95 = 0.0, per_item_ci95 = 0.0;
  // The covariance of (fixed, per_item), row-major 2 x 2, as the half-widths are: non-finite
  // where the fit leaves it undetermined, 0 in the row and column of a term held at zero.
  std::vector<double> covariance = std::vector<double>(4, kNaN);
};

struct Overheads {
  PhaseFit client_send, server, client_recv;
  double cv = 0.0;  // lognormal jitter of each direction's overhead; 0: constant
  // The server column's share that is host CPU work (host_fit.cpp); unset without --host-cores.
  std::optional<scenario::HostCost> host;
};

// What the simulator's replay asks of the fitted curve: a factor at the batch each row's
// executions actually had, piecewise linear in log(items) between those anchors and constant
// beyond them, so the curve's shape is kept where no row speaks.
struct Correction {
  struct Anchor {
    double items = 1.0, factor = 1.0;
  };
  std::vector<Anchor> anchors;  // per fitted row, any order

  // Anchors within 1% of one another act as one, at their geometric mean.
  std::vector<Anchor> merged() const {
    std::vector<Anchor> a = anchors;
    std::sort(a.begin(), a.end(),
              [](const Anchor& x, const Anchor& y) { return x.items < y.items; });
    std::vector<Anchor> out;
    for (std::size_t i = 0; i < a.size();) {
      std::size_t j = i;
      double log_items = 0.0, log_factor = 0.0;
      while (j < a.size() && a[j].items <= a[i].items * 1.01) {
        log_items += std::log(a[j].items);
        log_factor += std::log(a[j].factor);
        ++j;
      }
      const double n = static_cast<double>(j - i);
      out.push_back({std::exp(log_items / n), std::exp(log_factor / n)});
      i = j;
    }
    return out;
  }

  double at(double items) const { return at(merged(), items); }

  // The factor at `items` through anchors already merged (sorted, distinct).
  static double at(const std::vector<Anchor>& a, double items) {
    if (a.empty()) return 1.0;
    if (items <= a.front().items) return a.front().factor;
    if (items >= a.back().items) return a.back().factor;
    std::size_t i = 1;
    while (a[i].items < items) ++i;
    const double f = std::log(items / a[i - 1].items) / std::log(a[i].items / a[i - 1].items);
    return std::exp((1.0 - f) * std::log(a[i - 1].factor) + f * std::log(a[i].factor));
  }
};

// Rows replayed in the simulator, and how far they landed from the measurements.
struct Replay {
  std::vector<EmulatedPoint> rows;
  std::vector<double> ips_error, p50_error;  // simulated / measured - 1
  // log(simulated / measured speed) of what the service time drives: the throughput of a
  // closed loop; in an open loop the throughput is the offered rate, so the mean latency.
  std::vector<double> drive;

  double rms_ips_error() const { return rms(ips_error); }
  double max_ips_error() const { return max_abs(ips_error); }
  double rms_drive() const { return rms(drive); }
  double max_drive() const { return max_abs(drive); }
  double max_p50_error() const { return max_abs(p50_error); }
  static double max_abs(const std::vector<double>& v) {
    double m = 0.0;
    for (double e : v) m = std::max(m, std::abs(e));
    return m;
  }
  // Distance in units of the round trip's tolerances (5% throughput, 10% p50), worse of the
  // two per row, rms over rows: what the jitter candidates are ranked by.
  double score() const {
    std::vector<double> worst;
    for (std::size_t i = 0; i < ips_error.size(); ++i)
      worst.push_back(std::max(std::abs(ips_error[i]) / 0.05, std::abs(p50_error[i]) / 0.10));
    return rms(worst);
  }
  static double rms(const std::vector<double>& v) {
    double ss = 0.0;
    for (double e : v) ss += e * e;
    return v.empty() ? 0.0 : std::sqrt(ss / static_cast<double>(v.size()));
  }
};

struct JitterScore {
  double cv, rms_error, max_error, max_p50_error, score;
};

// The simulator-driven correction of the curve for one overhead jitter.
struct Refinement {
  double cv = 0.0;
  Correction correction;  // as last updated
  Correction kept;        // of the kept iteration
  ojson table;            // the kept iteration's curve
  Replay replay;          // and its replay
  int chosen_iteration = 0;
  struct Step {
    int iteration;
    double rms_error, max_error, score;
  };
  std::vector<Step> history;
};

// The overhead jitter whose refined curve replays the rows best, and every candidate's score.
struct JitterChoice {
  Refinement best;
  std::vector<JitterScore> scores;  // per candidate, in order
};

// Everything the calibration file and the report say, gathered by calibrate_perf_analyzer().
struct CalibrationOutcome {
  const PerfCalibrationInput& in;
  const std::vector<Row>& rows;
  const CurveChoice& choice;
  const CurveFit& curve;
  const JitterChoice& jitter;
  const Overheads& ov;  // with the chosen jitter
  const std::vector<PerfCalibration::RoundTrip>& round_trip;
};

// The calibration file's sections shared with the emulated scenario.
ojson overhead_json(const Overheads& o);
// Every curve considered: parameters, 95% intervals (null: undetermined), errors in and out of
// sample. Shared by every calibration that fits a service curve.
ojson curve_candidates_json(const CurveChoice& choice);
ojson batching_json(const ServerSettings& s);  // null without dynamic batching
// A row-major k x k covariance as `[[...], ...]`, an undetermined (non-finite) entry null.
ojson covariance_json(const std::vector<double>& covariance, std::size_t k);

// A signed percent with one decimal: "+1.2%".
std::string pct(double x);

// host_fit.cpp: the host's CPU costs from the server column's fit (per request: its fixed part;
// per byte in and out: its per-item slope over the bytes of an item in and out), and the
// calibration file's `host_cost` block (the costs, their 95% intervals, the copies to and from
// the device that stay in the curve, and the cores the measured load kept busy).
scenario::HostCost host_cost_of(const PhaseFit& server, const HostSpec& h);
ojson host_cost_json(const CalibrationOutcome& c);
std::string host_cost_report(const CalibrationOutcome& c);

// The calibration file (the `doc` of PerfCalibration).
ojson calibration_file(const CalibrationOutcome& c);

// The human summary: the fits, the round trip and a warning per row left out of the fit.
std::string calibration_report(const CalibrationOutcome& c);

}  // namespace sonicsim::calibration::perf_fit
