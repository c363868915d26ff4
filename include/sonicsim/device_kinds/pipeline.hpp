// pipeline: a dataflow device built for one network (an FPGA such as Brainwave or FaaST). One
// item enters per initiation interval and leaves `latency` after it entered; a model is timed
// on it by that pair (`models.M.service_time.D` = {"latency", "interval" | "throughput"}).
#pragma once

#include <array>
#include <optional>

#include <sonicsim/device_kinds/kind.hpp>

namespace sonicsim::device_kinds {

struct Pipeline {
  static constexpr std::string_view name = "pipeline";
  static constexpr std::string_view meaning =
      "one item enters per interval and leaves latency later (an FPGA), batch 1";
  static constexpr std::array<KeyDoc, 0> keys{};
  // Why another kind's key means nothing here (the loader's message for one).
  static constexpr std::string_view foreign_key_reason =
      "a pipeline's throughput is 1 / interval whatever runs on it";
  static constexpr Timing timing = Timing::Pipeline;
  static constexpr std::array<std::string_view, 3> timing_keys{"latency", "interval", "throughput"};
  static constexpr Execution::Model executes = Execution::Model::Pipeline;
  static constexpr bool sliceable = false;

  struct Settings {
    bool operator==(const Settings&) const = default;
  };

  static constexpr const char* kExample =
      "{\"latency\": \"1.8ms\", \"interval\": \"1.6ms\"} or {\"latency\": \"1.8ms\", "
      "\"throughput\": \"600/s\"}";

  template <class Reader, class Json>
  static void read(Reader&, const Json&, const std::string&, Settings&) {}

  // A pipeline is built for one network and takes one request at a time from a queue of its own.
  template <class Reader>
  static void check_pool(Reader& r, const Settings&, const PoolShape& p) {
    if (p.models > 1)
      r.problem(r.key(p.path, "models"),
                "found " + std::to_string(p.models) + " models on pipeline device `" + p.device +
                    "`, expected one (a pipeline is built for one network: give each model a pool "
                    "of its own)");
    if (p.devices_per_host > 1)
      r.problem(r.key(r.key(p.path, "host"), "devices"),
                "found " + std::to_string(p.devices_per_host) + " pipeline devices `" + p.device +
                    "` per host, expected 1 (a pipeline's entry takes one request at a time from "
                    "a queue of its own; several per host are not modelled)");
  }

  // `models.M.service_time.D`: {latency, interval} or {latency, throughput}.
  template <class Reader, class Json>
  static std::optional<PipelineTiming> read_timing(Reader& r, const Json& v,
                                                   const std::string& path);

  static Execution execution(const Settings&, const PoolFacts& pool) {
    Execution e;
    e.model = Execution::Model::Pipeline;
    if (pool.timing) {
      e.latency = pool.timing->latency;
      e.interval = pool.timing->interval;
    }
    return e;
  }

  static std::string note(const Settings&, const std::string& pool, const std::string& device,
                          const PoolFacts&) {
    return "pool `" + pool + "` is a pipeline (" + device +
           "): t_GPU is a request's latency through it (latency + (items - 1) x interval), its "
           "demand the entry time items x interval, so it saturates at 1 / interval items/s per "
           "device while t_GPU stays the same; MVA queues the entry time and adds the rest of "
           "the latency nowhere (it is low by latency - interval per request)";
  }
};

template <class Reader, class Json>
std::optional<PipelineTiming> Pipeline::read_timing(Reader& r, const Json& v,
                                                    const std::string& path) {
  r.keys(v, path, {"latency", "interval", "throughput"}, {"batch", "seconds", "calibration"},
         "belongs to a batch curve: a pipeline device's timing is {latency, interval}");
  PipelineTiming p;
  bool ok = true;
  const std::string lpath = r.key(path, "latency");
  if (const Json* lat = r.find(v, "latency"); !lat) {
    r.missing(
        lpath,
        std::string("the time from an item entering the pipeline to its result, e.g. ") + kExample);
    ok = false;
  } else if (auto t = r.time(*lat, lpath)) {
    p.latency = *t;
    r.lead();  // a pipeline's latency stands for its service time
  } else {
    ok = false;
  }
  const Json* ii = r.find(v, "interval");
  const Json* rate = r.find(v, "throughput");
  if (ii && rate) {
    r.problem(r.key(path, "throughput"),
              "found both `interval` and `throughput`, expected one of them (interval = 1 / "
              "throughput)");
    ok = false;
  } else if (ii) {
    if (auto t = r.time(*ii, r.key(path, "interval")))
      p.interval = *t;
    else
      ok = false;
  } else if (rate) {
    if (auto x = r.rate(*rate, r.key(path, "throughput")))
      p.interval = 1.0 / *x;
    else
      ok = false;
  } else {
    r.missing(r.key(path, "interval"),
              std::string("the initiation interval (one item enters per interval), or "
                          "`throughput` in items/s, e.g. ") +
                  kExample);
    ok = false;
  }
  if (ok && p.latency < p.interval) {
    r.problem(lpath, "found latency " + r.number(p.latency) + " s shorter than the interval " +
                         r.number(p.interval) +
                         " s, expected latency >= interval (an item is inside the pipeline at "
                         "least while it enters)");
    ok = false;
  }
  if (!ok) return {};
  return p;
}

}  // namespace sonicsim::device_kinds
