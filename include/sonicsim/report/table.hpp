// A table of text cells (the report's figures by run or by sweep) and its renderings: aligned
// plain text, Markdown, CSV and an HTML <table>. One row per figure, one column per input.
#pragma once

#include <string>
#include <vector>

namespace sonicsim::report {

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;  // each as many cells as headers
  // Appends a row: `name` then one cell per column from `cell(column_index)`.
  template <class Cell>
  void add(const std::string& name, std::size_t columns, Cell cell) {
    std::vector<std::string> r{name};
    for (std::size_t i = 0; i < columns; ++i) r.push_back(cell(i));
    rows.push_back(std::move(r));
  }
};

std::string to_text(const Table& table);      // columns padded to their widest cell
std::string to_markdown(const Table& table);  // a GitHub-flavoured pipe table
std::string to_csv(const Table& table);       // RFC 4180, as the sweep CSV quotes its cells
std::string to_html(const Table& table);      // escaped, first column as row headers

}  // namespace sonicsim::report
