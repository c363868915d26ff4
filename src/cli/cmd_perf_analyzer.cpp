// perf-analyzer: perf_analyzer's experiment run inside the simulator, written in its CSV format
// so that a simulated scan lies next to a measured one.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <sonicsim/emulation/perf_emulation.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct PerfAnalyzerArgs {
  ScenarioArgs scenario;
  std::string model, concurrency_range, request_rate_range, output;
  std::string distribution = "constant";
  int batch_size = 1, devices = 1;
  std::uint64_t requests = 20000;
  bool verbose = false;
  CLI::Option *concurrency_flag = nullptr, *rate_flag = nullptr;
};

// What one of perf_analyzer's range flags accepts.
struct RangeSpec {
  const char* flag;
  bool integers;
  double max;
  const char* expected;  // the kind of values, for messages
};
constexpr RangeSpec kConcurrency{"--concurrency-range", true, 100000, "integers from 1 to 100000"};
constexpr RangeSpec kRequestRate{"--request-rate-range", false, 1e9,
                                 "numbers of requests per second > 0 and at most 1e9"};

// perf_analyzer's START:END[:STEP] (END and STEP optional, STEP default 1). Rates may be
// fractional, as perf_analyzer's are (`--request-rate-range 0.5:2:0.5`).
std::vector<double> parse_range(const RangeSpec& spec, const std::string& text) {
  const std::string flag = spec.flag;
  const auto bad = [&] {
    return UsageError(flag + ": found \"" + text + "\", expected START[:END[:STEP]] with " +
                      spec.expected);
  };
  std::vector<double> parts;
  std::size_t start = 0;
  while (true) {
    const auto colon = text.find(':', start);
    const std::string item = text.substr(start, colon - start);
    const auto whole = util::parse_whole_number(item, 1, static_cast<std::int64_t>(spec.max));
    const std::optional<double> v =
        spec.integers ? (whole ? std::optional<double>(static_cast<double>(*whole)) : std::nullopt)
                      : util::parse_number(item);
    if (!v || *v <= 0.0 || *v > spec.max) throw bad();
    parts.push_back(*v);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3)
    throw UsageError(flag + ": found \"" + text + "\", expected START[:END[:STEP]]");
  const double first = parts[0], last = parts.size() > 1 ? parts[1] : parts[0];
  const double step = parts.size() > 2 ? parts[2] : 1.0;
  const auto show = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  if (last < first)
    throw UsageError(flag + ": found END " + show(last) + " below START " + show(first) +
                     ", expected START <= END");
  // Counted rather than accumulated, so that 0.1 steps neither drift nor lose the last point.
  const double count = std::floor((last - first) / step + 1e-9) + 1.0;
  if (count > 10000)
    throw UsageError(flag + ": " + show(count) + " points, expected at most 10000");
  std::vector<double> out;
  for (int i = 0; i < static_cast<int>(count); ++i) out.push_back(first + i * step);
  return out;
}

int cmd_perf_analyzer(const PerfAnalyzerArgs& a) {
  const bool by_concurrency = a.concurrency_flag->count() > 0;
  const bool by_rate = a.rate_flag->count() > 0;
  if (by_concurrency == by_rate)
    throw UsageError(std::string(by_rate ? "found both --concurrency-range and "
                                           "--request-rate-range"
                                         : "found neither --concurrency-range nor "
                                           "--request-rate-range") +
                     ", expected exactly one: perf_analyzer's closed loop (C requests "
                     "outstanding) or its open loop (requests sent at a fixed rate)");
  if (by_concurrency && a.distribution != "constant")
    throw UsageError("--request-distribution: found \"" + a.distribution +
                     "\" with --concurrency-range, expected it only with --request-rate-range "
                     "(a closed loop has no arrival process)");
  const auto levels = by_rate ? parse_range(kRequestRate, a.request_rate_range)
                              : parse_range(kConcurrency, a.concurrency_range);
  const auto s = load(a.scenario);
  if (!a.output.empty()) check_writable(a.output);
  calibration::EmulationOptions o;
  o.model = a.model;
  o.batch_size = a.batch_size;
  o.devices = a.devices;
  o.requests = a.requests;
  o.distribution = a.distribution == "poisson" ? scenario::Arrivals::Distribution::Poisson
                                               : scenario::Arrivals::Distribution::Constant;
  emulation::load_compute_split(s, o);
  std::vector<calibration::PerfAnalyzerRow> rows;
  for (double level : levels) {
    const auto p = by_rate ? emulation::emulate_request_rate(s, o, level)
                           : emulation::emulate_concurrency(s, o, static_cast<int>(level));
    rows.push_back(p.row);
    if (!a.verbose) continue;
    std::cerr << (by_rate ? "request rate " : "concurrency ") << level << ": "
              << p.row.inferences_per_s << " infer/sec, " << p.requests << " requests, "
              << p.requests_per_execution << " requests per execution, device utilization "
              << p.device_utilization;
    if (p.failed) std::cerr << ", " << p.failed << " rejected";
    if (p.backlog_growing)
      std::cerr << ", past saturation: the queue grows with the measurement's length";
    std::cerr << "\n";
  }
  const std::string csv = calibration::write_perf_analyzer_csv(
      by_rate ? calibration::LoadMode::RequestRate : calibration::LoadMode::Concurrency, rows,
      /*with_avg_latency=*/true);
  if (!a.output.empty())
    write_all_or_none({{a.output, csv, perf_analyzer_csv_read_back(a.batch_size)}});
  else
    std::cout << csv;
  return 0;
}

}  // namespace

void add_perf_analyzer_command(CLI::App& app, Commands& out) {
  static PerfAnalyzerArgs args;
  auto* pa = app.add_subcommand(
      "perf-analyzer",
      "Run perf_analyzer's experiment in the simulator; CSV in perf_analyzer's format");
  add_scenario_args(pa, args.scenario, /*positional=*/false);
  add_budgets(pa);
  pa->add_option("-m,--model", args.model, "Model to load (a model of the scenario)")->required();
  args.concurrency_flag =
      pa->add_option("--concurrency-range", args.concurrency_range,
                     "START[:END[:STEP]] outstanding requests (closed loop), as perf_analyzer's "
                     "flag; this or --request-rate-range");
  args.rate_flag = pa->add_option("--request-rate-range", args.request_rate_range,
                                  "START[:END[:STEP]] requests per second sent whatever the "
                                  "responses (open loop), as perf_analyzer's flag; may be "
                                  "fractional");
  pa->add_option("--request-distribution", args.distribution,
                 "Intervals between requests in request-rate mode: constant or poisson")
      ->check(CLI::IsMember({"constant", "poisson"}))
      ->capture_default_str();
  pa->add_option("-b,--batch-size", args.batch_size, "Items per request")
      ->check(whole_number(1, 1000000))
      ->capture_default_str();
  pa->add_option("--devices", args.devices,
                 "Devices of the serving pool behind the endpoint (default 1: one Triton server)")
      ->check(whole_number(1, 100000))
      ->capture_default_str();
  pa->add_option("--requests", args.requests,
                 "Requests measured per level after warm-up (concurrency: finished, about; "
                 "request rate: sent)")
      ->check(whole_number(100, 100000000))
      ->capture_default_str();
  pa->add_option("-o,-f,--output", args.output, "Write the CSV here (default: stdout)");
  pa->add_flag("-v,--verbose", args.verbose,
               "Per level: requests, batching, utilization, rejections, saturation");
  out.push_back({pa, [] { return cmd_perf_analyzer(args); }, &args.scenario});
}

}  // namespace sonicsim::cli
