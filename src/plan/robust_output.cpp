// A robust plan as JSON (the plan's `robust` block) and as the lines of its summary.
#include <algorithm>
#include <map>

#include <sonicsim/plan/robust.hpp>
#include <sonicsim/uncertainty/stats.hpp>
#include <sonicsim/util/format.hpp>

#include "questions.hpp"

namespace sonicsim::plan {

using nlohmann::json;

namespace {

std::string percent(double share) {
  return util::formatted("%.0f%%", share * 100);
}

std::string show(const Report& r, const std::optional<double>& v) {
  return v ? detail::show_value(r.options, *v) : std::string("none in the range");
}

json distribution(const Robust& rb, const Report& r) {
  std::map<double, int> counts;
  int missing = 0;
  for (const auto& a : rb.answers) a ? ++counts[*a] : ++missing;
  json out = json::array();
  int cum = 0;
  const double n = static_cast<double>(rb.answers.size());
  for (const auto& [value, count] : counts) {
    cum += count;
    out.push_back({{"value", detail::value_json(r.options, value)},
                   {"count", count},
                   {"cumulative", cum / n}});
  }
  if (missing > 0) out.push_back({{"value", nullptr}, {"count", missing}, {"cumulative", 1.0}});
  return out;
}

json tornado_json(const Robust& rb, const Report& r) {
  json out = json::array();
  for (const auto& b : rb.tornado)
    out.push_back({{"name", b.name},
                   {"path", b.path},
                   {"low_value", b.low_value},
                   {"high_value", b.high_value},
                   {"answer_at_low", detail::value_json(r.options, b.answer_at_low)},
                   {"answer_at_high", detail::value_json(r.options, b.answer_at_high)},
                   {"swing", b.swing}});
  return out;
}

json narrowing_json(const Robust& rb, const Report& r) {
  if (!rb.narrowing) return nullptr;
  const auto& n = *rb.narrowing;
  return {
      {"name", n.name},
      {"from_percent", n.from_percent},
      {"to_percent", n.to_percent},
      {"central95_before",
       {detail::value_json(r.options, n.before_low), detail::value_json(r.options, n.before_high)}},
      {"central95_after",
       {detail::value_json(r.options, n.after_low), detail::value_json(r.options, n.after_high)}},
      {"answer_before", detail::value_json(r.options, n.answer_before)},
      {"answer_after", detail::value_json(r.options, n.answer_after)}};
}

std::string headline(const Robust& rb, const Report& r) {
  const std::string what = detail::describe_constraint(r);
  if (!rb.answer)
    return "no value in the range meets " + what + " in " + percent(rb.confidence) +
           " of the plausible cases";
  return r.options.vary + " = " + show(r, rb.answer) +
         (rb.device.empty() ? std::string() : " (" + rb.device + ")") + " meets " + what + " in " +
         percent(rb.confidence) + " of the plausible cases; " + show(r, rb.median) +
         " at the median";
}

}  // namespace

json to_json(const Robust& rb, const Report& r) {
  const int n = static_cast<int>(rb.answers.size());
  json inputs = json::array();
  for (const auto& in : rb.inputs)
    inputs.push_back({{"name", in.name},
                      {"path", in.path},
                      {"dist", in.dist},
                      {"nominal", in.nominal},
                      {"low", in.low},
                      {"high", in.high},
                      {"low_text", in.low_text},
                      {"high_text", in.high_text}});
  json answers = json::array();
  for (const auto& a : rb.answers) answers.push_back(detail::value_json(r.options, a));
  const auto [lo, hi] = uncertainty::wilson95(rb.met, std::max(1, n));
  json check = nullptr;
  if (rb.check_value) {
    const auto [clo, chi] = uncertainty::wilson95(rb.check_met, std::max(1, n));
    check = {{"value", detail::value_json(r.options, rb.check_value)},
             {"probability", static_cast<double>(rb.check_met) / std::max(1, n)},
             {"ci95", {clo, chi}}};
  }
  return {{"confidence", rb.confidence},
          {"device", rb.device},
          {"method", rb.method},
          {"samples", rb.samples},
          {"seed", rb.seed},
          {"replications", rb.replications},
          {"inputs", inputs},
          {"sample_inputs", rb.sample_inputs},
          {"answers", answers},
          {"distribution", distribution(rb, r)},
          {"answer",
           {{"value", detail::value_json(r.options, rb.answer)},
            {"fraction_met", static_cast<double>(rb.met) / std::max(1, n)},
            {"fraction_met_ci95", {lo, hi}}}},
          {"median", detail::value_json(r.options, rb.median)},
          {"central95",
           {detail::value_json(r.options, rb.central_low),
            detail::value_json(r.options, rb.central_high)}},
          {"nominal", detail::value_json(r.options, rb.nominal)},
          {"check", check},
          {"tornado", tornado_json(rb, r)},
          {"narrowing", narrowing_json(rb, r)},
          {"simulations",
           {{"count", rb.simulations},
            {"searches", rb.searches},
            {"plain", rb.plain_simulations},
            {"samples", rb.sample_simulations},
            {"tornado", rb.tornado_simulations},
            {"narrowing", rb.simulations - rb.sample_simulations - rb.tornado_simulations}}},
          {"text", headline(rb, r)}};
}

std::string to_text(const Robust& rb, const Report& r) {
  const int n = static_cast<int>(rb.answers.size());
  std::string out = "  robust       " + headline(rb, r) + "\n";
  const auto [lo, hi] = uncertainty::wilson95(rb.met, std::max(1, n));
  out += "               (" + std::to_string(rb.met) + " of " + std::to_string(n) + " samples, " +
         rb.method + ", seed " + std::to_string(rb.seed) + "; the share is " + percent(lo) + "-" +
         percent(hi) + " at 95%); the inputs as written: " + show(r, rb.nominal) + "\n";
  std::string dist;
  for (const auto& d : distribution(rb, r))
    dist += (dist.empty() ? "" : ", ") +
            (d["value"].is_null() ? std::string("none") : show(r, d["value"].get<double>())) +
            " x" + std::to_string(d["count"].get<int>());
  out += "  answers      " + dist + "\n";
  if (rb.check_value) {
    const auto [clo, chi] = uncertainty::wilson95(rb.check_met, std::max(1, n));
    out += "  check        " + r.options.vary + " = " + show(r, rb.check_value) + " is enough in " +
           percent(static_cast<double>(rb.check_met) / std::max(1, n)) + " of the cases (" +
           percent(clo) + "-" + percent(chi) + " at 95%)\n";
  }
  for (std::size_t i = 0; i < rb.tornado.size(); ++i) {
    const auto& b = rb.tornado[i];
    const auto in = std::find_if(rb.inputs.begin(), rb.inputs.end(),
                                 [&](const RobustInput& x) { return x.name == b.name; });
    out += std::string(i == 0 ? "  tornado      " : "               ") + b.name + ": " +
           show(r, b.answer_at_low) + " .. " + show(r, b.answer_at_high) + " over " +
           (in != rb.inputs.end() ? in->low_text + " .. " + in->high_text : std::string()) + "\n";
  }
  if (rb.narrowing) {
    const auto& m = *rb.narrowing;
    const auto range = [&](const std::optional<double>& a, const std::optional<double>& b) {
      return show(r, a) + "-" + show(r, b);
    };
    out += "  narrowing    the answer depends mostly on " + m.name + ": measuring it within " +
           util::formatted("%.3g", m.to_percent) + "% (now " +
           util::formatted("%.3g", m.from_percent) + "%) would narrow the answer from " +
           range(m.before_low, m.before_high) + " to " + range(m.after_low, m.after_high) +
           " (central 95%), and the answer met in " + percent(rb.confidence) +
           " of the cases from " + show(r, m.answer_before) + " to " + show(r, m.answer_after) +
           "\n";
  }
  out += "  simulations  " + std::to_string(rb.simulations + rb.plain_simulations) + " (" +
         std::to_string(rb.plain_simulations) + " for the plan as written, " +
         std::to_string(rb.simulations) + " in " + std::to_string(rb.searches) +
         " searches: " + std::to_string(rb.sample_simulations) + " for the samples, " +
         std::to_string(rb.tornado_simulations) + " the tornado, " +
         std::to_string(rb.simulations - rb.sample_simulations - rb.tornado_simulations) +
         " the narrowing)\n";
  return out;
}

}  // namespace sonicsim::plan
