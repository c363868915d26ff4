// Robust plans: one warm-started search per sample of the uncertain inputs, the quantile of the
// answers, a tornado of the answer over each input, and the narrowing of the top one.
#include <sonicsim/plan/robust.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/uncertainty/samples.hpp>
#include <sonicsim/uncertainty/stats.hpp>

#include "questions.hpp"

namespace sonicsim::plan {

using uncertainty::Sample;
using uncertainty::Spec;

Quantiled robust_quantile(const std::vector<std::optional<double>>& answers, double confidence,
                          bool ok_below) {
  std::vector<double> found;
  for (const auto& a : answers)
    if (a) found.push_back(*a);
  std::sort(found.begin(), found.end());
  const auto n = static_cast<double>(answers.size());
  const auto need = static_cast<std::size_t>(std::ceil(confidence * n - 1e-9));
  Quantiled q;
  if (need == 0 || need > found.size()) return q;
  // min-*: the need-th smallest answer is enough for need samples; max-cpu: the need-th largest.
  q.value = ok_below ? found[found.size() - need] : found[need - 1];
  q.met = meets_count(answers, *q.value, ok_below);
  return q;
}

int meets_count(const std::vector<std::optional<double>>& answers, double value, bool ok_below) {
  int k = 0;
  for (const auto& a : answers)
    if (a && (ok_below ? *a >= value : *a <= value)) ++k;
  return k;
}

namespace {

struct Searcher {
  const std::string& scenario_path;
  const std::vector<scenario::Override>& common;
  const Options& options;
  const SimulateFor& simulate;
  const RobustOptions& ro;
  Robust& out;

  bool ok_below() const { return options.question == Question::MaxCpu; }

  std::vector<scenario::Override> with(const std::vector<scenario::Override>& extra) const {
    auto all = common;
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }

  // The analytic answer at a sample (formula, else MVA): the order of the searches.
  std::optional<double> analytic(const std::vector<scenario::Override>& extra) const {
    Options o = options;
    o.analytic_only = true;
    o.on_status = nullptr;
    const Report r = plan(scenario_path, with(extra), o, simulate(with(extra)));
    return r.formula_answer ? r.formula_answer : r.mva_answer;
  }

