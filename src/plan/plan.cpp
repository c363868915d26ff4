#include <sonicsim/plan/plan.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::plan {

namespace {

// Past these the analytic searches stop: beyond the loader's limits, and far beyond any site.
constexpr double kIntegerCap = 1'000'000.0;
constexpr double kBandwidthMin = 1e3, kBandwidthMax = 1e14;  // 8 kbps .. 800 Tbps
// "Unlimited" bandwidth for the reference t_ideal of min-bandwidth: its transfer time vanishes.
constexpr double kUnlimitedBandwidth = 1e15;

double number_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* node = &j;
  for (const char* k : path) {
    if (!node->is_object() || !node->contains(k)) return std::nan("");
    node = &(*node)[k];
  }
  return node->is_number() ? node->get<double>() : std::nan("");
}

bool is_bandwidth(const Options& o) {
  return o.question == Question::MinBandwidth;
}

// Smaller is better for times and costs, larger for throughput.
bool lower_is_better(const Options& o) {
  return o.constraint != Constraint::PerJobThroughput;
}

std::string metric_key(const Options& o) {
  if (o.question == Question::Cost) return "cost_per_million_events";
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      return "events.per_job_throughput_per_s";
    case Constraint::P99Latency:
      return "requests.latency_s.p99";
    default:
      return "events.thread_time_per_event_s";
  }
}

std::string fmt(double v, int digits = 4) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : "n/a";
  std::ostringstream os;
  os << std::setprecision(digits) << v;
  return os.str();
}

// Rounds a bandwidth to 4 significant digits, so that values in files and messages stay readable.
double round_bandwidth(double b) {
  if (!(b > 0.0)) return b;
  const double scale = std::pow(10.0, std::floor(std::log10(b)) - 3.0);
  return std::round(b / scale) * scale;
}

std::optional<std::int64_t> current_integer(const scenario::Scenario& s, const std::string& path) {
  if (path == "workload.jobs") return s.workload().jobs;
  if (path == "workload.threads_per_job") return s.workload().threads_per_job;
  const std::string prefix = "servers.";
  if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() + 6 &&
      path.compare(path.size() - 6, 6, ".count") == 0) {
    try {
      const std::size_t i = std::stoul(path.substr(prefix.size()));
      if (i < s.servers.size()) return s.servers[i].count;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

const std::optional<scenario::LinkSpec>* link_of(const scenario::Scenario& s,
                                                 const std::string& name) {
  if (name == "client_nic") return &s.network.client_nic;
  if (name == "site_uplink") return &s.network.site_uplink;
  if (name == "wan") return &s.network.wan;
  if (name == "server_nic") return &s.network.server_nic;
  return nullptr;
}

std::string describe_constraint(const Report& r) {
  const Options& o = r.options;
  if (o.question == Question::Cost) return "cost per million events, minimised";
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      return "per-job throughput >= " + fmt(o.min_per_job_throughput) + " events/s";
    case Constraint::P99Latency:
      return "p99 request latency <= " + scenario::format_time(o.max_p99_latency_s);
    default:
      return "thread time per event <= " + scenario::format_time(*r.threshold) + " (" +
             (o.reference == Reference::CpuOnly      ? "CPU-only t_CPU"
              : o.question == Question::MinBandwidth ? "t_ideal without transfer time"
                                                     : "t_ideal") +
             " " + scenario::format_time(*r.reference_s) + " + " + fmt(o.slowdown_percent) + "%)";
  }
}

}  // namespace

std::optional<Question> question_from_name(const std::string& name) {
  if (name == "max-cpu") return Question::MaxCpu;
  if (name == "min-devices") return Question::MinDevices;
  if (name == "min-bandwidth") return Question::MinBandwidth;
  if (name == "cost") return Question::Cost;
  return std::nullopt;
}

const char* question_name(Question q) {
  switch (q) {
    case Question::MaxCpu:
      return "max-cpu";
    case Question::MinDevices:
      return "min-devices";
    case Question::MinBandwidth:
      return "min-bandwidth";
    case Question::Cost:
      return "cost";
  }
  return "?";
}

const char* question_names() {
  return "max-cpu, min-devices, min-bandwidth, cost";
}

double Prices::hourly(double gpus, double cores) const {
  const double energy_kw = (gpus * gpu_watts + cores * core_watts) / 1000.0;
  return gpus * gpu_hour + cores * core_hour + energy_kw * kwh;
}

double student_t975(int dof) {
  static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                     2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                     2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                     2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof <= 0) return kInf;
  if (dof <= 30) return table[dof - 1];
  return 1.96 + 2.4 / dof;  // within 0.5% of the exact quantile above 30
}

