// The `uncertainty` block: every input checked against the scenario it names, every problem
// under its JSON path, before anything is sampled.
#include <sonicsim/uncertainty/inputs.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/uncertainty/samples.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>

#include "curve_file.hpp"

namespace sonicsim::uncertainty {

using nlohmann::json;

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::PlusMinus:
      return "plus_minus";
    case Dist::Uniform:
      return "uniform";
    case Dist::Normal:
      return "normal";
    case Dist::Lognormal:
      return "lognormal";
    case Dist::Choice:
      return "choice";
    case Dist::Calibration:
      return "calibration";
  }
  return "?";
}

int Input::dims() const {
  if (curve) return std::max<int>(1, static_cast<int>(curve->params.size()));
  return 1;
}

int Spec::dims() const {
  int d = 0;
  for (const auto& in : inputs) d += in.dims();
  return d;
}

namespace {

constexpr const char* kDists = "plus_minus, uniform, normal, lognormal or choice";

std::string show(const json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  const std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string key_at(const std::string& at, const std::string& key) {
  return at + "." + key;
}

// Collects problems under JSON paths, as the scenario loader does.
struct Problems {
  std::vector<Problem>& list;
  bool add(const std::string& path, const std::string& message) {
    list.push_back({path, message});
    return false;
  }
  // Unknown keys, with a near miss named.
  void keys(const json& obj, const std::string& at, const std::vector<std::string>& allowed) {
    for (const auto& item : obj.items()) {
      if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
      const std::string hint = did_you_mean(item.key(), allowed);
      std::string all;
      for (const auto& a : allowed) all += (all.empty() ? "" : ", ") + a;
      add(key_at(at, item.key()),
          "unknown key" + (hint.empty() ? "" : "; " + hint) + " (expected one of: " + all + ")");
    }
  }
};

// The scenario's value at the input's path as a number (SI) and the unit kind it is written in.
bool read_nominal(Input& in, const json& value, Problems& p) {
  if (const auto v = numeric_value(value)) {
    in.nominal = v->si;
    in.quantity = v->quantity;
    in.integer = v->integer;
    return true;
  }
  return p.add(key_at(in.at, "path"),
               "`" + in.path + "` is " + show(value) +
                   " in the scenario: a distribution needs a number or a quantity there (name a "
                   "number inside it, such as `" +
                   in.path + ".mean`, or use \"choice\" with whole values)");
}

// A parameter in the input's own unit: a number (SI), a quantity of the same kind, or, where
// `relative`, a percentage of the nominal value ("10%").
std::optional<double> amount(const json& v, const Input& in, const std::string& at, bool relative,
                             Problems& p) {
  if (v.is_number()) {
    const double x = v.get<double>();
    if (std::isfinite(x)) return x;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (relative && !s.empty() && s.back() == '%') {
      const auto x = util::parse_number(s.substr(0, s.size() - 1));
      if (x && *x >= 0) return *x / 100.0 * std::abs(in.nominal);
    }
    if (in.quantity) {
      std::string error;
      if (const auto x = scenario::parse_quantity(v, *in.quantity, error)) return *x;
    }
  }
  const std::string unit = in.quantity ? " or a quantity like the scenario's value" : "";
  p.add(at, "found " + show(v) + ", expected a number" + unit +
                (relative ? " or a percentage of the scenario's value (\"10%\")" : ""));
  return std::nullopt;
}

bool read_choice(Input& in, const json& v, Problems& p) {
  const json* values = v.contains("values") ? &v.at("values") : nullptr;
  if (!values || !values->is_array() || values->empty() ||
      values->size() > static_cast<std::size_t>(kMaxChoices))
    return p.add(key_at(in.at, "values"), "expected an array of 1 to " +
                                              std::to_string(kMaxChoices) +
                                              " alternatives (whole values for the path)");
  in.values.assign(values->begin(), values->end());
  in.weights.assign(in.values.size(), 1.0);
  if (const auto w = v.find("weights"); w != v.end()) {
    if (!w->is_array() || w->size() != in.values.size())
      return p.add(key_at(in.at, "weights"),
                   "expected " + std::to_string(in.values.size()) + " weights, one per value");
    for (std::size_t i = 0; i < w->size(); ++i) {
      const json& x = (*w)[i];
      if (!x.is_number() || !(x.get<double>() >= 0) || !std::isfinite(x.get<double>()))
        return p.add(key_at(in.at, "weights") + "[" + std::to_string(i) + "]",
                     "found " + show(x) + ", expected a weight >= 0");
      in.weights[i] = x.get<double>();
    }
  }
  double total = 0.0;
  for (double w : in.weights) total += w;
  if (!(total > 0)) return p.add(key_at(in.at, "weights"), "expected a positive total weight");
  for (double& w : in.weights) w /= total;
  if (const auto l = v.find("labels"); l != v.end()) {
    if (!l->is_array() || l->size() != in.values.size() ||
        !std::all_of(l->begin(), l->end(), [](const json& x) { return x.is_string(); }))
      return p.add(key_at(in.at, "labels"),
                   "expected " + std::to_string(in.values.size()) + " strings, one per value");
    for (const auto& x : *l) in.labels.push_back(x.get<std::string>());
  } else {
    for (const auto& x : in.values) in.labels.push_back(show(x));
  }
  return true;
}

bool read_distribution(Input& in, const json& v, Problems& p) {
  const std::string dist = v.value("dist", std::string());
  const auto need = [&](const char* key) -> const json* {
    if (const auto it = v.find(key); it != v.end()) return &*it;
    p.add(key_at(in.at, key), std::string("missing: a ") + dist + " needs `" + key + "`");
    return nullptr;
  };
  const auto positive = [&](const char* key, std::optional<double> x) {
    if (x && !(*x > 0)) {
      p.add(key_at(in.at, key), "found " + util::formatted("%g", *x) + ", expected a value > 0");
      return std::optional<double>();
    }
    return x;
  };
  if (dist == "plus_minus") {
    in.dist = Dist::PlusMinus;
    const json* by = need("by");
    const auto a =
        by ? positive("by", amount(*by, in, key_at(in.at, "by"), true, p)) : std::nullopt;
    if (!a) return false;
    in.a = *a;
  } else if (dist == "uniform") {
    in.dist = Dist::Uniform;
    const json *lo = need("low"), *hi = need("high");
    const auto a = lo ? amount(*lo, in, key_at(in.at, "low"), false, p) : std::nullopt;
    const auto b = hi ? amount(*hi, in, key_at(in.at, "high"), false, p) : std::nullopt;
    if (!a || !b) return false;
    if (!(*b > *a)) return p.add(key_at(in.at, "high"), "expected high > low");
    in.a = *a;
    in.b = *b;
  } else if (dist == "normal") {
    in.dist = Dist::Normal;
    in.a = in.nominal;
    if (const auto m = v.find("mean"); m != v.end()) {
      const auto x = amount(*m, in, key_at(in.at, "mean"), false, p);
      if (!x) return false;
      in.a = *x;
    }
    const json* sd = need("sd");
    const auto b =
        sd ? positive("sd", amount(*sd, in, key_at(in.at, "sd"), true, p)) : std::nullopt;
    if (!b) return false;
    in.b = *b;
    // A normal that reaches below zero for a positive quantity would hand the scenario values it
    // refuses in a few samples out of a thousand: say so now.
    if (in.nominal > 0 && in.a - 3.09 * in.b <= 0)
      return p.add(key_at(in.at, "sd"),
                   "a normal of mean " + util::formatted("%g", in.a) + " and sd " +
                       util::formatted("%g", in.b) +
                       " gives values <= 0 in 0.1% of samples: use \"lognormal\" for a "
                       "positive quantity, or a smaller sd");
  } else if (dist == "lognormal") {
    in.dist = Dist::Lognormal;
    in.a = in.nominal;
    if (const auto m = v.find("median"); m != v.end()) {
      const auto x = positive("median", amount(*m, in, key_at(in.at, "median"), false, p));
      if (!x) return false;
      in.a = *x;
    }
    if (!(in.a > 0)) return p.add(key_at(in.at, "median"), "expected a median > 0");
    const bool has_sigma = v.contains("sigma"), has_cv = v.contains("cv");
    if (has_sigma == has_cv)
      return p.add(in.at, "a lognormal needs one of `sigma` (of the log) or `cv`");
    const char* key = has_sigma ? "sigma" : "cv";
    const json& s = v.at(key);
    if (!s.is_number() || !(s.get<double>() > 0) || !(s.get<double>() <= 10))
      return p.add(key_at(in.at, key), "found " + show(s) + ", expected a number in (0, 10]");
    const double x = s.get<double>();
    in.b = has_sigma ? x : std::sqrt(std::log1p(x * x));
  } else if (dist == "choice") {
    in.dist = Dist::Choice;
    return read_choice(in, v, p);
  } else {
    return p.add(key_at(in.at, "dist"), "found " + show(v.value("dist", json())) + ", expected " +
                                            kDists + " (or \"from\": \"calibration\")");
  }
  if (in.dist == Dist::Uniform && in.nominal > 0 && in.a < 0 && in.quantity)
    return p.add(key_at(in.at, "low"), "expected low >= 0 for a quantity");
  return true;
}

std::optional<Input> read_input(const json& v, const std::string& at, const json& doc,
                                const std::string& base_dir, Problems& p) {
  if (!v.is_object()) {
    p.add(at, "found " + show(v) + ", expected an object {\"path\": ..., \"dist\": ...}");
    return std::nullopt;
  }
  p.keys(v, at,
         {"name", "path", "dist", "from", "by", "low", "high", "mean", "sd", "median", "sigma",
          "cv", "values", "weights", "labels"});
  Input in;
  in.at = at;
  const auto path = v.find("path");
  if (path == v.end() || !path->is_string() || path->get<std::string>().empty()) {
    p.add(key_at(at, "path"),
          "missing: the scenario path this input sets, as --set names it "
          "(e.g. workload.cpu_time_per_event.mean)");
    return std::nullopt;
  }
  in.path = path->get<std::string>();
  in.name = in.path;
  if (const auto n = v.find("name"); n != v.end()) {
    if (!n->is_string() || n->get<std::string>().empty()) {
      p.add(key_at(at, "name"), "found " + show(*n) + ", expected a non-empty string");
      return std::nullopt;
    }
    in.name = n->get<std::string>();
  }
  if (in.path == "uncertainty" || in.path.rfind("uncertainty.", 0) == 0) {
    p.add(key_at(at, "path"), "an input cannot name the uncertainty block itself");
    return std::nullopt;
  }
  std::string why;
  const json* value = find_path(doc, in.path, why);
  if (!value) {
    p.add(key_at(at, "path"), why);
    return std::nullopt;
  }
  if (const auto from = v.find("from"); from != v.end()) {
    if (*from != "calibration") {
      p.add(key_at(at, "from"), "found " + show(*from) + ", expected \"calibration\"");
      return std::nullopt;
    }
    if (v.contains("dist")) {
      p.add(key_at(at, "dist"), "give either `dist` or \"from\": \"calibration\", not both");
      return std::nullopt;
    }
    in.dist = Dist::Calibration;
    in.curve = read_curve_reference(*value, in.path, base_dir, key_at(at, "path"), p.list);
    if (!in.curve) return std::nullopt;
    in.nominal = 1.0;  // a curve is reported by its factor
    return in;
  }
  if (!v.contains("dist")) {
    p.add(key_at(at, "dist"),
          std::string("missing: expected ") + kDists + ", or \"from\": \"calibration\"");
    return std::nullopt;
  }
  if (v.at("dist") != "choice" && !read_nominal(in, *value, p)) return std::nullopt;
  if (!read_distribution(in, v, p)) return std::nullopt;
  return in;
}

bool read_settings(const json& block, Spec& spec, Problems& p) {
  if (const auto s = block.find("samples"); s != block.end()) {
    if (!s->is_number_integer() || s->get<std::int64_t>() < 1 ||
        s->get<std::int64_t>() > kMaxSamples)
      return p.add("uncertainty.samples", "found " + show(*s) + ", expected an integer in [1, " +
                                              std::to_string(kMaxSamples) + "]");
    spec.samples = s->get<int>();
  }
  if (const auto m = block.find("method"); m != block.end()) {
    if (*m != "lhs" && *m != "sobol")
      return p.add("uncertainty.method", "found " + show(*m) + ", expected \"lhs\" or \"sobol\"");
    spec.method = m->get<std::string>();
  }
  if (const auto s = block.find("seed"); s != block.end()) {
    if (!s->is_number_integer() || s->get<std::int64_t>() < 0)
      return p.add("uncertainty.seed", "found " + show(*s) + ", expected an integer >= 0");
    spec.seed = s->get<std::uint64_t>();
  }
  return true;
}

}  // namespace

const json* find_path(const json& doc, const std::string& path, std::string& why) {
  const json* node = &doc;
  std::size_t start = 0;
  std::string where;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    if (part.empty()) {
      why = "empty component in the path `" + path + "`";
      return nullptr;
    }
    const std::string next = where.empty() ? part : where + "." + part;
    if (node->is_object()) {
      const auto it = node->find(part);
      if (it == node->end()) {
        std::vector<std::string> keys;
        for (const auto& item : node->items()) keys.push_back(item.key());
        const std::string hint = did_you_mean(part, keys);
        why = "`" + next + "` does not exist in the scenario" + (hint.empty() ? "" : "; " + hint);
        return nullptr;
      }
      node = &*it;
    } else if (node->is_array()) {
      const auto index = util::parse_whole_number(part, 0, 999999999);
      if (!index || static_cast<std::size_t>(*index) >= node->size()) {
        why = "`" + (where.empty() ? std::string("(document)") : where) + "` is an array of " +
              std::to_string(node->size()) + ", expected an index below that, found `" + part + "`";
        return nullptr;
      }
      node = &(*node)[static_cast<std::size_t>(*index)];
    } else {
      why = "`" + where + "` is " + show(*node) + ": it has no member `" + part + "`";
      return nullptr;
    }
    where = next;
    if (dot == std::string::npos) return node;
    start = dot + 1;
  }
}

