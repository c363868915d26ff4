#include <sonicsim/gallery/reproduce.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include <nlohmann/json.hpp>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/points/children.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/overrides.hpp>
#include <sonicsim/sweep/sweep.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::gallery {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Distinct runs one call may ask for: the whole gallery needs about 150; a figures file whose
// vary and operands multiply into thousands of simulations is a mistake, refused before any.
constexpr std::size_t kMaxRuns = 2000;

// One simulation (or prediction) some figures read: a scenario and its overrides, in order.
struct RunKey {
  std::string scenario;
  std::vector<std::string> set;
  bool operator<(const RunKey& o) const {
    return std::tie(scenario, set) < std::tie(o.scenario, o.set);
  }
};

struct Run {
  bool simulate = false;
  const std::string* file = nullptr;  // the figures file and the term that first named it
  std::string asked_at;
  std::map<std::string, double, std::less<>> metrics;
};

// Problems by the figures file they are in.
using Problems = std::map<std::string, std::vector<Problem>>;

bool is_formula_metric(std::string_view metric) {
  return metric.rfind("analytic.", 0) == 0;
}

// The point of a figure: its own (no vary value) or one value of its vary.
struct Point {
  const Figure* figure;
  std::size_t value = 0;  // 0: the figure's own point; i > 0: the vary's value i - 1
};

// The figure's overrides, then the vary's (the assumption), then the term's own: a term says
// which run it is (the CPU-only baseline, `servers=[]`), whatever the assumption is.
RunKey key_of(const Point& p, const Expression& term) {
  RunKey k{term.scenario.empty() ? p.figure->scenario : term.scenario, p.figure->set};
  if (p.value > 0) {
    const auto& sets = p.figure->vary->sets[p.value - 1];
    k.set.insert(k.set.end(), sets.begin(), sets.end());
  }
  k.set.insert(k.set.end(), term.set.begin(), term.set.end());
  return k;
}

void collect(const Expression& e, const Point& p, const std::string& file,
             std::map<RunKey, Run>& runs) {
  if (e.kind == Expression::Kind::Metric) {
    Run& run = runs[key_of(p, e)];
    run.simulate = run.simulate || !is_formula_metric(e.metric);
    if (!run.file) {
      run.file = &file;
      run.asked_at = e.path;
    }
  }
  for (const Expression& o : e.operands) collect(o, p, file, runs);
}

std::vector<scenario::Override> overrides_of(const RunKey& k) {
  std::vector<scenario::Override> out;
  for (const std::string& s : k.set) out.push_back(scenario::parse_override(s));
  return out;
}

std::string describe_run(const RunKey& k) {
  std::string out = k.scenario;
  for (const std::string& s : k.set) out += " --set " + s;
  return out;
}

void store(Run& run, const nlohmann::ordered_json& results) {
  for (auto& [name, value] : sweep::flatten_metrics(results)) run.metrics[name] = value;
}

// Every run loads here first, in this process (loading and predicting start no engine): a run
// the scenario refuses is named before any simulation starts. The formula's runs are predicted
// on the way.
void load_runs(std::map<RunKey, Run>& runs, Problems& problems) {
  for (auto& [key, run] : runs) {
    try {
      const auto s = scenario::load_file(key.scenario, overrides_of(key));
      if (run.simulate) continue;
      nlohmann::ordered_json results;
      results["analytic"] =
          nlohmann::ordered_json::parse(analytic::to_json(analytic::predict(s)).dump());
      store(run, results);
    } catch (const InputError& e) {
      problems[*run.file].push_back(
          {run.asked_at, "the run " + describe_run(key) + " is refused: " + e.what()});
    }
  }
}

void simulate_runs(std::map<RunKey, Run>& runs, int workers, const ReproduceRequest& request,
                   Problems& problems) {
  std::vector<std::pair<const RunKey*, Run*>> todo;
  for (auto& [key, run] : runs)
    if (run.simulate) todo.emplace_back(&key, &run);
  std::vector<points::ChildOutcome> outcomes;
  if (request.results_of) {
    for (const auto& [key, run] : todo) {
      points::ChildOutcome o;
      try {
        o.output = request.results_of(key->scenario, key->set);
        o.ok = true;
      } catch (const InputError& e) {
        o.input_error = true;
        o.error = e.what();
      }
      outcomes.push_back(std::move(o));
    }
  } else {
    outcomes = points::run_in_children(
        todo.size(),
        [&](std::size_t i) {
          const RunKey& k = *todo[i].first;
          return request.simulate(scenario::load_file(k.scenario, overrides_of(k)));
        },
        workers);
  }
  for (std::size_t i = 0; i < todo.size(); ++i) {
    const auto& [key, run] = todo[i];
    const auto& o = outcomes[i];
    if (o.input_error) {
      problems[*run->file].push_back(
          {run->asked_at, "the run " + describe_run(*key) + " is refused: " + o.error});
      continue;
    }
    if (!o.ok)
      throw std::runtime_error("the simulation " + describe_run(*key) + " failed: " + o.error);
    try {
      store(*run, nlohmann::ordered_json::parse(o.output));
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error("the simulation " + describe_run(*key) +
                               " returned unreadable results: " + e.what());
    }
  }
}

