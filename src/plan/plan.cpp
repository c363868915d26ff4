// plan(), step by step: the question checked against the scenario, its threshold, the analytic
// answers over a range far wider than any site, then simulations with replications from a
// bracket around those answers (search.cpp has the searches, questions.hpp what each question
// compares, output.cpp the report).
#include <sonicsim/plan/plan.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/scenario/link_names.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

#include "autoscaled_pool.hpp"
#include "questions.hpp"
#include "sequential.hpp"
#include "workload_flow.hpp"
#include "workloads.hpp"

namespace sonicsim::plan {

namespace {

using detail::fmt;
using detail::lower_is_better;
using detail::meets;
using detail::round_bandwidth;

// --link naming no link of the scenario: the links it has, by the names --link takes, under the
// path where the link would be.
scenario::InputError no_such_link(const std::string& scenario_path, const scenario::Scenario& base,
                                  const std::string& name) {
  std::vector<std::string> names;
  std::string present;
  for (const auto& l : detail::scenario_links(base)) {
    names.push_back(l.name);
    present += (present.empty() ? "" : ", ") + l.name;
  }
  if (base.sites.empty())
    return scenario::InputError(
        scenario_path,
        {{"network." + name, "--link " + name + ": the scenario has no such link (its links: " +
                                 (present.empty() ? "none" : present) + ")"}});
  std::string where = "sites";
  if (scenario::wan_link_of(name)) where = "wan.links";
  for (std::size_t i = 0; i < base.sites.size(); ++i) {
    const std::string prefix = base.sites[i].name + "/";
    if (name.rfind(prefix, 0) == 0)
      where = "sites[" + std::to_string(i) + "].network." + name.substr(prefix.size());
  }
  std::string message =
      "--link " + name + ": found `" + name +
      "`, expected a link of the scenario (its links: " + (present.empty() ? "none" : present) +
      ")";
  if (scenario::link_class_named(name))
    message += "; with sites a link is named by its site (SITE/" + name +
               ") or, between sites, by the WAN (wan/NAME)";
  else if (const std::string hint = did_you_mean(name, names); !hint.empty())
    message += "; " + hint;
  return scenario::InputError(scenario_path, {{where, message}});
}

// The question checked against the scenario, and what it implies (the varied path, the metric
// compared) filled into the report. Returns the scenario as given.
scenario::Scenario prepare(Report& r, const std::string& scenario_path,
                           const std::vector<scenario::Override>& common, Options o) {
  r.scenario_file = scenario_path;
  r.common = common;
  auto base = scenario::load_file(scenario_path, common);
  r.scenario_name = base.name;
  r.base_seed = static_cast<std::int64_t>(base.seed);
  r.duration_s = base.duration;
  const auto shortened = detail::short_run_of(o, base);
  r.short_run_s = shortened.duration_s;
  r.short_run_off = shortened.off;
  if (o.replications < 1) o.replications = 1;
  if (o.question == Question::MinBandwidth) {
    const auto link = detail::link_named(base, o.link);
    if (!link) throw no_such_link(scenario_path, base, o.link);
    if (o.vary.empty()) o.vary = link->bandwidth_path;
  }
  // An open loop or several workloads: what the constraint reads, and max-cpu's --vary.
  r.options = o;
  detail::scope_workloads(r, base);
  o = r.options;
  if (o.vary.empty())
    o.vary = o.question == Question::MinDevices ? "servers.0.count" : "workload.jobs";
  if (o.question == Question::Cost) {
    o.constraint = Constraint::None;
    o.price_overrides = price_overrides(scenario_path, common, o.prices);
    o.scenario_priced =
        base.prices || std::any_of(base.devices.begin(), base.devices.end(),
                                   [](const auto& d) { return d.power.has_value(); });
  }
  r.options = o;
  r.metric_key = detail::metric_key(o);
  r.comparison = o.question == Question::Cost ? "min" : lower_is_better(o) ? "<=" : ">=";
  r.geometric = detail::is_continuous(o);
  if (o.range_is_rate && !detail::varies_rate(o.vary))
    throw scenario::InputError(
        scenario_path, {{o.vary, "--range: found a rate (with /s), expected values of " + o.vary +
                                     ", which is not an arrival rate"}});
  for (const auto& bound : {o.range_min, o.range_max})
    if (bound && !r.geometric && *bound != std::floor(*bound))
      throw scenario::InputError(scenario_path,
                                 {{o.vary, "--range: found " + fmt(*bound, 10) +
                                               ", expected integers: " + o.vary + " is a count"}});
  return base;
}

// The varied path's value in the scenario as given. The path must exist and take a value: a
// typo is bad input, named before anything runs.
double base_value_of(const Report& r, const scenario::Scenario& base) {
  const Options& o = r.options;
  const double base_value =
      detail::is_bandwidth(o) ? detail::link_named(base, o.link)->spec.bandwidth
      : detail::varies_rate(o.vary)
          ? detail::current_rate(base, o.vary).value_or(1.0)
          : static_cast<double>(detail::current_integer(base, o.vary).value_or(1));
  auto overrides = r.common;
  overrides.push_back({o.vary, format_value(o, base_value)});
  try {
    scenario::load_file(r.scenario_file, overrides);
  } catch (const scenario::InputError& e) {
    throw scenario::InputError(r.scenario_file,
                               {{o.vary, "--vary " + o.vary + ": " + std::string(e.what())}});
  }
  return base_value;
}

// The most jobs the search may try: with waves, jobs beyond those the flow starts in the run never
// start, so a question about them has no answer.
std::optional<double> jobs_cap(const Report& r) {
  if (!r.flow || !r.flow->most_starts || r.options.vary != r.flow->path + ".jobs")
    return std::nullopt;
  return static_cast<double>(std::max<std::int64_t>(1, *r.flow->most_starts));
}

// One workload's job flow checked: a population the flow never starts (jobs beyond its waves, by
// --set or in the scenario) is refused unless its jobs are what the search varies; those are
// capped, and a --range reaching past them refused. `path`: "workload" or "workloads.I".
void check_one_flow(Report& r, const scenario::Scenario& one, const std::string& path, bool keep) {
  auto load = detail::flow_equivalent(one).load;
  load.path = path;
  const Options& o = r.options;
  const bool varied = o.vary == path + ".jobs";
  if (keep || varied) r.flow = load;
  const FlowLoad& f = load;
  if (!f.most_starts) return;
  const std::string run = util::format_time(one.duration) + " run";
  const std::string most = std::to_string(*f.most_starts);
  const std::string why =
      "the job flow (" + f.rule + ") starts at most " + most + " jobs in the " + run;
  const std::string flow = path + ".flow", jobs = path + ".jobs";
  const std::string keys = flow + ".waves.size, " + flow + ".waves.every or duration";
  if (varied) {
    const double top = static_cast<double>(*f.most_starts);
    if ((o.range_max && *o.range_max > top) || (o.range_min && *o.range_min > top))
      throw scenario::InputError(
          r.scenario_file,
          {{flow, "--range " + format_value(o, o.range_min.value_or(1.0)) + ":" +
                      (o.range_max ? format_value(o, *o.range_max) : "") + ": " + why +
                      ", so more jobs never start and cannot change the answer; search up to " +
                      most + ", or start more jobs (" + keys + ")"}});
    return;
  }
  if (f.jobs > *f.most_starts)
    throw scenario::InputError(
        r.scenario_file,
        {{jobs, jobs + " = " + std::to_string(f.jobs) + ", but " + why + ": " +
                    std::to_string(f.jobs - *f.most_starts) +
                    " never start, so this would plan for " + most + " jobs, not " +
                    std::to_string(f.jobs) + ". Set " + jobs + " <= " + most + ", or change " +
                    keys + " so that the flow starts them"}});
}

// Job flows into the report, and the questions they make ill-posed refused (check_one_flow):
// with several workloads each workload's flow, the varied one's kept for the report. Without a
// flow nothing changes.
void check_flow(Report& r, const scenario::Scenario& base) {
  if (base.single_workload()) {
    if (base.workload().flow) check_one_flow(r, base, "workload", true);
    return;
  }
  for (std::size_t i = 0; i < base.workloads.size(); ++i)
    if (base.workloads[i].flow)
      check_one_flow(r, detail::alone(base, i), "workloads." + std::to_string(i), false);
}

// set_threshold for an open loop or several workloads: N_CPU is the threads they run together
// (an open loop's events in flight), and --slowdown's reference each workload's own; with every
// workload constrained the threshold is a ratio to those references.
double set_mix_threshold(Report& r, const scenario::Scenario& base, double base_value) {
  const Options& o = r.options;
  const MixLoad& mix = *r.mix;
  double n_cpu = 0.0, nominal = 0.0;
  for (const auto& t : mix.terms) {
    n_cpu += t.n_cpu;
    nominal += t.n_cpu_nominal;
  }
  const auto first = analytic::predict(detail::alone(base, 0));
  r.base = {{"value", base_value},          {"n_cpu", n_cpu},
            {"n_cpu_nominal", nominal},     {"n_gpu", first.n_gpu},
            {"t_cpu_s", first.t_cpu_s},     {"t_gpu_s", first.t_gpu_s},
            {"t_ideal_s", first.t_ideal_s}, {"saturation_n_cpu_per_gpu", nullptr}};
  if (base.single_workload() && std::isfinite(first.saturation_rate_per_s))
    r.base["saturation_rate_per_s"] = first.saturation_rate_per_s;
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      r.threshold = o.min_per_job_throughput;
      break;
    case Constraint::P99Latency:
      r.threshold = o.max_p99_latency_s;
      break;
    default: {
      const double factor = 1.0 + o.slowdown_percent / 100.0;
      const bool every = o.scope.several && !o.scope.index;
      const std::size_t w = o.scope.index.value_or(0);
      double ref = mix.terms.at(w).reference_s;
      // min-bandwidth compares with t_ideal without the link's transfer time, for each workload.
      if (detail::is_bandwidth(o) && o.reference == Reference::Ideal) {
        auto overrides = r.common;
        overrides.push_back({o.vary, fmt(detail::kUnlimitedBandwidth, 17)});
        const auto unlimited = scenario::load_file(r.scenario_file, overrides);
        for (std::size_t i = 0; i < mix.terms.size(); ++i) {
          const double t = analytic::predict(detail::alone(unlimited, i)).t_ideal_s;
          r.mix->terms[i].reference_s = t;
          if (i == w) ref = t;
          if (every) r.options.scope.references.at(i) = t;
        }
      }
      if (every) {
        r.threshold = factor;
      } else {
        r.reference_s = ref;
        r.threshold = ref * factor;
      }
    }
  }
  return *r.threshold;
}

// The scenario's own figures into the report, and the threshold the constraint sets (0 for cost,
// which has none).
double set_threshold(Report& r, const scenario::Scenario& base, double base_value) {
  const Options& o = r.options;
  if (r.mix) return set_mix_threshold(r, base, base_value);
  // With a job flow, the population it runs on average (t_ideal does not depend on it).
  const auto prediction = analytic::predict(detail::flow_equivalent(base).scenario);
  r.base = {{"value", base_value},
            {"n_cpu", r.flow ? nlohmann::json(r.flow->mean_running_threads)
                             : nlohmann::json(prediction.n_cpu)},
            {"n_cpu_nominal", base.workload().n_threads()},
            {"n_gpu", prediction.n_gpu},
            {"t_cpu_s", prediction.t_cpu_s},
            {"t_gpu_s", prediction.t_gpu_s},
            {"t_ideal_s", prediction.t_ideal_s},
            {"saturation_n_cpu_per_gpu", std::isfinite(prediction.saturation_n_cpu_per_gpu)
                                             ? nlohmann::json(prediction.saturation_n_cpu_per_gpu)
                                             : nlohmann::json(nullptr)}};
  if (o.question == Question::Cost) return 0.0;
  double threshold = 0.0;
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      threshold = o.min_per_job_throughput;
      break;
    case Constraint::P99Latency:
      threshold = o.max_p99_latency_s;
      break;
    default: {
      double ref = prediction.t_cpu_s;
      if (o.reference == Reference::Ideal) {
        ref = prediction.t_ideal_s;
        if (detail::is_bandwidth(o)) {
          auto overrides = r.common;
          overrides.push_back({o.vary, fmt(detail::kUnlimitedBandwidth, 17)});
          ref = analytic::predict(scenario::load_file(r.scenario_file, overrides)).t_ideal_s;
        }
      }
      r.reference_s = ref;
      threshold = ref * (1.0 + o.slowdown_percent / 100.0);
    }
  }
  r.threshold = threshold;
  return threshold;
}

