#include <sonicsim/sweep/sweep.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <boost/math/distributions/students_t.hpp>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/util/csv.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/numbers.hpp>
#include <sonicsim/util/rng.hpp>
#include <sonicsim/util/sha256.hpp>
#include <sonicsim/util/text.hpp>

namespace sonicsim::sweep {

namespace {

using scenario::InputError;

std::string trim(std::string_view s) {
  return std::string(util::trim(s));
}

[[noreturn]] void bad(const std::string& flag, const std::string& text, const std::string& found,
                      const std::string& expected) {
  throw InputError(flag, {{"", "`" + text + "`: found " + found + ", expected " + expected}});
}

const char* const kSyntax =
    "PATH=LIST (1,2,4 or 1ms,2ms), PATH=A:B:STEP (50:600:50), PATH=A:B:xF (1:1024:x2) or "
    "PATH=log:A:B:N (log:1:1024:11)";

// Splits at `sep` outside JSON strings, arrays and objects, so list items may be JSON values.
std::vector<std::string> split_top(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  bool quoted = false, escaped = false;
  for (char c : s) {
    if (quoted) {
      cur += c;
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    if (c == sep && depth == 0) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  parts.push_back(cur);
  return parts;
}

// A range bound: a decimal number and an optional unit suffix (`2.5ms`, `10Gbps`, `50`).
struct Bound {
  double value = 0.0;
  std::string unit;
  bool integer = false;
};

bool parse_bound(const std::string& raw, Bound& b) {
  const std::string t = trim(raw);
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  const std::size_t digits_start = i;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  bool integer = i > digits_start;
  if (i < t.size() && t[i] == '.') {
    integer = false;
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  }
  if (i == digits_start || (i == digits_start + 1 && t[digits_start] == '.')) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < t.size() && (t[j] == '+' || t[j] == '-')) ++j;
    if (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) {
      integer = false;
      i = j;
      while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    }
  }
  b.value = std::strtod(t.substr(0, i).c_str(), nullptr);
  b.unit = t.substr(i);
  b.integer = integer;
  if (!std::isfinite(b.value)) return false;
  return std::all_of(b.unit.begin(), b.unit.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

std::string format_value(double v, const std::string& unit) {
  if (v == 0.0) v = 0.0;  // no "-0"
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.12g", v);
  return buffer + unit;
}

void check_count(const std::string& flag, const std::string& text, double count) {
  if (count > static_cast<double>(kMaxPoints))
    bad(flag, text, "a range of " + format_value(count, "") + " values",
        "at most " + std::to_string(kMaxPoints));
}

std::vector<std::string> range_values(const std::string& flag, const std::string& text,
                                      const std::string& spec) {
  const bool log = spec.rfind("log:", 0) == 0;
  const std::vector<std::string> parts = split_top(log ? spec.substr(4) : spec, ':');
  const char* expected =
      log ? "log:A:B:N with numbers A, B > 0 (an optional unit, the same on both) and an "
            "integer N >= 2, e.g. log:1:1024:11"
          : "A:B:STEP (50:600:50) or A:B:xF (1:1024:x2): numbers with an optional unit, the same "
            "on A and B";
  if (parts.size() != 3)
    bad(flag, text, "a range of " + std::to_string(parts.size()) + " parts", expected);
  Bound a, b;
  if (!parse_bound(parts[0], a))
    bad(flag, text, "A = \"" + trim(parts[0]) + "\", not a number", expected);
  if (!parse_bound(parts[1], b))
    bad(flag, text, "B = \"" + trim(parts[1]) + "\", not a number", expected);
  if (a.unit != b.unit)
    bad(flag, text, "units \"" + a.unit + "\" and \"" + b.unit + "\"",
        "the same unit on both bounds (write both in the same unit)");
  const std::string& unit = a.unit;
  std::vector<std::string> values;
  const std::string third = trim(parts[2]);

  if (log) {
    const auto whole = util::parse_whole_number(third, 2, std::numeric_limits<long>::max());
    if (!whole)
      bad(flag, text, "N = \"" + third + "\"", "an integer N >= 2 (the number of values)");
    const long n = static_cast<long>(*whole);
    check_count(flag, text, static_cast<double>(n));
    if (a.value <= 0.0 || b.value <= 0.0)
      bad(flag, text, "bounds " + format_value(a.value, "") + " and " + format_value(b.value, ""),
          "A > 0 and B > 0 on a log range");
    const bool round = a.integer && b.integer;
    std::string last;
    for (long i = 0; i < n; ++i) {
      double v = i == n - 1 ? b.value
                            : a.value * std::pow(b.value / a.value, static_cast<double>(i) /
                                                                        static_cast<double>(n - 1));
      if (round) v = std::round(v);
      std::string s = format_value(v, unit);
      if (s != last) values.push_back(s);
      last = s;
    }
    return values;
  }

  if (!third.empty() && (third[0] == 'x' || third[0] == 'X')) {
    Bound f;
    if (!parse_bound(third.substr(1), f) || !f.unit.empty() || f.value <= 1.0)
      bad(flag, text, "factor \"" + third + "\"", "xF with a plain number F > 1, e.g. x2");
    if (a.value <= 0.0 || b.value < a.value)
      bad(flag, text, "bounds " + format_value(a.value, "") + " and " + format_value(b.value, ""),
          "0 < A <= B on a geometric range");
    check_count(flag, text, std::log(b.value / a.value) / std::log(f.value) + 1);
    for (double i = 0;; ++i) {
      const double v = a.value * std::pow(f.value, i);
      if (v > b.value * (1 + 1e-9)) break;
      values.push_back(format_value(v, unit));
    }
    return values;
  }

  Bound step;
  if (!parse_bound(third, step))
    bad(flag, text, "STEP = \"" + third + "\", not a number", expected);
  if (!step.unit.empty() && step.unit != unit)
    bad(flag, text, "STEP in \"" + step.unit + "\" and bounds in \"" + unit + "\"",
        "STEP in the bounds' unit, or without a unit");
  if (step.value == 0.0) bad(flag, text, "STEP = 0", "a non-zero STEP");
  const double span = (b.value - a.value) / step.value;
  if (span < -1e-9)
    bad(flag, text, "a STEP of " + format_value(step.value, "") + " that moves away from B",
        "a STEP with the sign of B - A");
  check_count(flag, text, span + 1);
  const auto n = static_cast<std::size_t>(std::floor(span + 1e-9)) + 1;
  for (std::size_t i = 0; i < n; ++i)
    values.push_back(format_value(a.value + static_cast<double>(i) * step.value, unit));
  return values;
}

}  // namespace

Parameter parse_parameter(const std::string& text, const std::string& flag) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    bad(flag, text, "no PATH=", std::string(kSyntax) + ", e.g. workload.jobs=50:600:50");
  Parameter p;
  p.path = trim(text.substr(0, eq));
  p.spec = trim(text.substr(eq + 1));
  if (p.spec.empty()) bad(flag, text, "no values after '='", kSyntax);
  const bool json_like = p.spec[0] == '{' || p.spec[0] == '[' || p.spec[0] == '"';
  if (p.spec.rfind("log:", 0) == 0 ||
      (!json_like && split_top(p.spec, ':').size() > 1 && split_top(p.spec, ',').size() == 1)) {
    p.values = range_values(flag, text, p.spec);
  } else {
    for (const std::string& item : split_top(p.spec, ',')) {
      const std::string v = trim(item);
      if (v.empty()) bad(flag, text, "an empty value in the list", "values separated by commas");
      p.values.push_back(v);
    }
  }
  if (p.values.empty()) bad(flag, text, "no values", kSyntax);
  return p;
}

std::size_t Grid::size() const {
  std::size_t n = 1;
  for (const auto& d : dimensions) n *= parameters[d.front()].values.size();
  return n;
}

std::vector<scenario::Override> Grid::point(std::size_t index) const {
  std::vector<scenario::Override> out(parameters.size());
  for (std::size_t d = dimensions.size(); d-- > 0;) {
    const std::size_t n = parameters[dimensions[d].front()].values.size();
    const std::size_t k = index % n;
    index /= n;
    for (std::size_t p : dimensions[d]) out[p] = {parameters[p].path, parameters[p].values[k]};
  }
  return out;
}

Grid make_grid(std::vector<Parameter> parameters, const std::vector<std::string>& zips) {
  Grid g;
  g.parameters = std::move(parameters);
  for (std::size_t i = 0; i < g.parameters.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (g.parameters[i].path == g.parameters[j].path)
        throw InputError("--param", {{"", "`" + g.parameters[i].path +
                                              "` is given twice, expected each path once (put "
                                              "all its values in one list)"}});
  std::vector<int> group_of(g.parameters.size(), -1);
  std::vector<std::vector<std::size_t>> groups;
  for (const std::string& z : zips) {
    std::vector<std::size_t> members;
    for (const std::string& raw : split_top(z, ',')) {
      const std::string name = trim(raw);
      std::size_t found = g.parameters.size();
      for (std::size_t i = 0; i < g.parameters.size(); ++i)
        if (g.parameters[i].path == name) found = i;
      if (found == g.parameters.size()) {
        std::string known;
        for (const auto& p : g.parameters) known += (known.empty() ? "" : ", ") + p.path;
        throw InputError("--zip", {{"", "`" + z + "`: found `" + name +
                                            "`, which no --param sets; expected paths of --param "
                                            "flags (" +
                                            (known.empty() ? "none given" : known) + ")"}});
      }
      if (group_of[found] >= 0 || std::count(members.begin(), members.end(), found))
        throw InputError("--zip", {{"", "`" + z + "`: `" + name +
                                            "` is already zipped, expected each parameter in "
                                            "one --zip at most"}});
      members.push_back(found);
    }
    if (members.size() < 2)
      throw InputError("--zip", {{"", "`" + z +
                                          "`: found one parameter, expected two or more "
                                          "--param paths separated by commas"}});
    const std::size_t n = g.parameters[members.front()].values.size();
    for (std::size_t m : members)
      if (g.parameters[m].values.size() != n)
        throw InputError(
            "--zip", {{"", "`" + z + "`: found " + std::to_string(n) + " values of `" +
                               g.parameters[members.front()].path + "` and " +
                               std::to_string(g.parameters[m].values.size()) + " of `" +
                               g.parameters[m].path +
                               "`, expected the same number (zipped parameters move together)"}});
    for (std::size_t m : members) group_of[m] = static_cast<int>(groups.size());
    groups.push_back(members);
  }
  std::vector<bool> placed(groups.size(), false);
  for (std::size_t i = 0; i < g.parameters.size(); ++i) {
    if (group_of[i] < 0) {
      g.dimensions.push_back({i});
    } else if (!placed[group_of[i]]) {
      placed[group_of[i]] = true;
      std::vector<std::size_t> members = groups[group_of[i]];
      std::sort(members.begin(), members.end());
      g.dimensions.push_back(members);
    }
  }
  double total = 1;
  for (const auto& d : g.dimensions)
    total *= static_cast<double>(g.parameters[d.front()].values.size());
  if (total > static_cast<double>(kMaxPoints))
    throw InputError(
        "--param", {{"", "the grid has " + format_value(total, "") + " points, expected at most " +
                             std::to_string(kMaxPoints) +
                             " (fewer values, or --zip parameters that move "
                             "together)"}});
  return g;
}

Shard parse_shard(const std::string& text) {
  const auto fail = [&] {
    throw InputError("--shard", {{"", "found \"" + text +
                                          "\", expected I/N with integers 1 <= I <= N (e.g. 2/8: "
                                          "the second of 8 slices)"}});
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) fail();
  const std::string a = text.substr(0, slash), b = text.substr(slash + 1);
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() < 10 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(a) || !digits(b)) fail();
  const std::size_t i = std::stoul(a), n = std::stoul(b);
  if (i < 1 || n < 1 || i > n) fail();
  return {i - 1, n};
}

std::uint64_t replication_seed(std::uint64_t base, std::size_t replication) {
  if (replication == 0) return base;
  constexpr std::uint64_t kPurpose = 0x5357454550ULL;  // "SWEEP": apart from the engine's streams
  return derive_seed(base, kPurpose, replication) & ((std::uint64_t{1} << 53) - 1);
}

std::string fingerprint(const std::string& scenario_sha256, const Grid& grid,
                        const std::vector<std::string>& zips, std::size_t replications) {
  std::string text = "sonicsim sweep v1\nscenario " + scenario_sha256 + "\n";
  for (const auto& p : grid.parameters) text += "param " + p.path + "=" + p.spec + "\n";
  for (const auto& z : zips) text += "zip " + z + "\n";
  text += "replications " + std::to_string(replications) + "\n";
  return sha256_hex(text).substr(0, 16);
}

double student_t_975(std::size_t df) {
  if (df == 0) return kNaN;
  return boost::math::quantile(boost::math::students_t(static_cast<double>(df)), 0.975);
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.n = values.size();
  if (values.empty()) {
    s.mean = s.ci95 = kNaN;
    return s;
  }
  double sum = 0.0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) {
    s.ci95 = kNaN;
    return s;
  }
  double ss = 0.0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  const double sd = std::sqrt(ss / static_cast<double>(s.n - 1));
  s.ci95 = student_t_975(s.n - 1) * sd / std::sqrt(static_cast<double>(s.n));
  return s;
}

namespace {

// Column names are results::column's: keys joined by its separator, array elements by index.
void flatten(const nlohmann::ordered_json& j, const std::string& prefix, Metrics& out) {
  constexpr char sep = results::kColumnSeparator;
  if (j.is_object()) {
    for (const auto& item : j.items())
      // A histogram's bins differ from run to run: columns of their own would not line up.
      if (item.key() != results::keys::quantile::histogram)
        flatten(item.value(), prefix.empty() ? item.key() : prefix + sep + item.key(), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + sep + std::to_string(i), out);
  } else if (j.is_boolean()) {
    out.emplace_back(prefix, j.get<bool>() ? 1.0 : 0.0);
  } else if (j.is_number()) {
    out.emplace_back(prefix, j.get<double>());
  }
}

}  // namespace

Metrics flatten_metrics(const nlohmann::ordered_json& results) {
  Metrics out;
  namespace top = results::keys::top;
  // Timings differ run to run, identities are no measure, and a time series is per window: in
  // the JSONL, not one column per window. The device figures are inputs (swept ones have their
  // parameter column).
  static const std::set<std::string> skipped = {
      top::perf,     top::seed,           top::scenario_sha256, top::sonicsim_version,
      top::scenario, top::scenario_files, top::timeseries,      top::devices};
  if (!results.is_object()) return out;
  for (const auto& item : results.items())
    if (!skipped.count(item.key())) flatten(item.value(), item.key(), out);
  return out;
}

const std::vector<std::string> kLeadingColumns = {"sweep_id", "point", "n_points"};
const std::vector<std::string> kTrailingFixed = {kReplicationsColumn, kStatusColumn, kErrorColumn,
                                                 kSeedColumn};

std::vector<std::string> fixed_header(const Grid& grid) {
  std::vector<std::string> h = kLeadingColumns;
  for (const auto& p : grid.parameters) h.push_back(kParamColumnPrefix + p.path);
  h.insert(h.end(), kTrailingFixed.begin(), kTrailingFixed.end());
  return h;
}

std::vector<std::string> metric_union(const std::vector<TableRow>& rows) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& r : rows)
    for (const auto& m : r.metrics)
      if (seen.insert(m.first).second) out.push_back(m.first);
  return out;
}