Stat statistics(const std::vector<double>& values) {
  Stat s;
  s.values = values;
  if (values.empty()) return s;
  double sum = 0.0;
  for (double v : values) {
    if (!std::isfinite(v)) {
      s.mean = v;  // one run with no finished event decides: no mean of the others hides it
      return s;
    }
    sum += v;
  }
  const double n = static_cast<double>(values.size());
  s.mean = sum / n;
  if (values.size() < 2) return s;
  double ss = 0.0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(ss / (n - 1.0));
  s.ci95 = student_t975(static_cast<int>(values.size()) - 1) * s.stddev / std::sqrt(n);
  return s;
}

// ---- the searches ------------------------------------------------------------------------

double Domain::clamp(double x) const {
  return std::min(max, std::max(min, x));
}
// Steps grow with each expansion: the analytic bracket is usually close, but may be far off.
double Domain::up(double x, int k) const {
  if (geometric)
    return clamp(round_bandwidth(x * std::pow(1.0 + 4.0 * tolerance, std::ldexp(1.0, k))));
  return clamp(x + std::max(1.0, std::round(x * 0.25 * std::ldexp(1.0, k))));
}
double Domain::down(double x, int k) const {
  if (geometric)
    return clamp(round_bandwidth(x / std::pow(1.0 + 4.0 * tolerance, std::ldexp(1.0, k))));
  return clamp(x - std::max(1.0, std::round(x * std::min(0.5, 0.2 * std::ldexp(1.0, k)))));
}
double Domain::mid(double a, double b) const {
  if (geometric) return clamp(round_bandwidth(std::sqrt(a * b)));
  return std::floor((a + b) / 2.0);
}
bool Domain::close(double a, double b) const {
  if (geometric) return std::max(a, b) <= std::min(a, b) * (1.0 + tolerance);
  return std::abs(a - b) <= 1.0;
}

Boundary find_boundary(const Domain& d, bool ok_below, double guess_a, double guess_b,
                       const std::function<std::vector<bool>(const std::vector<double>&)>& ok,
                       int probes) {
  // Sides are named by the verdict, so one loop serves both directions.
  int k = 0;
  const auto toward_ok = [&](double x) { return ok_below ? d.down(x, k++) : d.up(x, k++); };
  const auto toward_fail = [&](double x) { return ok_below ? d.up(x, k++) : d.down(x, k++); };
  const double ok_limit = ok_below ? d.min : d.max, fail_limit = ok_below ? d.max : d.min;
  const bool a_first = ok_below ? guess_a <= guess_b : guess_a >= guess_b;
  const double ok_guess = d.clamp(a_first ? guess_a : guess_b);
  double fail_guess = d.clamp(a_first ? guess_b : guess_a);
  if (fail_guess == ok_guess && fail_guess != fail_limit) {
    fail_guess = toward_fail(ok_guess);
    k = 0;
  }

  Boundary b;
  std::vector<bool> first = fail_guess == ok_guess ? ok({ok_guess}) : ok({ok_guess, fail_guess});
  if (first.size() == 1) first.push_back(first[0]);
  if (first[0]) {
    b.ok = ok_guess;
    if (fail_guess == ok_guess) {
      if (ok_guess == fail_limit) return b;
    } else if (!first[1]) {
      b.fail = fail_guess;
    } else {
      b.ok = fail_guess;
    }
    while (!b.fail) {
      if (*b.ok == fail_limit) return b;
      const double x = toward_fail(*b.ok);
      if (ok({x})[0])
        b.ok = x;
      else
        b.fail = x;
    }
  } else {
    b.fail = ok_guess;
    while (!b.ok) {
      if (*b.fail == ok_limit) return b;
      const double x = toward_ok(*b.fail);
      if (ok({x})[0])
        b.ok = x;
      else
        b.fail = x;
    }
  }
  while (!d.close(*b.ok, *b.fail)) {
    // `probes` values split the bracket evenly (on a log scale for bandwidth) and run together.
    std::vector<double> probe;
    const double lo = *b.ok, hi = *b.fail;
    for (int i = 1; i <= std::max(1, probes); ++i) {
      const double f = static_cast<double>(i) / (std::max(1, probes) + 1);
      double m =
          d.geometric ? round_bandwidth(lo * std::pow(hi / lo, f)) : std::floor(lo + (hi - lo) * f);
      if (probes <= 1) m = d.mid(lo, hi);
      if (m != lo && m != hi && std::find(probe.begin(), probe.end(), m) == probe.end())
        probe.push_back(m);
    }
    if (probe.empty()) break;  // rounding left nothing in between
    const auto verdict = ok(probe);
    // Walk from the ok end: the bracket closes on the first value that fails.
    for (std::size_t i = 0; i < probe.size(); ++i) {
      if (!verdict[i]) {
        b.fail = probe[i];
        break;
      }
      b.ok = probe[i];
    }
  }
  return b;
}

