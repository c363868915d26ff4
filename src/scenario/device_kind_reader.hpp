// The loader as a device kind's hooks see it (include/sonicsim/device_kinds/kind.hpp, "Reader"):
// a few readings that file their problems with the JSON path, so that a kind's header reads its
// keys without reaching into the loader's internals.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

class DeviceKindReader {
 public:
  explicit DeviceKindReader(Loader& loader) : l_(loader) {}

  const json* find(const json& object, std::string_view key) const {
    return Loader::get(object, key);
  }
  bool object(const json& v, const std::string& path, std::string_view expected) {
    return l_.expect_object(v, path, expected);
  }
  void keys(const json& v, const std::string& path, std::initializer_list<std::string_view> allowed,
            std::initializer_list<std::string_view> elsewhere, std::string_view message) {
    l_.check_keys(v, path, allowed, elsewhere, message);
  }
  std::optional<std::int64_t> integer(const json& v, const std::string& path, std::int64_t lo,
                                      std::int64_t hi, std::string_view what) {
    return l_.integer(v, path, lo, hi, what);
  }
  std::optional<double> positive(const json& v, const std::string& path, std::string_view what) {
    return l_.number(v, path, Range::positive(), what);
  }
  std::optional<double> time(const json& v, const std::string& path) {
    const auto t = l_.quantity(v, path, Quantity::Time, Range::positive());
    if (t && !l_.at_least_tick(describe(v), path, *t)) return std::nullopt;
    return t;
  }
  std::optional<double> rate(const json& v, const std::string& path) {
    const auto r = l_.quantity(v, path, Quantity::Rate, Range::positive());
    if (r && !l_.at_least_tick(describe(v), path, 1.0 / *r)) return std::nullopt;
    return r;
  }
  void lead() { l_.mark_lead(); }
  void problem(const std::string& path, std::string message) { l_.add(path, std::move(message)); }
  void missing(const std::string& path, const std::string& expected) { l_.missing(path, expected); }
  static std::string key(const std::string& path, std::string_view k) { return key_path(path, k); }
  static std::string index(const std::string& path, std::size_t i) { return index_path(path, i); }
  static std::string found(const json& v) { return describe(v); }
  static std::string number(double x) { return format_number(x); }
  static std::int64_t max_instances() { return Limits::max_instances; }

 private:
  Loader& l_;
};

}  // namespace sonicsim::scenario::detail