std::string csv_cell(const std::string& text) {
  std::string t;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' || text[i] == '\n') {
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      t += " | ";
    } else {
      t += text[i];
    }
  }
  return util::csv_field(t);
}

std::string header_line(const std::vector<std::string>& fixed,
                        const std::vector<std::string>& metrics) {
  std::string line;
  for (const auto& c : fixed) {
    if (!line.empty()) line += ',';
    line += csv_cell(c);
  }
  for (const auto& m : metrics) {
    line += ',';
    line += csv_cell(m + ".mean");
    line += ',';
    line += csv_cell(m + ".ci95");
  }
  return line + "\n";
}

std::string row_line(const TableRow& row, const std::vector<std::string>& metrics) {
  std::string line;
  for (std::size_t i = 0; i < row.fixed.size(); ++i) {
    if (i) line += ',';
    line += csv_cell(row.fixed[i]);
  }
  std::map<std::string, const std::pair<std::string, std::string>*> have;
  for (const auto& m : row.metrics) have[m.first] = &m.second;
  for (const auto& m : metrics) {
    const auto it = have.find(m);
    line += ',';
    if (it != have.end()) line += csv_cell(it->second->first);
    line += ',';
    if (it != have.end()) line += csv_cell(it->second->second);
  }
  return line + "\n";
}

