// Writing a block of the results through keys.hpp: the writer's side of reader.hpp. A figure
// that may not exist (a formula past its domain, an empty distribution) is written null, which
// the reader reads back as missing: JSON has no infinity, and nlohmann would write NaN as null
// anyway but infinity as a number no reader accepts. Counts, names, flags and nested blocks are
// written as they are.
#pragma once

#include <cmath>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

namespace sonicsim::results {

template <class Json>
Json figure_or_null(double x) {
  return std::isfinite(x) ? Json(x) : Json(nullptr);
}
template <class Json>
Json figure_or_null(const std::optional<double>& x) {
  return x ? figure_or_null<Json>(*x) : Json(nullptr);
}

// One JSON object, its keys from keys.hpp. Json is nlohmann::json (keys sorted, as the
// `analytic` block is) or nlohmann::ordered_json (keys in the order written).
template <class Json>
class BasicWriter {
 public:
  BasicWriter() : json_(Json::object()) {}

  BasicWriter& figure(const char* key, double x) {
    json_[key] = figure_or_null<Json>(x);
    return *this;
  }
  BasicWriter& figure(const char* key, const std::optional<double>& x) {
    json_[key] = figure_or_null<Json>(x);
    return *this;
  }
  template <class T>
  BasicWriter& put(const char* key, T&& value) {
    json_[key] = std::forward<T>(value);
    return *this;
  }
  // The object written, moved out (the writer is left empty): a block for its parent's put().
  Json take() { return std::move(json_); }

 private:
  Json json_;
};

using Writer = BasicWriter<nlohmann::json>;
using OrderedWriter = BasicWriter<nlohmann::ordered_json>;

}  // namespace sonicsim::results
