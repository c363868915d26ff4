// sonicsim: the command-line face. Parses flags and calls the parts; owns exit codes (the
// contract, docs/commands.md): 0 success, 2 bad input (scenario, flags, input files, an output
// path that cannot be written), 1 a write that failed after the work (disk full, I/O error,
// standard output closed), memory that ran out (std::bad_alloc) or an internal error; sweeps add
// 3 (some points failed) and 130 (interrupted).
#include <unistd.h>

#include <exception>
#include <iostream>
#include <new>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include <sonicsim/pipeline/sweep.hpp>
#include <sonicsim/points/children.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/memory.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>

#include "command.hpp"

namespace {

std::string g_command = "sonicsim";  // "sonicsim run", once parsed: the messages name it

[[noreturn]] void out_of_memory_exit() {
  std::cerr << g_command << ": " << sonicsim::runner::out_of_memory_message()
            << "; no output was written\n";
  std::cerr.flush();
  // Nothing may allocate now; outputs are written all or none, after the run, so none exist.
  ::_exit(1);
}

// A std::bad_alloc thrown where it cannot be caught (a noexcept function, a destructor) ends in
// std::terminate: the same message and exit code as one caught in main, not an abort (134).
[[noreturn]] void on_terminate() {
  if (const auto e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      out_of_memory_exit();
    } catch (...) {
    }
  }
  std::abort();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sonicsim;
  std::set_terminate(on_terminate);
  // A child out of memory names the run's estimate, as this process would.
  points::set_out_of_memory_message(runner::out_of_memory_message);
  CLI::App app{
      "sonicsim: discrete-event simulator and capacity planner for inference as a "
      "service (SONIC: CPU jobs, network, Triton servers on GPUs)"};
  app.set_version_flag("--version", std::string("sonicsim ") + SONICSIM_VERSION);
  app.require_subcommand(1);

  cli::Commands commands;
  cli::add_run_commands(app, commands);
  cli::add_calibrate_commands(app, commands);
  cli::add_perf_analyzer_command(app, commands);
  cli::add_compare_command(app, commands);
  cli::add_reproduce_command(app, commands);
  cli::add_report_command(app, commands);
  cli::add_plan_command(app, commands);
  cli::add_sweep_commands(app, commands);
  cli::add_import_commands(app, commands);
  cli::add_devices_command(app, commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print on standard output: they succeed only if it took the text.
    // CLI11 ends the version with std::endl, whose flush would fail and lose errno before
    // close_standard_output could name the reason: the text goes through a string instead.
    std::ostringstream text;
    const int code = app.exit(e, text, std::cerr);
    std::cout << text.str();
    try {
      close_standard_output();
    } catch (const WriteError& w) {
      std::cerr << "sonicsim: " << w.what() << "\n";
      return 1;
    }
    return code == 0 ? 0 : 2;
  }

  try {
    for (const auto& c : commands)
      if (c.app->parsed()) {
        for (const CLI::App* a = c.app; a && a->get_parent(); a = a->get_parent())
          g_command.insert(8, " " + a->get_name());
        if (c.scenario) cli::check_scenario(*c.scenario);
        const int code = c.run();
        close_standard_output();
        return code;
      }
  } catch (const WriteError& e) {
    std::cerr << "sonicsim: " << e.what() << "\n";
    return 1;
  } catch (const scenario::InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const OutputError& e) {
    std::cerr << "sonicsim: " << e.what() << "\n";
    return 2;
  } catch (const cli::UsageError& e) {
    std::cerr << "sonicsim: " << e.what() << "\n";
    return 2;
  } catch (const pipeline::BatchSystemError& e) {
    std::cerr << "sonicsim: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    out_of_memory_exit();
  } catch (const std::exception& e) {
    std::cerr << "sonicsim: internal error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
