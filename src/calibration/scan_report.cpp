// `calibrate scan`'s report of a fit: terminal text and JSON.
#include <sonicsim/calibration/scan.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

#include "scan_detail.hpp"

namespace sonicsim::calibration {

using scan_detail::names_of;
using scan_detail::show;
using util::formatted;

std::string to_text(const ScanResult& r, const Measurements& m) {
  std::ostringstream o;
  o << "fit        " << names_of(r.free, ", ") << " of " << metric_name(m.metric) << " at "
    << m.rows.size() << " points (" << (m.has_stddev ? "weights 1/stddev^2" : "relative errors")
    << "), analytic model: " << (r.model == AnalyticModel::Mva ? "exact MVA" : "SONIC formula")
    << (r.refined ? ", refined against the simulator" : "") << "\n";
  for (const auto& n : r.notes) o << "note       " << n << "\n";

  if (r.refined) {
    o << "\nspace mapping (simulate, correct the analytic model by simulated/analytic, refit):\n";
    for (std::size_t k = 0; k < r.rounds.size(); ++k) {
      const Round& rd = r.rounds[k];
      o << "  round " << k + 1 << ":";
      for (ScanParam p : r.free) o << "  " << param_name(p) << " " << show(p, rd.values.get(p));
      o << "   simulated MAPE " << formatted("%.2f%%", rd.mape_percent);
      if (k > 0) o << ", moved " << formatted("%.2f%%", 100.0 * rd.max_change);
      o << "\n";
    }
    o << "  " << (r.converged ? "converged" : "not converged") << "\n";
  }

  o << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-10s  %12s  %12s  %-29s  %8s\n", "parameter", "scenario",
                "fitted", "95% interval", "change");
  o << line;
  for (const ParamEstimate& e : r.fit.params) {
    std::string interval = "(held)";
    if (e.free && std::isnan(e.ci_low)) interval = "(no degrees of freedom)";
    if (e.free && !e.identified) interval = "(not determined by the data)";
    if (e.free && !e.identified && std::isfinite(e.ci_high))
      interval = "below " + show(e.param, e.ci_high) + " (not determined)";
    if (e.free && e.identified && !std::isnan(e.ci_low)) {
      interval = "[";
      interval += show(e.param, e.ci_low);
      interval += ", ";
      interval += show(e.param, e.ci_high);
      interval += "]";
    }
    const double change =
        e.scenario_value != 0.0 ? 100.0 * (e.value - e.scenario_value) / e.scenario_value : kNaN;
    std::snprintf(line, sizeof line, "%-10s  %12s  %12s  %-29s  %8s\n", param_name(e.param),
                  show(e.param, e.scenario_value).c_str(), show(e.param, e.value).c_str(),
                  interval.c_str(),
                  e.free && std::isfinite(change) ? formatted("%+.1f%%", change).c_str() : "");
    o << line;
  }

  o << "\n";
  const std::string model = r.refined ? "simulated" : "analytic";
  std::snprintf(line, sizeof line, "%10s  %14s  %14s  %9s\n", m.x_column.c_str(), "measured",
                model.c_str(), "residual");
  o << line;
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const double pred = r.final_prediction[i];
    const auto value = [&](double x) {
      return is_time(m.metric) ? util::format_time(x) : formatted("%.4g /s", x);
    };
    std::snprintf(line, sizeof line, "%10s  %14s  %14s  %9s\n", format_x(m.rows[i].x).c_str(),
                  value(m.rows[i].value).c_str(), value(pred).c_str(),
                  formatted("%+.2f%%", 100.0 * (pred - m.rows[i].value) / m.rows[i].value).c_str());
    o << line;
  }
  o << "MAPE " << formatted("%.2f%%", r.mape_percent) << " (" << model
    << " at the fitted parameters)\n";
  return o.str();
}

nlohmann::ordered_json to_json(const ScanResult& r, const Measurements& m) {
  using ojson = nlohmann::ordered_json;
  const auto num = [](double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); };
  ojson j;
  j["measurements"] = m.file;
  j["metric"] = metric_name(m.metric);
  j["weights"] = m.has_stddev ? "1/stddev^2" : "1/measured^2 (relative errors)";
  j["analytic_model"] = model_name(r.model);
  ojson params = ojson::object();
  for (const ParamEstimate& e : r.fit.params) {
    ojson p;
    p["free"] = e.free;
    p["scenario"] = num(e.scenario_value);
    p["fitted"] = num(e.value);
    p["ci95"] = e.free ? ojson::array({num(e.ci_low), num(e.ci_high)}) : ojson(nullptr);
    if (e.free) p["identified"] = e.identified;
    params[param_name(e.param)] = p;
  }
  j["parameters"] = params;
  ojson points = ojson::array();
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    ojson p;
    p["x"] = m.rows[i].x;
    p["measured"] = m.rows[i].value;
    p["predicted"] = num(r.final_prediction[i]);
    p["residual_percent"] =
        num(100.0 * (r.final_prediction[i] - m.rows[i].value) / m.rows[i].value);
    points.push_back(p);
  }
  j["points"] = points;
  j["predicted_by"] = r.refined ? "simulation" : "analytic";
  j["mape_percent"] = num(r.mape_percent);
  j["dof"] = r.fit.raw.dof;
  j["reduced_chi2"] = num(r.fit.reduced_chi2);
  j["refined"] = r.refined;
  j["converged"] = r.converged;
  ojson rounds = ojson::array();
  for (const Round& rd : r.rounds) {
    ojson x;
    for (ScanParam k : r.free) x[param_name(k)] = rd.values.get(k);
    x["simulated_mape_percent"] = num(rd.mape_percent);
    x["max_change"] = rd.max_change;
    rounds.push_back(x);
  }
  j["rounds"] = rounds;
  j["notes"] = r.notes;
  return j;
}

}  // namespace sonicsim::calibration
