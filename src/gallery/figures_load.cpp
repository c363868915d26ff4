#include <sonicsim/gallery/figures.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>

namespace sonicsim::gallery {

namespace {

using json = nlohmann::json;
using util::formatted;

// Operations and their fewest operands.
struct Operation {
  const char* name;
  Expression::Kind kind;
  std::size_t min_operands, max_operands;
};
constexpr Operation kOperations[] = {
    {"ratio", Expression::Kind::Ratio, 2, 2},  {"difference", Expression::Kind::Difference, 2, 2},
    {"sum", Expression::Kind::Sum, 1, 64},     {"product", Expression::Kind::Product, 1, 64},
    {"min", Expression::Kind::Min, 1, 64},     {"max", Expression::Kind::Max, 1, 64},
    {"jain", Expression::Kind::Jain, 1, 4096},
};

constexpr Construction::Kind kConstructionKinds[] = {
    Construction::Kind::Input, Construction::Kind::Identity, Construction::Kind::Solved};

std::string found(const json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return "found " + text;
}

// Collects the problems of one file; each reader answers a default when the value is wrong so
// that every problem is found in one pass.
class Checker {
 public:
  explicit Checker(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::vector<Problem> problems;

  void fail(const std::string& path, const std::string& message) {
    problems.push_back({path, message});
  }

  void keys(const json& obj, const std::string& path, const std::vector<std::string>& allowed) {
    for (const auto& [key, value] : obj.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string message = "unknown key `" + key + "`";
      if (const std::string hint = did_you_mean(key, allowed); !hint.empty())
        message += "; " + hint;
      else
        message += "; expected one of the keys of docs/gallery.md";
      fail(join(path, key), message);
    }
  }

  std::string text(const json& obj, const std::string& path, const char* key, bool required) {
    if (!obj.contains(key)) {
      if (required) fail(join(path, key), "missing; expected a string");
      return {};
    }
    const json& v = obj.at(key);
    if (v.is_string() && !v.get<std::string>().empty()) return v.get<std::string>();
    fail(join(path, key), found(v) + "; expected a non-empty string");
    return {};
  }

  std::vector<std::string> sets(const json& obj, const std::string& path, const char* key) {
    std::vector<std::string> out;
    if (!obj.contains(key)) return out;
    const json& v = obj.at(key);
    if (!v.is_array()) {
      fail(join(path, key), found(v) + "; expected an array of \"PATH=JSON\" strings");
      return out;
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string at = join(path, key) + "[" + std::to_string(i) + "]";
      if (!v[i].is_string() || v[i].get<std::string>().find('=') == std::string::npos ||
          v[i].get<std::string>().front() == '=')
        fail(at, found(v[i]) + "; expected \"PATH=JSON\" (a --set override)");
      else
        out.push_back(v[i].get<std::string>());
    }
    return out;
  }

  // A scenario the file names, relative to the file's folder; it must be there.
  std::string scenario(const json& obj, const std::string& path, const std::string& fallback) {
    if (!obj.contains("scenario")) return fallback;
    const std::string name = text(obj, path, "scenario", true);
    if (name.empty()) return fallback;
    const auto resolved = (dir_ / name).lexically_normal();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(resolved, ec))
      fail(join(path, "scenario"),
           "\"" + name + "\": no such file (looked for " + resolved.string() + ")");
    return resolved.string();
  }

  Expression expression(const json& v, const std::string& path, int depth) {
    Expression e;
    e.path = path;
    if (depth > 16) {
      fail(path, "expressions nested over 16 levels; expected a flatter expression");
      return e;
    }
    if (v.is_number()) {
      e.number = v.get<double>();
      if (!std::isfinite(e.number)) fail(path, found(v) + "; expected a finite number");
      return e;
    }
    if (!v.is_object() || (v.size() != 1 && !v.contains("metric"))) {
      fail(path, found(v) +
                     "; expected a number or an object with one of metric, ratio, difference, "
                     "sum, product, min, max, jain");
      return e;
    }
    if (v.contains("metric")) return metric(v, path);
    // The only member (items() is a temporary: its iterator's key must not outlive it).
    const std::string name = v.begin().key();
    const json& operands = v.begin().value();
    for (const Operation& op : kOperations) {
      if (name != op.name) continue;
      e.kind = op.kind;
      const std::string at = join(path, name);
      if (!operands.is_array() || operands.size() < op.min_operands ||
          operands.size() > op.max_operands) {
        fail(at,
             found(operands) + "; expected an array of " +
                 (op.min_operands == op.max_operands ? std::to_string(op.min_operands)
                                                     : std::to_string(op.min_operands) + " to " +
                                                           std::to_string(op.max_operands)) +
                 " expressions");
        return e;
      }
      for (std::size_t i = 0; i < operands.size(); ++i)
        e.operands.push_back(
            expression(operands[i], at + "[" + std::to_string(i) + "]", depth + 1));
      return e;
    }
    std::vector<std::string> names{"metric"};
    for (const Operation& op : kOperations) names.emplace_back(op.name);
    std::string message = "unknown operation `" + name + "`";
    if (const std::string hint = did_you_mean(name, names); !hint.empty()) message += "; " + hint;
    fail(join(path, name), message +
                               "; expected one of metric, ratio, difference, sum, product, "
                               "min, max, jain");
    return e;
  }