double find_minimum(const Domain& d, double guess, double step,
                    const std::function<std::vector<double>(const std::vector<double>&)>& f) {
  double c = d.clamp(std::round(guess));
  double s = std::max(1.0, std::round(step));
  for (int round = 0; round < 200; ++round) {
    std::vector<double> probe{c};
    for (double x : {d.clamp(c - s), d.clamp(c + s)})
      if (std::find(probe.begin(), probe.end(), x) == probe.end()) probe.push_back(x);
    const auto v = f(probe);
    std::size_t best = 0;
    for (std::size_t i = 1; i < probe.size(); ++i)
      if (v[i] < v[best]) best = i;
    if (best == 0) {
      if (s <= 1.0) return c;
      s = std::max(1.0, std::floor(s / 2.0));
    } else {
      // Keep going the way the cost falls, faster each time: the optimum may be far off.
      c = probe[best];
      s *= 2.0;
    }
  }
  return c;
}

// ---- points ------------------------------------------------------------------------------

std::string format_value(const Options& o, double value) {
  if (is_bandwidth(o)) return fmt(round_bandwidth(value), 17);
  return std::to_string(static_cast<std::int64_t>(std::llround(value)));
}

std::vector<scenario::Override> point_overrides(const Options& o, double value, std::int64_t seed) {
  return {{o.vary, format_value(o, value)}, {"seed", std::to_string(seed)}};
}

double metric_of(const Options& o, const nlohmann::json& r) {
  if (o.question == Question::Cost) {
    const double x = number_at(r, {"events", "throughput_per_s"});
    if (!(x > 0.0)) return kInf;
    const double hourly =
        o.prices.hourly(number_at(r, {"analytic", "n_gpu"}), number_at(r, {"analytic", "n_cpu"}));
    return hourly / 3600.0 / x * 1e6;
  }
  double v = std::nan("");
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      v = number_at(r, {"events", "per_job_throughput_per_s"});
      return std::isfinite(v) ? v : 0.0;
    case Constraint::P99Latency:
      v = number_at(r, {"requests", "latency_s", "p99"});
      break;
    default:
      v = number_at(r, {"events", "thread_time_per_event_s"});
      break;
  }
  // No event (request) finished after the warm-up: as slow as it gets.
  return std::isfinite(v) && v > 0.0 ? v : kInf;
}

Simulate simulate_with_run_points(const std::string& scenario_path,
                                  const std::vector<scenario::Override>& common, int workers) {
  return [=](const std::vector<std::vector<scenario::Override>>& points) {
    return pipeline::run_points(scenario_path, common, points, workers);
  };
}

namespace {

// Both analytic models' view of the metric at one value.
AnalyticPoint predict_at(const std::string& path, const std::vector<scenario::Override>& common,
                         const Options& o, double value) {
  auto overrides = common;
  overrides.push_back({o.vary, format_value(o, value)});
  const auto s = scenario::load_file(path, overrides);
  const auto p = analytic::predict(s);
  AnalyticPoint a;
  const double jobs = static_cast<double>(s.workload().jobs);
  const std::optional<double> x_mva =
      p.mva ? std::optional<double>(p.mva->throughput_per_s) : std::nullopt;
  // The formulas assume idle links; a link past full cannot carry the traffic at all.
  bool overloaded = false;
  for (const auto& l : p.links) overloaded = overloaded || l.utilization >= 1.0;
  if (o.question == Question::Cost) {
    const double hourly =
        o.prices.hourly(static_cast<double>(p.n_gpu), static_cast<double>(p.n_cpu));
    const auto cost = [&](double x) { return x > 0.0 ? hourly / 3600.0 / x * 1e6 : kInf; };
    a.formula = cost(p.throughput_per_s);
    if (x_mva) a.mva = cost(*x_mva);
    return a;
  }
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      a.formula = p.throughput_per_s / jobs;
      if (x_mva) a.mva = *x_mva / jobs;
      break;
    case Constraint::P99Latency: {
      // MVA gives the mean latency only: a lower bound on the p99, so its answer is optimistic.
      double worst = 0.0;
      bool any = false;
      for (const auto& m : p.models)
        if (m.mva_request_latency_s) {
          worst = std::max(worst, *m.mva_request_latency_s);
          any = true;
        }
      if (any) a.mva = worst;
      break;
    }
    default:
      a.formula = overloaded ? kInf : p.t_sonic_s;
      if (p.mva) a.mva = overloaded ? kInf : p.mva->time_per_event_s;
      break;
  }
  return a;
}

bool meets(const Options& o, double metric, double threshold) {
  return lower_is_better(o) ? metric <= threshold : metric >= threshold;
}

}  // namespace

