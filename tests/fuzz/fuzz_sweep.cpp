// Fuzz target: a sweep's two files as `report` and `sweep --merge` / `--resume` read them: the
// CSV table and, after a line `--- jsonl`, the JSONL beside it (one run per line).
#include <string>
#include <vector>

#include <sonicsim/report/report.hpp>

#include "sweep_records.hpp"

#include "support.hpp"

SONICSIM_FUZZ_TARGET(sweep) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto [csv, jsonl] = fuzz::split_at_marker(input, "--- jsonl");
  const std::string path = fuzz::scratch_file("sweep.csv", csv);
  const std::string jsonl_path = fuzz::scratch_file("sweep.jsonl", jsonl);
  fuzz::expect_contract("sweep", fuzz::Where::Anywhere, [&] {
    const report::Inputs in = report::read_inputs({path});
    report::text_report(in, report::Format::Markdown);
    report::html_report(in);
    report::csv_tables(in);
  });
  const std::vector<std::string> lines = pipeline::complete_lines(std::string(jsonl));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    fuzz::expect_contract("sweep", fuzz::Where::Located, [&] {
      std::string sweep_id;
      pipeline::parse_run(jsonl_path, i + 1, lines[i], sweep_id);
    });
  }
  return 0;
}
