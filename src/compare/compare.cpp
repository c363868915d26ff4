#include <sonicsim/compare/compare.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

#include <sonicsim/util/csv.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::compare {

namespace {

using calibration::Metric;

// NaN and infinities are not JSON numbers: they are null in the report.
nlohmann::ordered_json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

double rel_error_percent(double predicted, double measured) {
  return std::isfinite(predicted) ? 100.0 * (predicted - measured) / measured : kNaN;
}

using util::formatted;

// 4 significant digits without an exponent for the magnitudes tables show.
std::string plain_number(double v) {
  if (!std::isfinite(v)) return "-";
  if (std::abs(v) >= 1e4) return formatted("%.0f", v);
  return formatted("%.4g", v);
}

// One unit for a whole column of times, chosen from its largest value.
struct Unit {
  const char* name;
  double scale;
};
Unit unit_for(Metric m, double largest) {
  if (!calibration::is_time(m)) return {"/s", 1.0};
  if (largest >= 1.0) return {"s", 1.0};
  if (largest >= 1e-3) return {"ms", 1e3};
  return {"us", 1e6};
}

std::string percent(double v) {
  return util::percent_points(v, "%+.2f");
}
std::string abs_percent(double v) {
  return util::percent_points(v, "%.2f");
}

std::string pad_left(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}

// Rows of cells printed with every column right-aligned to its widest cell.
std::string aligned(const std::vector<std::vector<std::string>>& table, std::size_t first_left) {
  std::vector<std::size_t> width;
  for (const auto& row : table)
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], row[i].size());
    }
  std::string out;
  for (const auto& row : table) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) line += "  ";
      line += i < first_left ? pad_right(row[i], width[i]) : pad_left(row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

nlohmann::ordered_json errors_json(const Errors& e) {
  nlohmann::ordered_json j;
  j["points"] = e.points;
  j["mape_percent"] = number_or_null(e.mape_percent);
  j["max_abs_error_percent"] = number_or_null(e.max_abs_error_percent);
  j["max_at_x"] = e.points ? number_or_null(e.max_at_x) : nullptr;
  j["spearman"] = number_or_null(e.spearman);
  return j;
}

std::string csv_number(double v) {
  return std::isfinite(v) ? formatted("%.10g", v) : "";
}

// A column name on one line.
std::string csv_text(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return util::csv_field(s);
}

}  // namespace

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean_rank = 0.5 * static_cast<double>(i + j) + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = mean_rank;
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n < 2) return kNaN;
  const auto ra = ranks(std::vector<double>(a.begin(), a.begin() + n));
  const auto rb = ranks(std::vector<double>(b.begin(), b.begin() + n));
  const double mean = 0.5 * static_cast<double>(n + 1);
  double sab = 0.0, saa = 0.0, sbb = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (saa == 0.0 || sbb == 0.0) return kNaN;
  return sab / std::sqrt(saa * sbb);
}

Errors errors_of(const std::vector<double>& x, const std::vector<double>& predicted,
                 const std::vector<double>& measured) {
  Errors e;
  std::vector<double> p, m;
  double sum = 0.0, worst = -1.0;
  for (std::size_t i = 0; i < predicted.size() && i < measured.size(); ++i) {
    if (!std::isfinite(predicted[i])) continue;
    const double err = std::abs(rel_error_percent(predicted[i], measured[i]));
    sum += err;
    if (err > worst) {
      worst = err;
      e.max_at_x = i < x.size() ? x[i] : kNaN;
    }
    p.push_back(predicted[i]);
    m.push_back(measured[i]);
  }
  e.points = p.size();
  e.mape_percent = e.points ? sum / static_cast<double>(e.points) : kNaN;
  e.max_abs_error_percent = e.points ? worst : kNaN;
  if (!e.points) e.max_at_x = kNaN;
  e.spearman = spearman(m, p);
  return e;
}

