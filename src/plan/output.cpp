// A plan's report: the JSON of docs/plan.md and the text for a terminal.
#include <sonicsim/plan/plan.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/format.hpp>

#include "questions.hpp"
#include "sequential.hpp"

namespace sonicsim::plan {

namespace {

nlohmann::json opt(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string show(const Report& r, double v) {
  return detail::show_value(r.options, v);
}

std::string show_metric(const Report& r, double v) {
  // Appended rather than "$" + ...: GCC 12 warns (-Wrestrict) on the temporary's concatenation.
  if (r.options.question == Question::Cost) return std::string("$").append(detail::fmt(v, 5));
  if (r.options.constraint == Constraint::PerJobThroughput) return detail::fmt(v, 5) + "/s";
  // Every workload against its own reference: the worst ratio.
  if (r.options.constraint == Constraint::Slowdown && r.options.scope.several &&
      !r.options.scope.index)
    return std::isfinite(v) ? detail::fmt(v, 5) + "x" : "inf";
  return std::isfinite(v) ? util::format_time(v) : "inf";
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

nlohmann::json flag(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The flags given, over the scenario's own prices and powers (when it has some).
std::string describe_prices(const Prices& p, bool scenario_priced) {
  if (!scenario_priced && p.gpu_hour && p.core_hour) {
    const double kwh = p.kwh.value_or(0.0);
    return "$" + detail::fmt(*p.gpu_hour) + "/GPU-hour, $" + detail::fmt(*p.core_hour) +
           "/core-hour" +
           (kwh > 0 ? ", $" + detail::fmt(kwh) + "/kWh at " + detail::fmt(p.gpu_watts.value_or(0)) +
                          " W/GPU and " + detail::fmt(p.core_watts.value_or(0)) + " W/core"
                    : "");
  }
  std::string out;
  const auto part = [&](const std::optional<double>& v, const char* before, const char* after) {
    if (v) out.append(out.empty() ? "" : ", ").append(before).append(detail::fmt(*v)).append(after);
  };
  part(p.gpu_hour, "$", "/GPU-hour");
  part(p.core_hour, "$", "/core-hour");
  part(p.kwh, "$", "/kWh");
  part(p.gpu_watts, "", " W/GPU");
  part(p.core_watts, "", " W/core");
  return out.empty() ? "the scenario's prices and powers"
                     : out + " (over the scenario's prices and powers)";
}

nlohmann::json none_json(const Report& r, const std::optional<NoAnswer>& n) {
  if (!n) return nullptr;
  return {{"kind", n->kind},
          {"resource", n->resource.empty() ? nlohmann::json(nullptr) : nlohmann::json(n->resource)},
          {"utilization", opt(n->utilization)},
          {"value", val(r, n->value)},
          {"n_cpu", opt(n->n_cpu)},
          {"text", n->text}};
}

// The open loop or the workloads the plan is about, before anything is simulated.
std::string describe_mix(const Report& r) {
  const MixLoad& mix = *r.mix;
  std::ostringstream os;
  if (r.options.scope.open_loop) {
    const auto& t = mix.terms.front();
    os << "  open loop    " << detail::fmt(t.arrival_rate_per_s, 6)
       << " events/s arriving, no client threads: N_CPU is the events in flight (Little's "
          "law),\n               about "
       << detail::fmt(t.n_cpu, 4) << " at t_ideal " << util::format_time(t.t_ideal_s)
       << "; the formula answers where the pools stop keeping up (each request\n"
          "               executing alone: dynamic batching, simulated, serves more)\n";
    return os.str();
  }
  double n_cpu = 0.0;
  for (const auto& t : mix.terms) n_cpu += t.n_cpu;
  os << "  workloads    " << mix.terms.size() << " share the servers, the constraint on "
     << (mix.constrained.empty() ? "every one" : "`" + mix.constrained + "`") << "; N_CPU "
     << detail::fmt(n_cpu, 5) << " together (job flows: running on average)\n";
  for (const auto& t : mix.terms)
    os << "               " << t.name << ": "
       << (t.open_loop ? detail::fmt(t.arrival_rate_per_s, 5) + " events/s (open loop)"
                       : detail::fmt(t.n_cpu, 5) + " threads")
       << ", t_ideal " << util::format_time(t.t_ideal_s) << "\n";
  os << "               the formula asks them together (one stretch of device time at the "
        "binding pool)\n";
  return os.str();
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
  c["text"] = detail::describe_constraint(r);
  j["constraint"] = c;
  j["replications"] = o.replications;
  std::vector<std::int64_t> seeds;
  for (int k = 0; k < o.replications; ++k) seeds.push_back(r.base_seed + k);
  j["seeds"] = seeds;
  j["range"] = r.answer.status == "analytic_only"
                   ? nlohmann::json(nullptr)
                   : nlohmann::json{val(r, r.range_min), val(r, r.range_max)};
  j["base"] = r.base;
  if (r.flow)
    j["flow"] = {{"workload", r.flow->path},
                 {"rule", r.flow->rule},
                 {"jobs", r.flow->jobs},
                 {"starts", r.flow->starts},
                 {"most_starts", r.flow->most_starts ? nlohmann::json(*r.flow->most_starts)
                                                     : nlohmann::json(nullptr)},
                 {"job_lifetime_s", num(r.flow->job_lifetime_s)},
                 {"mean_running_jobs", num(r.flow->mean_running_jobs)},
                 {"mean_running_threads", num(r.flow->mean_running_threads)}};
  if (!r.autoscaler.empty()) j["autoscaler"] = r.autoscaler;
  if (r.mix) {
    nlohmann::json terms = nlohmann::json::array();
    for (const auto& t : r.mix->terms)
      terms.push_back({{"name", t.name},
                       {"open_loop", t.open_loop},
                       {"arrival_rate_per_s", t.open_loop ? nlohmann::json(t.arrival_rate_per_s)
                                                          : nlohmann::json(nullptr)},
                       {"n_cpu", num(t.n_cpu)},
                       {"n_cpu_nominal", num(t.n_cpu_nominal)},
                       {"t_ideal_s", num(t.t_ideal_s)},
                       {"reference_s", num(t.reference_s)}});
    j["workloads"] = {
        {"constrained",
         r.mix->constrained.empty() ? nlohmann::json("all") : nlohmann::json(r.mix->constrained)},
        {"terms", terms}};
  }
  j["analytic"] = {
      {"formula", val(r, r.formula_answer)},
      {"mva", val(r, r.mva_answer)},
      {"mva_batched", val(r, r.mva_batched_answer)},
      {"none", {{"formula", none_json(r, r.formula_none)}, {"mva", none_json(r, r.mva_none)}}},
      {"first_bracket", {val(r, r.bracket_low), val(r, r.bracket_high)}}};

  nlohmann::json a;
  a["status"] = r.answer.status;
  a["value"] = val(r, r.answer.value);
  a["interval"] = {val(r, r.answer.interval_low), val(r, r.answer.interval_high)};
  a["fail_value"] = val(r, r.answer.fail_value);
  if (const Point* p = point_at(r, r.answer.value)) {
    a["metric"] = {{"mean", num(p->metric.mean)},
                   {"ci95", p->metric.values.size() > 1 ? num(p->metric.ci95) : nlohmann::json()}};
    const double n_cpu = summary_of(*p, detail::summary_key::n_cpu),
                 n_gpu = summary_of(*p, detail::summary_key::n_gpu);
    a["n_cpu"] = n_cpu;
    a["n_cpu_nominal"] = summary_of(*p, detail::summary_key::n_cpu_nominal);
    a["n_gpu"] = n_gpu;
    a["n_cpu_per_gpu"] = n_gpu > 0 ? nlohmann::json(n_cpu / n_gpu) : nlohmann::json(nullptr);
    if (o.question == Question::Cost) {
      a["cost_per_million_events"] = num(p->metric.mean);
      a["hourly_cost"] = num(summary_of(*p, detail::summary_key::hourly_cost));
      a["throughput_per_s"] = summary_of(*p, detail::summary_key::throughput_per_s);
    }
  }
  j["answer"] = a;
  if (o.question == Question::Cost)
    j["prices"] = {{"gpu_hour", flag(o.prices.gpu_hour)},
                   {"core_hour", flag(o.prices.core_hour)},
                   {"gpu_watts", flag(o.prices.gpu_watts)},
                   {"core_watts", flag(o.prices.core_watts)},
                   {"kwh", flag(o.prices.kwh)}};

  j["simulations"] = {{"count", r.simulations},
                      {"points", r.points.size()},
                      {"simulated_s", num(r.simulated_s)},
                      {"run_s", num(r.duration_s)}};
  j["stopping"] = {
      {"sequential", o.sequential},
      {"min_replications", detail::first_replications(o)},
      {"max_replications", o.replications},
      {"interval_from_edge", o.interval_from_edge},
      {"short_run",
       {{"fraction", o.short_run},
        {"margin", o.short_margin},
        {"run_s", r.short_run_s > 0.0 ? nlohmann::json(r.short_run_s) : nlohmann::json(nullptr)},
        {"off",
         r.short_run_off.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.short_run_off)},
        {"simulations", r.short_simulations}}}};
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) {
    nlohmann::json q;
    q["value"] = val(r, p.value);
    q["round"] = p.order;
    q["seeds"] = p.seeds;
    q["stopped"] = p.stopped;
    q["run_s"] = num(p.run_s);
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
  os << "  constraint   " << detail::describe_constraint(r) << "\n";
  if (o.question == Question::Cost)
    os << "  prices       " << describe_prices(o.prices, o.scenario_priced) << "\n";
  const auto show_opt = [&](const std::optional<double>& v) {
    return v ? show(r, *v) : std::string("none");
  };
  if (r.flow) {
    const FlowLoad& f = *r.flow;
    os << "  job flow     " << f.rule << ": " << f.starts << " of " << f.jobs
       << " jobs start in the run";
    if (f.job_lifetime_s > 0) os << ", each for about " << util::format_time(f.job_lifetime_s);
    os << "\n               about " << detail::fmt(f.mean_running_jobs, 4) << " jobs ("
       << detail::fmt(f.mean_running_threads, 4) << " threads) run on average after the warm-up";
    if (r.mix)
      os << " (" << f.path << ", its part of N_CPU)\n";
    else
      os << ": the formula's and MVA's N_CPU (nominal "
         << r.base.value("n_cpu_nominal", std::int64_t{0}) << ")\n";
  }
  if (r.mix) os << describe_mix(r);
  if (!r.autoscaler.empty())
    os << "  autoscaler   " << r.autoscaler
       << " scales the pool between its min_replicas and the count searched, its ceiling\n";
  os << "  analytic     formula " << show_opt(r.formula_answer) << ", MVA "
     << show_opt(r.mva_answer);
  if (r.mva_batched_answer) os << ", MVA with batching " << show_opt(r.mva_batched_answer);
  if (r.answer.status != "analytic_only")
    os << "; simulated range " << show(r, r.range_min) << " .. " << show(r, r.range_max);
  os << "\n";
  if (r.formula_none && r.mva_none && r.formula_none->text == r.mva_none->text)
    os << "  no answer    formula and MVA: " << r.formula_none->text << "\n";
  else
    for (const auto& [name, n] : {std::pair{"formula", &r.formula_none}, {"MVA", &r.mva_none}})
      if (*n) os << "  no answer    " << name << ": " << (*n)->text << "\n";

  const Point* p = point_at(r, r.answer.value);
  if (r.answer.status == "analytic_only") {
    os << "  answer       not simulated (--analytic-only): formula " << show_opt(r.formula_answer)
       << ", MVA " << show_opt(r.mva_answer);
    if (r.mva_batched_answer) os << ", MVA with batching " << show_opt(r.mva_batched_answer);
    os << "\n";
    return os.str();
  }
  if (r.answer.status == "unsatisfiable") {
    os << "  answer       NONE: even " << o.vary << " = " << show(r, r.range_min)
       << " misses the constraint";
    if (const Point* f = point_at(r, r.answer.fail_value)) {
      os << " (" << show_metric(r, f->metric.mean) << ")";
      const double x = summary_of(*f, detail::summary_key::throughput_per_s);
      if (!(x > 0.0))
        os << "\n               no event finished after the warm-up: a longer duration?";
    }
    os << "\n";
  } else if (p) {
    os << "  answer       " << o.vary << " = " << show(r, *r.answer.value);
    if (r.answer.status == "at_range_min") os << " (already met at the low end of the range)";
    os << "\n";
    const double n_cpu = summary_of(*p, detail::summary_key::n_cpu),
                 n_gpu = summary_of(*p, detail::summary_key::n_gpu);
    os << "               N_CPU " << detail::fmt(n_cpu, r.flow || r.mix ? 5 : 10);
    if (o.scope.open_loop)
      os << " (events in flight, Little's law)";
    else if (r.mix)
      os << " over " << r.mix->terms.size() << " workloads (job flows time-weighted; nominal "
         << detail::fmt(summary_of(*p, detail::summary_key::n_cpu_nominal), 10) << ")";
    else if (r.flow)
      os << " running (time-weighted; nominal "
         << detail::fmt(summary_of(*p, detail::summary_key::n_cpu_nominal), 10) << ")";
    os << ", N_GPU " << detail::fmt(n_gpu, 10);
    if (n_gpu > 0) os << ", " << detail::fmt(n_cpu / n_gpu, 5) << " threads per device";
    os << "; " << r.metric_key << " " << show_metric(r, p->metric.mean);
    if (p->metric.values.size() > 1) os << " +- " << show_metric(r, p->metric.ci95);
    os << "\n";
    if (o.question == Question::Cost)
      os << "               $" << detail::fmt(summary_of(*p, detail::summary_key::hourly_cost), 5)
         << "/hour for " << detail::fmt(summary_of(*p, detail::summary_key::throughput_per_s), 5)
         << " events/s: $" << detail::fmt(p->metric.mean, 5) << " per million events\n";
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
  os << "  simulations  " << r.simulations << " (" << r.points.size() << " values x ";
  const int first = detail::first_replications(o);
  if (first < o.replications) {
    int early = 0;
    for (const auto& q : r.points) early += q.stopped == "certain" ? 1 : 0;
    os << first << ".." << o.replications << " replications, seeds " << r.base_seed << ".."
       << r.base_seed + o.replications - 1 << ", " << early << " stopped early";
  } else {
    os << o.replications << " replication" << (o.replications == 1 ? "" : "s") << ", seeds "
       << r.base_seed
       << (o.replications > 1 ? ".." + std::to_string(r.base_seed + o.replications - 1) : "");
  }
  os << "; " << detail::fmt(r.simulated_s, 9) << " s simulated)\n";
  if (r.short_run_s > 0.0) {
    int decided = 0;
    for (const auto& q : r.points) decided += q.stopped == "short" ? 1 : 0;
    os << "  short runs   " << r.short_simulations << " of " << detail::fmt(r.short_run_s, 6)
       << " s; they decided " << decided << " of " << r.points.size() << " values\n";
  } else if (o.short_run > 0.0) {
    os << "  short runs   off: " << r.short_run_off << "\n";
  }
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