// The domain the analytic models search: far wider than any site (up to the jobs a flow starts).
Domain analytic_domain(const Report& r) {
  const Options& o = r.options;
  Domain wide;
  wide.geometric = r.geometric;
  wide.tolerance = r.geometric ? 0.001 : 0.0;
  const bool rate = detail::varies_rate(o.vary);
  wide.min = rate          ? detail::kRateMin
             : r.geometric ? detail::kBandwidthMin
                           : std::max(1.0, o.range_min.value_or(1.0));
  wide.max = rate          ? detail::kRateMax
             : r.geometric ? detail::kBandwidthMax
                           : jobs_cap(r).value_or(detail::kIntegerCap);
  wide.min = std::min(wide.min, wide.max);
  return wide;
}

// The analytic models plan asks, and what one of them says at a value.
enum class AnalyticModel { formula, mva, mva_batched };
std::optional<double> said(const AnalyticPoint& a, AnalyticModel m) {
  return m == AnalyticModel::formula ? a.formula : m == AnalyticModel::mva ? a.mva : a.mva_batched;
}

// Whether the formula (use_mva: MVA) has a view of the metric at all.
bool has_view(const Report& r, double base_value, bool use_mva) {
  try {
    const auto a = detail::predict_at(r.scenario_file, r.common, r.options, base_value);
    return (use_mva ? a.mva : a.formula).has_value();
  } catch (const scenario::InputError&) {
    return true;  // the value is refused; the search says so
  }
}

