#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

#include "questions.hpp"
#include "workload_flow.hpp"

namespace sonicsim::plan::detail {

namespace {

std::string names_of(const scenario::Scenario& s) {
  std::string out;
  for (const auto& w : s.workloads) out += (out.empty() ? "" : ", ") + w.name;
  return out;
}

// The workload's own view, alone on the servers, with a job flow as the population it runs on
// average (workload_flow.hpp).
analytic::Prediction predict_alone(const scenario::Scenario& s, std::size_t w) {
  return analytic::predict(flow_equivalent(alone(s, w)).scenario);
}

}  // namespace

std::optional<std::size_t> indexed_workload(const std::string& path, const std::string& tail) {
  const std::string prefix = "workloads.";
  if (path.rfind(prefix, 0) != 0 || path.size() <= prefix.size() + tail.size() + 1 ||
      path.compare(path.size() - tail.size(), tail.size(), tail) != 0 ||
      path[path.size() - tail.size() - 1] != '.')
    return std::nullopt;
  const std::string digits =
      path.substr(prefix.size(), path.size() - prefix.size() - tail.size() - 1);
  if (digits.empty() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return static_cast<std::size_t>(std::stoul(digits));
}

scenario::Scenario alone(const scenario::Scenario& s, std::size_t w) {
  scenario::Scenario one = s;
  one.workloads = {s.workloads.at(w)};
  return one;
}

}  // namespace sonicsim::plan::detail

namespace sonicsim::plan {

bool varies_rate(const std::string& path) {
  const std::string tail = "arrivals.rate";
  return path == "workload." + tail || detail::indexed_workload(path, tail).has_value();
}

}  // namespace sonicsim::plan

namespace sonicsim::plan::detail {

std::optional<double> current_rate(const scenario::Scenario& s, const std::string& path) {
  std::size_t w = 0;
  if (path != "workload.arrivals.rate") {
    const auto i = indexed_workload(path, "arrivals.rate");
    if (!i || *i >= s.workloads.size()) return std::nullopt;
    w = *i;
  }
  const auto& arrivals = s.workloads[w].arrivals;
  return arrivals ? std::optional<double>(arrivals->rate) : std::nullopt;
}

void scope_workloads(Report& r, const scenario::Scenario& base) {
  Options& o = r.options;
  const bool several = !base.single_workload();
  const bool open = !several && base.workload().open_loop();
  if (!several && !o.workload.empty() && o.workload != "all" && o.workload != base.workload().name)
    throw scenario::InputError(r.scenario_file,
                               {{"workloads", "--workload " + o.workload +
                                                  ": the scenario has one workload, so the "
                                                  "constraint is on it; leave --workload out"}});
  if (!several && !open) return;
  const auto refuse = [&](const std::string& where, const std::string& why) {
    throw scenario::InputError(r.scenario_file, {{where, why}});
  };
  if (o.question == Question::Cost)
    refuse(
        several ? "workloads" : "workload.arrivals",
        std::string("cost prices the CPU/GPU ratio of one closed-loop workload; this scenario ") +
            (several ? "has " + std::to_string(base.workloads.size()) + " workloads"
                     : "is an open loop (no client threads to vary)") +
            ": ask min-devices or max-cpu, and price the answer with `sonicsim run`");

  Options::WorkloadScope& scope = o.scope;
  scope.open_loop = open;
  scope.several = several;
  MixLoad mix;
  if (several) {
    if (!o.workload.empty() && o.workload != "all") {
      for (std::size_t i = 0; i < base.workloads.size(); ++i)
        if (base.workloads[i].name == o.workload) scope.index = i;
      if (!scope.index) {
        std::vector<std::string> names;
        for (const auto& w : base.workloads) names.push_back(w.name);
        std::string hint = did_you_mean(o.workload, names);
        refuse("workloads", "--workload: found `" + o.workload +
                                "`, expected `all` or a workload of the scenario (" +
                                names_of(base) + ")" + (hint.empty() ? "" : "; " + hint));
      }
      mix.constrained = o.workload;
    }
    for (const auto& w : base.workloads) scope.open.push_back(w.open_loop());
  }

  // What the constraint reads. An open loop has no jobs, so no per-job throughput, and nothing
  // to compare with a CPU-only job.
  const auto open_named = [&](std::size_t i) { return base.workloads[i].open_loop(); };
  const bool all_open = open || std::all_of(base.workloads.begin(), base.workloads.end(),
                                            [](const auto& w) { return w.open_loop(); });
  const bool constrained_open = open || (scope.index && open_named(*scope.index));
  if (o.constraint == Constraint::PerJobThroughput && (constrained_open || all_open))
    refuse("workload.arrivals",
           "--min-per-job-throughput: an open loop has no jobs; constrain its event time "
           "(--slowdown) or its requests' p99 (--max-p99-latency)");
  if (o.constraint == Constraint::Slowdown && o.reference == Reference::CpuOnly && constrained_open)
    refuse("workload.arrivals",
           "--reference cpu-only: an open loop does no CPU work of its own (t_CPU 0); compare "
           "with --reference ideal");

  // The varied path: an open loop's jobs and threads do not exist; max-cpu asks its rate.
  const auto varies_threads = [](const std::string& p) {
    return p == "workload.jobs" || p == "workload.threads_per_job";
  };
  if (o.vary.empty() && o.question == Question::MaxCpu) {
    if (open)
      o.vary = "workload.arrivals.rate";
    else {
      const std::size_t w = scope.index.value_or(0);
      o.vary = "workloads." + std::to_string(w) +
               (base.workloads[w].open_loop() ? ".arrivals.rate" : ".jobs");
    }
  }
  if (open && varies_threads(o.vary))
    refuse("workload.arrivals", "--vary " + o.vary +
                                    ": an open loop has no jobs or threads; its load is "
                                    "workload.arrivals.rate (--vary workload.arrivals.rate)");
  if (several && varies_threads(o.vary))
    refuse("workloads", "--vary " + o.vary + ": with several workloads name one by index (" +
                            "workloads.I.jobs, I from 0: " + names_of(base) + ")");
  if (varies_rate(o.vary) && !current_rate(base, o.vary))
    refuse(o.vary, "--vary " + o.vary + ": that workload has no arrival rate (it is closed-loop)");

  // The estimate before anything is simulated: each workload alone (a flow as the population it
  // runs on average), and an open loop's events in flight at t_ideal (Little's law).
  for (std::size_t i = 0; i < base.workloads.size(); ++i) {
    const auto& w = base.workloads[i];
    const auto p = predict_alone(base, i);
    MixLoad::Term t;
    t.name = w.name.empty() ? "workload" : w.name;
    t.open_loop = w.open_loop();
    t.t_ideal_s = p.t_ideal_s;
    if (t.open_loop) {
      t.arrival_rate_per_s = w.arrivals->rate;
      t.n_cpu = w.arrivals->rate * p.t_ideal_s;
    } else {
      t.n_cpu = static_cast<double>(p.n_cpu);
      t.n_cpu_nominal = static_cast<double>(w.n_threads());
    }
    t.reference_s = o.reference == Reference::CpuOnly ? p.t_cpu_s : p.t_ideal_s;
    mix.terms.push_back(t);
    if (several) scope.references.push_back(t.reference_s);
  }
  r.mix = mix;
}

SharedFormula shared_formula(const scenario::Scenario& s) {
  SharedFormula f;
  const std::size_t n = s.workloads.size();
  std::vector<analytic::Prediction> alone_p;
  std::vector<double> threads(n, 0.0);
  for (std::size_t w = 0; w < n; ++w) {
    alone_p.push_back(predict_alone(s, w));
    const auto& wl = s.workloads[w];
    f.open.push_back(wl.open_loop());
    f.t_ideal_s.push_back(alone_p.back().t_ideal_s);
    f.jobs.push_back(static_cast<double>(wl.jobs));
    threads[w] = static_cast<double>(alone_p.back().n_cpu);
  }
  // A workload's time per event when `pool` stretches its device time there by `q` (a workload
  // that does not use the pool keeps its t_ideal, even at q infinite), and its throughput then.
  const auto event_time = [&](std::size_t w, double q, int pool) {
    const double g = pool >= 0 ? alone_p[w].pools[static_cast<std::size_t>(pool)].demand_s : 0.0;
    return f.t_ideal_s[w] + (g > 0.0 ? g * q : 0.0);
  };
  const auto throughput = [&](std::size_t w, double q, int pool) {
    return f.open[w] ? s.workloads[w].arrivals->rate : threads[w] / event_time(w, q, pool);
  };
  const auto load = [&](double q, int pool) {
    double u = 0.0;
    for (std::size_t w = 0; w < n; ++w)
      u += throughput(w, q, pool) *
           alone_p[w].pools[static_cast<std::size_t>(pool)].demand_per_device_s;
    return u;
  };
  // The binding pool: the one most loaded with no queueing anywhere.
  for (std::size_t k = 0; k < s.servers.size(); ++k) {
    const double u = load(0.0, static_cast<int>(k));
    if (u > 0.0 && (f.binding_index < 0 || u > f.pool_load)) {
      f.binding_index = static_cast<int>(k);
      f.pool_load = u;
    }
  }
  if (f.binding_index >= 0)
    f.binding_pool = s.servers[static_cast<std::size_t>(f.binding_index)].name;
  if (f.pool_load > 1.0) {
    // The open loops' share does not shrink with queueing: past it, the queues grow without end.
    const double rigid = load(kInf, f.binding_index);
    if (rigid >= 1.0) {
      f.stretch = kInf;
    } else {
      double lo = 0.0, hi = 1.0;
      while (load(hi, f.binding_index) > 1.0 && hi < 1e300) hi *= 2.0;
      for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (load(mid, f.binding_index) > 1.0 ? lo : hi) = mid;
      }
      f.stretch = hi;
    }
  }
  for (std::size_t w = 0; w < n; ++w) {
    const double t = event_time(w, f.stretch, f.binding_index);
    f.time_per_event_s.push_back(t);
    const double x =
        f.open[w] ? s.workloads[w].arrivals->rate : (std::isfinite(t) ? threads[w] / t : 0.0);
    f.throughput_per_s.push_back(x);
    f.n_cpu += f.open[w] ? (std::isfinite(t) ? x * t : kInf) : threads[w];
  }
  // Every link's load summed over the workloads at their throughputs (each workload's own view
  // is at its own throughput alone).
  std::map<std::string, std::pair<double, double>> links;  // utilization, bandwidth
  for (std::size_t w = 0; w < n; ++w) {
    const double scale = alone_p[w].throughput_per_s > 0.0
                             ? f.throughput_per_s[w] / alone_p[w].throughput_per_s
                             : 0.0;
    for (const auto& l : alone_p[w].links) {
      auto& [u, bw] = links[l.name];
      u += l.utilization * scale;
      bw = l.bandwidth_Bps;
    }
  }
  for (const auto& [name, ub] : links)
    if (f.busiest_link.empty() || ub.first > f.link_utilization) {
      f.busiest_link = name;
      f.link_utilization = ub.first;
      f.link_bandwidth_Bps = ub.second;
    }
  return f;
}

std::optional<double> shared_metric(const Options& o, const SharedFormula& f) {
  const bool overloaded = f.link_utilization >= 1.0;
  const auto& scope = o.scope;
  const std::size_t n = f.time_per_event_s.size();
  switch (o.constraint) {
    case Constraint::PerJobThroughput: {
      double worst = kInf;
      for (std::size_t w = 0; w < n; ++w)
        if (!f.open[w] && (!scope.index || *scope.index == w))
          worst = std::min(worst, overloaded ? 0.0 : f.throughput_per_s[w] / f.jobs[w]);
      return worst;
    }
    case Constraint::P99Latency:
      return std::nullopt;  // the formula has no latency distribution
    default:
      if (overloaded) return kInf;
      if (scope.index) return f.time_per_event_s[*scope.index];
      double worst = 0.0;
      for (std::size_t w = 0; w < n; ++w)
        worst = std::max(worst, f.time_per_event_s[w] / scope.references.at(w));
      return worst;
  }
}

double workload_metric(const Options& o, const results::Events& events,
                       const results::Requests& requests, bool open) {
  double v = kNaN;
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      v = events.per_job_throughput_per_s();
      return std::isfinite(v) ? v : 0.0;
    case Constraint::P99Latency:
      v = requests.latency_s().at(results::Quantile::P99);
      break;
    default:
      v = open ? events.time_per_event_s().at(results::Quantile::Mean)
               : events.thread_time_per_event_s();
  }
  return std::isfinite(v) && v > 0.0 ? v : kInf;
}