void summarize(Report& r) {
  std::vector<double> x, measured, sim, formula, mva;
  for (const Row& row : r.rows) {
    x.push_back(row.x);
    measured.push_back(row.measured);
    sim.push_back(row.simulated);
    formula.push_back(row.formula);
    mva.push_back(row.mva);
  }
  r.simulation = errors_of(x, sim, measured);
  r.formula = errors_of(x, formula, measured);
  r.mva = errors_of(x, mva, measured);
  r.verdict = verdict_of(r);
}

std::string verdict_of(const Report& r) {
  const Errors& s = r.simulation;
  const std::size_t failed = r.rows.size() - s.points;
  const std::string failures = failed ? "; " + std::to_string(failed) + " of " +
                                            std::to_string(r.rows.size()) +
                                            " points failed to simulate (see above)"
                                      : "";
  if (s.points < 2) {
    return "cannot judge: fewer than 2 points simulated" + failures;
  }
  double lo = r.rows.front().x, hi = lo;
  for (const Row& row : r.rows) {
    lo = std::min(lo, row.x);
    hi = std::max(hi, row.x);
  }
  const std::string range = r.x_column + " " + plain_number(lo) + ".." + plain_number(hi);
  const std::string how_far = "off by " + abs_percent(s.mape_percent) + " on average (worst " +
                              abs_percent(s.max_abs_error_percent) + " at " + r.x_column + "=" +
                              plain_number(s.max_at_x) + ")";
  const bool trend_known = std::isfinite(s.spearman);
  const std::string trend =
      trend_known ? formatted("Spearman %.2f", s.spearman) : "no trend to rank";
  std::string v;
  if (s.mape_percent <= 5.0 && (!trend_known || s.spearman >= 0.9)) {
    v = "TRUST for planning over " + range + ": the simulation is " + how_far +
        " and follows the measured trend (" + trend + ")";
  } else if (s.mape_percent <= 15.0 && (!trend_known || s.spearman >= 0.7)) {
    v = "USE WITH CARE over " + range + ": the simulation follows the trend (" + trend +
        ") but is " + how_far +
        "; calibrate it (sonicsim calibrate scan) before relying on absolute numbers";
  } else if (trend_known && s.spearman < 0.7) {
    v = "DO NOT TRUST: the simulation misses the measured trend (" + trend + ") and is " + how_far +
        "; check the scenario's inputs, then calibrate (sonicsim calibrate scan)";
  } else {
    v = "DO NOT TRUST as is: the simulation follows the measured trend (" + trend + ") but is " +
        how_far + "; check the scenario's inputs, then calibrate (sonicsim calibrate scan)";
  }
  // When a formula does clearly better, the simulation is missing what the formula has.
  for (const auto& [name, e] :
       {std::pair<const char*, const Errors*>{"the formula", &r.formula}, {"exact MVA", &r.mva}}) {
    if (e->points == s.points && e->mape_percent < 0.5 * s.mape_percent && s.mape_percent > 2.0) {
      v += "; note that " + std::string(name) + " does better (" + abs_percent(e->mape_percent) +
           ")";
      break;
    }
  }
  return v + failures;
}

std::string format_value(Metric m, double v) {
  if (!std::isfinite(v)) return "-";
  const Unit u = unit_for(m, std::abs(v));
  return plain_number(v * u.scale) + " " + u.name;
}

nlohmann::ordered_json to_json(const Report& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario_file;
  j["measurements"] = r.measurements_file;
  j["vary"] = r.vary;
  j["x_column"] = r.x_column;
  j["metric"] = calibration::metric_name(r.metric);
  j["metric_unit"] = calibration::is_time(r.metric) ? "s" : "1/s";
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const Row& row : r.rows) {
    nlohmann::ordered_json p;
    p["x"] = row.x;
    p["line"] = row.line;
    p["measured"] = row.measured;
    p["measured_stddev"] = r.has_stddev ? number_or_null(row.stddev) : nullptr;
    p["simulated"] = number_or_null(row.simulated);
    p["simulated_error_percent"] = number_or_null(rel_error_percent(row.simulated, row.measured));
    p["formula"] = number_or_null(row.formula);
    p["formula_error_percent"] = number_or_null(rel_error_percent(row.formula, row.measured));
    p["mva"] = number_or_null(row.mva);
    p["mva_error_percent"] = number_or_null(rel_error_percent(row.mva, row.measured));
    p["error"] =
        row.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row.error);
    points.push_back(p);
  }
  j["points"] = points;
  nlohmann::ordered_json summary;
  summary["simulation"] = errors_json(r.simulation);
  summary["formula"] = errors_json(r.formula);
  summary["mva"] = errors_json(r.mva);
  j["summary"] = summary;
  j["verdict"] = r.verdict;
  return j;
}

