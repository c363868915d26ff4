#include "checker.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/text.hpp>

namespace sonicsim::scenario::detail {

// A key that is empty or would read as path syntax (".", "[", a quote, a space, a control
// character) is spelled as a quoted JSON string in brackets, so that every problem has a
// non-empty path that points at one place: `[""]`, `models["a.b"]`.
static bool needs_quoting(std::string_view key) {
  if (key.empty()) return true;
  return std::any_of(key.begin(), key.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f || c == '.' || c == '[' || c == ']' || c == '"';
  });
}

std::string key_path(const std::string& parent, std::string_view key) {
  if (needs_quoting(key))
    return parent + "[" +
           json(std::string(key)).dump(-1, ' ', false, json::error_handler_t::replace) + "]";
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string format_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string text = json(value).dump();
  // Limits read better as "1" than "1.0".
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

std::string describe(const json& value) {
  constexpr std::size_t kShort = 40;
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return value.dump();
    case json::value_t::number_float:
      return format_number(value.get<double>());
    case json::value_t::string: {
      const auto& s = value.get_ref<const std::string&>();
      if (s.size() > 60) return "\"" + s.substr(0, 60) + "...\"";
      return "\"" + s + "\"";
    }
    case json::value_t::array:
    case json::value_t::object: {
      const char* noun = value.is_array() ? "array" : "object";
      if (value.empty()) return std::string("an empty ") + noun;
      std::string text = value.dump();
      if (text.size() <= kShort)
        return std::string(value.is_array() ? "an array " : "an object ") + text;
      return std::string(value.is_array() ? "an array" : "an object");
    }
    default:
      return "a binary value";
  }
}

bool Range::contains(double v) const {
  if (lo_open ? !(v > lo) : !(v >= lo)) return false;
  if (hi_open ? !(v < hi) : !(v <= hi)) return false;
  return true;
}

std::string Range::text() const {
  const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
  if (has_lo && has_hi) {
    return std::string("in ") + (lo_open ? "(" : "[") + format_number(lo) + ", " +
           format_number(hi) + (hi_open ? ")" : "]");
  }
  if (has_lo) return (lo_open ? "> " : ">= ") + format_number(lo);
  if (has_hi) return (hi_open ? "< " : "<= ") + format_number(hi);
  return {};
}

namespace {

// Builds the document like nlohmann's own DOM parser, and also knows the JSON path of the value
// being parsed (for messages) and which keys each object already has (duplicates).
class DocumentBuilder : public json::json_sax_t {
 public:
  explicit DocumentBuilder(json& root) : root_(root) {}

  bool null() override { return place(json(nullptr)) != nullptr; }
  bool boolean(bool v) override { return place(json(v)) != nullptr; }
  bool number_integer(json::number_integer_t v) override { return place(json(v)) != nullptr; }
  bool number_unsigned(json::number_unsigned_t v) override { return place(json(v)) != nullptr; }
  bool number_float(json::number_float_t v, const json::string_t&) override {
    return place(json(v)) != nullptr;
  }
  bool string(json::string_t& v) override { return place(json(std::move(v))) != nullptr; }
  bool binary(json::binary_t& v) override { return place(json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(json::string_t& k) override {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) {
      duplicates.push_back(
          {key_path(f.path, k), "duplicate key `" + k +
                                    "`: each key may appear once in an object (JSON parsers would "
                                    "silently keep only one of the values)"});
    }
    f.key = k;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    error_position = position;
    error_path = next_path();
    error_id = e.id;
    error_what = e.what();
    return false;
  }

  std::vector<Problem> duplicates;
  std::size_t error_position = 0;
  std::string error_path, error_what;
  int error_id = 0;

 private:
  struct Frame {
    json* value;
    std::string path;
    std::string key;
    std::set<std::string> keys;
  };

  std::string next_path() const {
    if (frames_.empty()) return {};
    const Frame& f = frames_.back();
    if (f.value->is_array()) return index_path(f.path, f.value->size());
    return key_path(f.path, f.key);
  }

  // Pointers into the tree stay valid: a container only grows while it is the innermost open
  // one, so no open frame's value is moved by a reallocation.
  json* place(json&& v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = frames_.back();
    if (f.value->is_array()) {
      f.value->push_back(std::move(v));
      return &f.value->back();
    }
    json& slot = (*f.value)[f.key];
    slot = std::move(v);
    return &slot;
  }

  bool open(json&& container) {
    std::string path = next_path();
    json* v = place(std::move(container));
    frames_.push_back({v, std::move(path), {}, {}});
    return true;
  }

  bool close() {
    frames_.pop_back();
    return true;
  }

  json& root_;
  std::vector<Frame> frames_;
};

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix, which repeats what we already say.
std::string strip_prefix(std::string what) {
  if (auto p = what.find("] "); p != std::string::npos) what.erase(0, p + 2);
  if (auto p = what.find(": "); p != std::string::npos && what.rfind("parse error", 0) == 0)
    what.erase(0, p + 2);
  return what;
}

}  // namespace

std::optional<json> parse_document(const std::string& text, std::vector<Problem>& problems) {
  // The parser would stop at a NUL byte and take what came before as the whole document.
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    problems.push_back({"", line_column(text, nul + 1) +
                                ": found a NUL byte, expected JSON text (is this a binary file?)"});
    return std::nullopt;
  }
  if (auto deep = json_depth_problem(text)) {
    problems.push_back(std::move(*deep));
    return std::nullopt;
  }
  json root;
  DocumentBuilder builder(root);
  const bool ok = json::sax_parse(text, &builder);
  problems.insert(problems.end(), builder.duplicates.begin(), builder.duplicates.end());
  if (ok) return root;
  const std::string where = line_column(text, builder.error_position);
  if (builder.error_id == 406) {
    // A literal such as 1e400 that no double holds.
    problems.push_back({builder.error_path, where + ": found a number too large for a double (" +
                                                strip_prefix(builder.error_what) +
                                                "), expected a finite number"});
  } else {
    problems.push_back({"", where + ": invalid JSON: " + strip_prefix(builder.error_what)});
  }
  return std::nullopt;
}

