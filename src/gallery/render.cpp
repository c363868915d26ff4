// The reproduced figures as a terminal table, JSON, and the markdown of the validation page and
// of each gallery README's block.
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include <sonicsim/gallery/reproduce.hpp>
#include <sonicsim/report/table.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::gallery {

namespace {

using util::formatted;

// Three significant figures, without an exponent for the sizes figures have.
std::string number(double v) {
  if (std::isnan(v)) return "n/a";
  const double a = std::abs(v);
  if (a >= 100.0 || a == 0.0) return formatted("%.0f", v);
  if (a >= 10.0) return formatted("%.1f", v);
  if (a >= 1.0) return formatted("%.2f", v);
  if (a >= 0.001) return formatted("%.3g", v);
  return formatted("%.3g", v);
}

std::string with_unit(double v, const std::string& unit) {
  if (std::isnan(v)) return "n/a";
  if (unit.empty() || unit == "x" || unit == "%") return number(v) + unit;
  return number(v) + " " + unit;
}

std::string signed_percent(const std::optional<double>& e) {
  if (!e) return "";
  return formatted("%+.1f%%", *e * 100.0);
}

std::string published_of(const FigureResult& r) {
  const Figure& f = r.figure;
  if (f.published) return with_unit(*f.published, f.unit);
  if (!f.published_text.empty()) return f.published_text;
  return "(none: a prediction)";
}

// The published cell of a table: the number, and the words when the source states it so; a
// claim stated as an inequality shows the inequality.
std::string published_cell(const FigureResult& r) {
  const Figure& f = r.figure;
  if (is_bound(f.tolerance))
    return describe(f.tolerance, f.unit) +
           (f.published_text.empty() ? "" : " (\"" + f.published_text + "\")");
  if (f.published && !f.published_text.empty())
    return with_unit(*f.published, f.unit) + " (\"" + f.published_text + "\")";
  return published_of(r);
}

// "within ±5%", "holds >= 1x", or "" without a tolerance.
std::string holding(const Tolerance& t, const std::string& unit) {
  const std::string tol = describe(t, unit);
  if (tol.empty()) return "";
  return (is_bound(t) ? "holds " : "within ") + tol;
}

std::string construction_words(Construction::Kind k) {
  return std::string("by construction (") +
         (k == Construction::Kind::Solved ? "solved for" : kind_name(k)) + ")";
}

// "by construction (input), within ±7.7%": what the figure is, then what it holds.
std::string by_construction(const FigureResult& r) {
  const std::string held = holding(r.figure.tolerance, r.figure.unit);
  return construction_words(r.figure.by_construction.kind) + (held.empty() ? "" : ", " + held);
}

// A figure that reproduces what went in and still leaves its tolerance: the code is wrong.
std::string bug_note(const FigureResult& r) {
  if (r.figure.by_construction.kind == Construction::Kind::None) return "";
  return ": " + construction_words(r.figure.by_construction.kind) + ", so a bug";
}

std::string verdict_cell(const FigureResult& r) {
  const std::string tol = describe(r.figure.tolerance, r.figure.unit);
  switch (r.verdict) {
    case Verdict::Within:
      return holding(r.figure.tolerance, r.figure.unit);
    case Verdict::ByConstruction:
      return by_construction(r) + ": " + r.figure.by_construction.why;
    case Verdict::Outside:
      return "**OUTSIDE** " + tol + bug_note(r);
    case Verdict::KnownMiss:
      return "known miss (" + tol + "): " + r.figure.miss;
    case Verdict::Prediction:
      return tol.empty() ? "prediction" : "prediction, holds " + tol;
  }
  return "";
}

// A vary value as a reader writes it: "100us" without JSON's quotes.
std::string shown(const std::string& json_text) {
  if (json_text.size() >= 2 && json_text.front() == '"' && json_text.back() == '"')
    return json_text.substr(1, json_text.size() - 2);
  return json_text;
}

std::string sweep_table(const FigureResult& r) {
  const Figure& f = r.figure;
  std::string out = "How `" + f.id + "` (" + f.figure + ") moves with " + f.vary->label + " (`" +
                    f.vary->set + "`):\n\n";
  report::Table table{{f.vary->label, "simulated", "formula"}, {}};
  for (const SweepPoint& p : r.sweep)
    table.rows.push_back({shown(p.label), with_unit(p.simulated, f.unit),
                          std::isnan(p.formula) ? "" : with_unit(p.formula, f.unit)});
  return out + report::to_markdown(table) + "\n";
}

nlohmann::ordered_json number_or_null(double v) {
  return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v);
}

nlohmann::ordered_json number_or_null(const std::optional<double>& v) {
  return v ? number_or_null(*v) : nlohmann::ordered_json();
}

}  // namespace

std::string rollup(const Reproduction& r) {
  const Tally t = tally(r);
  const auto count = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string kinds;
  if (t.by_construction > 0)
    kinds = " (" + count(t.inputs, "input", "inputs") + ", " +
            count(t.identities, "identity", "identities") + ", " + std::to_string(t.solved) +
            " solved for)";
  return count(t.total, "figure", "figures") + ": " + std::to_string(t.within) +
         " within tolerance (evidence), " + std::to_string(t.by_construction) + " by construction" +
         kinds + ", " + std::to_string(t.outside) + " outside, " + std::to_string(t.known_misses) +
         " known misses, " + std::to_string(t.predictions) + " predictions (" +
         std::to_string(r.runs_simulated) + " simulations, " + std::to_string(r.runs_predicted) +
         " formula-only runs)";
}

