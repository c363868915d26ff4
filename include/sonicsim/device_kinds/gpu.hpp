// gpu: executions of batches share the device: processor sharing (k executions at 1/k each), or
// the measured throughput of k at once (`devices.D.overlap`, `calibrate overlap` fits it).
#pragma once

#include <array>
#include <optional>
#include <sstream>
#include <tuple>

#include <sonicsim/device_kinds/kind.hpp>

namespace sonicsim::device_kinds {

struct Gpu {
  static constexpr std::string_view name = "gpu";
  static constexpr std::string_view meaning =
      "executions of batches share the device (processor sharing, or overlap)";
  static constexpr std::array<KeyDoc, 1> keys{
      {{"overlap", "the device's throughput with k executions at once, relative to one"}}};
  static constexpr Timing timing = Timing::BatchCurve;
  static constexpr std::array<std::string_view, 0> timing_keys{};
  static constexpr Execution::Model executes = Execution::Model::Sharing;
  static constexpr bool sliceable = true;

  struct Settings {
    std::optional<Overlap> overlap;  // unset: processor sharing, k executions at 1/k each
    bool operator==(const Settings&) const = default;
  };

  static constexpr const char* kOverlapExample =
      "{\"executions\": [1, 2, 4], \"throughput\": [1.0, 1.6, 1.9]}";

  template <class Reader, class Json>
  static void read(Reader& r, const Json& device, const std::string& path, Settings& s) {
    const Json* o = r.find(device, "overlap");
    if (o && !o->is_null()) s.overlap = read_overlap(r, *o, r.key(path, "overlap"));
  }

  template <class Reader>
  static void check_pool(Reader&, const Settings&, const PoolShape&) {}

  static Execution execution(const Settings& s, const PoolFacts& pool) {
    Execution e;
    if (!s.overlap) return e;  // plain processor sharing
    // Never more executions at once than the instances of the models it hosts.
    const std::size_t most = static_cast<std::size_t>(std::max(pool.most_executions, 1));
    e.throughput.assign(most + 1, 1.0);
    for (std::size_t k = 1; k <= most; ++k) e.throughput[k] = s.overlap->at(static_cast<double>(k));
    return e;
  }

  static std::string note(const Settings& s, const std::string& pool, const std::string& device,
                          const PoolFacts& facts) {
    if (!s.overlap) return {};
    const int k = facts.most_executions;
    const auto short_number = [](double x) {
      std::ostringstream o;
      o.precision(4);
      o << x;
      return o.str();
    };
    const std::string at_k = short_number(s.overlap->at(k));
    return "pool `" + pool + "`'s device " + device + " overlaps executions: with its " +
           std::to_string(k) + " instances busy it does " + at_k +
           "x the work of one, so its demand is t_GPU / " + at_k +
           "; t_GPU stays an execution alone, which under load runs slower (k / throughput(k) "
           "times longer): below saturation the formula's latency is optimistic";
  }

 private:
  template <class Reader, class Json>
  static std::optional<Overlap> read_overlap(Reader& r, const Json& v, const std::string& path);
};

template <class Reader, class Json>
std::optional<Overlap> Gpu::read_overlap(Reader& r, const Json& v, const std::string& path) {
  if (!r.object(v, path, std::string("an overlap curve ") + kOverlapExample)) return {};
  r.keys(v, path, {"executions", "throughput"}, {}, {});
  const Json* e = r.find(v, "executions");
  const Json* t = r.find(v, "throughput");
  const std::string epath = r.key(path, "executions"), tpath = r.key(path, "throughput");
  bool ok = true;
  for (const auto& [x, p, what] :
       {std::tuple{e, epath, "executions running at once"},
        std::tuple{t, tpath, "the device's throughput at each, relative to one execution"}}) {
    if (!x) {
      r.missing(p, std::string("an array of ") + what + ", e.g. " + kOverlapExample);
      ok = false;
    } else if (!x->is_array() || x->empty()) {
      r.problem(p, "found " + r.found(*x) + ", expected a non-empty array of " + what);
      ok = false;
    }
  }
  if (!ok) return {};
  if (e->size() != t->size()) {
    r.problem(tpath, "found " + std::to_string(t->size()) + " throughputs for " +
                         std::to_string(e->size()) + " execution counts, expected one per count");
    return {};
  }
  Overlap c;
  for (std::size_t i = 0; i < e->size(); ++i) {
    const std::string ep = r.index(epath, i), tp = r.index(tpath, i);
    const auto k = r.integer((*e)[i], ep, 1, r.max_instances(), "executions at once");
    const auto x = r.positive((*t)[i], tp, "a relative throughput");
    if (!k || !x) {
      ok = false;
      continue;
    }
    const double kd = static_cast<double>(*k);
    if (i == 0 && (*k != 1 || *x != 1.0)) {
      r.problem(*k != 1 ? ep : tp,
                "found (" + r.number(kd) + ", " + r.number(*x) +
                    "), expected the curve to start at executions 1 with throughput 1 (one "
                    "execution alone runs at the speed of the service-time curve)");
      ok = false;
    } else if (ok && i > 0) {
      const double pk = c.executions.back(), px = c.throughput.back();
      if (!(kd > pk)) {
        r.problem(ep, "found " + r.number(kd) + " after " + r.number(pk) +
                          ", expected strictly increasing execution counts");
        ok = false;
      } else if (*x < px) {
        r.problem(tp, "found " + r.number(*x) + " after " + r.number(px) +
                          ", expected a non-decreasing throughput (more executions never finish "
                          "less work; the curve is flat beyond its last point)");
        ok = false;
      } else if (*x * pk > px * kd * (1.0 + 1e-12)) {
        r.problem(tp, "found throughput " + r.number(*x) + " at " + r.number(kd) + " executions, " +
                          r.number(*x / kd) + " per execution after " + r.number(px / pk) + " at " +
                          r.number(pk) +
                          ", expected throughput(k) / k non-increasing (no superlinear speed-up: "
                          "k executions at once never finish more than k alone would)");
        ok = false;
      }
    }
    c.executions.push_back(kd);
    c.throughput.push_back(*x);
  }
  if (!ok) return {};
  return c;
}

}  // namespace sonicsim::device_kinds
