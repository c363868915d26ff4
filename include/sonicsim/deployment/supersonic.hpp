// `sonicsim import supersonic`: SuperSONIC's Helm values (chart 0.1.0 to 0.3.1, or a chart
// checkout) turned into a scenario.
//
// The values files are merged as Helm merges them over the chart's defaults (maps merge, scalars
// and lists replace, `null` deletes), the keys sonicsim can model are mapped onto one server pool,
// its autoscaler and the load balancer, and the rest (workload, models, service times, network,
// duration) comes from an overlay scenario. Every key a values file sets ends in exactly one list
// of the report: filled, not mapped, not relevant or unknown. yaml-cpp stays private to
// src/deployment: nothing here names it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sonicsim::deployment {

// The newest chart release sonicsim knows the values.yaml and templates of; the import follows
// the release a file was written for (detected from its keys, or --chart-version).
inline constexpr const char* supersonic_chart_version = "0.3.1";

struct SupersonicOptions {
  std::vector<std::string> values_files;  // in order: a later file wins
  std::string overlay;                    // a partial scenario (JSON), may be empty
  // Laid over `overlay` in order as JSON merge patches (RFC 7386: objects merge, null deletes,
  // anything else replaces), e.g. the measured client load of `import prometheus --flow-overlay`.
  std::vector<std::string> more_overlays;
  std::string release = "supersonic";  // Helm's release name, the pool's name without nameOverride
  std::string device;                  // --device: the pool's device name, over the values'
  bool strict = false;                 // unknown and not-mapped keys are errors
  // --chart-version: the release the values were written for ("" : detected from the keys).
  std::string chart_version;
  // --chart DIR: a chart checkout (helm/supersonic): its Chart.yaml version, values.yaml as the
  // defaults and values.schema.json for the types, instead of the built-in ones.
  std::string chart_dir;
  // Where the scenario will be written: the relative paths it takes from the overlay (calibration
  // files, Triton configs) are checked from that folder, as a later `run` resolves them. Empty:
  // from the overlay's folder.
  std::string output;
};

// One line of the report. Which fields are set depends on the list it is in.
struct ReportEntry {
  std::string scenario_key;  // servers[0].count
  std::string values_key;    // triton.replicas
  std::string value;         // as written in the values (or the scenario's value for defaults)
  std::string where;         // values.yaml:12, or the source of a default
  std::string reason;        // why not mapped / not relevant; the did-you-mean hint; a note
  std::string family;        // not relevant, not mapped: the chart's key family (envoy.ingress)
};

struct SupersonicReport {
  std::string chart_version;              // the release followed ("0.3.1")
  std::string chart_source;               // how it was chosen: detected from a key, given, ...
  std::vector<std::string> files;         // the values files, in order
  std::vector<ReportEntry> renamed;       // keys of an older release read under 0.3.1's names
  std::string overlay;                    // the overlay file, or ""
  std::vector<ReportEntry> filled;        // scenario key <- values key = value
  std::vector<ReportEntry> defaulted;     // scenario key = value, from a chart or sonicsim default
  std::vector<ReportEntry> conflicts;     // the overlay said otherwise; the values win
  std::vector<std::string> from_overlay;  // top-level parts the overlay gave
  std::vector<ReportEntry> not_mapped;    // chart keys sonicsim cannot model, and why
  std::vector<ReportEntry> not_relevant;  // chart keys that do not change how requests are served
  std::vector<ReportEntry> unknown;       // not chart keys at all (a typo?)
  std::vector<std::string> notes;         // assumptions the mapping makes
};

struct SupersonicImport {
  nlohmann::json scenario;  // complete and validated by scenario::load_json
  SupersonicReport report;
};

// Reads, merges, maps and validates. Throws InputError (exit 2) for unreadable or malformed
// values or overlay (file:line:column), values of the wrong type (file, key path, line, found,
// expected), a result that misses required parts (which ones to give) or does not load, and,
// with `strict`, for unknown or not-mapped keys.
SupersonicImport import_supersonic(const SupersonicOptions& options);

// The report as text (stdout) and as JSON (--report).
std::string to_text(const SupersonicReport& report);
nlohmann::json to_json(const SupersonicReport& report);

}  // namespace sonicsim::deployment
