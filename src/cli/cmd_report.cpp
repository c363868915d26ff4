// report: the figures of one or more runs side by side and, for several, what changed from the
// first in words: what a planner pastes into a note to the site board.
#include <iostream>

#include <sonicsim/report/whatif.hpp>
#include <sonicsim/results/results.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> files;
  std::string format = "text", output;
};

int cmd_report(const ReportArgs& a) {
  report::Format format;
  if (a.format == "text")
    format = report::Format::Text;
  else if (a.format == "md")
    format = report::Format::Markdown;
  else
    throw UsageError("--format: found \"" + a.format + "\", expected text or md");
  if (!a.output.empty()) results::check_writable(a.output);
  std::vector<report::RunFigures> runs;
  for (const auto& f : a.files) runs.push_back(report::read_results(f));
  const std::string text = report::whatif(runs, format);
  if (a.output.empty())
    std::cout << text;
  else
    results::write_atomically(a.output, text);
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Commands& out) {
  static ReportArgs args;
  auto* cmd = app.add_subcommand(
      "report", "Key figures of results files side by side; what changed from the first, in words");
  cmd->add_option("results", args.files,
                  "Results JSON files (sonicsim run -o); the first is the "
                  "baseline")
      ->required();
  cmd->add_option("--format", args.format, "text or md (Markdown)")->capture_default_str();
  cmd->add_option("-o,--output", args.output, "Write the report here (default: stdout)");
  out.push_back({cmd, [] { return cmd_report(args); }});
}

}  // namespace sonicsim::cli
