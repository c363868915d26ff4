// Fuzz target: a plan JSON handed to `sonicsim report`: the typed plan reader (detection by its
// top-level keys, then results_format/plan_reader.hpp) and every output of the report (text,
// Markdown, HTML with the plan's charts, the SVG files).
#include <sonicsim/report/report.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(plan_report) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string path = fuzz::scratch_file("plan.json", input);
  fuzz::expect_contract("plan_report", fuzz::Where::Anywhere, [&] {
    report::Inputs in;
    in.plans.push_back(report::read_plan(path));
    report::text_report(in, report::Format::Text);
    report::text_report(in, report::Format::Markdown);
    report::html_report(in);
    report::svg_files(in);
  });
  return 0;
}
