#include "questions.hpp"
#include "workload_flow.hpp"
#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <utility>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/energy/account.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/scenario/link_names.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/uncertainty/inputs.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::plan {

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

namespace detail {

bool is_bandwidth(const Options& o) {
  return o.question == Question::MinBandwidth;
}

bool is_continuous(const Options& o) {
  return is_bandwidth(o) || varies_rate(o.vary);
}

// The device a pool's count names (servers.I.count -> servers.I.device), for people.
std::string device_of(const std::string& scenario_path, const std::string& vary) {
  const std::string suffix = ".count";
  if (vary.size() <= suffix.size() ||
      vary.compare(vary.size() - suffix.size(), suffix.size(), suffix))
    return "";
  std::string error, why;
  const auto doc = parse_json(read_text(scenario_path, error), scenario_path);
  if (!doc) return "";
  const nlohmann::json* d =
      uncertainty::find_path(*doc, vary.substr(0, vary.size() - suffix.size()) + ".device", why);
  return d && d->is_string() ? d->get<std::string>() : "";
}

nlohmann::json value_json(const Options& o, const std::optional<double>& v) {
  if (!v) return nullptr;
  if (is_continuous(o)) return *v;
  return static_cast<std::int64_t>(std::llround(*v));
}

std::string show_value(const Options& o, double v) {
  if (is_bandwidth(o)) return util::format_bandwidth(v);
  if (varies_rate(o.vary)) return fmt(v, 4) + "/s";
  return format_value(o, v);
}

bool lower_is_better(const Options& o) {
  return o.constraint != Constraint::PerJobThroughput;
}

std::string metric_key(const Options& o) {
  namespace k = results::keys;
  if (o.question == Question::Cost) return "cost_per_million_events";
  const auto& scope = o.scope;
  // The key within `events` (or a workload's) that the constraint reads.
  const bool open = scope.open_loop || (scope.index && scope.open.at(*scope.index));
  std::string key;
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      key = results::column({k::top::events, k::events::per_job_throughput_per_s});
      break;
    case Constraint::P99Latency:
      key = results::column({k::top::requests, k::requests::latency_s, k::quantile::p99});
      break;
    default:
      key = open ? results::column({k::top::events, k::events::time_per_event_s, k::quantile::mean})
                 : results::column({k::top::events, k::events::thread_time_per_event_s});
  }
  if (!scope.several) return key;
  // One workload's own figures, or the worst over every workload.
  const std::string workloads = k::top::workloads;
  if (scope.index) return workloads + "[" + std::to_string(*scope.index) + "]." + key;
  if (o.constraint == Constraint::Slowdown)
    return "max " + workloads + "[*] time per event / reference";
  return (o.constraint == Constraint::PerJobThroughput ? "min " : "max ") + workloads + "[*]." +
         key;
}

std::string fmt(double v, int digits) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : "n/a";
  std::ostringstream os;
  os << std::setprecision(digits) << v;
  return os.str();
}

double round_bandwidth(double b) {
  if (!(b > 0.0)) return b;
  const double scale = std::pow(10.0, std::floor(std::log10(b)) - 3.0);
  return std::round(b / scale) * scale;
}