  Expression metric(const json& v, const std::string& path) {
    Expression e;
    e.kind = Expression::Kind::Metric;
    e.path = path;
    keys(v, path, {"metric", "set", "scenario"});
    e.metric = text(v, path, "metric", true);
    e.set = sets(v, path, "set");
    e.scenario = scenario(v, path, "");
    return e;
  }

  Tolerance tolerance(const json& fig, const std::string& path, bool published) {
    Tolerance t;
    const std::string at = join(path, "tolerance");
    if (!fig.contains("tolerance")) {
      if (published)
        fail(at,
             "missing; a published figure needs {\"relative\": r}, {\"absolute\": a}, "
             "{\"at_least\": v} or {\"at_most\": v}");
      return t;
    }
    const json& v = fig.at("tolerance");
    static const std::pair<const char*, Tolerance::Kind> kinds[] = {
        {"relative", Tolerance::Kind::Relative},
        {"absolute", Tolerance::Kind::Absolute},
        {"at_least", Tolerance::Kind::AtLeast},
        {"at_most", Tolerance::Kind::AtMost}};
    if (v.is_object() && v.size() == 1) {
      for (const auto& [name, kind] : kinds) {
        if (!v.contains(name)) continue;
        const json& x = v.at(name);
        const bool bound = kind == Tolerance::Kind::AtLeast || kind == Tolerance::Kind::AtMost;
        if (!x.is_number() || !std::isfinite(x.get<double>()) || (!bound && x.get<double>() < 0))
          fail(join(at, name),
               found(x) + (bound ? "; expected a finite number" : "; expected a number >= 0"));
        t = {kind, x.is_number() ? x.get<double>() : 0.0};
        if (!published && !bound)
          fail(at,
               "a relative or absolute tolerance needs a published number; a prediction "
               "(published null) may state a bound (at_least, at_most) or none");
        return t;
      }
    }
    fail(at, found(v) +
                 "; expected {\"relative\": r}, {\"absolute\": a}, {\"at_least\": v} or "
                 "{\"at_most\": v}");
    return t;
  }

  Construction construction(const json& fig, const std::string& path) {
    Construction c;
    if (!fig.contains("by_construction")) return c;
    const std::string at = join(path, "by_construction");
    const json& v = fig.at("by_construction");
    if (!v.is_object()) {
      fail(at, found(v) + "; expected {\"kind\": \"input\", \"identity\" or \"solved\", " +
                   "\"why\": one sentence}");
      return c;
    }
    keys(v, at, {"kind", "why"});
    const std::string kind = text(v, at, "kind", true);
    for (const auto k : kConstructionKinds)
      if (kind == kind_name(k)) c.kind = k;
    if (!kind.empty() && c.kind == Construction::Kind::None)
      fail(join(at, "kind"), found(v.at("kind")) + "; expected \"input\" (it reproduces an " +
                                 "input), \"identity\" or \"solved\" (an input solved from " +
                                 "the published figure)");
    c.why = text(v, at, "why", true);
    return c;
  }

