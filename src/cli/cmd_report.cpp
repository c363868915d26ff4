// report: the figures of runs and sweeps side by side and, for several, what changed from the
// first in words, and what plans answered: what a planner pastes into a note to the site board. As
// text, Markdown, one self-contained HTML page with charts, or CSV tables.
#include <filesystem>
#include <iostream>

#include <sonicsim/report/report.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/util/files.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> files;
  std::string format, output, csv_dir, svg_dir;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int cmd_report(const ReportArgs& a) {
  // Without --format, the output file's extension decides (report.html, report.md).
  std::string format = a.format;
  if (format.empty())
    format = ends_with(a.output, ".html") || ends_with(a.output, ".htm") ? "html"
             : ends_with(a.output, ".md")                                ? "md"
                                                                         : "text";
  if (format != "text" && format != "md" && format != "html")
    throw UsageError("--format: found \"" + format + "\", expected text, md or html");
  if (!a.output.empty()) check_writable(a.output);
  for (const auto& [flag, dir] : {std::pair{"--csv-dir", &a.csv_dir}, {"--svg-dir", &a.svg_dir}}) {
    if (dir->empty()) continue;
    std::error_code error;
    std::filesystem::create_directories(*dir, error);
    if (error)
      throw OutputError(std::string(flag) + " " + *dir + ": cannot create the folder (" +
                        error.message() + ")");
  }
  const report::Inputs inputs = report::read_inputs(a.files);
  const std::string text =
      format == "html" ? report::html_report(inputs)
                       : report::text_report(inputs, format == "md" ? report::Format::Markdown
                                                                    : report::Format::Text);
  for (const auto& [name, csv] : report::csv_tables(inputs))
    if (!a.csv_dir.empty())
      write_atomically((std::filesystem::path(a.csv_dir) / name).string(), csv);
  if (!a.svg_dir.empty())
    for (const auto& [name, svg] : report::svg_files(inputs))
      write_atomically((std::filesystem::path(a.svg_dir) / name).string(), svg);
  if (a.output.empty())
    std::cout << text;
  else
    write_atomically(a.output, text);
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Commands& out) {
  static ReportArgs args;
  auto* cmd = app.add_subcommand(
      "report",
      "Key figures of results files and sweeps side by side; what changed from the first, in "
      "words; what plans answered; an HTML page with charts");
  cmd->add_option("inputs", args.files,
                  "Results JSON files (sonicsim run -o), plan JSON files (sonicsim plan -o) and/or "
                  "sweep CSVs (sonicsim sweep -o); the first run and sweep are the baselines")
      ->required();
  cmd->add_option("--format", args.format,
                  "text, md (Markdown) or html (default: html when -o ends in .html, md for "
                  ".md, else text)");
  cmd->add_option("-o,--output", args.output, "Write the report here (default: stdout)");
  cmd->add_option("--csv-dir", args.csv_dir,
                  "Also write the figures tables as CSV here (runs.csv, sweeps.csv)");
  cmd->add_option("--svg-dir", args.svg_dir,
                  "Also write every chart as its own SVG file here, named by its title "
                  "(time-per-event.svg)");
  out.push_back({cmd, [] { return cmd_report(args); }});
}

}  // namespace sonicsim::cli
