// Random quantities: a plain number or time, or a distribution object ({"dist": ...}).
#include <cmath>
#include <initializer_list>
#include <string_view>

#include <sonicsim/util/format.hpp>

#include "keys.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

namespace {

constexpr const char* kDistKinds[] = {"constant", "exponential", "lognormal", "gamma",
                                      "normal",   "uniform",     "empirical"};

}  // namespace

std::optional<double> Loader::scalar(const json& v, const std::string& path, const DistSpec& spec,
                                     Range range) {
  if (spec.is_time) return quantity(v, path, Quantity::Time, range);
  return number(v, path, range);
}

std::optional<Distribution> Loader::distribution(const json& v, const std::string& path,
                                                 const DistSpec& spec) {
  const Range floor = Range::at_least(spec.floor);
  if (!v.is_object()) {
    if (v.is_number() || (spec.is_time && v.is_string())) {
      if (auto x = scalar(v, path, spec, floor)) return Distribution::constant(*x);
      return std::nullopt;
    }
    add(path, "found " + describe(v) + ", expected " + spec.noun + " " + floor.text() +
                  " or a distribution object such as {\"dist\": \"lognormal\", \"mean\": " +
                  (spec.is_time ? "\"1s\"" : "8") + ", \"cv\": 0.3}");
    return std::nullopt;
  }
  const std::initializer_list<std::string_view> all_keys = {
      keys::kDist, keys::kMean, keys::kCv,     "stddev",
      keys::kMin,  keys::kMax,  keys::kValues, keys::kWeights};
  const json* kind_value = get(v, keys::kDist);
  if (!kind_value) {
    missing(key_path(path, keys::kDist),
            "the kind of distribution: one of \"constant\", \"exponential\", \"lognormal\", "
            "\"gamma\", \"normal\", \"uniform\", \"empirical\"");
    check_keys(v, path, all_keys);
    return std::nullopt;
  }
  const auto kind_name =
      choice(*kind_value, key_path(path, keys::kDist),
             {"constant", "exponential", "lognormal", "gamma", "normal", "uniform", "empirical"});
  if (!kind_name) {
    check_keys(v, path, all_keys);
    return std::nullopt;
  }
  Distribution d;
  for (int i = 0; i < 7; ++i)
    if (*kind_name == kDistKinds[i]) d.kind = static_cast<Distribution::Kind>(i);
  using K = Distribution::Kind;

  const std::string applies = "does not apply to a " + *kind_name + " distribution";
  bool ok = true;
  const auto need = [&](const char* key, Range range) -> std::optional<double> {
    const json* x = get(v, key);
    if (!x) {
      missing(key_path(path, key), std::string(spec.noun) + " " + range.text());
      ok = false;
      return std::nullopt;
    }
    auto r = scalar(*x, key_path(path, key), spec, range);
    if (!r) ok = false;
    return r;
  };

  switch (d.kind) {
    case K::Constant:
    case K::Exponential: {
      check_keys(v, path, {keys::kDist, keys::kMean},
                 {keys::kCv, "stddev", keys::kMin, keys::kMax, keys::kValues, keys::kWeights},
                 applies + (d.kind == K::Exponential ? " (its cv is 1 by definition; keys: dist, "
                                                       "mean)"
                                                     : " (keys: dist, mean)"));
      const Range range =
          d.kind == K::Constant ? floor : Range{spec.floor, floor.hi, spec.floor == 0};
      if (auto m = need(keys::kMean, range)) d.mean = *m;
      break;
    }
    case K::Lognormal:
    case K::Gamma:
    case K::Normal: {
      check_keys(v, path, {keys::kDist, keys::kMean, keys::kCv, "stddev"},
                 {keys::kMin, keys::kMax, keys::kValues, keys::kWeights},
                 applies + " (keys: dist, mean, cv or stddev)");
      // Lognormal and gamma live on (0, inf); the normal is cut at 0 so a zero mean is allowed.
      const Range range =
          d.kind == K::Normal ? floor : Range{spec.floor, floor.hi, spec.floor == 0};
      if (auto m = need(keys::kMean, range)) d.mean = *m;
      const json* cv = get(v, keys::kCv);
      const json* sd = get(v, "stddev");
      if (cv && sd) {
        add(key_path(path, "stddev"), "found both `cv` and `stddev`, expected only one of them");
        ok = false;
      } else if (cv) {
        if (auto c = number(*cv, key_path(path, keys::kCv), Range::at_least(0))) {
          d.cv = *c;
        } else {
          ok = false;
        }
      } else if (sd) {
        const RoleScope spread_only(*this, Role::None);  // a spread, not the quantity itself
        if (auto s = scalar(*sd, key_path(path, "stddev"), spec, Range::at_least(0))) {
          if (ok && d.mean > 0) {
            d.cv = *s / d.mean;
          } else if (ok && *s > 0) {
            add(key_path(path, "stddev"),
                "found a stddev with mean 0, expected mean > 0 (the spread is stored relative "
                "to the mean)");
            ok = false;
          }
        } else {
          ok = false;
        }
      } else {
        missing(key_path(path, keys::kCv), "the coefficient of variation `cv` (or `stddev`)");
        ok = false;
      }
      if (ok && d.cv != 0.0 && !(d.cv >= Limits::min_cv && d.cv <= Limits::max_cv)) {
        add(key_path(path, cv ? "cv" : "stddev"),
            "found a coefficient of variation of " + util::formatted("%g", d.cv) +
                ", expected 0 or one from " + util::formatted("%g", Limits::min_cv) + " to " +
                util::formatted("%g", Limits::max_cv) +
                " (a smaller spread is none: write 0; a larger one puts nearly every draw at 0)");
        ok = false;
      }
      break;
    }
    case K::Uniform: {
      check_keys(v, path, {keys::kDist, keys::kMin, keys::kMax},
                 {keys::kMean, keys::kCv, "stddev", keys::kValues, keys::kWeights},
                 applies + " (keys: dist, min, max)");
      const auto lo = need(keys::kMin, floor);
      const auto hi = need(keys::kMax, floor);
      if (lo && hi) {
        d.min = *lo;
        d.max = *hi;
        if (*hi < *lo) {
          add(key_path(path, keys::kMax), "found max " + describe(*get(v, keys::kMax)) +
                                              " below min " + describe(*get(v, keys::kMin)) +
                                              ", expected max >= min");
          ok = false;
        }
      }
      break;
    }
    case K::Empirical:
      check_keys(v, path, {keys::kDist, keys::kValues, keys::kWeights},
                 {keys::kMean, keys::kCv, "stddev", keys::kMin, keys::kMax},
                 applies + " (keys: dist, values, weights)");
      ok = empirical(v, path, spec, d);
      break;
  }
  if (!ok) return std::nullopt;
  return d;
}