std::optional<NumericValue> numeric_value(const json& value) {
  NumericValue out;
  if (value.is_number()) {
    out.si = value.get<double>();
    out.integer = value.is_number_integer() || value.is_number_unsigned();
    if (std::isfinite(out.si)) return out;
    return std::nullopt;
  }
  if (!value.is_string()) return std::nullopt;
  for (auto kind :
       {scenario::Quantity::Time, scenario::Quantity::Size, scenario::Quantity::Bandwidth,
        scenario::Quantity::Rate, scenario::Quantity::Power}) {
    std::string error;
    if (const auto v = scenario::parse_quantity(value, kind, error)) {
      out.si = *v;
      if (!scenario::written_bare(value)) out.quantity = kind;
      return out;
    }
  }
  return std::nullopt;
}

std::string write_numeric(const NumericValue& like, double v) {
  if (like.integer) return std::to_string(std::llround(v));
  if (!like.quantity) return json(v).dump();
  const auto text = [&](double x, const char* unit) {
    return "\"" + util::formatted("%.12g", x) + unit + "\"";
  };
  switch (*like.quantity) {
    case scenario::Quantity::Time:
      return text(v, "s");
    case scenario::Quantity::Size:
      return text(v, "B");
    case scenario::Quantity::Bandwidth:
      return text(v * 8.0, "bps");
    case scenario::Quantity::Rate:
      return text(v, "/s");
    case scenario::Quantity::Power:
      return text(v, "W");
  }
  return json(v).dump();
}