void Checker::add(std::string path, std::string message) {
  problems.push_back({std::move(path), std::move(message)});
}

void Checker::missing(const std::string& path, std::string_view expected) {
  add(path, "missing, expected " + std::string(expected));
}

const json* Checker::get(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool Checker::expect_object(const json& value, const std::string& path, std::string_view expected) {
  if (value.is_object()) return true;
  add(path, "found " + describe(value) + ", expected " + std::string(expected));
  return false;
}

void Checker::check_keys(const json& object, const std::string& path,
                         std::span<const std::string_view> allowed,
                         std::span<const std::string_view> elsewhere,
                         std::string_view elsewhere_message) {
  if (!object.is_object()) return;
  for (const auto& item : object.items()) {
    const std::string& k = item.key();
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    if (std::find(elsewhere.begin(), elsewhere.end(), k) != elsewhere.end()) {
      add(key_path(path, k), "`" + k + "` " + std::string(elsewhere_message));
      continue;
    }
    std::vector<std::string> candidates(allowed.begin(), allowed.end());
    const std::string hint = did_you_mean(k, candidates);
    std::string message = "unknown key `" + k + "`; ";
    if (!hint.empty()) {
      message += hint;
    } else {
      message += "expected one of:";
      for (std::size_t i = 0; i < candidates.size(); ++i)
        message += (i ? ", " : " ") + candidates[i];
    }
    add(key_path(path, k), std::move(message));
  }
}

std::optional<std::string> Checker::string(const json& value, const std::string& path,
                                           bool allow_empty) {
  if (!value.is_string()) {
    add(path, "found " + describe(value) + ", expected a string");
    return std::nullopt;
  }
  const auto& s = value.get_ref<const std::string&>();
  if (s.empty() && !allow_empty) {
    add(path, "found an empty string, expected a non-empty string");
    return std::nullopt;
  }
  return s;
}

std::optional<std::string> Checker::choice(const json& value, const std::string& path,
                                           std::span<const std::string_view> options) {
  std::string expected = "expected one of";
  for (std::size_t i = 0; i < options.size(); ++i)
    expected += std::string(i ? ", " : " ") + "\"" + std::string(options.begin()[i]) + "\"";
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (std::find(options.begin(), options.end(), s) != options.end()) return s;
    const std::string hint =
        did_you_mean(s, std::vector<std::string>(options.begin(), options.end()));
    add(path, "found " + describe(value) + ", " + expected + (hint.empty() ? "" : "; " + hint));
    return std::nullopt;
  }
  add(path, "found " + describe(value) + ", " + expected);
  return std::nullopt;
}

std::optional<double> Checker::number(const json& value, const std::string& path, Range range,
                                      std::string_view noun) {
  const std::string expected = std::string(noun) + (range.text().empty() ? "" : " " + range.text());
  if (!value.is_number()) {
    add(path, "found " + describe(value) + ", expected " + expected);
    return std::nullopt;
  }
  const double v = value.get<double>();
  if (!std::isfinite(v)) {
    add(path, "found " + describe(value) + ", expected a finite " + expected.substr(2));
    return std::nullopt;
  }
  if (!range.contains(v)) {
    add(path, "found " + describe(value) + ", expected " + expected);
    return std::nullopt;
  }
  return v;
}