  // The search at one sample, from a first bracket at `guess`; unset when the range holds none.
  std::optional<double> answer(const std::vector<scenario::Override>& extra, double guess) {
    Options o = options;
    o.replications = ro.replications;
    o.probes = std::max(1, ro.workers / ro.replications);
    o.on_status = nullptr;
    const bool continuous = detail::is_continuous(o);
    const double step = continuous ? 1.0 + 2.0 * o.tolerance : 1.0;
    const double g = continuous ? guess : std::max(1.0, std::round(guess));
    const double other =
        ok_below() ? (continuous ? g * step : g + 1) : (continuous ? g / step : g - 1);
    o.warm_start = std::make_pair(g, other);
    ++out.searches;
    // Counted as they are asked for: a search that ends beyond the range spent them too.
    const Simulate sim = simulate(with(extra));
    const Simulate counted = [this,
                              &sim](const std::vector<std::vector<scenario::Override>>& sets) {
      out.simulations += static_cast<int>(sets.size());
      return sim(sets);
    };
    try {
      return plan(scenario_path, with(extra), o, counted).answer.value;
    } catch (const InputError& e) {
      // Not met anywhere in the range (min-*), or still met at its top (max-cpu): this sample
      // needs more than the range allows; anything else is a real error.
      if (e.problems().empty() || e.problems().front().path != options.vary) throw;
      return std::nullopt;
    }
  }
};

// Samples in the order of their analytic answers, so each search starts next to the last one.
std::vector<std::size_t> search_order(const std::vector<std::optional<double>>& analytic) {
  std::vector<std::size_t> order(analytic.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (!analytic[a] || !analytic[b]) return analytic[a].has_value() && !analytic[b];
    return *analytic[a] < *analytic[b];
  });
  return order;
}

// A pass over the samples: each one's answer, and its analytic answer (the warm starts' scale).
struct Pass {
  std::vector<std::optional<double>> answers, analytic;
};

// `from` scaled by the ratio of the analytic answers, where both have one.
double scaled(double from, const std::optional<double>& to_analytic,
              const std::optional<double>& from_analytic) {
  if (to_analytic && from_analytic && *from_analytic > 0)
    return from * *to_analytic / *from_analytic;
  return from;
}

// Each sample's answer, warm-started: from the same sample in `before` when given (searched at
// a neighbouring question), else from the previous sample's answer; either scaled by the ratio of
// the analytic answers. `start` is the plan as written, `start_analytic` its analytic answer.
Pass answer_all(Searcher& s, const std::vector<Sample>& samples, double start,
                std::optional<double> start_analytic, const Pass* before) {
  Pass out;
  out.analytic.resize(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i)
    out.analytic[i] = s.analytic(samples[i].overrides);
  out.answers.resize(samples.size());
  double last = start;
  std::optional<double> last_analytic = start_analytic;
  for (std::size_t i : search_order(out.analytic)) {
    const bool seeded = before && i < before->answers.size() && before->answers[i];
    const double guess =
        seeded ? scaled(*before->answers[i], out.analytic[i],
                        i < before->analytic.size() ? before->analytic[i] : std::nullopt)
               : scaled(last, out.analytic[i], last_analytic);
    out.answers[i] = s.answer(samples[i].overrides, guess);
    if (out.answers[i]) {
      last = *out.answers[i];
      last_analytic = out.analytic[i];
    }
    if (s.ro.on_progress)
      s.ro.on_progress("sample " + std::to_string(i + 1) + "/" + std::to_string(samples.size()) +
                       ": " +
                       (out.answers[i] ? detail::show_value(s.options, *out.answers[i]) : "none"));
  }
  return out;
}

std::pair<std::optional<double>, std::optional<double>> central95(
    const std::vector<std::optional<double>>& answers, bool ok_below) {
  // Missing answers lie beyond the range on the failing side.
  const double beyond = ok_below ? -HUGE_VAL : HUGE_VAL;
  std::vector<double> v;
  for (const auto& a : answers) v.push_back(a.value_or(beyond));
  const auto finite = [](double x) {
    return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
  };
  return {finite(uncertainty::quantile_of(v, 0.025)), finite(uncertainty::quantile_of(v, 0.975))};
}

void tornado(Searcher& s, const Spec& spec, double start, std::optional<double> start_analytic) {
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    TornadoBar bar;
    bar.name = spec.inputs[i].name;
    bar.path = spec.inputs[i].path;
    bar.low_value = uncertainty::quantile(spec.inputs[i], 0.025);
    bar.high_value = uncertainty::quantile(spec.inputs[i], 0.975);
    const auto low = uncertainty::at_quantile(spec, i, 0.025);
    const auto high = uncertainty::at_quantile(spec, i, 0.975);
    bar.answer_at_low = s.answer(low, scaled(start, s.analytic(low), start_analytic));
    bar.answer_at_high = s.answer(high, scaled(start, s.analytic(high), start_analytic));
    const double lo = bar.answer_at_low.value_or(s.options.range_max.value_or(start));
    const double hi = bar.answer_at_high.value_or(s.options.range_max.value_or(start));
    bar.swing = std::abs(hi - lo) + (bar.answer_at_low && bar.answer_at_high ? 0.0 : 1.0);
    s.out.tornado.push_back(bar);
    if (s.ro.on_progress) s.ro.on_progress("tornado: " + bar.name);
  }
  std::stable_sort(s.out.tornado.begin(), s.out.tornado.end(),
                   [](const TornadoBar& a, const TornadoBar& b) { return a.swing > b.swing; });
}

void narrow(Searcher& s, const Spec& spec, const std::vector<std::vector<double>>& rows,
            const Pass& first, double start) {
  if (s.out.tornado.empty() || !(s.out.tornado.front().swing > 0) || !(s.ro.narrow_to > 0)) return;
  const auto top =
      std::find_if(spec.inputs.begin(), spec.inputs.end(),
                   [&](const auto& in) { return in.name == s.out.tornado.front().name; }) -
      spec.inputs.begin();
  const auto& in = spec.inputs[static_cast<std::size_t>(top)];
  const double width = uncertainty::relative_half_width(in);
  if (in.dist == uncertainty::Dist::Choice || !(width > s.ro.narrow_to)) return;
  const Spec better =
      uncertainty::narrowed(spec, static_cast<std::size_t>(top), s.ro.narrow_to / width);
  std::vector<Sample> samples;
  for (const auto& u : rows) samples.push_back(uncertainty::realise(better, u));
  const auto after = answer_all(s, samples, start, std::nullopt, &first).answers;
  Narrowing n;
  n.name = in.name;
  n.from_percent = width * 100;
  n.to_percent = s.ro.narrow_to * 100;
  std::tie(n.before_low, n.before_high) = central95(first.answers, s.ok_below());
  std::tie(n.after_low, n.after_high) = central95(after, s.ok_below());
  n.answer_before = robust_quantile(first.answers, s.ro.confidence, s.ok_below()).value;
  n.answer_after = robust_quantile(after, s.ro.confidence, s.ok_below()).value;
  s.out.narrowing = n;
}