  std::optional<Vary> vary(const json& fig, const std::string& path) {
    if (!fig.contains("vary")) return std::nullopt;
    const std::string at = join(path, "vary");
    const json& v = fig.at("vary");
    if (!v.is_object()) {
      fail(at, found(v) + "; expected {\"set\": PATH, \"label\": words, \"values\": [...]}");
      return std::nullopt;
    }
    keys(v, at, {"set", "label", "values", "labels"});
    Vary out;
    const json paths = v.value("set", json());
    if (paths.is_string() && !paths.get<std::string>().empty()) {
      out.paths.push_back(paths.get<std::string>());
    } else if (paths.is_array() && !paths.empty() && paths.size() <= 16) {
      for (const json& p : paths)
        if (p.is_string() && !p.get<std::string>().empty())
          out.paths.push_back(p.get<std::string>());
      if (out.paths.size() != paths.size())
        fail(join(at, "set"), found(paths) + "; expected scenario paths (strings)");
    } else {
      fail(join(at, "set"),
           found(paths) + "; expected a scenario path, or an array of 1 to 16 paths");
    }
    for (const std::string& p : out.paths) out.set += (out.set.empty() ? "" : ", ") + p;
    out.label = text(v, at, "label", true);
    const json values = v.value("values", json());
    if (!values.is_array() || values.empty() || values.size() > 32) {
      fail(join(at, "values"), found(values) + "; expected an array of 1 to 32 JSON values");
      return out;
    }
    const bool several = paths.is_array();
    for (std::size_t i = 0; i < values.size(); ++i) {
      const json& x = values[i];
      if (several && (!x.is_array() || x.size() != out.paths.size())) {
        fail(join(at, "values") + "[" + std::to_string(i) + "]",
             found(x) + "; expected an array of " + std::to_string(out.paths.size()) +
                 " values, one per path of `set`");
        continue;
      }
      out.values.push_back(x.dump());
      std::vector<std::string> sets;
      for (std::size_t k = 0; k < out.paths.size(); ++k)
        sets.push_back(out.paths[k] + "=" + (several ? x[k] : x).dump());
      out.sets.push_back(std::move(sets));
    }
    if (v.contains("labels")) {
      const json& labels = v.at("labels");
      if (!labels.is_array() || labels.size() != values.size() ||
          !std::all_of(labels.begin(), labels.end(), [](const json& l) { return l.is_string(); }))
        fail(join(at, "labels"), found(labels) + "; expected an array of " +
                                     std::to_string(values.size()) + " strings, one per value");
      else
        for (const json& l : labels) out.labels.push_back(l.get<std::string>());
    }
    return out;
  }