Report plan(const std::string& scenario_path, const std::vector<scenario::Override>& common,
            Options o, const Simulate& simulate) {
  Report r;
  r.scenario_file = scenario_path;
  r.common = common;
  const auto base = scenario::load_file(scenario_path, common);
  r.scenario_name = base.name;
  r.base_seed = static_cast<std::int64_t>(base.seed);
  if (o.replications < 1) o.replications = 1;
  if (!base.single_workload())
    throw scenario::InputError(
        scenario_path,
        {{"workloads", "plan answers questions about one workload's jobs; this scenario has " +
                           std::to_string(base.workloads.size()) +
                           " (simulate it with `sonicsim run`, or plan each workload alone)"}});
  if (base.workload().open_loop())
    throw scenario::InputError(scenario_path,
                               {{"workload.arrivals",
                                 "plan answers questions about closed-loop jobs; this scenario "
                                 "is an open loop (remove workload.arrivals)"}});

  if (o.question == Question::MinBandwidth) {
    const auto* link = link_of(base, o.link);
    if (link == nullptr || !link->has_value()) {
      std::string present;
      for (const char* name : {"client_nic", "site_uplink", "wan", "server_nic"})
        if (const auto* l = link_of(base, name); l && l->has_value())
          present += std::string(present.empty() ? "" : ", ") + name;
      throw scenario::InputError(
          scenario_path, {{"network." + o.link, "--link " + o.link +
                                                    ": the scenario has no such link (its links: " +
                                                    (present.empty() ? "none" : present) + ")"}});
    }
    if (o.vary.empty()) o.vary = "network." + o.link + ".bandwidth";
  }
  if (o.vary.empty())
    o.vary = o.question == Question::MinDevices ? "servers.0.count" : "workload.jobs";
  if (o.question == Question::Cost) o.constraint = Constraint::None;
  r.options = o;
  r.metric_key = metric_key(o);
  r.comparison = o.question == Question::Cost ? "min" : lower_is_better(o) ? "<=" : ">=";
  r.geometric = is_bandwidth(o);

  // The path must exist and take a value: a typo is bad input, named before anything runs.
  const double base_value = [&] {
    if (r.geometric) return (*link_of(base, o.link))->bandwidth;
    const auto v = current_integer(base, o.vary);
    return static_cast<double>(v.value_or(1));
  }();
  {
    auto overrides = common;
    overrides.push_back({o.vary, format_value(o, base_value)});
    try {
      scenario::load_file(scenario_path, overrides);
    } catch (const scenario::InputError& e) {
      throw scenario::InputError(scenario_path,
                                 {{o.vary, "--vary " + o.vary + ": " + std::string(e.what())}});
    }
  }

  const auto prediction = analytic::predict(base);
  r.base = {{"value", base_value},
            {"n_cpu", prediction.n_cpu},
            {"n_gpu", prediction.n_gpu},
            {"t_cpu_s", prediction.t_cpu_s},
            {"t_gpu_s", prediction.t_gpu_s},
            {"t_ideal_s", prediction.t_ideal_s},
            {"saturation_n_cpu_per_gpu", std::isfinite(prediction.saturation_n_cpu_per_gpu)
                                             ? nlohmann::json(prediction.saturation_n_cpu_per_gpu)
                                             : nlohmann::json(nullptr)}};
  double threshold = 0.0;
  if (o.question != Question::Cost) {
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
          if (r.geometric) {
            auto overrides = common;
            overrides.push_back({o.vary, fmt(kUnlimitedBandwidth, 17)});
            ref = analytic::predict(scenario::load_file(scenario_path, overrides)).t_ideal_s;
          }
        }
        r.reference_s = ref;
        threshold = ref * (1.0 + o.slowdown_percent / 100.0);
      }
    }
    r.threshold = threshold;
  }

  // ---- the analytic answers, over a domain far wider than any site -----------------------
  Domain wide;
  wide.geometric = r.geometric;
  wide.tolerance = r.geometric ? 0.001 : 0.0;
  wide.min = r.geometric ? kBandwidthMin : std::max(1.0, o.range_min.value_or(1.0));
  wide.max = r.geometric ? kBandwidthMax : kIntegerCap;
  const bool ok_below = o.question == Question::MaxCpu;
  const auto analytic_answer = [&](bool use_mva) -> std::optional<double> {
    const auto value_at = [&](double v) -> std::optional<double> {
      try {
        const auto a = predict_at(scenario_path, common, o, v);
        return use_mva ? a.mva : a.formula;
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
  };
  r.formula_answer = analytic_answer(false);
  r.mva_answer = analytic_answer(true);
  if (o.analytic_only) {
    r.answer.status = "analytic_only";
    return r;
  }

  // ---- the simulated range and the first bracket ----------------------------------------
  std::vector<double> guesses;
  for (const auto& a : {r.formula_answer, r.mva_answer})
    if (a) guesses.push_back(*a);
  if (guesses.empty()) guesses.push_back(base_value);
  const double g_lo = *std::min_element(guesses.begin(), guesses.end());
  const double g_hi = *std::max_element(guesses.begin(), guesses.end());
  Domain d;
  d.geometric = r.geometric;
  d.tolerance = o.tolerance;
  if (r.geometric) {
    d.min = o.range_min.value_or(std::max(kBandwidthMin, round_bandwidth(g_lo / 64.0)));
    d.max = o.range_max.value_or(std::min(kBandwidthMax, round_bandwidth(g_hi * 64.0)));
  } else {
    d.min = std::max(1.0, o.range_min.value_or(1.0));
    d.max =
        o.range_max.value_or(std::min(kIntegerCap, std::max({64.0, 4.0 * g_hi, 2.0 * base_value})));
  }
  if (!o.range_max) d.max = std::max(d.max, r.geometric ? d.min * 64.0 : 2.0 * d.min);
  if (!(d.min <= d.max))
    throw scenario::InputError(scenario_path,
                               {{"", "--range: the low end " + format_value(o, d.min) +
                                         " is above the high end " + format_value(o, d.max)}});
  r.range_min = d.min;
  r.range_max = d.max;

  // ---- simulations, each value once, replications together -------------------------------
  std::map<double, std::size_t> index;
  int round = 0;
  const auto evaluate = [&](const std::vector<double>& values) {
    ++round;
    std::vector<double> fresh;
    for (double v : values)
      if (!index.count(v) && std::find(fresh.begin(), fresh.end(), v) == fresh.end())
        fresh.push_back(v);
    std::vector<std::vector<scenario::Override>> sets;
    for (double v : fresh)
      for (int k = 0; k < o.replications; ++k)
        sets.push_back(point_overrides(o, v, r.base_seed + k));
    const auto results = sets.empty() ? std::vector<pipeline::PointResult>{} : simulate(sets);
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      Point p;
      p.value = fresh[i];
      p.order = round;
      std::vector<double> metric;
      std::map<std::string, std::vector<double>> extras;
      for (int k = 0; k < o.replications; ++k) {
        const auto& res = results.at(i * o.replications + k);
        p.seeds.push_back(r.base_seed + k);
        if (!res.ok) {
          const std::string what = o.vary + "=" + format_value(o, p.value) + ", seed " +
                                   std::to_string(r.base_seed + k) + ": " + res.error;
          if (res.input_error) throw scenario::InputError(scenario_path, {{o.vary, what}});
          throw std::runtime_error("a simulation failed at " + what);
        }
        const auto& j = res.results;
        metric.push_back(metric_of(o, j));
        double util = 0.0;
        if (j.contains("servers"))
          for (const auto& s : j["servers"]) util = std::max(util, s.value("utilization", 0.0));
        extras["throughput_per_s"].push_back(number_at(j, {"events", "throughput_per_s"}));
        extras["thread_time_per_event_s"].push_back(
            number_at(j, {"events", "thread_time_per_event_s"}));
        extras["per_job_throughput_per_s"].push_back(
            number_at(j, {"events", "per_job_throughput_per_s"}));
        extras["p99_latency_s"].push_back(number_at(j, {"requests", "latency_s", "p99"}));
        extras["max_device_utilization"].push_back(util);
        extras["n_cpu"].push_back(number_at(j, {"analytic", "n_cpu"}));
        extras["n_gpu"].push_back(number_at(j, {"analytic", "n_gpu"}));
        if (r.geometric && j.contains("links"))
          for (const auto& l : j["links"])
            if (l.value("name", "") == o.link)
              extras["link_mean_utilization"].push_back(l.value("mean_utilization", 0.0));
      }
      p.metric = statistics(metric);
      for (const auto& [key, vs] : extras) {
        const double mean = statistics(vs).mean;
        p.summary[key] = std::isfinite(mean) ? nlohmann::json(mean) : nlohmann::json(nullptr);
      }
      if (o.question != Question::Cost) {
        p.ok = meets(o, p.metric.mean, threshold);
        const double worst = p.metric.mean + (lower_is_better(o) ? 1 : -1) * p.metric.ci95;
        const double best = p.metric.mean - (lower_is_better(o) ? 1 : -1) * p.metric.ci95;
        p.certain = p.ok ? meets(o, worst, threshold) : !meets(o, best, threshold);
      }
      index[p.value] = r.points.size();
      r.points.push_back(std::move(p));
      r.simulations += o.replications;
    }
  };
  const auto at = [&](double v) -> const Point& { return r.points.at(index.at(v)); };

  if (o.question == Question::Cost) {
    const double c = d.clamp(std::round((g_lo + g_hi) / 2.0));
    const double step = std::max(1.0, std::ceil((g_hi - g_lo) / 2.0));
    r.bracket_low = d.clamp(c - step);
    r.bracket_high = d.clamp(c + step);
    const double best = find_minimum(d, c, step, [&](const std::vector<double>& vs) {
      evaluate(vs);
      std::vector<double> out;
      for (double v : vs) out.push_back(at(v).metric.mean);
      return out;
    });
    r.answer.status = "found";
    r.answer.value = best;
    // Every value whose cost interval reaches the optimum's is as good as far as we can tell.
    const Point& b = at(best);
    double lo = best, hi = best;
    for (const auto& p : r.points)
      if (p.metric.mean - p.metric.ci95 <= b.metric.mean + b.metric.ci95) {
        lo = std::min(lo, p.value);
        hi = std::max(hi, p.value);
      }
    r.answer.interval_low = lo;
    r.answer.interval_high = hi;
    return r;
  }

  // The first round straddles both analytic answers: one value each side of the boundary.
  // No analytic answer for max-cpu: the models say even the low end misses; check it first.
  const bool none = !r.formula_answer && !r.mva_answer;
  double ok_guess = none && ok_below ? d.min : ok_below ? g_lo : g_hi;
  double fail_guess = ok_below ? (r.geometric ? g_hi * (1.0 + 2.0 * o.tolerance) : g_hi + 1.0)
                               : (r.geometric ? g_lo / (1.0 + 2.0 * o.tolerance) : g_lo - 1.0);
  if (r.geometric) {
    ok_guess = round_bandwidth(ok_guess);
    fail_guess = round_bandwidth(fail_guess);
  }
  r.bracket_low = d.clamp(std::min(ok_guess, fail_guess));
  r.bracket_high = d.clamp(std::max(ok_guess, fail_guess));
  const auto b = find_boundary(
      d, ok_below, ok_guess, fail_guess,
      [&](const std::vector<double>& vs) {
        evaluate(vs);
        std::vector<bool> out;
        for (double v : vs) out.push_back(at(v).ok);
        return out;
      },
      o.probes);

  const auto human = [&](double v) {
    return r.geometric ? scenario::format_bandwidth(v) : format_value(o, v);
  };
  const std::string range = "[" + human(d.min) + ", " + human(d.max) + "]";
  if (!b.ok) {
    if (ok_below) {
      r.answer.status = "unsatisfiable";
      r.answer.fail_value = b.fail;
      return r;
    }
    throw scenario::InputError(
        scenario_path,
        {{o.vary, "the constraint (" + describe_constraint(r) +
                      ") is not met anywhere in the range " + range + ": at " + o.vary + "=" +
                      human(d.max) + " the " + r.metric_key + " is " +
                      (index.count(d.max) ? fmt(at(d.max).metric.mean) : std::string("n/a")) +
                      (none ? "; the formula and MVA find no such value either: something else "
                              "binds (devices, CPU, latency)"
                            : "") +
                      " (raise the high end with --range LO:HI)"}});
  }
  if (!b.fail) {
    if (!ok_below) {
      r.answer.status = "at_range_min";
      r.answer.value = b.ok;
      r.answer.interval_low = r.answer.interval_high = b.ok;
      return r;
    }
    throw scenario::InputError(
        scenario_path,
        {{o.vary, "the constraint (" + describe_constraint(r) +
                      ") still holds at the top of the "
                      "range " +
                      range + ", so its limit lies beyond it (raise it with --range LO:HI)"}});
  }
  r.answer.status = "found";
  r.answer.value = b.ok;
  r.answer.fail_value = b.fail;
  // Between the farthest value that is surely ok and the nearest one that surely fails, the
  // replications cannot tell: that is the answer's uncertainty.
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
    return [&, want_ok](const std::vector<double>& vs) {
      evaluate(vs);
      std::vector<bool> out;
      for (double v : vs) out.push_back(at(v).certain && at(v).ok == want_ok);
      return out;
    };
  };
  Domain ok_side = d, fail_side = d;
  (ok_below ? ok_side.max : ok_side.min) = *b.ok;
  (ok_below ? fail_side.min : fail_side.max) = *b.fail;
  sure_ok = find_boundary(ok_side, ok_below, sure_ok.value_or(ok_below ? d.min : d.max), *b.ok,
                          certain(true))
                .ok;
  sure_fail = find_boundary(fail_side, !ok_below, sure_fail.value_or(ok_below ? d.max : d.min),
                            *b.fail, certain(false))
                  .ok;
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
  return r;
}