std::string format_number(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return nlohmann::json(v).dump();
}

std::string param_cell(const std::string& value) {
  // Text that is not JSON (or nests too deep, refused when it is loaded) is a cell as typed.
  const auto j = parse_json_value(value);
  if (!j) return value;
  if (j->is_string()) return j->get<std::string>();
  return j->dump();
}

TableRow make_row(const std::string& sweep_id, std::size_t n_points, std::size_t point,
                  const std::vector<std::string>& param_cells, std::vector<const Run*> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const Run* a, const Run* b) { return a->replication < b->replication; });
  TableRow row;
  row.point = point;
  row.fixed = {sweep_id, std::to_string(point), std::to_string(n_points)};
  row.fixed.insert(row.fixed.end(), param_cells.begin(), param_cells.end());
  std::size_t ok = 0;
  std::string error, seed;
  std::vector<std::string> names;
  std::map<std::string, std::vector<double>> values;
  for (const Run* r : runs) {
    if (r->replication == 0 && r->has_seed) seed = std::to_string(r->seed);
    if (!r->ok) {
      if (error.empty())
        error = runs.size() > 1 ? "replication " + std::to_string(r->replication) + ": " + r->error
                                : r->error;
      continue;
    }
    ++ok;
    for (const auto& [name, v] : r->metrics) {
      auto [it, fresh] = values.try_emplace(name);
      if (fresh) names.push_back(name);
      it->second.push_back(v);
    }
  }
  row.fixed.push_back(std::to_string(ok));
  row.fixed.push_back(error.empty() ? kStatusOk : kStatusFailed);
  row.fixed.push_back(error);
  row.fixed.push_back(seed);
  for (const auto& name : names) {
    const Summary s = summarize(values[name]);
    row.metrics.push_back({name, {format_number(s.mean), format_number(s.ci95)}});
  }
  return row;
}

