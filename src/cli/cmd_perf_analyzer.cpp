// perf-analyzer: perf_analyzer's experiment run inside the simulator, written in its CSV format
// so that a simulated scan lies next to a measured one.
#include <cmath>
#include <iostream>

#include <sonicsim/calibration/perf_emulation.hpp>
#include <sonicsim/results/results.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct PerfAnalyzerArgs {
  ScenarioArgs scenario;
  std::string model, concurrency_range, output;
  int batch_size = 1, devices = 1;
  std::uint64_t requests = 20000;
  bool verbose = false;
};

// perf_analyzer's START:END[:STEP] (END and STEP optional, STEP default 1).
std::vector<int> parse_range(const std::string& text) {
  std::vector<long> parts;
  std::size_t start = 0;
  while (true) {
    const auto colon = text.find(':', start);
    const std::string item = text.substr(start, colon - start);
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 1 || v > 100000)
      throw UsageError("--concurrency-range: found \"" + text +
                       "\", expected START[:END[:STEP]] with integers from 1 to 100000");
    parts.push_back(v);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3)
    throw UsageError("--concurrency-range: found \"" + text + "\", expected START[:END[:STEP]]");
  const long first = parts[0], last = parts.size() > 1 ? parts[1] : parts[0];
  const long step = parts.size() > 2 ? parts[2] : 1;
  if (last < first)
    throw UsageError("--concurrency-range: found END " + std::to_string(last) + " below START " +
                     std::to_string(first) + ", expected START <= END");
  std::vector<int> out;
  for (long c = first; c <= last; c += step) out.push_back(static_cast<int>(c));
  if (out.size() > 10000)
    throw UsageError("--concurrency-range: " + std::to_string(out.size()) +
                     " points, expected at most 10000");
  return out;
}

int cmd_perf_analyzer(const PerfAnalyzerArgs& a) {
  const auto levels = parse_range(a.concurrency_range);
  const auto s = load(a.scenario);
  if (!a.output.empty()) results::check_writable(a.output);
  calibration::EmulationOptions o;
  o.model = a.model;
  o.batch_size = a.batch_size;
  o.devices = a.devices;
  o.requests = a.requests;
  calibration::load_compute_split(s, o);
  std::vector<calibration::PerfAnalyzerRow> rows;
  for (int c : levels) {
    const auto p = calibration::emulate_concurrency(s, o, c);
    rows.push_back(p.row);
    if (a.verbose)
      std::cerr << "concurrency " << c << ": " << p.row.inferences_per_s << " infer/sec, "
                << p.requests << " requests, " << p.requests_per_execution
                << " requests per execution, device utilization " << p.device_utilization << "\n";
  }
  const std::string csv = calibration::write_perf_analyzer_csv(calibration::LoadMode::Concurrency,
                                                               rows, /*with_avg_latency=*/true);
  if (!a.output.empty())
    results::write_atomically(a.output, csv);
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
  pa->add_option("-m,--model", args.model, "Model to load (a model of the scenario)")->required();
  pa->add_option("--concurrency-range", args.concurrency_range,
                 "START[:END[:STEP]] outstanding requests, as perf_analyzer's flag")
      ->required();
  pa->add_option("-b,--batch-size", args.batch_size, "Items per request")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  pa->add_option("--devices", args.devices,
                 "Devices of the serving pool behind the endpoint (default 1: one Triton server)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  pa->add_option("--requests", args.requests,
                 "Requests simulated per concurrency level after warm-up")
      ->check(CLI::Range(100, 100000000))
      ->capture_default_str();
  pa->add_option("-o,-f,--output", args.output, "Write the CSV here (default: stdout)");
  pa->add_flag("-v,--verbose", args.verbose, "Per level: requests, batching, utilization");
  out.push_back({pa, [] { return cmd_perf_analyzer(args); }});
}

}  // namespace sonicsim::cli