// A model's answer, searched over a domain far wider than any site; nullopt when that model
// has no view of the metric.
std::optional<double> analytic_answer(const Report& r, double base_value, double threshold,
                                      AnalyticModel model) {
  const Options& o = r.options;
  const Domain wide = analytic_domain(r);
  const bool ok_below = o.question == Question::MaxCpu;
  const auto value_at = [&](double v) -> std::optional<double> {
    try {
      return said(detail::predict_at(r.scenario_file, r.common, o, v), model);
    } catch (const scenario::InputError&) {
      return kInf * (lower_is_better(o) ? 1.0 : -1.0);  // a value the scenario refuses
    }
  };
  if (!value_at(base_value)) return std::nullopt;  // this model has no view of the metric
  if (o.question == Question::Cost) {
    return find_minimum(wide, base_value, std::max(1.0, base_value / 2.0),
                        [&](const std::vector<double>& vs) {
                          std::vector<double> out;
                          for (double v : vs) out.push_back(value_at(v).value_or(kInf));
                          return out;
                        });
  }
  const auto b =
      find_boundary(wide, ok_below, base_value, base_value, [&](const std::vector<double>& vs) {
        std::vector<bool> out;
        for (double v : vs)
          out.push_back(
              meets(o, value_at(v).value_or(lower_is_better(o) ? kInf : -kInf), threshold));
        return out;
      });
  return b.ok;
}

