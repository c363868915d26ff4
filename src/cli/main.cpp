// sonicsim: the command-line face. Parses flags and calls the parts; owns exit codes:
// 0 success, 2 bad input (scenario, flags, files), 1 internal error.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/loader.hpp>

namespace {

using namespace sonicsim;

struct Common {
  std::string scenario_path;
  std::vector<std::string> sets;
  long long seed = -1;
  std::string output;
};

void add_common(CLI::App* cmd, Common& c, bool with_output) {
  cmd->add_option("scenario", c.scenario_path, "Scenario JSON file")->required();
  cmd->add_option("--set", c.sets,
                  "Override a scenario value: dotted.path=JSON (e.g. workload.jobs=400, "
                  "servers.0.count=2, models.m.dynamic_batching=null); repeatable")
      ->take_all();
  cmd->add_option("--seed", c.seed, "Override the scenario seed")->check(CLI::NonNegativeNumber);
  if (with_output) cmd->add_option("-o,--output", c.output, "Write the results JSON here");
}

scenario::Scenario load(const Common& c) {
  std::vector<scenario::Override> overrides;
  for (const auto& s : c.sets) overrides.push_back(scenario::parse_override(s));
  if (c.seed >= 0) overrides.push_back({"seed", std::to_string(c.seed)});
  return scenario::load_file(c.scenario_path, overrides);
}

int cmd_run(const Common& c, bool json_stdout, bool quiet) {
  const auto s = load(c);
  if (!c.output.empty()) results::check_writable(c.output);
  const auto prediction = analytic::predict(s);
  const auto block = analytic::to_json(prediction);
  const auto out = runner::simulate(s, runner::choose_transport(s, prediction));
  const auto j = results::to_json(s, out, block);
  if (!c.output.empty()) results::write_atomically(c.output, j.dump(2) + "\n");
  if (json_stdout) {
    std::cout << j.dump(2) << "\n";
  } else if (!quiet) {
    std::cout << results::summary(s, out, block);
    if (!c.output.empty()) std::cout << "results    written to " << c.output << "\n";
  }
  return 0;
}

int cmd_validate(const Common& c) {
  std::vector<scenario::Override> overrides;
  for (const auto& s : c.sets) overrides.push_back(scenario::parse_override(s));
  const auto problems = scenario::validate_file(c.scenario_path, overrides);
  if (problems.empty()) {
    std::cout << c.scenario_path << ": valid\n";
    return 0;
  }
  for (const auto& p : problems)
    std::cerr << c.scenario_path << ": " << (p.path.empty() ? "" : p.path + ": ") << p.message
              << "\n";
  std::cerr << problems.size() << (problems.size() == 1 ? " problem\n" : " problems\n");
  return 2;
}

int cmd_analytic(const Common& c, bool json_stdout) {
  const auto s = load(c);
  if (!c.output.empty()) results::check_writable(c.output);
  const auto p = analytic::predict(s);
  const auto j = analytic::to_json(p);
  if (!c.output.empty()) sonicsim::results::write_atomically(c.output, j.dump(2) + "\n");
  if (json_stdout)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << analytic::to_text(p);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "sonicsim: discrete-event simulator and capacity planner for inference as a "
      "service (SONIC: CPU jobs, network, Triton servers on GPUs)"};
  app.set_version_flag("--version", std::string("sonicsim ") + SONICSIM_VERSION);
  app.require_subcommand(1);

  Common run_args, validate_args, analytic_args;
  bool run_json = false, run_quiet = false, analytic_json = false;
  auto* run =
      app.add_subcommand("run", "Simulate one scenario; summary on stdout, results JSON to -o");
  add_common(run, run_args, true);
  run->add_flag("--json", run_json, "Print the results JSON on stdout instead of the summary");
  run->add_flag("-q,--quiet", run_quiet, "Print nothing on success");
  auto* validate =
      app.add_subcommand("validate", "Check a scenario and print every problem (exit 0 or 2)");
  add_common(validate, validate_args, false);
  auto* an = app.add_subcommand("analytic",
                                "The SONIC formulas and exact MVA for a scenario, no simulation");
  add_common(an, analytic_args, true);
  an->add_flag("--json", analytic_json, "Print JSON instead of the table");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    if (*run) return cmd_run(run_args, run_json, run_quiet);
    if (*validate) return cmd_validate(validate_args);
    if (*an) return cmd_analytic(analytic_args, analytic_json);
  } catch (const scenario::InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const results::OutputError& e) {
    std::cerr << "sonicsim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "sonicsim: internal error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