std::optional<Spec> read_spec(const json& doc, const std::string& base_dir,
                              std::vector<Problem>& problems) {
  const auto it = doc.find("uncertainty");
  if (it == doc.end() || it->is_null()) return std::nullopt;
  Problems p{problems};
  const std::size_t before = problems.size();
  if (!it->is_object()) {
    p.add("uncertainty", "found " + show(*it) + ", expected an object {\"inputs\": [...]}");
    return std::nullopt;
  }
  p.keys(*it, "uncertainty", {"inputs", "samples", "method", "seed"});
  Spec spec;
  read_settings(*it, spec, p);
  const auto inputs = it->find("inputs");
  if (inputs == it->end() || !inputs->is_array() || inputs->empty() ||
      inputs->size() > static_cast<std::size_t>(kMaxInputs)) {
    p.add("uncertainty.inputs",
          "expected an array of 1 to " + std::to_string(kMaxInputs) + " inputs");
    return std::nullopt;
  }
  for (std::size_t i = 0; i < inputs->size(); ++i) {
    const std::string at = "uncertainty.inputs[" + std::to_string(i) + "]";
    if (auto in = read_input((*inputs)[i], at, doc, base_dir, p)) {
      for (const auto& other : spec.inputs)
        if (other.path == in->path)
          p.add(key_at(at, "path"), "`" + in->path + "` is already uncertain (" + other.at + ")");
      spec.inputs.push_back(std::move(*in));
    }
  }
  if (problems.size() != before) return std::nullopt;
  return spec;
}