// Every missing analytic answer explained (questions.hpp, why_none). A max-cpu answer at the most
// jobs a flow starts is no answer: the constraint still holds where no further job starts.
void explain_none(Report& r, double base_value) {
  const Domain wide = analytic_domain(r);
  const double best = r.options.question == Question::MaxCpu ? wide.min : wide.max;
  const auto cap = jobs_cap(r);
  for (const bool use_mva : {false, true}) {
    auto& answer = use_mva ? r.mva_answer : r.formula_answer;
    auto& none = use_mva ? r.mva_none : r.formula_none;
    if (answer && cap && r.options.question == Question::MaxCpu && *answer >= *cap) {
      answer.reset();
      none = detail::flow_cap_reason(r);
    } else if (!answer) {
      none = detail::why_none(r, best, use_mva, has_view(r, base_value, use_mva));
    }
  }
  if (r.mva_batched_answer && cap && r.options.question == Question::MaxCpu &&
      *r.mva_batched_answer >= *cap)
    r.mva_batched_answer.reset();
}

// The range the simulations search: --range, else around the analytic guesses [g_lo, g_hi].
Domain simulated_range(const Report& r, double base_value, double g_lo, double g_hi) {
  const Options& o = r.options;
  Domain d;
  d.geometric = r.geometric;
  d.tolerance = o.tolerance;
  if (detail::varies_rate(o.vary)) {
    // An open loop far past saturation only grows its queue: a few times the guess is enough.
    d.min = o.range_min.value_or(std::max(detail::kRateMin, round_bandwidth(g_lo / 64.0)));
    d.max = o.range_max.value_or(std::min(detail::kRateMax, round_bandwidth(g_hi * 4.0)));
  } else if (r.geometric) {
    d.min = o.range_min.value_or(std::max(detail::kBandwidthMin, round_bandwidth(g_lo / 64.0)));
    d.max = o.range_max.value_or(std::min(detail::kBandwidthMax, round_bandwidth(g_hi * 64.0)));
  } else {
    d.min = std::max(1.0, o.range_min.value_or(1.0));
    d.max = o.range_max.value_or(
        std::min(detail::kIntegerCap, std::max({64.0, 4.0 * g_hi, 2.0 * base_value})));
  }
  if (!o.range_max)
    d.max = std::max(d.max, detail::varies_rate(o.vary) ? d.min * 4.0
                            : r.geometric               ? d.min * 64.0
                                                        : 2.0 * d.min);
  if (const auto cap = jobs_cap(r)) d.max = std::min(d.max, *cap);  // no job starts beyond
  if (!(d.min <= d.max))
    throw scenario::InputError(r.scenario_file,
                               {{"", "--range: the low end " + format_value(o, d.min) +
                                         " is above the high end " + format_value(o, d.max)}});
  return d;
}

