// What each capacity question compares, shared by the search (plan.cpp) and its report
// (output.cpp): the metric a question reads from a simulation's results and its threshold in
// words, the analytic models' view of it, and how values of the varied path are written.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/plan/plan.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::plan::detail {

// Past these the analytic searches stop: beyond the loader's limits, and far beyond any site.
inline constexpr double kIntegerCap = 1'000'000.0;
inline constexpr double kBandwidthMin = 1e3, kBandwidthMax = 1e14;  // 8 kbps .. 800 Tbps
inline constexpr double kRateMin = 1e-3, kRateMax = 1e9;            // arrivals per second
// "Unlimited" bandwidth for the reference t_ideal of min-bandwidth: its transfer time vanishes.
inline constexpr double kUnlimitedBandwidth = 1e15;

bool is_bandwidth(const Options& o);
// Searched geometrically to --tolerance: a bandwidth or an arrival rate.
bool is_continuous(const Options& o);
// A value of the varied path for people: "10 Gbps", "800/s", "12".
std::string show_value(const Options& o, double v);
// The device of the pool whose count `vary` is (servers.I.count -> servers.I.device), for
// people: "T4"; "" for any other path.
std::string device_of(const std::string& scenario_path, const std::string& vary);
// A value of the varied path for JSON: an integer question's as an integer, a bandwidth's or
// rate's as a number, null when unset (robust plans and timelines).
nlohmann::json value_json(const Options& o, const std::optional<double>& v);
// Smaller is better for times and costs, larger for throughput.
bool lower_is_better(const Options& o);
bool meets(const Options& o, double metric, double threshold);
// The results key compared (its flattened name), or cost_per_million_events.
std::string metric_key(const Options& o);
// The constraint in words: "thread time per event <= 12.3 ms (t_ideal 11.7 ms + 5%)".
std::string describe_constraint(const Report& r);

// `digits` significant digits, "inf" and "n/a" for what is not finite.
std::string fmt(double v, int digits = 4);
// Rounds a bandwidth to 4 significant digits, so that values in files and messages stay readable.
double round_bandwidth(double b);

// The integer the scenario has at `path` (workload.jobs, servers.N.count, ...), if plan knows it.
std::optional<std::int64_t> current_integer(const scenario::Scenario& s, const std::string& path);
// A link min-bandwidth can search: its name as the results give it (`site_uplink` on one site,
// `purdue/site_uplink` or `wan/esnet` with sites), the --set path of its bandwidth and its
// figures in the scenario.
struct NamedLink {
  std::string name, bandwidth_path;
  scenario::LinkSpec spec;
};
// The scenario's links in the results' order: on one site the `network` links present, with
// sites each site's links in path order, then the WAN's.
std::vector<NamedLink> scenario_links(const scenario::Scenario& s);
std::optional<NamedLink> link_named(const scenario::Scenario& s, const std::string& name);

// Both analytic models' view of the metric at one value of the varied path.
AnalyticPoint predict_at(const std::string& path, const std::vector<scenario::Override>& common,
                         const Options& o, double value);

// Why a model (use_mva: MVA, else the formula) has no answer, judged at `best`, the value of the
// varied path most favourable to the constraint (why_none.cpp). has_view: the model has a view
// of the metric at all.
NoAnswer why_none(const Report& r, double best, bool use_mva, bool has_view);
// The same sentence for a model whose answer is the most jobs a flow starts: the question has
// no answer for this flow (the varied jobs beyond never start).
NoAnswer flow_cap_reason(const Report& r);

// The figures a point quotes (Point::summary; points[].summary of docs/plan.md): add_summary
// writes them, the report reads them back.
namespace summary_key {
inline constexpr char throughput_per_s[] = "throughput_per_s";
inline constexpr char thread_time_per_event_s[] = "thread_time_per_event_s";
inline constexpr char per_job_throughput_per_s[] = "per_job_throughput_per_s";
inline constexpr char p99_latency_s[] = "p99_latency_s";
inline constexpr char max_device_utilization[] = "max_device_utilization";
inline constexpr char n_cpu[] = "n_cpu";  // with a job flow, its threads running (time-weighted)
inline constexpr char n_cpu_nominal[] = "n_cpu_nominal";  // jobs x threads_per_job
inline constexpr char n_gpu[] = "n_gpu";
inline constexpr char link_mean_utilization[] = "link_mean_utilization";  // min-bandwidth only
inline constexpr char hourly_cost[] = "hourly_cost";                      // cost only
}  // namespace summary_key

// The figures of one simulation that the plan's points quote, by summary_key.
void add_summary(const Options& o, const nlohmann::json& run,
                 std::map<std::string, std::vector<double>>& figures);

}  // namespace sonicsim::plan::detail
