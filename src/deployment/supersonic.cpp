// `import supersonic` end to end: the chart release chosen (detected from the keys, given, or a
// checkout), the values files checked against its schema, read under 0.3.1's names, classified
// key by key and merged over its defaults as Helm does, mapped over the overlay, and the result
// loaded by sonicsim's own scenario loader before anyone writes it.
#include <algorithm>
#include <filesystem>
#include <map>

#include <sonicsim/deployment/supersonic.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/json_text.hpp>

#include "chart_keys.hpp"
#include "chart_schema.hpp"
#include "chart_versions.hpp"
#include "mapping.hpp"

namespace sonicsim::deployment {
namespace {

std::string shown(const ValueNode& n) {
  switch (n.kind) {
    case ValueNode::Kind::scalar:
      return n.text;
    case ValueNode::Kind::map:
      return "{...}";
    case ValueNode::Kind::list:
      return "[...]";
    case ValueNode::Kind::null:
      return "null";
  }
  return "";
}

// Every key a file sets lands in one list: mapped keys are reported by the Mapper (filled or
// not mapped); the others here, as not relevant, not mapped or unknown.
void classify_file(const ValueNode& map, std::vector<std::string>& segments,
                   SupersonicReport& report, std::map<std::string, std::size_t>& seen,
                   const std::string& version) {
  for (const auto& [key, value] : map.map) {
    segments.push_back(key);
    if (value.is_map() && has_listed_children(segments)) {
      classify_file(value, segments, report, seen, version);
    } else {
      const Classified c = classify(segments, version);
      std::string path;
      for (const auto& s : segments) path = join_key(path, s);
      ReportEntry e{"", path, shown(value), value.where(), c.reason, c.family};
      std::vector<ReportEntry>* list = c.kind == KeyClass::not_relevant ? &report.not_relevant
                                       : c.kind == KeyClass::not_mapped ? &report.not_mapped
                                       : c.kind == KeyClass::unknown    ? &report.unknown
                                                                        : nullptr;
      if (list) {
        // A later file setting the same key replaces the line: it is the value Helm uses.
        const std::string id = std::to_string(static_cast<int>(c.kind)) + path;
        if (const auto it = seen.find(id); it != seen.end())
          (*list)[it->second] = e;
        else {
          seen[id] = list->size();
          list->push_back(e);
        }
      }
    }
    segments.pop_back();
  }
}

[[noreturn]] void throw_problems(std::vector<ValuesProblem> problems) {
  // One InputError names one file: problems of later files carry theirs in the path.
  const std::string file = problems.front().file;
  std::vector<Problem> out;
  for (auto& p : problems) {
    // A key read in several places is reported once.
    const bool twice = std::any_of(out.begin(), out.end(), [&](const Problem& q) {
      return q.message == p.problem.message && q.path.ends_with(p.problem.path);
    });
    if (twice) continue;
    if (p.file != file) p.problem.path = p.file + ": " + p.problem.path;
    out.push_back(std::move(p.problem));
  }
  throw InputError(file, std::move(out));
}

nlohmann::json read_overlay(const std::string& path) {
  std::string error;
  const std::string text = read_text(path, error);
  if (!error.empty()) throw InputError(path, {{"", "cannot read the overlay: " + error}});
  auto doc = parse_json(text, path);
  if (!doc)
    throw InputError(path, {{"",
                             "found text that is not JSON, expected a (partial) "
                             "scenario: a JSON object"}});
  if (!doc->is_object())
    throw InputError(path, {{"", "found " + std::string(doc->type_name()) +
                                     ", expected a (partial) scenario: a JSON object"}});
  if (doc->contains("servers") && !(*doc)["servers"].is_array())
    throw InputError(path, {{"servers", "found " + std::string((*doc)["servers"].type_name()) +
                                            ", expected an array of pools"}});
  if (doc->contains("servers") && !(*doc)["servers"].empty() && !(*doc)["servers"][0].is_object())
    throw InputError(path,
                     {{"servers[0]", "found " + std::string((*doc)["servers"][0].type_name()) +
                                         ", expected a pool (an object)"}});
  for (const char* section : {"load_balancer", "workload"})
    if (doc->contains(section) && !(*doc)[section].is_object() && !(*doc)[section].is_null())
      throw InputError(path, {{section, "found " + std::string((*doc)[section].type_name()) +
                                            ", expected an object"}});
  return *doc;
}

// What the values cannot say and the scenario needs: named part by part.
std::vector<Problem> missing_parts(const nlohmann::json& s, bool have_overlay) {
  std::vector<Problem> out;
  const std::string give = have_overlay ? "give it in the overlay" : "give it with --overlay";
  if (!s.contains("duration"))
    out.push_back({"duration", "missing: how long to simulate (\"1h\"); " + give});
  if (!s.contains("workload") && !s.contains("workloads"))
    out.push_back({"workload",
                   "missing: the client jobs (jobs, threads_per_job, "
                   "cpu_time_per_event, requests) or arrivals; " +
                       give});
  if (!s.contains("models") || !s["models"].is_object() || s["models"].empty())
    out.push_back({"models",
                   "missing: the models the pool serves, with service_time for its "
                   "device; " +
                       give});
  const auto& pool = s["servers"][0];
  if (!pool.contains("models"))
    out.push_back({"servers[0].models", "missing: which models the pool serves; " + give});
  if (!pool.contains("device"))
    out.push_back({"servers[0].device",
                   "missing: the values name no GPU product (nvidia.com/gpu.product in "
                   "triton.nodeSelector or triton.affinity); give --device NAME or " +
                       give});
  return out;
}

// The release the files follow and its chart: --chart DIR's own, --chart-version, or the
// newest release any file's keys need.
struct Chart {
  ChartTraits traits;
  std::string source;       // for the report
  ValueNode defaults;       // values.yaml, as the chart's defaults
  std::string schema_json;  // a checkout's values.schema.json, or "" for the built-in types
};

// A checkout's file, capped as a values file is (read_text refuses a larger one by name).
std::string read_or_refuse(const std::string& path, const std::string& what) {
  std::string error;
  std::string text = read_text(path, error, ValuesLimits::max_bytes);
  if (!error.empty()) throw InputError(path, {{"", "cannot read " + what + ": " + error}});
  return text;
}

Chart choose_chart(const SupersonicOptions& options, const std::vector<ValueNode>& files) {
  Chart c;
  std::string version = options.chart_version;
  if (!options.chart_dir.empty()) {
    const std::filesystem::path dir(options.chart_dir);
    const std::string chart_yaml = (dir / "Chart.yaml").string();
    const ValueNode meta = read_values_file(chart_yaml);
    const ValueNode* v = meta.find("version");
    if (!v || v->kind != ValueNode::Kind::scalar || v->text.empty())
      throw InputError(chart_yaml,
                       {{"version", "missing, expected the chart's version (\"0.3.1\")"}});
    if (!version.empty() && version != v->text)
      throw InputError(chart_yaml,
                       {{"version", "found " + v->text + ", expected " + version +
                                        " as --chart-version says (give one of them)"}});
    version = v->text;
    c.defaults = parse_values(read_or_refuse((dir / "values.yaml").string(), "the chart's values"),
                              chart_defaults_name());
    const auto schema = dir / "values.schema.json";
    if (std::filesystem::exists(schema))
      c.schema_json = read_or_refuse(schema.string(), "the chart's schema");
    const bool known = known_chart_version(version);
    c.traits = chart_traits(known ? version : supersonic_chart_version);
    c.traits.version = version;
    c.source =
        "the chart in " + options.chart_dir + " (its values.yaml and values.schema.json)" +
        (known ? std::string()
               : "; its templates are taken to render as chart " +
                     std::string(supersonic_chart_version) + "'s, the newest sonicsim knows");
    return c;
  }
  if (!version.empty()) {
    if (!known_chart_version(version)) {
      std::string list;
      for (const auto& k : chart_versions()) list += (list.empty() ? "" : ", ") + k;
      throw InputError("--chart-version", {{"", "found " + version + ", expected one of " + list +
                                                    " (or --chart DIR for another release)"}});
    }
    c.source = "given (--chart-version)";
  } else {
    std::optional<Detected> newest;
    for (const auto& f : files)
      if (auto d = detect_chart_version(f);
          d && (!newest || compare_versions(d->version, newest->version) > 0))
        newest = d;
    if (newest) {
      version = newest->version;
      c.source = "detected from " + newest->evidence + ", a key of chart " + newest->range +
                 " (--chart-version to choose another)";
    } else {
      version = supersonic_chart_version;
      c.source = "no key tells the release: the newest sonicsim knows (--chart-version to choose)";
    }
  }
  c.traits = chart_traits(version);
  c.defaults = parse_values(c.traits.defaults_yaml, chart_defaults_name());
  return c;
}

}  // namespace

SupersonicImport import_supersonic(const SupersonicOptions& options) {
  SupersonicImport out;
  SupersonicReport& report = out.report;
  report.files = options.values_files;
  report.overlay = options.overlay;

  std::vector<ValueNode> files;
  for (const auto& file : options.values_files) files.push_back(read_values_file(file));
  Chart chart = choose_chart(options, files);
  const std::string version = chart.traits.version;
  report.chart_version = version;
  report.chart_source = chart.source;

  // Helm validates the values against the chart's schema before it renders anything.
  std::vector<ValuesProblem> typed;
  for (const auto& f : files)
    for (auto& p : check_schema_types(f, version, chart.schema_json))
      typed.push_back({p.file, {p.key, p.message}});

  ValueNode merged = std::move(chart.defaults);
  std::map<std::string, std::size_t> seen;
  // A release sonicsim knows is read under 0.3.1's names, a checkout's defaults too; a newer
  // one is taken as it is.
  const bool known = known_chart_version(version);
  if (known) migrate_to_current(merged, version);
  for (auto& values : files) {
    if (known)
      for (const auto& r : migrate_to_current(values, version))
        report.renamed.push_back({r.to, r.from, "", r.where,
                                  "chart " + version + "'s name; renamed in chart " + r.since, ""});
    std::vector<std::string> segments;
    classify_file(values, segments, report, seen, version);
    coalesce(merged, values);
  }

  nlohmann::json overlay =
      options.overlay.empty() ? nlohmann::json::object() : read_overlay(options.overlay);
  for (const auto& more : options.more_overlays) {
    overlay.merge_patch(read_overlay(more));
    report.overlay += " + " + more;
  }
  for (const auto& [key, value] : overlay.items()) report.from_overlay.push_back(key);

  Mapper mapper(merged, options, overlay, report, chart.traits);
  if (!mapper.scenario.contains("servers") || mapper.scenario["servers"].empty())
    mapper.scenario["servers"] = nlohmann::json::array({nlohmann::json::object()});
  if (overlay.contains("servers") && overlay["servers"].size() > 1)
    mapper.note(
        "the overlay's servers[1..] stay as they are: the values describe one pool, "
        "servers[0]");
  mapper.run();
  // The schema's refusal of a key comes first; the mapping's own word on it would repeat it.
  for (auto& p : mapper.problems) {
    const bool said = std::any_of(typed.begin(), typed.end(), [&](const ValuesProblem& t) {
      return t.file == p.file && t.problem.path == p.problem.path;
    });
    if (!said) typed.push_back(std::move(p));
  }
  if (!typed.empty()) throw_problems(std::move(typed));
  if (!mapper.scenario.contains("description"))
    mapper.scenario["description"] =
        "imported from SuperSONIC values (chart " + version + ") by sonicsim import supersonic";

  const std::string source =
      options.overlay.empty() ? "the imported scenario" : options.overlay + " + values";
  if (auto missing = missing_parts(mapper.scenario, !options.overlay.empty()); !missing.empty())
    throw InputError(source, std::move(missing));

  if (options.strict && (!report.unknown.empty() || !report.not_mapped.empty())) {
    std::vector<ValuesProblem> problems;
    const auto add = [&](const ReportEntry& e, const std::string& what) {
      // `where` is FILE:LINE: the problem names the file and says the line.
      const auto colon = e.where.rfind(':');
      const bool located = colon != std::string::npos && colon + 1 < e.where.size();
      problems.push_back(
          {located ? e.where.substr(0, colon) : options.values_files.front(),
           {e.values_key, (located ? "line " + e.where.substr(colon + 1) + ": " : "") + what}});
    };
    for (const auto& e : report.unknown) add(e, "found an unknown key (" + e.reason + ")");
    for (const auto& e : report.not_mapped)
      add(e, "found " + e.value + ", not mapped: " + e.reason);
    for (auto& p : problems) p.problem.message += " (--strict)";
    throw_problems(std::move(problems));
  }

  // The file written must run: sonicsim's own loader decides, as `sonicsim validate` would,
  // with relative paths resolved from the folder the file is written to.
  const std::string anchor = !options.output.empty() ? options.output : options.overlay;
  const std::string base = anchor.empty() || std::filesystem::path(anchor).parent_path().empty()
                               ? std::string(".")
                               : std::filesystem::path(anchor).parent_path().string();
  try {
    scenario::load_json(mapper.scenario, source, base);
  } catch (const InputError& e) {
    std::vector<Problem> problems = e.problems();
    problems.push_back({"",
                        "the values mapped over the overlay do not load as a scenario: fix "
                        "the overlay, or the values key the report maps onto that path (relative "
                        "paths resolve from " +
                            base + ", the folder the scenario is written to)"});
    throw InputError(source, std::move(problems));
  }
  out.scenario = std::move(mapper.scenario);
  return out;
}

}  // namespace sonicsim::deployment