// The simulations of a search: each value once, its replications together, every one kept in
// the report in the order simulated.
class Simulations {
 public:
  Simulations(Report& r, const Simulate& simulate, double threshold)
      : r_(r), simulate_(simulate), threshold_(threshold) {}

  // One search round: simulates the values not simulated yet.
  void run(const std::vector<double>& values) {
    ++round_;
    const Options& o = r_.options;
    std::vector<double> fresh;
    for (double v : values)
      if (!index_.count(v) && std::find(fresh.begin(), fresh.end(), v) == fresh.end())
        fresh.push_back(v);
    if (o.on_status && !fresh.empty()) o.on_status(status(fresh.size()));
    // Adaptive run length: shortened runs first; the values they decide stop there.
    std::vector<double> full = fresh;
    if (r_.short_run_s > 0.0 && !fresh.empty()) full = run_short(fresh);
    // Sequential stopping: a value's replications stop once its verdict is certain.
    const auto decided = [this](double v, const std::vector<points::PointResult>& res) {
      return point(v, res).certain;
    };
    const auto reps = full.empty() ? std::vector<detail::Replicated>{}
                                   : detail::replicate(o, r_.base_seed, full, simulate_, decided);
    for (std::size_t i = 0; i < full.size(); ++i) {
      Point p = point(full[i], reps[i].results);
      p.stopped = reps[i].stopped;
      add(std::move(p), r_.duration_s);
    }
  }
  bool has(double v) const { return index_.count(v) > 0; }
  const Point& at(double v) const { return r_.points.at(index_.at(v)); }

  // The verdicts of `values`, simulated as one round: ok, or certainly `want` (ok or not).
  std::vector<bool> ok(const std::vector<double>& values) {
    run(values);
    std::vector<bool> out;
    for (double v : values) out.push_back(at(v).ok);
    return out;
  }
  std::vector<bool> certainly(bool want_ok, const std::vector<double>& values) {
    run(values);
    std::vector<bool> out;
    for (double v : values) out.push_back(at(v).certain && at(v).ok == want_ok);
    return out;
  }

 private:
  // The bracket so far and the values the search may still need: bisection halves it per round
  // (a k-section with probes), and the uncertainty's search takes a few more.
  SearchStatus status(std::size_t fresh) const {
    const Options& o = r_.options;
    SearchStatus s;
    s.values_done = static_cast<int>(r_.points.size());
    s.values_now = static_cast<int>(fresh);
    const auto human = [&](double v) { return detail::show_value(o, v); };
    if (o.question == Question::Cost) {
      s.bracket = "[" + human(r_.bracket_low) + ", " + human(r_.bracket_high) + "]";
      s.values_expected = s.values_done + s.values_now + 3;
      return s;
    }
    const bool ok_below = o.question == Question::MaxCpu;
    std::optional<double> ok, fail;
    for (const auto& p : r_.points)
      if (p.ok && (!ok || (ok_below ? p.value > *ok : p.value < *ok))) ok = p.value;
    for (const auto& p : r_.points)
      if (!p.ok && (!ok || (ok_below ? p.value > *ok : p.value < *ok)) &&
          (!fail || (ok_below ? p.value < *fail : p.value > *fail)))
        fail = p.value;
    double rounds = 2.0;  // a bracket still to find
    if (ok && fail) {
      const double lo = std::min(*ok, *fail), hi = std::max(*ok, *fail);
      const double halvings = r_.geometric ? std::log2(std::log(hi / lo) / std::log1p(o.tolerance))
                                           : std::log2(hi - lo);
      rounds = std::max(0.0, std::ceil(halvings / std::log2(o.probes + 1.0)));
      s.bracket = "[" + human(lo) + ", " + human(hi) + "]";
    }
    s.values_expected =
        s.values_done + s.values_now + static_cast<int>(rounds) * std::max(1, o.probes) + 2;
    return s;
  }

  // A value's point into the report, its runs `run_s` simulated seconds each.
  void add(Point p, double run_s) {
    charge(p.seeds.size(), run_s);
    p.run_s = run_s;
    index_[p.value] = r_.points.size();
    r_.points.push_back(std::move(p));
  }
  // `runs` simulations of `run_s` simulated seconds each, into the report's totals.
  void charge(std::size_t runs, double run_s) {
    r_.simulations += static_cast<int>(runs);
    r_.simulated_s += run_s * static_cast<double>(runs);
  }