Table read_table(const std::string& file) {
  std::string error;
  const std::string text = read_text(file, error, InputLimits::max_data_bytes);
  if (!error.empty()) throw InputError(file, {{"", "cannot read the sweep CSV: " + error}});
  Table t;
  t.file = file;
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      t.truncated = true;  // an interrupted append: the line is incomplete
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  if (lines.empty()) return t;
  const auto where = [&](std::size_t i) { return "line " + std::to_string(i + 1); };
  std::vector<std::string> header;
  util::split_csv_line(lines[0], header);
  const auto seed_at = std::find(header.begin(), header.end(), kSeedColumn);
  if (header.size() < kLeadingColumns.size() ||
      !std::equal(kLeadingColumns.begin(), kLeadingColumns.end(), header.begin()) ||
      seed_at == header.end())
    throw InputError(file, {{"", "line 1: found a header starting \"" + lines[0].substr(0, 60) +
                                     "\", expected a sweep CSV (sweep_id,point,n_points,...,seed,"
                                     "...) written by sonicsim sweep or merge"}});
  t.fixed.assign(header.begin(), seed_at + 1);
  for (auto it = seed_at + 1; it != header.end(); it += 2) {
    const std::string& mean = *it;
    if (it + 1 == header.end() || mean.size() < 5 || mean.substr(mean.size() - 5) != ".mean" ||
        *(it + 1) != mean.substr(0, mean.size() - 5) + ".ci95")
      throw InputError(file, {{"", "line 1: found column \"" + mean +
                                       "\" where a NAME.mean, NAME.ci95 pair was expected"}});
    t.metrics.push_back(mean.substr(0, mean.size() - 5));
  }
  std::vector<std::string> cells;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    if (!util::split_csv_line(lines[i], cells) || cells.size() != header.size())
      throw InputError(
          file, {{"", where(i) + ": found " + std::to_string(cells.size()) + " cells, expected " +
                          std::to_string(header.size()) + " like the header"}});
    TableRow row;
    const std::string& p = cells[1];
    if (p.empty() || p.size() > 12 ||
        !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw InputError(
          file, {{"", where(i) + ", column point: found \"" + p + "\", expected a point index"}});
    row.point = std::stoull(p);
    const std::string& n = cells[2];
    if (n.empty() || n.size() > 12 ||
        !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        row.point >= std::stoull(n))
      throw InputError(file,
                       {{"", where(i) + ", column n_points: found \"" + n +
                                 "\", expected the number of points (more than point " + p + ")"}});
    row.fixed.assign(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(t.fixed.size()));
    for (std::size_t m = 0; m < t.metrics.size(); ++m) {
      const std::string& mean = cells[t.fixed.size() + 2 * m];
      if (!mean.empty())
        row.metrics.push_back({t.metrics[m], {mean, cells[t.fixed.size() + 2 * m + 1]}});
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace sonicsim::sweep