// ---- output ------------------------------------------------------------------------------

namespace {

nlohmann::json opt(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string show(const Report& r, double v) {
  if (r.geometric) return scenario::format_bandwidth(v);
  return std::to_string(static_cast<std::int64_t>(std::llround(v)));
}

std::string show_metric(const Report& r, double v) {
  if (r.options.question == Question::Cost) return "$" + fmt(v, 5);
  if (r.options.constraint == Constraint::PerJobThroughput) return fmt(v, 5) + "/s";
  return std::isfinite(v) ? scenario::format_time(v) : "inf";
}

// A summary value, 0 when no replication produced it (null in JSON).
double summary_of(const Point& p, const char* key) {
  const auto it = p.summary.find(key);
  return it != p.summary.end() && it->is_number() ? it->get<double>() : 0.0;
}

// Values of integer questions are written as integers (jobs, devices), bandwidths as numbers.
nlohmann::json val(const Report& r, std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  if (r.geometric) return *v;
  return static_cast<std::int64_t>(std::llround(*v));
}

const Point* point_at(const Report& r, std::optional<double> v) {
  if (!v) return nullptr;
  for (const auto& p : r.points)
    if (p.value == *v) return &p;
  return nullptr;
}

}  // namespace

nlohmann::json to_json(const Report& r) {
  const Options& o = r.options;
  nlohmann::json j;
  j["sonicsim_version"] = SONICSIM_VERSION;
  j["scenario"] = r.scenario_name;
  j["scenario_file"] = r.scenario_file;
  nlohmann::json set = nlohmann::json::array();
  for (const auto& c : r.common) set.push_back(c.path + "=" + c.value);
  j["set"] = set;
  j["question"] = question_name(o.question);
  j["vary"] = o.vary;
  if (o.question == Question::MinBandwidth) j["link"] = o.link;
  nlohmann::json c;
  c["metric"] = r.metric_key;
  c["comparison"] = r.comparison;
  if (o.question != Question::Cost) {
    const char* kinds[] = {"slowdown", "per_job_throughput", "p99_latency", "none"};
    c["kind"] = kinds[static_cast<int>(o.constraint)];
    c["threshold"] = opt(r.threshold);
    if (o.constraint == Constraint::Slowdown) {
      c["reference"] = o.reference == Reference::Ideal ? "ideal" : "cpu-only";
      c["reference_s"] = opt(r.reference_s);
      c["slowdown_percent"] = o.slowdown_percent;
    }
  }
  c["text"] = describe_constraint(r);
  j["constraint"] = c;
  j["replications"] = o.replications;
  std::vector<std::int64_t> seeds;
  for (int k = 0; k < o.replications; ++k) seeds.push_back(r.base_seed + k);
  j["seeds"] = seeds;
  j["range"] = r.answer.status == "analytic_only"
                   ? nlohmann::json(nullptr)
                   : nlohmann::json{val(r, r.range_min), val(r, r.range_max)};
  j["base"] = r.base;
  j["analytic"] = {{"formula", val(r, r.formula_answer)},
                   {"mva", val(r, r.mva_answer)},
                   {"first_bracket", {val(r, r.bracket_low), val(r, r.bracket_high)}}};

  nlohmann::json a;
  a["status"] = r.answer.status;
  a["value"] = val(r, r.answer.value);
  a["interval"] = {val(r, r.answer.interval_low), val(r, r.answer.interval_high)};
  a["fail_value"] = val(r, r.answer.fail_value);
  if (const Point* p = point_at(r, r.answer.value)) {
    a["metric"] = {{"mean", num(p->metric.mean)},
                   {"ci95", p->metric.values.size() > 1 ? num(p->metric.ci95) : nlohmann::json()}};
    const double n_cpu = summary_of(*p, "n_cpu"), n_gpu = summary_of(*p, "n_gpu");
    a["n_cpu"] = n_cpu;
    a["n_gpu"] = n_gpu;
    a["n_cpu_per_gpu"] = n_gpu > 0 ? nlohmann::json(n_cpu / n_gpu) : nlohmann::json(nullptr);
    if (o.question == Question::Cost) {
      a["cost_per_million_events"] = num(p->metric.mean);
      a["hourly_cost"] = o.prices.hourly(n_gpu, n_cpu);
      a["throughput_per_s"] = summary_of(*p, "throughput_per_s");
    }
  }
  j["answer"] = a;
  if (o.question == Question::Cost)
    j["prices"] = {{"gpu_hour", o.prices.gpu_hour},
                   {"core_hour", o.prices.core_hour},
                   {"gpu_watts", o.prices.gpu_watts},
                   {"core_watts", o.prices.core_watts},
                   {"kwh", o.prices.kwh}};

  j["simulations"] = {{"count", r.simulations}, {"points", r.points.size()}};
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) {
    nlohmann::json q;
    q["value"] = val(r, p.value);
    q["round"] = p.order;
    q["seeds"] = p.seeds;
    nlohmann::json values = nlohmann::json::array();
    for (double v : p.metric.values) values.push_back(num(v));
    q["metric"] = {
        {"mean", num(p.metric.mean)},
        {"stddev", num(p.metric.stddev)},
        {"ci95", p.metric.values.size() > 1 ? num(p.metric.ci95) : nlohmann::json(nullptr)},
        {"values", values}};
    if (o.question != Question::Cost) {
      q["ok"] = p.ok;
      q["certain"] = p.certain;
    }
    q["summary"] = p.summary;
    points.push_back(q);
  }
  j["points"] = points;
  return j;
}