class Evaluator {
 public:
  Evaluator(const std::map<RunKey, Run>& runs, Problems& problems)
      : runs_(runs), problems_(problems) {}

  // A result that overflowed (a product or a sum past 1.8e308) is no more a figure than 0/0:
  // NaN, shown "n/a", and never within a tolerance (an infinite product once was, every band
  // against infinity being infinite too).
  double operator()(const Expression& e, const Point& p) {
    const double v = evaluate(e, p);
    return std::isfinite(v) ? v : kNaN;
  }

 private:
  double evaluate(const Expression& e, const Point& p) {
    switch (e.kind) {
      case Expression::Kind::Number:
        return e.number;
      case Expression::Kind::Metric:
        return metric(e, p);
      default:
        break;
    }
    std::vector<double> x;
    for (const Expression& o : e.operands) x.push_back((*this)(o, p));
    // A figure that could not be read (no event after the warm-up) spoils what it enters.
    if (std::any_of(x.begin(), x.end(), [](double y) { return std::isnan(y); })) return kNaN;
    switch (e.kind) {
      case Expression::Kind::Ratio:
        return x[1] == 0.0 ? kNaN : x[0] / x[1];
      case Expression::Kind::Difference:
        return x[0] - x[1];
      case Expression::Kind::Sum:
        return sum(x);
      case Expression::Kind::Product: {
        double v = 1.0;
        for (double y : x) v *= y;
        return v;
      }
      case Expression::Kind::Min:
        return *std::min_element(x.begin(), x.end());
      case Expression::Kind::Max:
        return *std::max_element(x.begin(), x.end());
      case Expression::Kind::Jain: {
        double squares = 0.0;
        for (double y : x) squares += y * y;
        return squares == 0.0 ? kNaN : sum(x) * sum(x) / (static_cast<double>(x.size()) * squares);
      }
      default:
        return kNaN;
    }
  }

  static double sum(const std::vector<double>& x) {
    double v = 0.0;
    for (double y : x) v += y;
    return v;
  }

  double metric(const Expression& e, const Point& p) {
    const auto run = runs_.find(key_of(p, e));
    if (run == runs_.end() || run->second.metrics.empty()) return kNaN;  // its run was refused
    const auto& metrics = run->second.metrics;
    if (const auto it = metrics.find(e.metric); it != metrics.end()) return it->second;
    std::vector<std::string> names;
    for (const auto& [name, value] : metrics) names.push_back(name);
    std::string message =
        "\"" + e.metric + "\" is not a figure of the results of " + describe_run(run->first);
    if (const std::string hint = did_you_mean(e.metric, names); !hint.empty())
      message += "; " + hint;
    else
      message += "; expected a results key's dotted path (docs/results.md), as a sweep names it";
    problems_[*run->second.file].push_back({e.path + ".metric", message});
    return kNaN;
  }

  const std::map<RunKey, Run>& runs_;
  Problems& problems_;
};

std::optional<double> relative_error(const std::optional<double>& published, double value) {
  if (!published || *published == 0.0 || !std::isfinite(value)) return std::nullopt;
  const double error = (value - *published) / std::abs(*published);
  return std::isfinite(error) ? std::optional<double>(error) : std::nullopt;
}

// The first file at fault, all its problems at once (a vary repeats a figure's problem).
[[noreturn]] void throw_first(Problems& problems) {
  std::vector<Problem> first;
  for (Problem& p : problems.begin()->second)
    if (std::none_of(first.begin(), first.end(),
                     [&](const Problem& q) { return q.path == p.path && q.message == p.message; }))
      first.push_back(std::move(p));
  throw InputError(problems.begin()->first, first);
}

std::vector<Point> points_of(const Figure& f) {
  std::vector<Point> out{{&f, 0}};
  if (f.vary)
    for (std::size_t i = 1; i <= f.vary->sets.size(); ++i) out.push_back({&f, i});
  return out;
}

}  // namespace

Verdict judge(const Figure& f, double simulated) {
  const double v = f.tolerance.value;
  const double published = f.published.value_or(kNaN);  // (the loader pairs a distance with one)
  bool holds = true;
  switch (f.tolerance.kind) {
    case Tolerance::Kind::None:
      break;
    case Tolerance::Kind::Relative:
      holds = std::abs(simulated - published) <= v * std::abs(published);
      break;
    case Tolerance::Kind::Absolute:
      holds = std::abs(simulated - published) <= v;
      break;
    case Tolerance::Kind::AtLeast:
      holds = simulated >= v;
      break;
    case Tolerance::Kind::AtMost:
      holds = simulated <= v;
      break;
  }
  // Not reproduced, whatever the tolerance: a figure that is not a finite number (an overflow, a
  // figure the results lack) is no evidence, and `simulated >= v` would hold for +inf.
  if (!std::isfinite(simulated)) holds = false;
  // A figure by construction that leaves its tolerance reveals a bug: Outside, never excused.
  const bool constructed = f.by_construction.kind != Construction::Kind::None;
  if (!holds)
    return f.published && !f.miss.empty() && !constructed ? Verdict::KnownMiss : Verdict::Outside;
  if (constructed) return Verdict::ByConstruction;
  return f.published ? Verdict::Within : Verdict::Prediction;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Within:
      return "within";
    case Verdict::ByConstruction:
      return "by construction";
    case Verdict::Outside:
      return "OUTSIDE";
    case Verdict::KnownMiss:
      return "known miss";
    case Verdict::Prediction:
      return "prediction";
  }
  return "?";
}

