// reproduce: the gallery's published figures computed by simulation and by the formulas, each
// held against its tolerance (gallery/reproduce.hpp; docs/gallery.md).
#include <unistd.h>

#include <iostream>

#include <sonicsim/gallery/figures.hpp>
#include <sonicsim/gallery/reproduce.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/util/files.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

// A figure outside its tolerance: the figures ran, the validation fails (sweep's "some points
// failed" code).
constexpr int kExitOutside = 3;

struct ReproduceArgs {
  std::vector<std::string> files;
  std::string figure, json, markdown_dir, binary = "build/sonicsim";
  int workers = 0;
};

int cmd_reproduce(const ReproduceArgs& a) {
  gallery::ReproduceRequest request;
  for (const std::string& f : a.files) request.files.push_back(gallery::load_figures(f));
  request.only_figure = a.figure;
  request.workers = a.workers;
  request.binary = a.binary;
  request.simulate = pipeline::simulator();
  std::vector<std::pair<std::string, std::string>> names;
  if (!a.json.empty()) names.emplace_back("--json", a.json);
  if (!a.markdown_dir.empty()) {
    names.emplace_back("--markdown-dir", a.markdown_dir + "/validation-table.md");
    for (const auto& f : request.files)
      names.emplace_back("--markdown-dir", a.markdown_dir + "/" + f.folder + ".md");
  }
  check_distinct_outputs(names);
  for (const auto& [flag, path] : names) check_writable(path);

  const auto r = gallery::reproduce(request, [](std::size_t runs, int workers) {
    if (::isatty(2))
      std::cerr << "simulating " << runs << " runs, " << workers << " at a time...\n";
  });
  std::vector<Output> out;
  if (!a.json.empty()) out.emplace_back(a.json, gallery::to_json(r));
  if (!a.markdown_dir.empty()) {
    out.emplace_back(a.markdown_dir + "/validation-table.md", gallery::validation_table(r));
    for (const auto& s : r.systems)
      out.emplace_back(a.markdown_dir + "/" + s.folder + ".md", gallery::system_block(s));
  }
  write_all_or_none(out);
  std::cout << gallery::to_text(r);
  return r.outside() > 0 ? kExitOutside : 0;
}

}  // namespace

void add_reproduce_command(CLI::App& app, Commands& out) {
  static ReproduceArgs args;
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Reproduce the published figures of gallery systems (figures.json, docs/gallery.md): "
      "published, formula and simulated side by side, with the error. Exit 0 all within "
      "tolerance, 3 some figure outside, 2 bad input");
  cmd->add_option("figures", args.files, "figures.json files (scenarios/gallery/*/figures.json)")
      ->required();
  cmd->add_option("--figure", args.figure, "Only the figure with this id");
  cmd->add_option("--json", args.json, "Write every figure, its error and its sweep as JSON here");
  cmd->add_option("--markdown-dir", args.markdown_dir,
                  "Write the validation page's table (validation-table.md) and each system's "
                  "README block (FOLDER.md) into this existing folder");
  cmd->add_option("--binary", args.binary,
                  "How the printed commands name sonicsim (default: build/sonicsim)");
  cmd->add_option("--workers", args.workers,
                  "Simulations running at once, each in its own process (default: the cores)")
      ->check(whole_number(1, 4096));
  add_budgets(cmd);
  out.push_back({cmd, [] { return cmd_reproduce(args); }});
}

}  // namespace sonicsim::cli
