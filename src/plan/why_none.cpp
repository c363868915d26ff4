// Why the formula or MVA finds no value meeting a constraint (docs/plan.md, "When the formula or
// MVA has no answer"): the models are asked at the value of the varied path most favourable to the
// constraint, and whatever still misses there is named, with what could change it. Raising
// --range is suggested only where the varied resource is what binds.
#include <algorithm>
#include <cmath>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

#include "questions.hpp"
#include "workload_flow.hpp"
#include "workloads.hpp"

namespace sonicsim::plan::detail {

namespace {

std::string threads(double n) {
  return fmt(n, 7) + (n == 1.0 ? " thread" : " threads");
}

// The scenario at `value` as the models see it, at the most favourable value the loader takes
// (a million devices may be more than a pool's servers can hold): nullopt when none loads.
struct Judged {
  double value = 0.0;
  scenario::Scenario loaded;
  analytic::Prediction prediction;
};
std::optional<Judged> judge(const Report& r, double best) {
  const Options& o = r.options;
  const bool up = o.question != Question::MaxCpu;  // best is the top of the domain
  for (double v = best;; v = std::floor(v / 10.0)) {
    auto overrides = r.common;
    overrides.insert(overrides.end(), o.price_overrides.begin(), o.price_overrides.end());
    overrides.push_back({o.vary, format_value(o, v)});
    try {
      auto loaded = scenario::load_file(r.scenario_file, overrides);
      auto prediction = analytic::predict(flow_equivalent(loaded).scenario);
      return Judged{v, std::move(loaded), std::move(prediction)};
    } catch (const scenario::InputError&) {
      if (!up || v < 10.0) break;
    }
  }
  return std::nullopt;
}

// Where the workload's load is set, for "lower the load" advice.
std::string fewer_jobs(const Report& r) {
  if (r.options.scope.open_loop)
    return varies_rate(r.options.vary) ? "a lower rate" : "lower workload.arrivals.rate";
  return r.options.vary == "workload.jobs" ? "fewer jobs" : "lower workload.jobs";
}

}  // namespace

NoAnswer why_none(const Report& r, double best, bool use_mva, bool has_view) {
  const Options& o = r.options;
  NoAnswer n;
  if (o.scope.several) return why_none_shared(r, best, use_mva);
  if (o.scope.open_loop && use_mva) {
    n.kind = "no_view";
    n.text = "MVA solves a closed population of threads; an open loop has none";
    return n;
  }
  if (!has_view) {
    n.kind = "no_view";
    n.text = use_mva ? "MVA solves synchronous threads only; this workload is async"
                     : "the formula gives no latency; MVA's mean request latency is the analytic "
                       "view of a p99";
    return n;
  }
  const auto j = judge(r, best);
  if (!j) {
    n.kind = "time";
    n.text = "no value of " + o.vary + " the scenario takes meets it";
    return n;
  }
  const auto& p = j->prediction;
  n.value = j->value;
  n.n_cpu = static_cast<double>(p.n_cpu);
  const bool open = j->loaded.workload().open_loop();
  const std::string load =
      open ? fmt(*p.arrival_rate_per_s, 6) + " events/s arriving"
           : threads(static_cast<double>(p.n_cpu)) + (r.flow ? " running on average" : "");
  const std::string at = o.vary + " = " + show_value(o, j->value) + " (" + load + ")";

  // A link past its bandwidth: the formulas assume idle links, so this is no answer at all.
  const analytic::LinkTerm* link = nullptr;
  for (const auto& l : p.links)
    if (!link || l.utilization > link->utilization) link = &l;
  if (link && link->utilization >= 1.0) {
    n.kind = "link";
    n.resource = link->name;
    n.utilization = link->utilization;
    n.text = link->name + " at " + fmt(100.0 * link->utilization, 3) + "% of its " +
             util::format_bandwidth(link->bandwidth_Bps) + " at " + at + "; each event moves " +
             util::format_bytes(p.bytes_in_per_event) + " to the servers and " +
             util::format_bytes(p.bytes_out_per_event) + " back";
    const bool varied = is_bandwidth(o) && o.link == link->name;
    n.text += varied ? ": raise the high end with --range LO:HI"
                     : ": no " + o.vary +
                           " carries that; raise the link (sonicsim plan ... "
                           "min-bandwidth --link " +
                           link->name + ") or " + fewer_jobs(r);
    return n;
  }

  // A device pool past its knee: more of the varied resource cannot add devices.
  if (p.binding_pool >= 0 && p.pools[static_cast<std::size_t>(p.binding_pool)].saturated) {
    const auto& pool = p.pools[static_cast<std::size_t>(p.binding_pool)];
    n.kind = "pool";
    n.resource = pool.name;
    n.utilization = pool.utilization;
    const auto index = std::to_string(p.binding_pool);
    const bool varied = o.vary == "servers." + index + ".count";
    if (open)
      n.text = "pool " + pool.name + " past saturation at " + at + ": " +
               std::to_string(pool.count) + (pool.count == 1 ? " device" : " devices") +
               " serve at most " + fmt(p.saturation_rate_per_s, 5) +
               " events/s with each request executing alone (dynamic batching raises it; the "
               "simulation has it)";
    else
      n.text = "pool " + pool.name + " past its knee at " + at + ": " +
               threads(static_cast<double>(p.n_cpu)) + " on " + std::to_string(pool.count) +
               (pool.count == 1 ? " device" : " devices") + ", the knee " +
               threads(pool.saturation_n_cpu) + ", devices " + fmt(100.0 * pool.utilization, 3) +
               "% busy";
    n.text += varied ? ": raise the high end with --range LO:HI"
                     : ": add devices (sonicsim plan ... min-devices, or --set servers." + index +
                           ".count=N) or " + fewer_jobs(r);
    return n;
  }

  // Nothing saturated: the time (latency, throughput) of an unloaded system already misses.
  n.kind = "time";
  const auto a = predict_at(r.scenario_file, r.common, o, j->value);
  const double m = (use_mva ? a.mva : a.formula).value_or(kNaN);
  const std::string model = use_mva ? "MVA" : "the formula";
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      n.text = "at " + at + " " + model + " gives " + fmt(m) + " events/s per job, below " +
               fmt(o.min_per_job_throughput) + ": each thread waits t_ideal " +
               util::format_time(p.t_ideal_s) +
               " per event; a lower --min-per-job-throughput or more workload.threads_per_job";
      break;
    case Constraint::P99Latency:
      n.text = "at " + at + " MVA's mean request latency is " + util::format_time(m) +
               " (of which the network round trip " + util::format_time(p.round_trip_latency_s) +
               "), above " + util::format_time(o.max_p99_latency_s) +
               ": a looser --max-p99-latency, a faster device or a shorter network path";
      break;
    default:
      n.text = "at " + at + " " + model + "'s time per event is " + util::format_time(m) +
               ", above the limit " + util::format_time(r.threshold.value_or(kNaN)) + " (t_ideal " +
               util::format_time(p.t_ideal_s) + ": CPU " +
               util::format_time((1.0 - p.p) * p.t_cpu_s) + ", devices " +
               util::format_time(p.t_gpu_s) + ", network " + util::format_time(p.t_latency_s) +
               ")" +
               (o.reference == Reference::CpuOnly
                    ? ": offloading costs more than the CPU work it saves (t_CPU " +
                          util::format_time(p.t_cpu_s) +
                          "); a looser --slowdown, faster devices or a shorter round trip"
                    : ": a looser --slowdown");
  }
  return n;
}

NoAnswer flow_cap_reason(const Report& r) {
  NoAnswer n;
  n.kind = "flow";
  const FlowLoad& f = *r.flow;
  const std::string flow = f.path + ".flow";
  n.resource = flow;
  const std::string most = std::to_string(f.most_starts.value_or(f.starts));
  n.value = static_cast<double>(f.most_starts.value_or(f.starts));
  n.text = "the most jobs the job flow (" + f.rule + ") starts in the run: jobs above " + most +
           " never start, so max-cpu has no answer for this flow; start more jobs per run "
           "(" +
           flow + ".waves.size, " + flow + ".waves.every or duration)";
  return n;
}

}  // namespace sonicsim::plan::detail
