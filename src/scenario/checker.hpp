// Building blocks of the scenario loader: reading JSON values while collecting every problem with
// its JSON path, instead of stopping at the first one. Private to src/scenario.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::scenario::detail {

using json = nlohmann::json;

std::string key_path(const std::string& parent, std::string_view key);
std::string index_path(const std::string& parent, std::size_t index);

// How a value shows in "found X": `"async"`, `4.5`, `inf`, `an object`, ...
std::string describe(const json& value);
std::string format_number(double value);

// The hint for a near miss lives with the error types (util/errors.hpp), for every layer.
using sonicsim::did_you_mean;

// Allowed interval of a number, with its wording for messages (">= 0", "in (0, 1)").
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;

  static Range any() { return {}; }
  static Range positive() { return {0.0, std::numeric_limits<double>::infinity(), true, false}; }
  static Range at_least(double lo) { return {lo, std::numeric_limits<double>::infinity()}; }
  static Range closed(double lo, double hi) { return {lo, hi}; }
  static Range open(double lo, double hi) { return {lo, hi, true, true}; }

  bool contains(double v) const;
  std::string text() const;
};

// Where a scenario's text came from, for line:column in messages. Parses with duplicate-key
// detection (nlohmann would silently keep the last one). Problems get appended; returns nullopt
// when the text is not JSON.
std::optional<json> parse_document(const std::string& text, std::vector<Problem>& problems);

// What a quantity stands for, where plausibility checks (plausibility.cpp) have a view on it.
// A bandwidth is one whatever its key.
enum class Role { None, CpuTime, ServiceTime, Latency, Bandwidth };

// A quantity as the loader read it, for the plausibility checks after a clean load.
struct Reading {
  std::string path;    // JSON path; in a calibration file, the key that names the file
  std::string inner;   // in a calibration file: "in calibration file `F`: service_time.seconds[0]"
  std::string found;   // as written: `993.3`, `"5ms"`
  std::string number;  // its number as written ("993.3", "5")
  bool bare = false;   // no unit: read in SI base units
  Quantity kind = Quantity::Time;
  Role role = Role::None;
  std::string group;   // whose it is: a model, a workload, a network (the neighbours to compare)
  bool lead = false;   // stands for its curve: the first point of a service-time table
  double value = 0.0;  // SI
};

class Checker {
 public:
  std::vector<Problem> problems;
  // --strict-units: a time, size or bandwidth other than 0 written without a unit is a problem.
  bool strict_units = false;
  std::vector<Reading> readings;

  // While one lives, the quantities read take `role` and `group` (Bandwidth needs none).
  class RoleScope {
   public:
    RoleScope(Checker& c, Role role, std::string group = {})
        : c_(c), role_(c.role_), group_(std::move(c.group_)) {
      c.role_ = role;
      c.group_ = std::move(group);
    }
    ~RoleScope() {
      c_.role_ = role_;
      c_.group_ = std::move(group_);
    }
    RoleScope(const RoleScope&) = delete;
    RoleScope& operator=(const RoleScope&) = delete;

   private:
    Checker& c_;
    Role role_;
    std::string group_;
  };
  // Marks the last reading, if it has a role, as the one that stands for its curve.
  void mark_lead();
  // A quantity read outside quantity() (a threshold read by hand): strict units and a reading.
  void read_quantity(const json& value, const std::string& path, Quantity kind, double si);

  void add(std::string path, std::string message);
  void missing(const std::string& path, std::string_view expected);
  bool ok() const { return problems.empty(); }

  static const json* get(const json& object, std::string_view key);

  // True if `value` is an object; otherwise reports it (expected: "an object with ...").
  bool expect_object(const json& value, const std::string& path, std::string_view expected);
  // Reports every key of `object` not in `allowed`, with a did-you-mean hint. Keys listed in
  // `elsewhere` get `elsewhere_message` instead (a key valid for another variant of the object).
  void check_keys(const json& object, const std::string& path,
                  std::span<const std::string_view> allowed,
                  std::span<const std::string_view> elsewhere = {},
                  std::string_view elsewhere_message = {});
  void check_keys(const json& object, const std::string& path,
                  std::initializer_list<std::string_view> allowed,
                  std::initializer_list<std::string_view> elsewhere = {},
                  std::string_view elsewhere_message = {}) {
    check_keys(object, path, std::span(allowed.begin(), allowed.size()),
               std::span(elsewhere.begin(), elsewhere.size()), elsewhere_message);
  }

  std::optional<std::string> string(const json& value, const std::string& path,
                                    bool allow_empty = false);
  std::optional<std::string> choice(const json& value, const std::string& path,
                                    std::span<const std::string_view> options);
  std::optional<std::string> choice(const json& value, const std::string& path,
                                    std::initializer_list<std::string_view> options) {
    return choice(value, path, std::span(options.begin(), options.size()));
  }
  std::optional<double> number(const json& value, const std::string& path, Range range,
                               std::string_view noun = "a number");
  std::optional<std::int64_t> integer(const json& value, const std::string& path, std::int64_t lo,
                                      std::int64_t hi, std::string_view why = {});
  std::optional<std::uint64_t> unsigned_integer(const json& value, const std::string& path);
  // true or false; anything else is a problem at `path`.
  std::optional<bool> boolean(const json& value, const std::string& path);
  std::optional<double> quantity(const json& value, const std::string& path, Quantity kind,
                                 Range range);
  // A time that recurs (a period, a CPU time per event, a mean time between failures) found at
  // `path` (`found` as messages show it, `seconds` as read): below SimGrid's clock resolution
  // (Limits::clock_tick_s) the simulated clock could not advance between two of them. Reports a
  // value in (0, 1 ns) and returns false; true for 0 (the caller decides whether 0 is allowed)
  // and for anything longer.
  bool at_least_tick(const std::string& found, const std::string& path, double seconds);
  // An optional key of `object` (at `path`): `out` takes its value when present and valid and
  // keeps its default when absent. False only when present and refused (the problem is added).
  bool optional_quantity(const json& object, const std::string& path, std::string_view key,
                         Quantity kind, Range range, double& out);

 protected:
  Role role_ = Role::None;
  std::string group_;
};

}  // namespace sonicsim::scenario::detail