std::optional<std::int64_t> current_integer(const scenario::Scenario& s, const std::string& path) {
  if (path == "workload.jobs") return s.workload().jobs;
  if (path == "workload.threads_per_job") return s.workload().threads_per_job;
  for (const char* field : {"jobs", "threads_per_job"})
    if (const auto i = indexed_workload(path, field)) {
      if (*i >= s.workloads.size()) return std::nullopt;
      return field[0] == 'j' ? s.workloads[*i].jobs : s.workloads[*i].threads_per_job;
    }
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

std::vector<NamedLink> scenario_links(const scenario::Scenario& s) {
  using scenario::LinkClass;
  std::vector<NamedLink> out;
  if (s.sites.empty()) {
    for (LinkClass c : scenario::kLinkClasses)
      if (const auto& l = s.network.link(c))
        out.push_back({scenario::link_class_name(c),
                       std::string("network.") + scenario::link_class_name(c) + ".bandwidth", *l});
    return out;
  }
  // The WAN is not a link of a site: its links are `wan.links`, each with its own name.
  for (std::size_t i = 0; i < s.sites.size(); ++i) {
    const auto& site = s.sites[i];
    for (const auto& [c, l] : {std::pair{LinkClass::ClientNic, &site.client_nic},
                               std::pair{LinkClass::SiteUplink, &site.site_uplink},
                               std::pair{LinkClass::ServerNic, &site.server_nic}})
      if (*l)
        out.push_back({scenario::site_link_name(site.name, c),
                       "sites." + std::to_string(i) + ".network." + scenario::link_class_name(c) +
                           ".bandwidth",
                       **l});
  }
  // The loader keeps every link of a valid scenario, so scenario and JSON indices agree.
  for (std::size_t j = 0; j < s.wan.links.size(); ++j)
    out.push_back({scenario::wan_link_name(s.wan.links[j].name),
                   "wan.links." + std::to_string(j) + ".bandwidth", s.wan.links[j].spec});
  return out;
}

std::optional<NamedLink> link_named(const scenario::Scenario& s, const std::string& name) {
  for (auto& l : scenario_links(s))
    if (l.name == name) return std::move(l);
  return std::nullopt;
}

std::string describe_constraint(const Report& r) {
  const Options& o = r.options;
  if (o.question == Question::Cost) return "cost per million events, minimised";
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      return "per-job throughput >= " + fmt(o.min_per_job_throughput) + " events/s";
    case Constraint::P99Latency:
      return "p99 request latency <= " + util::format_time(o.max_p99_latency_s);
    default:
      if (o.scope.several && !o.scope.index)
        return "every workload's time per event <= its " +
               std::string(o.reference == Reference::CpuOnly ? "CPU-only t_CPU" : "t_ideal") +
               " + " + fmt(o.slowdown_percent) + "% (the worst ratio <= " + fmt(*r.threshold, 6) +
               ")";
      return std::string(o.scope.open_loop || (o.scope.index && o.scope.open.at(*o.scope.index))
                             ? "mean event time"
                             : "thread time per event") +
             " <= " + util::format_time(*r.threshold) + " (" +
             (o.reference == Reference::CpuOnly      ? "CPU-only t_CPU"
              : o.question == Question::MinBandwidth ? "t_ideal without transfer time"
                                                     : "t_ideal") +
             " " + util::format_time(*r.reference_s) + " + " + fmt(o.slowdown_percent) + "%)";
  }
}

bool meets(const Options& o, double metric, double threshold) {
  return lower_is_better(o) ? metric <= threshold : metric >= threshold;
}

AnalyticPoint predict_at(const std::string& path, const std::vector<scenario::Override>& common,
                         const Options& o, double value) {
  auto overrides = common;
  overrides.insert(overrides.end(), o.price_overrides.begin(), o.price_overrides.end());
  overrides.push_back({o.vary, format_value(o, value)});
  const auto loaded = scenario::load_file(path, overrides);
  AnalyticPoint a;
  // Several workloads: the shared formula (workloads.hpp); MVA solves one population only.
  if (o.scope.several) {
    a.formula = shared_metric(o, shared_formula(loaded));
    return a;
  }
  // A job flow is asked about as the population it runs on average (workload_flow.hpp).
  const auto equivalent = flow_equivalent(loaded);
  const auto& s = equivalent.scenario;
  const auto p = analytic::predict(s);
  // The simulation's per-job throughput is over every job of the workload, started or not.
  const double jobs = static_cast<double>(loaded.workload().jobs);
  const std::optional<double> x_mva =
      p.mva ? std::optional<double>(p.mva->throughput_per_s) : std::nullopt;
  // The formulas assume idle links; a link past full cannot carry the traffic at all.
  bool overloaded = false;
  for (const auto& l : p.links) overloaded = overloaded || l.utilization >= 1.0;
  if (o.question == Question::Cost) {
    // The run's formula at the throughput each model predicts (MVA: the pools as busy as MVA's
    // throughput makes them).
    const auto cost = [&](analytic::Prediction at, double x) {
      for (auto& pool : at.pools)
        pool.utilization *= at.throughput_per_s > 0.0 ? x / at.throughput_per_s : 0.0;
      at.throughput_per_s = x;
      // Priced as the run prices it: every core of the workload, running or not.
      const energy::Account account = energy::predicted_account(loaded, at);
      const auto per_event = account.per_event(account.total_cost());
      return per_event ? *per_event * 1e6 : kInf;
    };
    a.formula = cost(p, p.throughput_per_s);
    if (p.mva) a.mva = cost(p, p.mva->throughput_per_s);
    return a;
  }
  switch (o.constraint) {
    case Constraint::PerJobThroughput:
      a.formula = p.throughput_per_s / jobs;
      if (x_mva) a.mva = *x_mva / jobs;
      if (p.mva_batched) a.mva_batched = p.mva_batched->throughput_per_s / jobs;
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
      // Its link stations carry the bandwidth: no cut-off at a full link.
      if (p.mva_batched) a.mva_batched = p.mva_batched->time_per_event_s;
      break;
  }
  return a;
}

