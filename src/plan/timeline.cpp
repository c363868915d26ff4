// When to buy: the growth path read and checked, one (robust) search per period warm-started
// from the period before, and the purchases that keep the fleet ahead of the requirement.
#include <sonicsim/plan/timeline.hpp>

#include <algorithm>
#include <cmath>

#include <sonicsim/uncertainty/inputs.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>

#include "questions.hpp"

namespace sonicsim::plan {

using nlohmann::json;

std::string GrowthPath::text() const {
  const auto num = [](double x) { return util::formatted("%g", x); };
  return compound ? "x" + num(factor) + " over " + num(over_months) + " months"
                  : "+" + num(add) + " per " + num(per_months) + " months";
}

std::optional<int> parse_month(const std::string& text) {
  if (text.size() != 7 || text[4] != '-') return std::nullopt;
  const auto y = util::parse_whole_number(text.substr(0, 4), 1900, 9999);
  const auto m = util::parse_whole_number(text.substr(5, 2), 1, 12);
  if (!y || !m) return std::nullopt;
  return static_cast<int>(*y * 12 + *m - 1);
}

std::string format_month(int month) {
  const std::string mm = std::to_string(month % 12 + 1);
  return std::to_string(month / 12) + "-" + (mm.size() < 2 ? "0" + mm : mm);
}

std::optional<int> parse_months(const std::string& text) {
  const bool years = text.size() > 1 && text.back() == 'y';
  const bool months = text.size() > 2 && text.substr(text.size() - 2) == "mo";
  if (!years && !months) return std::nullopt;
  const auto n = util::parse_number(text.substr(0, text.size() - (years ? 1 : 2)));
  if (!n || !(*n > 0) || *n > 1200) return std::nullopt;
  const double m = std::round(*n * (years ? 12.0 : 1.0));
  if (m < 1) return std::nullopt;
  return static_cast<int>(m);
}

namespace {

struct Reader {
  std::string file;
  std::vector<Problem> problems;
  void add(const std::string& path, const std::string& message) {
    problems.push_back({path, message});
  }
  std::optional<int> months(const json& block, const char* key, const std::string& at) {
    const auto it = block.find(key);
    if (it == block.end()) return std::nullopt;
    const auto m = it->is_string() ? parse_months(it->get<std::string>()) : std::nullopt;
    if (!m)
      add(at + "." + key,
          "found " + it->dump() + ", expected a duration such as \"3mo\" or \"1y\"");
    return m;
  }
};

// `PATH=x2/3y` or `PATH=+100/1y`.
GrowthPath growth_flag(const std::string& text) {
  const auto fail = [&] {
    return InputError("--growth", {{"", "found `" + text +
                                            "`, expected PATH=xFACTOR/DURATION (compound, e.g. "
                                            "workload.jobs=x2/3y) or PATH=+AMOUNT/DURATION "
                                            "(linear, e.g. workload.jobs=+100/1y)"}});
  };
  const auto eq = text.find('='), slash = text.rfind('/');
  if (eq == std::string::npos || eq == 0 || slash == std::string::npos || slash < eq + 2)
    throw fail();
  GrowthPath g;
  g.path = text.substr(0, eq);
  const char kind = text[eq + 1];
  const auto amount = util::parse_number(text.substr(eq + 2, slash - eq - 2));
  const auto months = parse_months(text.substr(slash + 1));
  if ((kind != 'x' && kind != '+') || !amount || !months || !(*amount > 0)) throw fail();
  g.compound = kind == 'x';
  (g.compound ? g.factor : g.add) = *amount;
  (g.compound ? g.over_months : g.per_months) = *months;
  return g;
}

void read_paths(const json& block, Growth& g, Reader& r) {
  const auto paths = block.find("paths");
  if (paths == block.end()) return;
  if (!paths->is_array()) return r.add("growth.paths", "expected an array of growing paths");
  for (std::size_t i = 0; i < paths->size(); ++i) {
    const std::string at = "growth.paths[" + std::to_string(i) + "]";
    const json& p = (*paths)[i];
    GrowthPath gp;
    if (!p.is_object() || !p.contains("path") || !p.at("path").is_string()) {
      r.add(at,
            "expected {\"path\": ..., \"factor\": F, \"over\": \"3y\"} or {\"path\": ..., "
            "\"add\": N, \"per\": \"1y\"}");
      continue;
    }
    gp.path = p.at("path").get<std::string>();
    gp.compound = p.contains("factor");
    const char* amount = gp.compound ? "factor" : "add";
    const char* span = gp.compound ? "over" : "per";
    if (!p.contains(amount) || !p.at(amount).is_number() || !(p.at(amount).get<double>() > 0)) {
      r.add(at + "." + amount, "expected a number > 0 (`factor` with `over`, or `add` with `per`)");
      continue;
    }
    (gp.compound ? gp.factor : gp.add) = p.at(amount).get<double>();
    const auto m = r.months(p, span, at);
    if (!m) {
      if (!p.contains(span)) r.add(at + "." + span, "missing: the duration of the growth");
      continue;
    }
    (gp.compound ? gp.over_months : gp.per_months) = *m;
    g.paths.push_back(gp);
  }
}

void read_steps(const json& block, Growth& g, Reader& r) {
  const auto steps = block.find("steps");
  if (steps == block.end()) return;
  if (!steps->is_array()) return r.add("growth.steps", "expected an array of steps");
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const std::string at = "growth.steps[" + std::to_string(i) + "]";
    const json& s = (*steps)[i];
    const auto month = s.is_object() && s.contains("at") && s.at("at").is_string()
                           ? parse_month(s.at("at").get<std::string>())
                           : std::nullopt;
    if (!month || !s.contains("path") || !s.at("path").is_string() || !s.contains("value")) {
      r.add(at, "expected {\"at\": \"2028-01\", \"path\": ..., \"value\": ..., \"name\": ...}");
      continue;
    }
    g.steps.push_back({*month - g.start_month, s.at("path").get<std::string>(),
                       s.at("value").dump(), s.value("name", s.at("path").get<std::string>())});
  }
}

void read_block(const json& block, Growth& g, Reader& r) {
  if (!block.is_object()) return r.add("growth", "expected an object {\"paths\": [...], ...}");
  for (const auto& item : block.items())
    if (item.key() != "start" && item.key() != "period" && item.key() != "horizon" &&
        item.key() != "lead_time" && item.key() != "paths" && item.key() != "steps")
      r.add("growth." + item.key(),
            "unknown key; expected start, period, horizon, lead_time, paths or steps");
  if (const auto s = block.find("start"); s != block.end()) {
    const auto m = s->is_string() ? parse_month(s->get<std::string>()) : std::nullopt;
    if (!m)
      r.add("growth.start", "found " + s->dump() + ", expected a month such as \"2027-01\"");
    else
      g.start_month = *m;
  }
  if (const auto m = r.months(block, "period", "growth")) g.period_months = *m;
  if (const auto m = r.months(block, "horizon", "growth")) g.horizon_months = *m;
  if (const auto m = r.months(block, "lead_time", "growth")) g.lead_time_months = *m;
  read_paths(block, g, r);
  read_steps(block, g, r);
}

void apply_flags(const GrowthFlags& f, Growth& g) {
  const auto months = [](const std::string& text, const char* flag) {
    const auto m = parse_months(text);
    if (!m)
      throw InputError(flag, {{"", "found `" + text + "`, expected a duration such as 3mo or 1y"}});
    return *m;
  };
  if (!f.start.empty()) {
    const auto m = parse_month(f.start);
    if (!m) throw InputError("--start", {{"", "found `" + f.start + "`, expected YYYY-MM"}});
    for (auto& s : g.steps) s.month += g.start_month - *m;
    g.start_month = *m;
  }
  if (!f.period.empty()) g.period_months = months(f.period, "--period");
  if (!f.horizon.empty()) g.horizon_months = months(f.horizon, "--horizon");
  if (!f.lead_time.empty()) g.lead_time_months = months(f.lead_time, "--lead-time");
  for (const auto& text : f.growth) {
    const auto gp = growth_flag(text);
    g.paths.erase(std::remove_if(g.paths.begin(), g.paths.end(),
                                 [&](const GrowthPath& x) { return x.path == gp.path; }),
                  g.paths.end());
    g.paths.push_back(gp);
  }
}

}  // namespace