bool Checker::optional_quantity(const json& object, const std::string& path, std::string_view key,
                                Quantity kind, Range range, double& out) {
  const json* x = get(object, key);
  if (!x) return true;
  const auto v = quantity(*x, key_path(path, key), kind, range);
  if (v) out = *v;
  return v.has_value();
}

std::optional<bool> Checker::boolean(const json& value, const std::string& path) {
  if (value.is_boolean()) return value.get<bool>();
  add(path, "found " + describe(value) + ", expected true or false");
  return std::nullopt;
}

std::optional<std::int64_t> Checker::integer(const json& value, const std::string& path,
                                             std::int64_t lo, std::int64_t hi,
                                             std::string_view why) {
  const std::string expected =
      "expected an integer " +
      Range::closed(static_cast<double>(lo), static_cast<double>(hi)).text() +
      (why.empty() ? "" : " (" + std::string(why) + ")");
  const auto fail = [&] {
    add(path, "found " + describe(value) + ", " + expected);
    return std::nullopt;
  };
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    const auto v = value.get<std::int64_t>();
    if (v < lo || v > hi) return fail();
    return v;
  }
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(v) < lo) return fail();
    return static_cast<std::int64_t>(v);
  }
  if (value.is_number_float()) {
    const double v = value.get<double>();
    // 1e12 is a fine way to write an integer in JSON; 4.5 is not one.
    if (!std::isfinite(v) || std::floor(v) != v) return fail();
    if (v < static_cast<double>(lo) || v > static_cast<double>(hi)) return fail();
    return static_cast<std::int64_t>(v);
  }
  return fail();
}

std::optional<std::uint64_t> Checker::unsigned_integer(const json& value, const std::string& path) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::isfinite(v) && std::floor(v) == v && v >= 0 && v < 0x1p64)
      return static_cast<std::uint64_t>(v);
  }
  add(path, "found " + describe(value) + ", expected an integer in [0, 18446744073709551615]");
  return std::nullopt;
}

std::optional<double> Checker::quantity(const json& value, const std::string& path, Quantity kind,
                                        Range range) {
  std::string error;
  const std::optional<double> v = parse_quantity(value, kind, error);
  if (!v) {
    add(path, error);
    return std::nullopt;
  }
  if (!range.contains(*v)) {
    const char* noun = kind == Quantity::Time        ? "a time"
                       : kind == Quantity::Size      ? "a size"
                       : kind == Quantity::Bandwidth ? "a bandwidth"
                       : kind == Quantity::Power     ? "a power"
                                                     : "a rate";
    add(path, "found " + describe(value) + ", expected " + noun + " " + range.text());
    return std::nullopt;
  }
  read_quantity(value, path, kind, *v);
  return v;
}

void Checker::read_quantity(const json& value, const std::string& path, Quantity kind, double si) {
  const bool bare = written_bare(value);
  // Rates and powers read as people mean them bare (per second, watts); 0 is 0 in every unit.
  if (strict_units && bare && si != 0.0 &&
      (kind == Quantity::Time || kind == Quantity::Size || kind == Quantity::Bandwidth)) {
    const char* noun = kind == Quantity::Time   ? "a time"
                       : kind == Quantity::Size ? "a size"
                                                : "a bandwidth";
    add(path, "found " + describe(value) + ", expected " + noun + " with its unit, such as \"" +
                  with_unit(si, kind) + "\" (--strict-units)");
  }
  const Role role = kind == Quantity::Bandwidth ? Role::Bandwidth
                    : kind == Quantity::Time    ? role_
                                                : Role::None;  // a pipeline's throughput
  if (role == Role::None) return;
  Reading r;
  r.path = path;
  r.found = describe(value);
  if (value.is_string()) {
    const std::string_view text = util::trim(value.get_ref<const std::string&>());
    r.number = std::string(text.substr(0, util::decimal_prefix(text)));
  } else {
    r.number = r.found;
  }
  r.bare = bare;
  r.kind = kind;
  r.role = role;
  r.group = group_;
  r.value = si;
  readings.push_back(std::move(r));
}

void Checker::mark_lead() {
  if (!readings.empty() && readings.back().role == Role::ServiceTime) readings.back().lead = true;
}

bool Checker::at_least_tick(const std::string& found, const std::string& path, double seconds) {
  if (!(seconds > 0.0 && seconds < Limits::clock_tick_s)) return true;
  add(path, "found " + found +
                ", expected a time of at least 1ns (SimGrid's clock resolution): a time that "
                "recurs this often cannot advance the simulated clock (a unit mistake?)");
  return false;
}

}  // namespace sonicsim::scenario::detail
