// The import's report: the text printed on stdout and the JSON of --report. Every key of the
// JSON is named here once.
#include <sstream>

#include <sonicsim/deployment/supersonic.hpp>

namespace sonicsim::deployment {
namespace {

namespace key {
constexpr const char* chart = "chart";
constexpr const char* chart_version = "version";
constexpr const char* chart_source = "chosen";
constexpr const char* renamed = "renamed";
constexpr const char* files = "values_files";
constexpr const char* overlay = "overlay";
constexpr const char* filled = "filled";
constexpr const char* defaulted = "defaulted";
constexpr const char* conflicts = "conflicts";
constexpr const char* from_overlay = "from_overlay";
constexpr const char* not_mapped = "not_mapped";
constexpr const char* not_relevant = "not_relevant";
constexpr const char* unknown = "unknown";
constexpr const char* notes = "notes";
constexpr const char* scenario_key = "scenario_key";
constexpr const char* values_key = "values_key";
constexpr const char* value = "value";
constexpr const char* where = "where";
constexpr const char* reason = "reason";
constexpr const char* family = "family";
}  // namespace key

nlohmann::json entry_list(const std::vector<ReportEntry>& list) {
  auto out = nlohmann::json::array();
  for (const auto& e : list) {
    nlohmann::json j = nlohmann::json::object();
    if (!e.scenario_key.empty()) j[key::scenario_key] = e.scenario_key;
    if (!e.values_key.empty()) j[key::values_key] = e.values_key;
    j[key::value] = e.value;
    if (!e.where.empty()) j[key::where] = e.where;
    if (!e.reason.empty()) j[key::reason] = e.reason;
    if (!e.family.empty()) j[key::family] = e.family;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const SupersonicReport& r) {
  return {{key::chart,
           {{"name", "supersonic"},
            {key::chart_version, r.chart_version},
            {key::chart_source, r.chart_source}}},
          {key::files, r.files},
          {key::renamed, entry_list(r.renamed)},
          {key::overlay, r.overlay},
          {key::filled, entry_list(r.filled)},
          {key::defaulted, entry_list(r.defaulted)},
          {key::conflicts, entry_list(r.conflicts)},
          {key::from_overlay, r.from_overlay},
          {key::not_mapped, entry_list(r.not_mapped)},
          {key::not_relevant, entry_list(r.not_relevant)},
          {key::unknown, entry_list(r.unknown)},
          {key::notes, r.notes}};
}

std::string to_text(const SupersonicReport& r) {
  std::ostringstream s;
  s << "SuperSONIC values (chart " << r.chart_version << "):";
  for (const auto& f : r.files) s << " " << f;
  if (!r.overlay.empty()) s << "; overlay " << r.overlay;
  s << "\n";
  if (!r.chart_source.empty()) s << "chart " << r.chart_version << ": " << r.chart_source << "\n";
  const auto section = [&](const char* title, const std::vector<ReportEntry>& list, auto&& line) {
    if (list.empty()) return;
    s << "\n" << title << " (" << list.size() << "):\n";
    for (const auto& e : list) s << "  " << line(e) << "\n";
  };
  const auto at = [](const std::string& where) {
    return where.empty() ? std::string() : "  (" + where + ")";
  };
  section("renamed: a key of an older release read under its new name", r.renamed,
          [&](const ReportEntry& e) {
            return e.values_key + " -> " + e.scenario_key + " (" + e.reason + ")" + at(e.where);
          });
  section("filled: scenario key <- values key = value", r.filled, [&](const ReportEntry& e) {
    return e.scenario_key + " <- " + e.values_key + " = " + e.value + at(e.where);
  });
  section("defaulted: scenario key = value  (from)", r.defaulted, [&](const ReportEntry& e) {
    return e.scenario_key + " = " + e.value + "  (" + e.where + ")";
  });
  section("conflicts with the overlay: the values win", r.conflicts, [&](const ReportEntry& e) {
    return e.scenario_key + " <- " + e.values_key + " = " + e.value + ": " + e.reason;
  });
  if (!r.from_overlay.empty()) {
    s << "\nfrom the overlay:";
    for (const auto& k : r.from_overlay) s << " " << k;
    s << " (values written over servers[0], load_balancer and the client's timeout)\n";
  }
  section("not mapped: values key = value: why", r.not_mapped, [&](const ReportEntry& e) {
    return e.values_key + " = " + e.value + ": " + e.reason + at(e.where);
  });
  section("not relevant to the simulation", r.not_relevant, [&](const ReportEntry& e) {
    return e.values_key + " = " + e.value + ": " + e.reason + at(e.where);
  });
  section("unknown: not keys of the chart (Helm ignores them)", r.unknown,
          [&](const ReportEntry& e) {
            return e.values_key + " = " + e.value + ": " + e.reason + at(e.where);
          });
  if (!r.notes.empty()) {
    s << "\nnotes:\n";
    for (const auto& n : r.notes) s << "  - " << n << "\n";
  }
  return s.str();
}

}  // namespace sonicsim::deployment