Growth load_growth(const std::string& scenario_path, const std::vector<scenario::Override>& common,
                   const GrowthFlags& flags) {
  std::string error;
  const std::string text = read_text(scenario_path, error);
  if (!error.empty()) throw InputError(scenario_path, {{"", "cannot read the scenario: " + error}});
  auto doc = parse_json(text, scenario_path);
  if (!doc) throw InputError(scenario_path, {{"", "not JSON"}});
  Reader r{scenario_path, {}};
  scenario::apply_overrides(*doc, common, r.problems);
  Growth g;
  g.start_month = *parse_month("2027-01");
  if (const auto b = doc->find("growth"); b != doc->end() && !b->is_null()) read_block(*b, g, r);
  if (!r.problems.empty()) throw InputError(scenario_path, std::move(r.problems));
  apply_flags(flags, g);
  if (g.paths.empty() && g.steps.empty())
    throw InputError(scenario_path, {{"growth",
                                      "missing: a timeline needs a growth path (the scenario's "
                                      "`growth` block or --growth PATH=x2/3y)"}});
  if (g.horizon_months / g.period_months > 240)
    throw InputError(scenario_path, {{"growth.period",
                                      "more than 240 periods over the horizon: "
                                      "use a longer period"}});
  for (const auto& p : g.paths) {
    std::string why;
    const json* v = uncertainty::find_path(*doc, p.path, why);
    const auto value = v ? uncertainty::numeric_value(*v) : std::nullopt;
    if (!value)
      throw InputError(
          scenario_path,
          {{"growth", "`" + p.path + "`: " + (v ? "expected a number or a quantity there" : why)}});
    g.base.push_back(*value);
  }
  for (const auto& s : g.steps)
    if (s.month < 0 || s.month > g.horizon_months)
      throw InputError(scenario_path, {{"growth.steps", "step `" + s.name + "` at " +
                                                            format_month(g.start_month + s.month) +
                                                            " is outside the horizon"}});
  return g;
}

std::vector<scenario::Override> growth_overrides(const Growth& g, int month) {
  std::vector<scenario::Override> out;
  for (std::size_t i = 0; i < g.paths.size(); ++i) {
    const auto& p = g.paths[i];
    const double base = g.base.at(i).si;
    const double v = p.compound ? base * std::pow(p.factor, month / p.over_months)
                                : base + p.add * month / p.per_months;
    out.push_back({p.path, uncertainty::write_numeric(g.base[i], v)});
  }
  for (const auto& s : g.steps)
    if (s.month <= month) out.push_back({s.path, s.value});
  return out;
}

}  // namespace sonicsim::plan
