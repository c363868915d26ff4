// How a subcommand plugs into the `sonicsim` binary: each command family lives in its own file
// (cmd_*.cpp), declares its flags on the CLI11 app and returns what to run once they are parsed.
// A command checks its flags, calls the pipeline (or the part that answers it) and prints; the
// work itself lives below (pipeline/, plan/, calibration/, compare/, report/). main.cpp owns the
// exit codes: 0 success, 2 bad input (InputError, OutputError, UsageError, BatchSystemError),
// 1 a failed write (WriteError, standard output included) or an internal error.
#pragma once

#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>

#include "read_back.hpp"

namespace sonicsim::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;
  // The scenario a command reads, if any: main loads it before `run` (refusing it under
  // --strict-units) and prints its warnings on stderr, before any long work.
  const scenario::Source* scenario = nullptr;
};
using Commands = std::vector<Command>;

// A flag combination or argument that makes no sense, found after parsing: exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Flags shared by every command that reads a scenario: the file, --set, --seed, --strict-units.
using ScenarioArgs = scenario::Source;
void add_scenario_args(CLI::App* cmd, ScenarioArgs& a, bool positional = true);
// Loads the scenario as `a` names it (InputError, exit 2, when refused) and prints its
// plausibility warnings on stderr, one line each.
void check_scenario(const ScenarioArgs& a);
void print_warnings(const std::string& file, const std::vector<Problem>& warnings);
// A budget's flag (runner/budget.hpp): it sets the process-wide value, which the forked children
// of sweeps, plans and scans inherit.
void add_budget(CLI::App* cmd, runner::Budget& budget, const std::string& help,
                const std::string& type_name);
// --memory-budget SIZE and --time-budget DURATION, for every command that simulates.
void add_budgets(CLI::App* cmd);
using scenario::load;
using scenario::overrides_of;

// run --samples N and its flags (cmd_run_samples.cpp, docs/uncertainty-samples.md).
struct SampleArgs {
  int samples = 0;  // 0: not asked
  std::string sampling, block;
  bool sobol = false;
  int workers = 0;
  long long sampling_seed = -1;  // < 0: the block's seed, else the scenario's
};
void add_sample_args(CLI::App* cmd, SampleArgs& s);
// Whether --samples was given; throws UsageError for a flag of its family given without it.
bool sample_flags_given(const SampleArgs& s);
int cmd_run_samples(const ScenarioArgs& a, const SampleArgs& s, const std::string& output,
                    bool json, bool quiet);

// A calibration's file (-o, written atomically) and its report on stdout, or with --json the file
// itself: what `calibrate perf-analyzer` and `calibrate prometheus` end with. Either is first
// loaded by a scenario (calibration_read_back): a calibration no scenario can use is not given.
template <class Calibration>
int write_calibration(const Calibration& cal, const std::string& output, bool json) {
  const std::string text = cal.doc.dump(2) + "\n";
  if (!output.empty())
    write_all_or_none({{output, text, calibration_read_back()}});
  else if (json)
    read_back_copy("standard output", text, calibration_read_back());
  if (json)
    std::cout << text;
  else
    std::cout << cal.report << (output.empty() ? "" : "calibration written to " + output + "\n");
  return 0;
}

// The command as given, for a calibration's provenance (CLI11 does not keep argv): `head`, the
// command and its positional arguments, then every option given other than `skip`, with its
// values.
std::string recorded_command(const CLI::App& cmd, const std::string& head,
                             const std::vector<std::string>& skip);

// A fit for pasting into a scenario (calibrate overlap, calibrate nodes): read back by
// `read_back` whether it is written (-o, atomically) or only printed, so that what the user
// pastes is what a scenario accepts; then the summary on stdout, saying where the `noun` went,
// or with --json the file itself.
inline int write_fragment(const std::string& text, const std::string& summary,
                          const std::string& output, bool json, const ReadBack& read_back,
                          const std::string& noun) {
  if (!output.empty())
    write_all_or_none({{output, text, read_back}});
  else
    read_back_copy("standard output", text, read_back);
  if (json)
    std::cout << text;
  else
    std::cout << summary << (output.empty() ? "" : noun + " written to " + output + "\n");
  return 0;
}

void add_run_commands(CLI::App& app, Commands& out);        // run, validate, analytic
void add_calibrate_commands(CLI::App& app, Commands& out);  // calibrate perf-analyzer|scan|...
void add_calibrate_scan_command(CLI::App* calibrate, Commands& out);        // calibrate scan
void add_calibrate_overlap_command(CLI::App* calibrate, Commands& out);     // calibrate overlap
void add_calibrate_prometheus_command(CLI::App* calibrate, Commands& out);  // calibrate prometheus
void add_calibrate_nodes_command(CLI::App* calibrate, Commands& out);       // calibrate nodes
void add_perf_analyzer_command(CLI::App& app, Commands& out);               // perf-analyzer
void add_compare_command(CLI::App& app, Commands& out);                     // compare
void add_reproduce_command(CLI::App& app, Commands& out);                   // reproduce
void add_report_command(CLI::App& app, Commands& out);                      // report
void add_plan_command(CLI::App& app, Commands& out);                        // plan
void add_sweep_commands(CLI::App& app, Commands& out);                      // sweep, merge
void add_devices_command(CLI::App& app, Commands& out);                     // devices
void add_import_commands(CLI::App& app, Commands& out);  // import supersonic|prometheus
void add_import_supersonic_command(CLI::App* import, Commands& out);  // import supersonic
void add_import_prometheus_command(CLI::App* import, Commands& out);  // import prometheus

}  // namespace sonicsim::cli