namespace {

std::string where(const Input& in, double q) {
  if (in.dist == Dist::Choice) return "at one of its values";
  return std::string("at its ") + (q < 0.5 ? "0.05%" : "99.95%") + " quantile";
}

// Every input at both ends of its range (others as written) must be a scenario the loader
// accepts: a sample is refused now, not after an hour of sampling.
void check_extremes(const Spec& spec, const json& doc, const std::string& file,
                    const std::string& base_dir) {
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    // A choice's every alternative, at the middle of its share; any other input at both ends.
    std::vector<double> qs = {0.0005, 0.9995};
    if (spec.inputs[i].dist == Dist::Choice) {
      qs.clear();
      double cum = 0.0;
      for (double w : spec.inputs[i].weights) {
        if (w > 0) qs.push_back(cum + w / 2);
        cum += w;
      }
    }
    for (double q : qs) {
      json copy = doc;
      std::vector<Problem> problems;
      const auto overrides = at_quantile(spec, i, q);
      scenario::apply_overrides(copy, overrides, problems);
      try {
        if (problems.empty()) scenario::load_json(copy, file, base_dir);
      } catch (const InputError& e) {
        problems = e.problems();
      }
      if (problems.empty()) continue;
      const std::string value = overrides.empty() ? "" : overrides.front().value;
      throw InputError(
          file, {{spec.inputs[i].at, where(spec.inputs[i], q) + " (" + spec.inputs[i].path + "=" +
                                         (value.size() > 80 ? value.substr(0, 77) + "..." : value) +
                                         ") the scenario is refused: " + problems.front().path +
                                         ": " + problems.front().message}});
    }
  }
}

}  // namespace

