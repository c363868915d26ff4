#include "curve_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <sonicsim/util/files.hpp>
#include <sonicsim/util/json_text.hpp>

namespace sonicsim::uncertainty {

using nlohmann::json;

namespace {

// The parameters of each fitted kind, in the order calibration::CurveFit holds them.
std::vector<std::string> names_of(const std::string& kind) {
  if (kind == "linear") return {"a_s", "b_s_per_item"};
  if (kind == "saturating") return {"t0_s", "r_max_items_per_s", "k"};
  return {};
}

// A half-width of 95% is 1.96 standard errors here: the file does not say the fit's degrees of
// freedom, and Student's t would only make the spread narrower.
constexpr double kHalfWidthZ = 1.959963984540054;

std::optional<std::string> read_table(const json& doc, CalibratedCurve& c) {
  const auto st = doc.find("service_time");
  if (st == doc.end() || !st->is_object() || !st->contains("batch") || !st->contains("seconds"))
    return "has no service_time {batch, seconds} table";
  const json &b = st->at("batch"), &s = st->at("seconds");
  if (!b.is_array() || !s.is_array() || b.size() != s.size() || b.empty())
    return "service_time.batch and .seconds must be arrays of the same length";
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (!b[i].is_number() || !s[i].is_number() || !(s[i].get<double>() > 0))
      return "service_time.seconds[" + std::to_string(i) + "] is not a positive number";
    c.batch.push_back(b[i].get<double>());
    c.seconds.push_back(s[i].get<double>());
  }
  return std::nullopt;
}

// The covariance the file gives (`covariance` in `param_order`), else the diagonal of the 95%
// half-widths. An undetermined parameter (null) is held at its fitted value.
void read_covariance(const json& cand, CalibratedCurve& c) {
  const std::size_t k = c.params.size();
  c.covariance.assign(k * k, 0.0);
  const auto cov = cand.find("covariance");
  const auto order = cand.find("param_order");
  if (cov != cand.end() && order != cand.end() && cov->is_array() && order->is_array() &&
      cov->size() == k && order->size() == k) {
    std::vector<std::size_t> at(k);
    bool ok = true;
    for (std::size_t i = 0; i < k && ok; ++i) {
      const auto it = std::find(c.param_names.begin(), c.param_names.end(),
                                (*order)[i].is_string() ? (*order)[i].get<std::string>() : "");
      ok = it != c.param_names.end() && (*cov)[i].is_array() && (*cov)[i].size() == k;
      if (ok) at[i] = static_cast<std::size_t>(it - c.param_names.begin());
    }
    if (ok) {
      for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = 0; j < k; ++j) {
          const json& x = (*cov)[i][j];
          c.covariance[at[i] * k + at[j]] = x.is_number() ? x.get<double>() : 0.0;
        }
      for (std::size_t i = 0; i < k; ++i)  // an undetermined variance holds the parameter
        if (!(*cov)[i][i].is_number())
          for (std::size_t j = 0; j < k; ++j)
            c.covariance[at[i] * k + j] = c.covariance[j * k + at[i]] = 0.0;
      c.covariance_from_file = true;
      return;
    }
  }
  const json ci = cand.value("ci95_halfwidth", json::object());
  for (std::size_t i = 0; i < k; ++i) {
    const auto it = ci.find(c.param_names[i]);
    const double half = it != ci.end() && it->is_number() ? it->get<double>() : 0.0;
    c.covariance[i * k + i] = std::pow(half / kHalfWidthZ, 2);
  }
}

std::optional<std::string> read_fit(const json& doc, CalibratedCurve& c) {
  const auto fit = doc.find("fit");
  if (fit == doc.end() || !fit->is_object() || !fit->contains("chosen") ||
      !fit->at("chosen").is_string() || !fit->contains("candidates"))
    return "has no fit.chosen and fit.candidates (write it with sonicsim calibrate "
           "perf-analyzer): without the fit there are no intervals to sample";
  c.kind = fit->at("chosen").get<std::string>();
  const json* cand = nullptr;
  for (const auto& x : fit->at("candidates"))
    if (x.is_object() && x.value("kind", std::string()) == c.kind) cand = &x;
  if (!cand) return "fit.candidates has no `" + c.kind + "` candidate (fit.chosen)";
  c.param_names = names_of(c.kind);
  if (c.param_names.empty()) {
    const double rms = cand->value("rms_rel_error", 0.0);
    const double loo = cand->value("loo_rms_rel_error", 0.0);
    // Through every point the in-sample error is 0: the held-out error says how far the curve
    // may be off between and beyond them.
    c.rms_rel_error = std::isfinite(loo) && loo > rms ? loo : rms;
    if (!(c.rms_rel_error > 0)) return "its `" + c.kind + "` curve has no error to sample";
    return std::nullopt;
  }
  const json params = cand->value("params", json::object());
  for (const auto& n : c.param_names) {
    const auto it = params.find(n);
    if (it == params.end() || !it->is_number() || !(it->get<double>() > 0))
      return "fit.candidates[" + c.kind + "].params." + n + " is missing or not positive";
    c.params.push_back(it->get<double>());
  }
  read_covariance(*cand, c);
  return std::nullopt;
}

}  // namespace

std::optional<CalibratedCurve> read_curve_reference(const json& value, const std::string& path,
                                                    const std::string& base_dir,
                                                    const std::string& at,
                                                    std::vector<Problem>& problems) {
  if (!value.is_object() || !value.contains("calibration") ||
      !value.at("calibration").is_string()) {
    problems.push_back({at,
                        "\"from\": \"calibration\" needs a curve taken from a calibration file "
                        "at `" +
                            path +
                            "` ({\"calibration\": \"FILE.json\"}, e.g. "
                            "models.NAME.service_time.T4), found another value there"});
    return std::nullopt;
  }
  CalibratedCurve c;
  c.file = value.at("calibration").get<std::string>();
  const std::filesystem::path p(c.file);
  const std::string full =
      p.is_absolute() ? c.file : (std::filesystem::path(base_dir) / p).string();
  std::string error;
  const std::string text = read_text(full, error);
  std::optional<std::string> why;
  if (!error.empty()) {
    why = "cannot be read: " + error;
  } else if (const auto doc = parse_json(text, full); !doc || !doc->is_object()) {
    why = "is not a JSON object";
  } else {
    why = read_table(*doc, c);
    if (!why) why = read_fit(*doc, c);
  }
  if (why) {
    problems.push_back({at, "the calibration file " + full + " " + *why});
    return std::nullopt;
  }
  return c;
}

}  // namespace sonicsim::uncertainty