std::optional<double> scoped_metric(const Options& o, const results::Document& doc) {
  const auto& scope = o.scope;
  if (scope.open_loop) return workload_metric(o, doc.events(), doc.requests(), true);
  if (!scope.several) return std::nullopt;
  const auto workloads = doc.workloads();
  const auto of = [&](std::size_t w) {
    return workload_metric(o, workloads.at(w).events(), workloads.at(w).requests(),
                           scope.open.at(w));
  };
  if (scope.index) return of(*scope.index);
  // Every workload: the worst of them (a ratio to each one's own reference for --slowdown).
  const bool higher = o.constraint == Constraint::PerJobThroughput;
  double worst = higher ? kInf : 0.0;
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    if (higher && scope.open.at(w)) continue;
    const double m = of(w);
    if (higher)
      worst = std::min(worst, m);
    else if (o.constraint == Constraint::Slowdown)
      worst = std::max(worst, m / scope.references.at(w));
    else
      worst = std::max(worst, m);
  }
  return worst;
}

std::optional<double> scoped_n_cpu(const Options& o, const results::Document& doc) {
  const auto& scope = o.scope;
  // An open loop's events in flight: Little's law over the measured span.
  const auto in_flight = [](const results::Events& e) {
    const double x = e.throughput_per_s(), t = e.time_per_event_s().at(results::Quantile::Mean);
    return std::isfinite(x * t) ? x * t : 0.0;
  };
  if (scope.open_loop) return in_flight(doc.events());
  if (!scope.several) return std::nullopt;
  const auto workloads = doc.workloads();
  double n = 0.0;
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    const auto& wl = workloads[w];
    if (scope.open.at(w))
      n += in_flight(wl.events());
    else if (wl.has_job_flow() && std::isfinite(wl.job_flow().mean_running_threads()))
      n += wl.job_flow().mean_running_threads();
    else
      n += wl.threads();
  }
  return n;
}