std::size_t Reproduction::outside() const {
  std::size_t n = 0;
  for (const SystemResult& s : systems)
    for (const FigureResult& f : s.figures) n += f.verdict == Verdict::Outside;
  return n;
}

Tally tally(const Reproduction& r) {
  Tally t;
  for (const SystemResult& s : r.systems)
    for (const FigureResult& f : s.figures) {
      ++t.total;
      switch (f.verdict) {
        case Verdict::Within:
          ++t.within;
          break;
        case Verdict::ByConstruction:
          ++t.by_construction;
          t.inputs += f.figure.by_construction.kind == Construction::Kind::Input;
          t.identities += f.figure.by_construction.kind == Construction::Kind::Identity;
          t.solved += f.figure.by_construction.kind == Construction::Kind::Solved;
          break;
        case Verdict::Outside:
          ++t.outside;
          break;
        case Verdict::KnownMiss:
          ++t.known_misses;
          break;
        case Verdict::Prediction:
          ++t.predictions;
          break;
      }
    }
  return t;
}

Reproduction reproduce(const ReproduceRequest& request,
                       const std::function<void(std::size_t, int)>& on_simulating) {
  const auto wanted = [&](const Figure& f) {
    return request.only_figure.empty() || f.id == request.only_figure;
  };
  std::map<RunKey, Run> runs;
  bool any = false;
  for (const FiguresFile& file : request.files)
    for (const Figure& f : file.figures) {
      if (!wanted(f)) continue;
      any = true;
      for (const Point& p : points_of(f)) {
        collect(f.simulated, p, file.file, runs);
        if (f.formula) collect(*f.formula, p, file.file, runs);
      }
    }
  if (!any) {
    std::vector<std::string> ids;
    for (const FiguresFile& file : request.files)
      for (const Figure& f : file.figures) ids.push_back(f.id);
    std::string message = "no figure `" + request.only_figure + "`";
    if (const std::string hint = did_you_mean(request.only_figure, ids); !hint.empty())
      message += "; " + hint;
    throw InputError("--figure", {{"", message}});
  }

  if (runs.size() > kMaxRuns)
    throw InputError(request.files.size() == 1 ? request.files[0].file : "figures files",
                     {{"", "the figures ask for " + std::to_string(runs.size()) +
                               " distinct runs; expected at most " + std::to_string(kMaxRuns) +
                               " (fewer vary values or operands)"}});
  Problems problems;
  load_runs(runs, problems);
  if (!problems.empty()) throw_first(problems);
  Reproduction out;
  for (const auto& [key, run] : runs) (run.simulate ? out.runs_simulated : out.runs_predicted)++;
  if (on_simulating && out.runs_simulated)
    on_simulating(out.runs_simulated,
                  request.workers > 0 ? request.workers : points::default_workers());
  simulate_runs(runs, request.workers, request, problems);

  Evaluator eval(runs, problems);
  for (const FiguresFile& file : request.files) {
    SystemResult s{file.file,
                   file.folder,
                   file.system,
                   file.source,
                   request.binary + " reproduce " + file.file,
                   {}};
    for (const Figure& f : file.figures) {
      if (!wanted(f)) continue;
      FigureResult r;
      r.figure = f;
      const auto points = points_of(f);
      r.simulated = eval(f.simulated, points[0]);
      r.formula = f.formula ? eval(*f.formula, points[0]) : kNaN;
      for (std::size_t i = 1; i < points.size(); ++i)
        r.sweep.push_back({f.vary->values[i - 1],
                           f.vary->labels.empty() ? f.vary->values[i - 1] : f.vary->labels[i - 1],
                           eval(f.simulated, points[i]),
                           f.formula ? eval(*f.formula, points[i]) : kNaN});
      // Against a stated bound ("MI100 above A100": at_least 1) a distance means nothing.
      if (!is_bound(f.tolerance)) {
        r.error = relative_error(f.published, r.simulated);
        r.formula_error = relative_error(f.published, r.formula);
      }
      r.verdict = judge(f, r.simulated);
      r.command = s.command + " --figure " + f.id;
      s.figures.push_back(std::move(r));
    }
    if (!s.figures.empty()) out.systems.push_back(std::move(s));
  }
  if (!problems.empty()) throw_first(problems);
  return out;
}

}  // namespace sonicsim::gallery
