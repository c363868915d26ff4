// The entry points of the loader and the top level of a scenario: its own keys (name, seed,
// duration, warmup, timeseries) and the order in which the sections are read. Each section has a
// file of its own (see loader_impl.hpp).
#include <sonicsim/scenario/loader.hpp>

#include <algorithm>
#include <filesystem>

#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/sha256.hpp>

#include "keys.hpp"
#include "loader_impl.hpp"
#include "plausibility.hpp"

namespace sonicsim::scenario {
namespace detail {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

Loader::Loader(std::string base_dir) : advice(scenario_advice()), base_dir_(std::move(base_dir)) {}

bool Loader::referenced(const std::string& path) const {
  return std::any_of(referenced_files.begin(), referenced_files.end(),
                     [&](const auto& f) { return f.path == path; });
}

// The sections are read in an order where each finds what it refers to: admission and faults
// look at the pools, faults at the network links and the workload's jobs.
void Loader::scenario(const json& doc, Scenario& s) {
  if (!expect_object(doc, "", "a JSON object (the scenario)")) return;
  top_level(doc, s);
  workloads(doc, s);
  if (const json* x = get(doc, keys::kDevices); x && !x->is_null()) devices(*x, s);
  if (const json* x = get(doc, keys::kModels)) models(*x, s);
  slice_service_times(s);
  if (const json* x = get(doc, keys::kServers)) servers(*x, "servers", s);
  catalogue_devices(s);
  if (const json* x = get(doc, keys::kPrices); x && !x->is_null()) prices(*x, s);
  if (const json* x = get(doc, "load_balancer"); x && !x->is_null())
    load_balancer(*x, "load_balancer", s);
  if (const json* x = get(doc, "network")) network(*x, "network", s.network);
  sites(doc, s);
  placements(doc, s);
  if (const json* x = get(doc, "faults")) faults(*x, "faults", s);
  // nlohmann keeps object keys sorted, so the models already are; sort anyway for in-code docs.
  std::sort(s.models.begin(), s.models.end(),
            [](const Model& a, const Model& b) { return a.name < b.name; });
  cross_check(doc, s);
  if (ok()) site_checks(s);
  if (ok()) time_checks(doc, s);
  if (ok()) {
    std::vector<std::string> paths;
    const bool several = get(doc, keys::kWorkloads) != nullptr;
    for (std::size_t i = 0; i < s.workloads.size(); ++i)
      paths.push_back(several ? index_path("workloads", i) : "workload");
    s.warnings = plausibility_warnings(readings, s, paths);
  }
}

void Loader::top_level(const json& doc, Scenario& s) {
  // Workload keys written at the top level (e.g. `--set mode=async`) get pointed home.
  check_keys(doc, "",
             {"$schema",      keys::kName,     keys::kDescription, keys::kSeed,    keys::kDuration,
              keys::kWarmup,  keys::kWorkload, keys::kWorkloads,   keys::kDevices, keys::kModels,
              keys::kServers, "load_balancer", "network",          keys::kSites,   "wan",
              keys::kRouting, "timeseries",    "faults",           keys::kPrices,  "uncertainty",
              "growth"},
             {keys::kJobs, keys::kThreadsPerJob, keys::kJobsPerNode, keys::kMode, keys::kAsync,
              keys::kCpuTimePerEvent, keys::kRequests, keys::kArrivals, keys::kClient},
             "belongs inside `workload`, not at the top level");
  if (const json* x = get(doc, "$schema")) string(*x, "$schema");
  if (const json* x = get(doc, keys::kName)) {
    if (auto n = string(*x, keys::kName)) s.name = *n;
  }
  if (const json* x = get(doc, keys::kDescription)) {
    if (auto d = string(*x, keys::kDescription, true)) s.description = *d;
  }
  if (const json* x = get(doc, keys::kSeed)) {
    if (auto n = unsigned_integer(*x, keys::kSeed)) s.seed = *n;
  }
  std::optional<double> duration;
  if (const json* x = get(doc, keys::kDuration)) {
    duration = quantity(*x, keys::kDuration, Quantity::Time,
                        Range{0.0, Limits::max_duration_s, true, false});
    if (duration) s.duration = *duration;
  } else {
    missing(keys::kDuration, "the simulated time, a time > 0 such as \"1h\"");
  }
  if (const json* x = get(doc, keys::kWarmup)) {
    if (auto w = quantity(*x, keys::kWarmup, Quantity::Time, Range::at_least(0))) {
      s.warmup = *w;
      if (duration && *w >= *duration) {
        add(keys::kWarmup, "found " + describe(*x) +
                               ", expected a warm-up shorter than duration (" +
                               describe(doc.at(keys::kDuration)) + ")");
      }
    }
  }
  if (const json* x = get(doc, "timeseries"); x && !x->is_null()) timeseries(*x, duration, s);
}

// `timeseries`: true for the default interval; an object says which.
void Loader::timeseries(const json& v, std::optional<double> duration, Scenario& s) {
  constexpr double kDefaultInterval = 10.0;
  if (v.is_boolean()) {
    s.timeseries_interval = v.get<bool>() ? kDefaultInterval : 0.0;
  } else if (expect_object(v, "timeseries", "true, false or an object {\"interval\": \"10s\"}")) {
    check_keys(v, "timeseries", {keys::kInterval, "replicas"});
    s.timeseries_interval = kDefaultInterval;
    if (const json* i = get(v, keys::kInterval)) {
      if (auto t = quantity(*i, "timeseries.interval", Quantity::Time, Range::positive()))
        s.timeseries_interval = *t;
    }
    if (const json* r = get(v, "replicas"); r && !r->is_null())
      if (auto b = boolean(*r, "timeseries.replicas")) s.timeseries_replicas = *b;
  }
  // A series coarser than the run has no sample at all (and an OpenMetrics file of none).
  if (duration && s.timeseries_interval > *duration)
    add("timeseries.interval", "found " + util::format_time(s.timeseries_interval) +
                                   " for a duration of " + util::format_time(*duration) +
                                   ", expected an interval at most the duration: the first "
                                   "sample is taken one interval into the run");
  // At most Limits::max_timeseries_windows samples.
  if (duration && s.timeseries_interval > 0.0 &&
      *duration / s.timeseries_interval > Limits::max_timeseries_windows)
    add("timeseries.interval", "found " + util::format_time(s.timeseries_interval) +
                                   " for a duration of " + util::format_time(*duration) +
                                   ", expected at most 1,000,000 samples (an interval of at "
                                   "least " +
                                   util::format_time(*duration / Limits::max_timeseries_windows) +
                                   ")");
}

}  // namespace detail

namespace {

using detail::json;

// `from_file`: `file` is a real path (load_file), not just a label for messages (load_json).
Scenario build(json doc, const std::string& file, bool from_file, const std::string& base_dir,
               const std::vector<Override>& overrides, std::vector<Problem> problems,
               const LoadOptions& options) {
  const std::vector<AppliedOverride> applied = apply_overrides(doc, overrides, problems);
  detail::Loader loader(base_dir);
  loader.strict_units = options.strict_units;
  Scenario s;
  loader.scenario(doc, s);
  credit_overrides(loader.problems, applied);
  credit_overrides(s.warnings, applied);
  problems.insert(problems.end(), std::make_move_iterator(loader.problems.begin()),
                  std::make_move_iterator(loader.problems.end()));
  if (!problems.empty()) throw InputError(file, std::move(problems));
  if (from_file) s.source_file = file;
  if (s.name.empty()) s.name = from_file ? std::filesystem::path(file).stem().string() : "scenario";
  s.canonical_json = doc.dump();
  s.referenced_files = std::move(loader.referenced_files);
  std::string hashed = s.canonical_json;
  for (const auto& f : s.referenced_files)
    hashed.append("\n").append(f.path).append("\n").append(f.sha256);
  s.sha256 = sha256_hex(hashed);
  return s;
}

}  // namespace

Scenario load_json(const nlohmann::json& doc, const std::string& file,
                   const std::string& base_dir) {
  return build(doc, file, false, base_dir, {}, {}, {});
}

Scenario load_file(const std::string& path, const std::vector<Override>& overrides,
                   const LoadOptions& options) {
  std::string error;
  const std::string text = read_text(path, error);
  if (!error.empty()) throw InputError(path, {{"", "cannot read the scenario file: " + error}});
  std::vector<Problem> problems;
  std::optional<json> doc = detail::parse_document(text, problems);
  if (!doc) throw InputError(path, std::move(problems));
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return build(std::move(*doc), path, true, base_dir, overrides, std::move(problems), options);
}

std::vector<Problem> validate_file(const std::string& path, const std::vector<Override>& overrides,
                                   const LoadOptions& options) {
  try {
    load_file(path, overrides, options);
  } catch (const InputError& e) {
    return e.problems();
  }
  return {};
}

std::string warning_line(const std::string& file, const Problem& warning) {
  return file + ": " + (warning.path.empty() ? "" : warning.path + ": ") +
         "warning: " + warning.message;
}

std::vector<Override> overrides_of(const Source& source) {
  std::vector<Override> overrides;
  for (const auto& s : source.sets) overrides.push_back(parse_override(s));
  if (source.seed >= 0) overrides.push_back({"seed", std::to_string(source.seed)});
  return overrides;
}

Scenario load(const Source& source) {
  return load_file(source.scenario_path, overrides_of(source),
                   {.strict_units = source.strict_units});
}

}  // namespace sonicsim::scenario
