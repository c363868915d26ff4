// The Mapper's typed reads of merged values and its writes into the scenario, each remembering
// where the value came from (a values file and line, or a chart default) for the report.
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "chart_keys.hpp"
#include "mapping.hpp"

namespace sonicsim::deployment {
namespace {

std::string describe(const ValueNode& n) {
  switch (n.kind) {
    case ValueNode::Kind::null:
      return "null";
    case ValueNode::Kind::map:
      return "a map";
    case ValueNode::Kind::list:
      return "a list";
    case ValueNode::Kind::scalar:
      break;
  }
  return "\"" + n.text + "\"";
}

std::optional<double> parse_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

json::json_pointer pointer_of(const std::string& scenario_key) {
  std::string out;
  for (char c : scenario_key) {
    if (c == '.' || c == '[')
      out += '/';
    else if (c != ']')
      out += c;
  }
  return json::json_pointer("/" + out);
}

std::optional<double> go_duration(const std::string& s) {
  // Number-unit pairs ("1m30s"), as Go's time.ParseDuration and Prometheus' model.Duration read
  // the ones they share.
  if (s == "0") return 0.0;
  double total = 0;
  std::size_t i = 0;
  if (s.empty()) return std::nullopt;
  while (i < s.size()) {
    std::size_t j = i;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    const auto v = parse_number(s.substr(i, j - i));
    std::size_t k = j;
    while (k < s.size() && !std::isdigit(static_cast<unsigned char>(s[k])) && s[k] != '.') ++k;
    const std::string unit = s.substr(j, k - j);
    const double scale = unit == "ns"                   ? 1e-9
                         : unit == "us" || unit == "µs" ? 1e-6
                         : unit == "ms"                 ? 1e-3
                         : unit == "s"                  ? 1
                         : unit == "m"                  ? 60
                         : unit == "h"                  ? 3600
                                                        : 0;
    if (!v || scale <= 0) return std::nullopt;
    total += *v * scale;
    i = k;
  }
  if (total > 1e9) return std::nullopt;
  return total;
}

std::string format_seconds(double seconds) {
  std::ostringstream s;
  if (seconds != 0 && seconds < 1)
    s << seconds * 1000 << "ms";
  else
    s << seconds << "s";
  return s.str();
}

Mapper::Mapper(const ValueNode& values, const SupersonicOptions& options, const json& overlay,
               SupersonicReport& report, ChartTraits traits)
    : scenario(overlay),
      values_(values),
      options_(options),
      overlay_(overlay),
      report_(report),
      traits_(std::move(traits)) {}

const ValueNode* Mapper::at(const std::string& dotted) const {
  const ValueNode* node = &values_;
  std::string walked;
  for (const auto& part : split_key(dotted)) {
    if (!node->is_map()) {
      // A key the chart expects a map at holds something else: said once, at that key.
      bool said = false;
      for (const auto& p : problems) said = said || p.problem.path == walked;
      if (!said) bad(walked, describe(*node), "a map");
      return nullptr;
    }
    node = node->find(part);
    if (!node) return nullptr;
    walked = join_key(walked, part);
  }
  return node;
}

void Mapper::bad(const std::string& key, const std::string& found,
                 const std::string& expected) const {
  // The node is looked up without `at`, which reports through here.
  const ValueNode* node = &values_;
  for (const auto& part : split_key(key)) {
    const ValueNode* next = node->is_map() ? node->find(part) : nullptr;
    if (!next) break;
    node = next;
  }
  const std::string line = node->line > 0 ? "line " + std::to_string(node->line) + ", column " +
                                                std::to_string(node->column) + ": "
                                          : "";
  problems.push_back({node->file, {key, line + "found " + found + ", expected " + expected}});
}

std::optional<std::int64_t> Mapper::whole(const std::string& key, std::int64_t lo,
                                          std::int64_t hi) {
  const ValueNode* n = at(key);
  if (!n) return std::nullopt;
  const std::string expected =
      "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (n->kind != ValueNode::Kind::scalar) {
    bad(key, describe(*n), expected);
    return std::nullopt;
  }
  std::int64_t v = 0;
  const auto* end = n->text.data() + n->text.size();
  const auto r = std::from_chars(n->text.data(), end, v);
  if (r.ec != std::errc{} || r.ptr != end || v < lo || v > hi) {
    bad(key, describe(*n), expected);
    return std::nullopt;
  }
  return v;
}

std::optional<double> Mapper::number(const std::string& key, double lo_exclusive) {
  const ValueNode* n = at(key);
  if (!n) return std::nullopt;
  const auto v = n->kind == ValueNode::Kind::scalar ? parse_number(n->text) : std::nullopt;
  if (!v || *v <= lo_exclusive || *v > 1e9) {
    std::ostringstream e;
    e << "a number > " << lo_exclusive << " and at most 1e9";
    bad(key, describe(*n), e.str());
    return std::nullopt;
  }
  return v;
}

std::optional<bool> Mapper::boolean(const std::string& key) {
  const ValueNode* n = at(key);
  if (!n) return std::nullopt;
  if (n->kind == ValueNode::Kind::scalar && n->quoted) {
    bad(key, "the string \"" + n->text + "\"",
        "true or false without quotes (the chart's `if` takes any non-empty string as true)");
    return std::nullopt;
  }
  if (n->kind == ValueNode::Kind::scalar) {
    std::string t;
    for (char c : n->text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // YAML 1.1's words, which Helm's parser reads as booleans.
    if (t == "true" || t == "yes" || t == "on") return true;
    if (t == "false" || t == "no" || t == "off") return false;
  }
  bad(key, describe(*n), "true or false");
  return std::nullopt;
}

std::optional<std::string> Mapper::text(const std::string& key) {
  const ValueNode* n = at(key);
  if (!n) return std::nullopt;
  if (n->kind != ValueNode::Kind::scalar) {
    bad(key, describe(*n), "a string");
    return std::nullopt;
  }
  return n->text;
}

std::optional<double> Mapper::envoy_duration(const std::string& key) {
  const auto t = text(key);
  if (!t) return std::nullopt;
  // The chart writes the value into Envoy's YAML as it is; Envoy reads it as a protobuf
  // google.protobuf.Duration in JSON form: whole seconds, up to nine decimals, then "s". Go's
  // "5m" or "1m30s", or a bare number, stop Envoy at start ("invalid duration").
  const std::string& s = *t;
  std::size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  bool ok = i > 0 && i <= 12;
  if (ok && i < s.size() && s[i] == '.') {
    const std::size_t from = ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    ok = i > from && i - from <= 9;
  }
  ok = ok && i + 1 == s.size() && s[i] == 's';
  if (!ok) {
    bad(key, describe(*at(key)),
        "a duration as Envoy reads it (protobuf JSON: seconds with an \"s\", such as \"12s\", "
        "\"0.5s\" or \"300s\"; Envoy refuses \"5m\", \"1m30s\" or a bare number at start)");
    return std::nullopt;
  }
  return std::strtod(s.c_str(), nullptr);
}

bool Mapper::set_by_user(const std::string& key) const {
  const ValueNode* n = at(key);
  return n && n->file != chart_defaults_name();
}

std::string Mapper::shown(const std::string& key) const {
  const ValueNode* n = at(key);
  if (!n) return "(unset)";
  if (n->kind == ValueNode::Kind::scalar) return n->text;
  return n->is_map() ? "{...}" : n->is_null() ? "null" : "[...]";
}

const json* Mapper::overlay_at(const std::string& scenario_key) const {
  const auto p = pointer_of(scenario_key);
  return overlay_.contains(p) ? &overlay_.at(p) : nullptr;
}

void Mapper::erase(const std::string& scenario_key) {
  const auto p = pointer_of(scenario_key);
  if (scenario.contains(p)) scenario.at(p.parent_pointer()).erase(p.back());
}

namespace {
std::string plain(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}
}  // namespace

void Mapper::write(const std::string& scenario_key, const json& value, const std::string& key,
                   const std::string& shown_value) {
  if (const json* before = overlay_at(scenario_key); before && *before != value)
    report_.conflicts.push_back({scenario_key, key, shown_value, "",
                                 "the overlay had " + plain(*before) + "; the values win", ""});
  scenario[pointer_of(scenario_key)] = value;
}

void Mapper::put(const std::string& scenario_key, const json& value, const std::string& key) {
  put_node(scenario_key, value, key, shown(key), at(key), "");
}

void Mapper::put_node(const std::string& scenario_key, const json& value, const std::string& key,
                      const std::string& shown_value, const ValueNode* node,
                      const std::string& default_source) {
  if (node && node->file != chart_defaults_name())
    report_.filled.push_back({scenario_key, key, shown_value, node->where(), "", ""});
  else
    report_.defaulted.push_back({scenario_key, key, plain(value),
                                 default_source.empty()
                                     ? chart() + " default (" + key + ": " + shown_value + ")"
                                     : default_source,
                                 "", ""});
  write(scenario_key, value, key, shown_value);
}

void Mapper::put_default(const std::string& scenario_key, const json& value,
                         const std::string& source) {
  report_.defaulted.push_back({scenario_key, "", plain(value), source, "", ""});
  write(scenario_key, value, "", plain(value));
}

void Mapper::sonicsim_default(const std::string& scenario_key, const std::string& value) {
  if (const json* given = overlay_at(scenario_key)) {
    report_.defaulted.push_back(
        {scenario_key, "", plain(*given), "the overlay (the values do not say)", "", ""});
    return;
  }
  report_.defaulted.push_back({scenario_key, "", value, "sonicsim default", "", ""});
}

void Mapper::shaped(const std::string& scenario_part, const std::string& key) {
  if (!set_by_user(key)) return;
  const ValueNode* n = at(key);
  report_.filled.push_back({scenario_part, key, shown(key), n->where(), "", ""});
}

void Mapper::not_mapped(const std::string& key, const std::string& reason) {
  const ValueNode* n = at(key);
  report_.not_mapped.push_back({"", key, shown(key), n ? n->where() : "", reason, key});
}

}  // namespace sonicsim::deployment