void add_summary(const Options& o, const nlohmann::json& run,
                 std::map<std::string, std::vector<double>>& figures) {
  const results::Document doc(run);
  const auto events = doc.events();
  const auto scoped = scoped_n_cpu(o, doc);
  double util = 0.0;
  for (const auto& pool : doc.servers())
    util = std::max(util, results::zero_if_missing(pool.utilization()));
  figures[summary_key::throughput_per_s].push_back(events.throughput_per_s());
  figures[summary_key::thread_time_per_event_s].push_back(events.thread_time_per_event_s());
  figures[summary_key::per_job_throughput_per_s].push_back(events.per_job_throughput_per_s());
  figures[summary_key::p99_latency_s].push_back(
      doc.requests().latency_s().at(results::Quantile::P99));
  figures[summary_key::max_device_utilization].push_back(util);
  // With a job flow, the threads running (time-weighted over the measured span), else all.
  double nominal = doc.analytic().n_cpu();
  if (o.scope.several) {
    nominal = 0.0;
    for (const auto& w : doc.workloads()) nominal += w.threads();
  }
  const double running = scoped           ? *scoped
                         : doc.has_jobs() ? doc.jobs().mean_running_threads()
                                          : kNaN;
  figures[summary_key::n_cpu].push_back(std::isnan(running) ? nominal : running);
  figures[summary_key::n_cpu_nominal].push_back(nominal);
  figures[summary_key::n_gpu].push_back(doc.analytic().n_gpu());
  if (o.question == Question::Cost)
    figures[summary_key::hourly_cost].push_back(doc.cost().hourly());
  if (is_bandwidth(o))
    for (const auto& link : doc.links())
      if (link.name().value_or("") == o.link)
        figures[summary_key::link_mean_utilization].push_back(
            results::zero_if_missing(link.mean_utilization()));
}

}  // namespace detail

// ---- points ------------------------------------------------------------------------------

std::string format_value(const Options& o, double value) {
  if (detail::is_continuous(o)) return detail::fmt(detail::round_bandwidth(value), 17);
  return std::to_string(static_cast<std::int64_t>(std::llround(value)));
}

std::vector<scenario::Override> point_overrides(const Options& o, double value, std::int64_t seed) {
  std::vector<scenario::Override> out = o.price_overrides;
  out.push_back({o.vary, format_value(o, value)});
  out.push_back({"seed", std::to_string(seed)});
  return out;
}

double metric_of(const Options& o, const nlohmann::json& r) {
  const results::Document doc(r);
  const auto events = doc.events();
  if (o.question == Question::Cost) {
    // The run priced itself (its scenario carries the prices): no event, no price per event.
    const auto per_million = doc.cost().per_million_events();
    return per_million && std::isfinite(*per_million) ? *per_million : kInf;
  }
  if (const auto scoped = detail::scoped_metric(o, doc)) return *scoped;
  return detail::workload_metric(o, events, doc.requests(), false);
}

Simulate simulate_with_run_points(const points::Simulator& simulator,
                                  const std::string& scenario_path,
                                  const std::vector<scenario::Override>& common, int workers,
                                  const points::PointsWatch& watch) {
  return [=](const std::vector<std::vector<scenario::Override>>& sets) {
    return points::run_points(simulator, scenario_path, common, sets, workers, watch);
  };
}

}  // namespace sonicsim::plan