std::optional<Spec> load_spec(const std::string& scenario_path,
                              const std::vector<scenario::Override>& common,
                              const std::string& block_file) {
  std::string error;
  const std::string text = read_text(scenario_path, error);
  if (!error.empty()) throw InputError(scenario_path, {{"", "cannot read the scenario: " + error}});
  auto doc = parse_json(text, scenario_path);
  if (!doc) throw InputError(scenario_path, {{"", "not JSON"}});
  std::vector<Problem> problems;
  scenario::apply_overrides(*doc, common, problems);
  std::string file = scenario_path;
  if (!block_file.empty()) {
    const std::string block_text = read_text(block_file, error);
    if (!error.empty()) throw InputError(block_file, {{"", "cannot read it: " + error}});
    auto block = parse_json(block_text, block_file);
    if (!block || !block->is_object())
      throw InputError(block_file, {{"",
                                     "expected a JSON object: an uncertainty block "
                                     "{\"inputs\": [...]} or {\"uncertainty\": {...}}"}});
    (*doc)["uncertainty"] = block->contains("uncertainty") ? block->at("uncertainty") : *block;
    file = block_file;
  }
  if (!problems.empty()) throw InputError(scenario_path, std::move(problems));
  std::string base_dir = std::filesystem::path(scenario_path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  auto spec = read_spec(*doc, base_dir, problems);
  if (!problems.empty()) throw InputError(file, std::move(problems));
  if (spec) check_extremes(*spec, *doc, file, base_dir);
  return spec;
}

}  // namespace sonicsim::uncertainty