void describe_inputs(const Spec& spec, Robust& out) {
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    const auto& in = spec.inputs[i];
    RobustInput r{in.name,
                  in.path,
                  uncertainty::dist_name(in.dist),
                  in.nominal,
                  uncertainty::quantile(in, 0.025),
                  uncertainty::quantile(in, 0.975),
                  "",
                  ""};
    if (in.dist == uncertainty::Dist::Choice) {
      r.low_text = in.labels.at(static_cast<std::size_t>(r.low));
      r.high_text = in.labels.at(static_cast<std::size_t>(r.high));
    } else if (in.curve) {
      r.low_text = "x" + detail::fmt(r.low, 3);
      r.high_text = "x" + detail::fmt(r.high, 3);
    } else {
      const auto text = [&](double v) {
        return in.quantity ? scenario::with_unit(v, *in.quantity) : detail::fmt(v, 4);
      };
      r.low_text = text(r.low);
      r.high_text = text(r.high);
    }
    out.inputs.push_back(r);
  }
}

}  // namespace

Robust robust_plan(const std::string& scenario_path, const std::vector<scenario::Override>& common,
                   const Report& nominal, const SimulateFor& simulate, const RobustOptions& ro) {
  const auto spec = uncertainty::load_spec(scenario_path, common, ro.uncertainty_file);
  if (!spec)
    throw InputError(scenario_path, {{"uncertainty",
                                      "missing: --confidence samples the scenario's uncertain "
                                      "inputs; give the scenario an `uncertainty` block or "
                                      "--uncertainty FILE (docs/uncertainty.md)"}});
  Robust out;
  out.confidence = ro.confidence;
  out.samples = ro.samples.value_or(spec->samples);
  out.method = ro.method.value_or(spec->method);
  out.seed = ro.seed.value_or(spec->seed.value_or(static_cast<std::uint64_t>(nominal.base_seed)));
  out.replications = ro.replications;
  out.nominal = nominal.answer.value;
  out.plain_simulations = nominal.simulations;
  out.device = detail::device_of(scenario_path, nominal.options.vary);
  describe_inputs(*spec, out);

  const auto rows = uncertainty::design(uncertainty::method_from_name(out.method, "--sampling"),
                                        out.samples, spec->dims(), out.seed);
  std::vector<Sample> samples;
  for (const auto& u : rows) samples.push_back(uncertainty::realise(*spec, u));
  for (const auto& s : samples) out.sample_inputs.push_back(s.summary);

  Searcher s{scenario_path, common, nominal.options, simulate, ro, out};
  const double start = nominal.answer.value.value_or(nominal.bracket_high);
  const auto start_analytic = nominal.formula_answer ? nominal.formula_answer : nominal.mva_answer;
  const Pass warm{ro.warm_answers, ro.warm_analytic};
  const Pass first = answer_all(s, samples, start, start_analytic,
                                ro.warm_answers.size() == samples.size() ? &warm : nullptr);
  out.answers = first.answers;
  out.analytic = first.analytic;
  const bool ok_below = s.ok_below();
  const auto q = robust_quantile(out.answers, ro.confidence, ok_below);
  out.answer = q.value;
  out.met = q.met;
  if (const auto m = robust_quantile(out.answers, 0.5, ok_below); m.value) out.median = m.value;
  std::tie(out.central_low, out.central_high) = central95(out.answers, ok_below);
  if (ro.check) {
    out.check_value = ro.check;
    out.check_met = meets_count(out.answers, *ro.check, ok_below);
  }
  out.sample_simulations = out.simulations;
  if (ro.tornado) tornado(s, *spec, start, start_analytic);
  out.tornado_simulations = out.simulations - out.sample_simulations;
  narrow(s, *spec, rows, first, start);
  return out;
}

}  // namespace sonicsim::plan