NoAnswer why_none_shared(const Report& r, double best, bool use_mva) {
  const Options& o = r.options;
  NoAnswer n;
  if (use_mva || o.constraint == Constraint::P99Latency) {
    n.kind = "no_view";
    n.text = use_mva ? "MVA here solves one closed population of threads; with several "
                       "workloads sharing the pools the shared formula is the analytic view"
                     : "the formula gives no latency distribution";
    return n;
  }
  auto overrides = r.common;
  overrides.push_back({o.vary, format_value(o, best)});
  scenario::Scenario s;
  try {
    s = scenario::load_file(r.scenario_file, overrides);
  } catch (const scenario::InputError&) {
    n.kind = "time";
    n.text = "no value of " + o.vary + " the scenario takes meets it";
    return n;
  }
  const auto f = shared_formula(s);
  n.value = best;
  n.n_cpu = f.n_cpu;
  const std::string at = o.vary + " = " + show_value(o, best) + " (" + fmt(f.n_cpu, 6) +
                         " threads over the " + std::to_string(s.workloads.size()) + " workloads)";
  if (f.link_utilization >= 1.0) {
    n.kind = "link";
    n.resource = f.busiest_link;
    n.utilization = f.link_utilization;
    n.text = f.busiest_link + " at " + fmt(100.0 * f.link_utilization, 3) + "% of its " +
             util::format_bandwidth(f.link_bandwidth_Bps) + " with every workload at " + at +
             ": raise the link (sonicsim plan ... min-bandwidth --link " + f.busiest_link +
             ") or lower the workloads' load";
    return n;
  }
  // The pool offered more than its devices give, even at the most favourable value: the other
  // workloads (or the open loops) bind, not the one varied.
  if (f.pool_load > 1.0) {
    n.kind = "pool";
    n.resource = f.binding_pool;
    n.utilization = f.pool_load;
    const std::string index = std::to_string(f.binding_index);
    const bool varied = o.vary == "servers." + index + ".count";
    n.text = "pool " + f.binding_pool + " offered " + fmt(100.0 * f.pool_load, 3) +
             "% of its devices by the workloads together at " + at +
             (std::isinf(f.stretch) ? ", the open loops alone more than it serves" : "") +
             (varied ? ": raise the high end with --range LO:HI"
                     : ": add devices (sonicsim plan ... min-devices, or --set servers." + index +
                           ".count=N) or lower the other workloads' load");
    return n;
  }
  n.kind = "time";
  std::string worst;
  double ratio = 0.0;
  for (std::size_t w = 0; w < r.mix->terms.size(); ++w) {
    if (o.scope.index && *o.scope.index != w) continue;
    const double x = f.time_per_event_s[w] / r.mix->terms[w].reference_s;
    if (x > ratio) {
      ratio = x;
      worst = r.mix->terms[w].name;
    }
  }
  n.text = "at " + at + " the shared formula gives `" + worst + "` " + fmt(ratio, 4) +
           "x its reference time per event with no pool past its knee: a looser constraint" +
           (o.scope.index ? "" : ", or constrain one workload (--workload NAME)");
  return n;
}

}  // namespace sonicsim::plan::detail
