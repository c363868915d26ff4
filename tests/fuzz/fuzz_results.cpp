// Fuzz target: a results JSON handed to `sonicsim report`: the typed reader and every output of
// the report (text, Markdown, HTML, CSV tables).
#include <sonicsim/report/report.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(results) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string path = fuzz::scratch_file("results.json", input);
  fuzz::expect_contract("results", fuzz::Where::Anywhere, [&] {
    const report::Inputs in = report::read_inputs({path, path});
    report::text_report(in, report::Format::Text);
    report::text_report(in, report::Format::Markdown);
    report::html_report(in);
    report::csv_tables(in);
  });
  return 0;
}