  Figure figure(const json& v, const std::string& path, const std::string& file_scenario) {
    Figure f;
    f.path = path;
    if (!v.is_object()) {
      fail(path, found(v) + "; expected a figure object");
      return f;
    }
    keys(v, path,
         {"id", "figure", "source", "published", "published_text", "unit", "tolerance", "miss",
          "by_construction", "scenario", "set", "simulated", "formula", "vary"});
    f.id = text(v, path, "id", true);
    if (!f.id.empty() &&
        f.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
      fail(join(path, "id"), "\"" + f.id + "\"; expected lower-case letters, digits and -");
    f.figure = text(v, path, "figure", true);
    f.source = text(v, path, "source", true);
    f.unit = text(v, path, "unit", false);
    f.published_text = text(v, path, "published_text", false);
    f.miss = text(v, path, "miss", false);
    if (!f.miss.empty() && v.contains("published") && v.at("published").is_null())
      fail(join(path, "miss"), "a prediction (published null) cannot miss; expected no `miss`");
    f.by_construction = construction(v, path);
    // Its value is what went in: outside its tolerance it is a bug, never an accepted miss.
    if (!f.miss.empty() && v.contains("by_construction"))
      fail(join(path, "by_construction"),
           "a figure that holds by construction cannot be a known miss (leaving its tolerance "
           "reveals a bug); expected `miss` or `by_construction`, not both");
    if (!v.contains("published"))
      fail(join(path, "published"), "missing; expected a number, or null for a prediction");
    else if (const json& p = v.at("published"); p.is_number() && std::isfinite(p.get<double>()))
      f.published = p.get<double>();
    else if (!p.is_null())
      fail(join(path, "published"), found(p) + "; expected a finite number or null");
    f.tolerance = tolerance(v, path, f.published.has_value());
    // The band the simulated figure is held to must be finite too: 1e308 +- 200% is +-inf, which
    // every number, however wrong, is within.
    if (f.published && (f.tolerance.kind == Tolerance::Kind::Relative ||
                        f.tolerance.kind == Tolerance::Kind::Absolute)) {
      const bool relative = f.tolerance.kind == Tolerance::Kind::Relative;
      const double band = relative ? f.tolerance.value * std::abs(*f.published) : f.tolerance.value;
      if (!std::isfinite(band) || !std::isfinite(*f.published + band) ||
          !std::isfinite(*f.published - band))
        fail(join(join(path, "tolerance"), relative ? "relative" : "absolute"),
             found(v.at("tolerance").at(relative ? "relative" : "absolute")) +
                 " around the published " + v.at("published").dump() +
                 "; expected a tolerance whose band around the published figure is finite "
                 "(within +-1.8e308)");
    }
    f.scenario = scenario(v, path, file_scenario);
    if (f.scenario.empty())
      fail(join(path, "scenario"), "missing here and at the top of the file; expected a path");
    f.set = sets(v, path, "set");
    if (!v.contains("simulated"))
      fail(join(path, "simulated"), "missing; expected an expression (docs/gallery.md)");
    else
      f.simulated = expression(v.at("simulated"), join(path, "simulated"), 0);
    if (v.contains("formula")) f.formula = expression(v.at("formula"), join(path, "formula"), 0);
    f.vary = vary(v, path);
    return f;
  }

  std::optional<Plot> plot(const json& doc, const std::string& file_scenario) {
    if (!doc.contains("plot")) return std::nullopt;
    const json& v = doc.at("plot");
    if (!v.is_object()) {
      fail("plot", found(v) + "; expected {\"params\": [...], \"caption\": words}");
      return std::nullopt;
    }
    keys(v, "plot", {"scenario", "set", "params", "caption", "chart"});
    Plot p;
    p.scenario = scenario(v, "plot", file_scenario);
    p.set = sets(v, "plot", "set");
    p.params = sets(v, "plot", "params");
    if (p.params.empty() || p.params.size() > 2)
      fail("plot.params", "expected one or two \"PATH=VALUES\" sweep parameters");
    p.caption = text(v, "plot", "caption", true);
    if (v.contains("chart")) p.chart = text(v, "plot", "chart", true);
    return p;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace

const char* kind_name(Expression::Kind kind) {
  if (kind == Expression::Kind::Number) return "number";
  if (kind == Expression::Kind::Metric) return "metric";
  for (const Operation& op : kOperations)
    if (op.kind == kind) return op.name;
  return "?";
}

const char* kind_name(Construction::Kind kind) {
  switch (kind) {
    case Construction::Kind::None:
      return "";
    case Construction::Kind::Input:
      return "input";
    case Construction::Kind::Identity:
      return "identity";
    case Construction::Kind::Solved:
      return "solved";
  }
  return "?";
}

std::string describe(const Tolerance& t, const std::string& unit) {
  const std::string u = unit == "x" || unit == "%" ? unit : " " + unit;
  switch (t.kind) {
    case Tolerance::Kind::None:
      return "";
    case Tolerance::Kind::Relative:
      return "±" + formatted("%g", t.value * 100.0) + "%";
    case Tolerance::Kind::Absolute:
      return "±" + formatted("%g", t.value) + u;
    case Tolerance::Kind::AtLeast:
      return ">= " + formatted("%g", t.value) + u;
    case Tolerance::Kind::AtMost:
      return "<= " + formatted("%g", t.value) + u;
  }
  return "";
}

FiguresFile load_figures(const std::string& path) {
  std::string error;
  const std::string content = read_text(path, error);
  if (!error.empty()) throw InputError(path, {{"", "cannot read: " + error}});
  const auto doc = parse_json(content, path);
  if (!doc || !doc->is_object())
    throw InputError(path, {{"", "not a JSON object; expected a figures file (docs/gallery.md)"}});
  const std::filesystem::path file(path);
  Checker c(file.parent_path());
  c.keys(*doc, "", {"$schema", "system", "source", "scenario", "figures", "plot"});
  FiguresFile out;
  out.file = path;
  out.folder = std::filesystem::absolute(file).lexically_normal().parent_path().filename();
  out.system = c.text(*doc, "", "system", true);
  out.source = c.text(*doc, "", "source", true);
  const std::string file_scenario = c.scenario(*doc, "", "");
  const json figures = doc->value("figures", json());
  if (!figures.is_array() || figures.empty() || figures.size() > 256)
    c.fail("figures", found(figures) + "; expected an array of 1 to 256 figures");
  else
    for (std::size_t i = 0; i < figures.size(); ++i)
      out.figures.push_back(
          c.figure(figures[i], "figures[" + std::to_string(i) + "]", file_scenario));
  std::set<std::string> ids;
  for (const Figure& f : out.figures)
    if (!f.id.empty() && !ids.insert(f.id).second)
      c.fail(f.path + ".id", "\"" + f.id + "\" again; expected ids unique in the file");
  out.plot = c.plot(*doc, file_scenario);
  if (!c.problems.empty()) throw InputError(path, c.problems);
  return out;
}

}  // namespace sonicsim::gallery