  // The shortened runs of `values` (min_replications each, together): the values they decide
  // go into the report; returns the others, for full-length runs.
  std::vector<double> run_short(const std::vector<double>& values) {
    Options first = r_.options;
    first.sequential = false;
    first.replications = detail::first_replications(r_.options);
    const auto never = [](double, const std::vector<points::PointResult>&) { return false; };
    const auto reps = detail::replicate(first, r_.base_seed, values, simulate_, never,
                                        {{"duration", detail::fmt(r_.short_run_s, 17)}});
    std::vector<double> rest;
    for (std::size_t i = 0; i < values.size(); ++i) {
      Point p = point(values[i], reps[i].results);
      r_.short_simulations += static_cast<int>(reps[i].results.size());
      if (detail::short_decides(r_.options, p, threshold_)) {
        p.stopped = "short";
        add(std::move(p), r_.short_run_s);
      } else {
        rest.push_back(values[i]);
        charge(reps[i].results.size(), r_.short_run_s);
      }
    }
    return rest;
  }

  // The point of `value` from its replications' results, seeds base_seed on.
  Point point(double value, const std::vector<points::PointResult>& results) const {
    const Options& o = r_.options;
    Point p;
    p.value = value;
    p.order = round_;
    std::vector<double> metric;
    std::map<std::string, std::vector<double>> figures;
    for (std::size_t k = 0; k < results.size(); ++k) {
      const auto& res = results[k];
      p.seeds.push_back(r_.base_seed + static_cast<std::int64_t>(k));
      if (!res.ok) {
        const std::string what = o.vary + "=" + format_value(o, p.value) + ", seed " +
                                 std::to_string(r_.base_seed + static_cast<std::int64_t>(k)) +
                                 ": " + res.error;
        if (res.input_error) throw scenario::InputError(r_.scenario_file, {{o.vary, what}});
        throw std::runtime_error("a simulation failed at " + what);
      }
      metric.push_back(metric_of(o, res.results));
      detail::add_summary(o, res.results, figures);
    }
    p.metric = statistics(metric);
    for (const auto& [key, vs] : figures) {
      const double mean = statistics(vs).mean;
      p.summary[key] = std::isfinite(mean) ? nlohmann::json(mean) : nlohmann::json(nullptr);
    }
    if (o.question != Question::Cost) {
      p.ok = meets(o, p.metric.mean, threshold_);
      const double worst = p.metric.mean + (lower_is_better(o) ? 1 : -1) * p.metric.ci95;
      const double best = p.metric.mean - (lower_is_better(o) ? 1 : -1) * p.metric.ci95;
      p.certain = p.ok ? meets(o, worst, threshold_) : !meets(o, best, threshold_);
    }
    return p;
  }

  Report& r_;
  const Simulate& simulate_;
  double threshold_;
  std::map<double, std::size_t> index_;
  int round_ = 0;
};

// cost: the cheapest value, by pattern search from between the analytic answers. Every value
// whose cost interval reaches the optimum's is as good as far as the replications can tell.
void find_cheapest(Report& r, Simulations& sims, const Domain& d, double g_lo, double g_hi) {
  const double c = d.clamp(std::round((g_lo + g_hi) / 2.0));
  const double step = std::max(1.0, std::ceil((g_hi - g_lo) / 2.0));
  r.bracket_low = d.clamp(c - step);
  r.bracket_high = d.clamp(c + step);
  const double best = find_minimum(d, c, step, [&](const std::vector<double>& vs) {
    sims.run(vs);
    std::vector<double> out;
    for (double v : vs) out.push_back(sims.at(v).metric.mean);
    return out;
  });
  r.answer.status = "found";
  r.answer.value = best;
  const Point& b = sims.at(best);
  double lo = best, hi = best;
  for (const auto& p : r.points)
    if (p.metric.mean - p.metric.ci95 <= b.metric.mean + b.metric.ci95) {
      lo = std::min(lo, p.value);
      hi = std::max(hi, p.value);
    }
  r.answer.interval_low = lo;
  r.answer.interval_high = hi;
}

