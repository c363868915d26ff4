// CSV as sonicsim reads and writes it: RFC 4180 quoting, one record per line. Sweep tables,
// compare tables, perf_analyzer exports and measurement files all go through here.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sonicsim::util {

// One line into its cells, as written (no trimming): double quotes protect commas and "" inside
// them is a literal quote. False when the line ends inside quotes (the cells are still filled).
bool split_csv_line(std::string_view line, std::vector<std::string>& cells);

// The cells of one line of a table a person wrote, each trimmed of `blanks`; a line that ends
// inside quotes keeps what it has.
std::vector<std::string> split_csv_trimmed(std::string_view line, std::string_view blanks);

// Where a cell is, for messages: "line 7, column 2 (`Client Send`)" (1-based line and column;
// column 0 and an empty name are left out).
std::string cell_place(std::size_t line, std::size_t column = 0, std::string_view name = {});

// The lines of a table a person wrote that carry data, each with its 1-based number as an editor
// shows it, trimmed of spaces, tabs and carriage returns: blank lines and lines starting with `#`
// are left out, and so is the UTF-8 byte-order mark spreadsheets put before the header.
std::vector<std::pair<int, std::string>> csv_data_lines(std::string_view text);

// One cell to write: as is, or between double quotes (inner quotes doubled) when it holds a
// comma, a quote or a line break.
std::string csv_field(std::string_view text);

}  // namespace sonicsim::util