std::string to_text(const Report& r) {
  const Options& o = r.options;
  std::ostringstream os;
  const char* ask = "";
  switch (o.question) {
    case Question::MaxCpu:
      ask = "the largest value that meets the constraint";
      break;
    case Question::MinDevices:
    case Question::MinBandwidth:
      ask = "the smallest value that meets the constraint";
      break;
    case Question::Cost:
      ask = "the value with the lowest cost per million events";
      break;
  }
  os << "plan " << question_name(o.question) << ": " << o.vary << ", " << ask << "\n";
  os << "  scenario     " << r.scenario_name << " (" << r.scenario_file << ")\n";
  os << "  constraint   " << describe_constraint(r) << "\n";
  if (o.question == Question::Cost)
    os << "  prices       $" << fmt(o.prices.gpu_hour) << "/GPU-hour, $" << fmt(o.prices.core_hour)
       << "/core-hour"
       << (o.prices.kwh > 0 ? ", $" + fmt(o.prices.kwh) + "/kWh at " + fmt(o.prices.gpu_watts) +
                                  " W/GPU and " + fmt(o.prices.core_watts) + " W/core"
                            : "")
       << "\n";
  const auto show_opt = [&](const std::optional<double>& v) {
    return v ? show(r, *v) : std::string("none");
  };
  os << "  analytic     formula " << show_opt(r.formula_answer) << ", MVA "
     << show_opt(r.mva_answer);
  if (r.answer.status != "analytic_only")
    os << "; simulated range " << show(r, r.range_min) << " .. " << show(r, r.range_max);
  os << "\n";

  const Point* p = point_at(r, r.answer.value);
  if (r.answer.status == "analytic_only") {
    os << "  answer       not simulated (--analytic-only): formula " << show_opt(r.formula_answer)
       << ", MVA " << show_opt(r.mva_answer) << "\n";
    return os.str();
  }
  if (r.answer.status == "unsatisfiable") {
    os << "  answer       NONE: even " << o.vary << " = " << show(r, r.range_min)
       << " misses the constraint";
    if (const Point* f = point_at(r, r.answer.fail_value)) {
      os << " (" << show_metric(r, f->metric.mean) << ")";
      const double x = summary_of(*f, "throughput_per_s");
      if (!(x > 0.0))
        os << "\n               no event finished after the warm-up: a longer duration?";
    }
    os << "\n";
  } else if (p) {
    os << "  answer       " << o.vary << " = " << show(r, *r.answer.value);
    if (r.answer.status == "at_range_min") os << " (already met at the low end of the range)";
    os << "\n";
    const double n_cpu = summary_of(*p, "n_cpu"), n_gpu = summary_of(*p, "n_gpu");
    os << "               N_CPU " << fmt(n_cpu, 10) << ", N_GPU " << fmt(n_gpu, 10);
    if (n_gpu > 0) os << ", " << fmt(n_cpu / n_gpu, 5) << " threads per device";
    os << "; " << r.metric_key << " " << show_metric(r, p->metric.mean);
    if (p->metric.values.size() > 1) os << " +- " << show_metric(r, p->metric.ci95);
    os << "\n";
    if (o.question == Question::Cost)
      os << "               $" << fmt(o.prices.hourly(n_gpu, n_cpu), 5) << "/hour for "
         << fmt(summary_of(*p, "throughput_per_s"), 5) << " events/s: $" << fmt(p->metric.mean, 5)
         << " per million events\n";
    if (r.answer.interval_low && r.answer.interval_high &&
        *r.answer.interval_low != *r.answer.interval_high)
      os << "  uncertainty  " << show(r, *r.answer.interval_low) << " .. "
         << show(r, *r.answer.interval_high)
         << (o.question == Question::Cost
                 ? " cost the same within their 95% intervals\n"
                 : " (the edge lies in between: bisection resolution, replications' 95% "
                   "intervals)\n");
    else if (r.geometric && r.answer.fail_value)
      os << "  resolution   " << show(r, *r.answer.fail_value) << " misses the constraint\n";
  }
  os << "  simulations  " << r.simulations << " (" << r.points.size() << " values x "
     << o.replications << " replication" << (o.replications == 1 ? "" : "s") << ", seeds "
     << r.base_seed
     << (o.replications > 1 ? ".." + std::to_string(r.base_seed + o.replications - 1) : "")
     << ")\n";
  os << "\n  " << std::left << std::setw(14) << "value" << std::setw(8) << "round" << std::setw(26)
     << ("mean +- ci95") << (o.question == Question::Cost ? "" : "verdict") << "\n";
  std::vector<const Point*> sorted;
  for (const auto& q : r.points) sorted.push_back(&q);
  std::sort(sorted.begin(), sorted.end(),
            [](const Point* a, const Point* b) { return a->value < b->value; });
  for (const Point* q : sorted) {
    std::string m = show_metric(r, q->metric.mean);
    if (q->metric.values.size() > 1) m += " +- " + show_metric(r, q->metric.ci95);
    os << "  " << std::setw(14) << show(r, q->value) << std::setw(8) << q->order << std::setw(26)
       << m;
    if (o.question != Question::Cost)
      os << (q->ok ? "meets" : "misses") << (q->certain ? "" : " (CI straddles)");
    else if (r.answer.value && q->value == *r.answer.value)
      os << "<- cheapest";
    os << "\n";
  }
  return os.str();
}

}  // namespace sonicsim::plan