// The values and weights of an empirical distribution.
bool Loader::empirical(const json& v, const std::string& path, const DistSpec& spec,
                       Distribution& d) {
  const Range floor = Range::at_least(spec.floor);
  bool ok = true;
  const json* values = get(v, keys::kValues);
  const std::string vpath = key_path(path, keys::kValues);
  if (!values) {
    missing(vpath, "a non-empty array of values");
    ok = false;
  } else if (!values->is_array() || values->empty()) {
    add(vpath, "found " + describe(*values) + ", expected a non-empty array, each value " +
                   spec.noun + " " + floor.text());
    ok = false;
  } else {
    for (std::size_t i = 0; i < values->size(); ++i) {
      if (auto x = scalar((*values)[i], index_path(vpath, i), spec, floor)) {
        d.values.push_back(*x);
      } else {
        ok = false;
      }
    }
  }
  if (const json* weights = get(v, keys::kWeights)) {
    const std::string wpath = key_path(path, keys::kWeights);
    if (!weights->is_array()) {
      add(wpath, "found " + describe(*weights) + ", expected an array of numbers >= 0");
      ok = false;
    } else {
      double total = 0.0;
      for (std::size_t i = 0; i < weights->size(); ++i) {
        if (auto w = number((*weights)[i], index_path(wpath, i), Range::at_least(0))) {
          d.weights.push_back(*w);
          total += *w;
        } else {
          ok = false;
        }
      }
      if (values && values->is_array() && weights->size() != values->size()) {
        add(wpath, "found " + std::to_string(weights->size()) + " weights, expected " +
                       std::to_string(values->size()) + " (one per value)");
        ok = false;
      } else if (ok && !(total > 0.0) && !weights->empty()) {
        add(wpath, "found weights summing to 0, expected a positive sum");
        ok = false;
      } else if (ok && std::isfinite(total) && total > 0.0) {
        for (double& w : d.weights) w /= total;
      } else if (ok) {
        add(wpath, "found weights summing to " + format_number(total) +
                       ", expected a finite positive sum");
        ok = false;
      }
    }
  }
  return ok;
}

}  // namespace sonicsim::scenario::detail