std::string to_text(const Reproduction& r) {
  std::string out;
  for (const SystemResult& s : r.systems) {
    out += s.system + " (" + s.file + ")\n";
    for (const FigureResult& f : s.figures) {
      out += "  " + f.figure.id + ": " + f.figure.figure + "\n";
      out += "    published " + published_of(f) + "; formula " +
             (std::isnan(f.formula) ? std::string("-") : with_unit(f.formula, f.figure.unit)) +
             (f.formula_error ? " (" + signed_percent(f.formula_error) + ")" : "") +
             "; simulated " + with_unit(f.simulated, f.figure.unit) +
             (f.error ? " (" + signed_percent(f.error) + ")" : "") + "; ";
      if (f.verdict == Verdict::ByConstruction) {
        out += by_construction(f) + "\n    (not evidence: " + f.figure.by_construction.why + ")\n";
      } else {
        const std::string tol = describe(f.figure.tolerance, f.figure.unit);
        out += verdict_name(f.verdict) + (tol.empty() ? "" : " " + tol) +
               (f.verdict == Verdict::Outside ? bug_note(f) : "") + "\n";
      }
      if (!f.sweep.empty()) {
        out += "    against " + f.figure.vary->label + ":";
        for (const SweepPoint& p : f.sweep)
          out += "  " + shown(p.label) + " -> " + with_unit(p.simulated, f.figure.unit) +
                 (std::isnan(p.formula) ? ""
                                        : " (formula " + with_unit(p.formula, f.figure.unit) + ")");
        out += "\n";
      }
    }
  }
  return out + rollup(r) + "\n";
}

std::string to_json(const Reproduction& r) {
  nlohmann::ordered_json doc;
  doc["outside"] = r.outside();
  const Tally t = tally(r);
  doc["figures"] = {{"total", t.total},
                    {"within", t.within},
                    {"by_construction", t.by_construction},
                    {"outside", t.outside},
                    {"known_misses", t.known_misses},
                    {"predictions", t.predictions}};
  doc["runs_simulated"] = r.runs_simulated;
  doc["runs_predicted"] = r.runs_predicted;
  doc["systems"] = nlohmann::ordered_json::array();
  for (const SystemResult& s : r.systems) {
    nlohmann::ordered_json sj{{"file", s.file},
                              {"folder", s.folder},
                              {"system", s.system},
                              {"source", s.source},
                              {"figures", nlohmann::ordered_json::array()}};
    for (const FigureResult& f : s.figures) {
      nlohmann::ordered_json fj{
          {"id", f.figure.id},
          {"figure", f.figure.figure},
          {"source", f.figure.source},
          {"unit", f.figure.unit},
          {"published", f.figure.published ? nlohmann::ordered_json(*f.figure.published)
                                           : nlohmann::ordered_json()},
          {"published_text", f.figure.published_text},
          {"tolerance", describe(f.figure.tolerance, f.figure.unit)},
          {"formula", number_or_null(f.formula)},
          {"simulated", number_or_null(f.simulated)},
          {"formula_error", number_or_null(f.formula_error)},
          {"error", number_or_null(f.error)},
          {"verdict", verdict_name(f.verdict)},
          {"miss", f.figure.miss},
          {"by_construction",
           f.figure.by_construction.kind == Construction::Kind::None
               ? nlohmann::ordered_json()
               : nlohmann::ordered_json{{"kind", kind_name(f.figure.by_construction.kind)},
                                        {"why", f.figure.by_construction.why}}},
          {"command", f.command}};
      if (f.figure.vary) {
        nlohmann::ordered_json sweep = nlohmann::ordered_json::array();
        for (const SweepPoint& p : f.sweep)
          sweep.push_back({{"value", nlohmann::ordered_json::parse(p.value)},
                           {"label", p.label},
                           {"simulated", number_or_null(p.simulated)},
                           {"formula", number_or_null(p.formula)}});
        fj["vary"] = {
            {"set", f.figure.vary->set}, {"label", f.figure.vary->label}, {"points", sweep}};
      }
      sj["figures"].push_back(fj);
    }
    doc["systems"].push_back(sj);
  }
  return doc.dump(2) + "\n";
}

std::string validation_table(const Reproduction& r) {
  report::Table table{
      {"system", "figure", "published", "formula", "simulated", "error", "verdict", "command"}, {}};
  for (const SystemResult& s : r.systems)
    for (const FigureResult& f : s.figures)
      if (f.figure.published || !f.figure.published_text.empty())
        table.rows.push_back({"[" + s.system + "](../scenarios/gallery/" + s.folder + "/README.md)",
                              f.figure.figure, published_cell(f),
                              std::isnan(f.formula) ? "" : with_unit(f.formula, f.figure.unit),
                              with_unit(f.simulated, f.figure.unit), signed_percent(f.error),
                              verdict_cell(f), "`" + f.command + "`"});
  return report::to_markdown(table);
}

std::string system_block(const SystemResult& s) {
  report::Table table{{"figure", "source", "published", "formula", "formula error", "simulated",
                       "error", "verdict"},
                      {}};
  for (const FigureResult& f : s.figures)
    table.rows.push_back({"`" + f.figure.id + "`: " + f.figure.figure, f.figure.source,
                          published_cell(f),
                          std::isnan(f.formula) ? "" : with_unit(f.formula, f.figure.unit),
                          signed_percent(f.formula_error), with_unit(f.simulated, f.figure.unit),
                          signed_percent(f.error), verdict_cell(f)});
  std::string out = report::to_markdown(table) + "\nEvery figure: `" + s.command +
                    "`; one: add `--figure ID`.\n\n";
  for (const FigureResult& f : s.figures)
    if (!f.sweep.empty()) out += sweep_table(f);
  return out;
}

}  // namespace sonicsim::gallery