// Between the farthest value that is surely ok and the nearest one that surely fails, the
// replications cannot tell: that is the answer's uncertainty.
void set_uncertainty(Report& r, Simulations& sims, const Domain& d, const Boundary& b) {
  const bool ok_below = r.options.question == Question::MaxCpu;
  std::optional<double> sure_ok, sure_fail;
  for (const auto& p : r.points) {
    if (!p.certain) continue;
    if (p.ok != (ok_below ? p.value <= *b.ok : p.value >= *b.ok)) continue;  // noise across
    const bool beyond_ok = [&](double x, double y) { return ok_below ? x > y : x < y; }(
                               p.value, sure_ok.value_or(ok_below ? -kInf : kInf));
    if (p.ok && beyond_ok) sure_ok = p.value;
    const bool nearer_fail = [&](double x, double y) { return ok_below ? x < y : x > y; }(
                                 p.value, sure_fail.value_or(ok_below ? kInf : -kInf));
    if (!p.ok && nearer_fail) sure_fail = p.value;
  }
  // The bisection's neighbours may be uncertain; the certain verdicts are monotone too, so the
  // same search finds the nearest certain ones (no extra simulation when they already are).
  const auto certain = [&](bool want_ok) {
    return [&sims, want_ok](const std::vector<double>& vs) { return sims.certainly(want_ok, vs); };
  };
  Domain ok_side = d, fail_side = d;
  (ok_below ? ok_side.max : ok_side.min) = *b.ok;
  (ok_below ? fail_side.min : fail_side.max) = *b.fail;
  // Without a certain value simulated yet, the range's end is simulated first: when even it is
  // not certain, no value on that side is. When it is, the search starts at the bisection's
  // edge and steps outward with growing steps (Options::interval_from_edge); before issue 39 it
  // bisected from the end all the way back.
  const auto nearest = [&](bool want_ok, std::optional<double> known, double end, double from,
                           const Domain& side, bool below) -> std::optional<double> {
    if (!known && r.options.interval_from_edge) {
      if (!sims.certainly(want_ok, {end})[0]) return std::nullopt;
      known = from;
    }
    return find_boundary(side, below, known.value_or(end), from, certain(want_ok)).ok;
  };
  sure_ok = nearest(true, sure_ok, ok_below ? d.min : d.max, *b.ok, ok_side, ok_below);
  sure_fail = nearest(false, sure_fail, ok_below ? d.max : d.min, *b.fail, fail_side, !ok_below);
  const double step = r.geometric ? 0.0 : 1.0;
  if (ok_below) {
    r.answer.interval_low = sure_ok.value_or(d.min);
    r.answer.interval_high = sure_fail ? *sure_fail - step : d.max;
  } else {
    r.answer.interval_low = sure_fail ? *sure_fail + step : d.min;
    r.answer.interval_high = sure_ok.value_or(d.max);
  }
  if (*r.answer.interval_low > *r.answer.value) r.answer.interval_low = r.answer.value;
  if (*r.answer.interval_high < *r.answer.value) r.answer.interval_high = r.answer.value;
}