std::string to_csv(const Report& r) {
  std::string out = csv_text(r.x_column) +
                    ",measured,measured_stddev,simulated,simulated_error_percent,formula,"
                    "formula_error_percent,mva,mva_error_percent,error\n";
  for (const Row& row : r.rows) {
    out += csv_number(row.x) + "," + csv_number(row.measured) + "," +
           (r.has_stddev ? csv_number(row.stddev) : "") + "," + csv_number(row.simulated) + "," +
           csv_number(rel_error_percent(row.simulated, row.measured)) + "," +
           csv_number(row.formula) + "," +
           csv_number(rel_error_percent(row.formula, row.measured)) + "," + csv_number(row.mva) +
           "," + csv_number(rel_error_percent(row.mva, row.measured)) + "," +
           (row.error.empty() ? "" : csv_text(row.error)) + "\n";
  }
  return out;
}

std::string to_text(const Report& r) {
  std::ostringstream o;
  double largest = 0.0;
  for (const Row& row : r.rows) largest = std::max(largest, std::abs(row.measured));
  const Unit u = unit_for(r.metric, largest);
  // One number of decimals for the whole table: 4 significant digits on its largest value.
  const int decimals =
      largest > 0.0
          ? std::clamp(3 - static_cast<int>(std::floor(std::log10(largest * u.scale))), 0, 9)
          : 3;
  const auto value = [&](double v) {
    if (!std::isfinite(v)) return std::string("-");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v * u.scale);
    return std::string(buf);
  };

  o << "compare    " << r.scenario_file << " against " << r.measurements_file << " ("
    << r.rows.size() << " points), varying " << r.vary << "\n";
  o << "metric     " << calibration::metric_name(r.metric) << ": "
    << calibration::metric_description(r.metric) << ", in " << u.name
    << "; errors are (model - measured) / measured\n\n";

  std::vector<std::vector<std::string>> table;
  const std::string unit = std::string(" (") + u.name + ")";
  table.push_back(
      {r.x_column, "measured" + unit, "simulated", "error", "formula", "error", "MVA", "error"});
  for (const Row& row : r.rows) {
    std::string measured = value(row.measured);
    if (r.has_stddev) measured += " +- " + value(row.stddev);
    table.push_back({plain_number(row.x), measured,
                     std::isfinite(row.simulated) ? value(row.simulated) : "FAILED",
                     percent(rel_error_percent(row.simulated, row.measured)), value(row.formula),
                     percent(rel_error_percent(row.formula, row.measured)), value(row.mva),
                     percent(rel_error_percent(row.mva, row.measured))});
  }
  o << aligned(table, 0);
  for (const Row& row : r.rows)
    if (!row.error.empty())
      o << "FAILED     " << r.x_column << "=" << plain_number(row.x) << " (line " << row.line
        << "): " << row.error << "\n";

  o << "\n";
  std::vector<std::vector<std::string>> summary;
  summary.push_back({"", "points", "MAPE", "max |error|", "at " + r.x_column, "Spearman"});
  for (const auto& [name, e] : {std::pair<const char*, const Errors*>{"simulation", &r.simulation},
                                {"formula", &r.formula},
                                {"MVA", &r.mva}}) {
    summary.push_back({name, std::to_string(e->points), abs_percent(e->mape_percent),
                       abs_percent(e->max_abs_error_percent),
                       e->points ? plain_number(e->max_at_x) : "-",
                       std::isfinite(e->spearman) ? formatted("%.3f", e->spearman) : "n/a"});
  }
  o << aligned(summary, 1);
  o << "\nverdict: " << r.verdict << "\n";
  return o.str();
}

}  // namespace sonicsim::compare