// max-cpu, min-devices, min-bandwidth: the boundary by bracket and bisection, from a first
// round that straddles the analytic answers [g_lo, g_hi], one value each side.
void find_limit(Report& r, Simulations& sims, const Domain& d, double g_lo, double g_hi) {
  const Options& o = r.options;
  const bool ok_below = o.question == Question::MaxCpu;
  // No analytic answer for max-cpu: the models say even the low end misses; check it first.
  const bool none = !r.formula_answer && !r.mva_answer;
  double ok_guess = none && ok_below ? d.min : ok_below ? g_lo : g_hi;
  double fail_guess = ok_below ? (r.geometric ? g_hi * (1.0 + 2.0 * o.tolerance) : g_hi + 1.0)
                               : (r.geometric ? g_lo / (1.0 + 2.0 * o.tolerance) : g_lo - 1.0);
  // MVA with batching and links is the closest guess: the first round is it and its neighbour
  // on the failing side. Far off, the bracket only grows from there, to the same boundary
  // (integers: the bisection ends on adjacent values whatever the start; a bandwidth's ends
  // depend on the start within the tolerance, so it keeps the old bracket and its answer). When
  // it agrees with MVA (nothing batches, no link binds) it adds nothing, and the bracket that
  // also holds the formula (exact on deterministic servers, where MVA is not) stays.
  if (r.mva_batched_answer && r.mva_batched_answer != r.mva_answer && !r.geometric) {
    const double g = d.clamp(*r.mva_batched_answer);
    ok_guess = g;
    fail_guess = ok_below ? g + 1.0 : g - 1.0;
  }
  if (o.warm_start) {
    ok_guess = d.clamp(o.warm_start->first);
    fail_guess = d.clamp(o.warm_start->second);
  }
  if (r.geometric) {
    ok_guess = round_bandwidth(ok_guess);
    fail_guess = round_bandwidth(fail_guess);
  }
  r.bracket_low = d.clamp(std::min(ok_guess, fail_guess));
  r.bracket_high = d.clamp(std::max(ok_guess, fail_guess));
  const auto b = find_boundary(
      d, ok_below, ok_guess, fail_guess, [&](const std::vector<double>& vs) { return sims.ok(vs); },
      o.probes);

  const auto human = [&](double v) { return detail::show_value(o, v); };
  const std::string range = "[" + human(d.min) + ", " + human(d.max) + "]";
  if (!b.ok) {
    if (ok_below) {
      r.answer.status = "unsatisfiable";
      r.answer.fail_value = b.fail;
      return;
    }
    // Raising the range helps only where the varied resource binds: when the models find no
    // value at all, they say what binds instead.
    const NoAnswer* why = r.formula_none && r.formula_none->kind != "no_view" ? &*r.formula_none
                          : r.mva_none && r.mva_none->kind != "no_view"       ? &*r.mva_none
                                                                              : nullptr;
    std::string advice = " (raise the high end with --range LO:HI)";
    if (none && why)
      advice = "; the formula and MVA find no such value either: " + why->text;
    else if (!none && g_lo <= d.max)
      advice = "; the formula and MVA expected " + human(g_lo) +
               " to do: the simulation binds where they do not (the points' summaries say "
               "where: device utilization, p99 latency; --json), or the answer lies above the "
               "range (raise the high end with --range LO:HI)";
    if (!r.autoscaler.empty())
      advice += "; the pool's autoscaler (" + r.autoscaler +
                ") decides how many of those devices run, and may not scale up far or fast "
                "enough in this run (its threshold, polling_interval, window and scale_up): plan "
                "the fixed pool with --set " +
                r.autoscaler + "=null to tell the two apart";
    throw scenario::InputError(
        r.scenario_file,
        {{o.vary, "the constraint (" + detail::describe_constraint(r) +
                      ") is not met anywhere in the range " + range + ": at " + o.vary + "=" +
                      human(d.max) + " the " + r.metric_key + " is " +
                      (sims.has(d.max) ? fmt(sims.at(d.max).metric.mean) : std::string("n/a")) +
                      advice}});
  }
  if (!b.fail) {
    if (!ok_below) {
      r.answer.status = "at_range_min";
      r.answer.value = b.ok;
      r.answer.interval_low = r.answer.interval_high = b.ok;
      return;
    }
    if (const auto cap = jobs_cap(r); cap && d.max >= *cap)
      throw scenario::InputError(
          r.scenario_file,
          {{r.flow->path + ".flow", "the constraint (" + detail::describe_constraint(r) +
                                        ") still holds at " + o.vary + "=" + human(*cap) + ", " +
                                        detail::flow_cap_reason(r).text}});
    throw scenario::InputError(
        r.scenario_file,
        {{o.vary, "the constraint (" + detail::describe_constraint(r) +
                      ") still holds at the top of the "
                      "range " +
                      range + ", so its limit lies beyond it (raise it with --range LO:HI)"}});
  }
  r.answer.status = "found";
  r.answer.value = b.ok;
  r.answer.fail_value = b.fail;
  set_uncertainty(r, sims, d, b);
}

}  // namespace

Report plan(const std::string& scenario_path, const std::vector<scenario::Override>& common,
            Options options, const Simulate& simulate) {
  Report r;
  const auto base = prepare(r, scenario_path, common, std::move(options));
  const double base_value = base_value_of(r, base);
  check_flow(r, base);
  detail::check_autoscaled_count(r, base);
  const double threshold = set_threshold(r, base, base_value);
  r.formula_answer = analytic_answer(r, base_value, threshold, AnalyticModel::formula);
  r.mva_answer = analytic_answer(r, base_value, threshold, AnalyticModel::mva);
  // Cost keeps the pattern search between the formula and MVA: no price at batched MVA yet.
  if (r.options.question != Question::Cost)
    r.mva_batched_answer = analytic_answer(r, base_value, threshold, AnalyticModel::mva_batched);
  explain_none(r, base_value);
  if (r.options.analytic_only) {
    r.answer.status = "analytic_only";
    return r;
  }

  std::vector<double> guesses;
  for (const auto& a : {r.formula_answer, r.mva_answer})
    if (a) guesses.push_back(*a);
  if (guesses.empty()) guesses.push_back(base_value);
  const double g_lo = *std::min_element(guesses.begin(), guesses.end());
  const double g_hi = *std::max_element(guesses.begin(), guesses.end());
  const Domain d = simulated_range(r, base_value, g_lo, g_hi);
  r.range_min = d.min;
  r.range_max = d.max;

  Simulations sims(r, simulate, threshold);
  if (r.options.question == Question::Cost)
    find_cheapest(r, sims, d, g_lo, g_hi);
  else
    find_limit(r, sims, d, g_lo, g_hi);
  return r;
}

}  // namespace sonicsim::plan
