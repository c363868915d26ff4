#include <sonicsim/report/table.hpp>

#include <algorithm>

#include <sonicsim/report/chart.hpp>
#include <sonicsim/sweep/sweep.hpp>

namespace sonicsim::report {

namespace {

std::vector<std::vector<std::string>> all_rows(const Table& table) {
  std::vector<std::vector<std::string>> all{table.headers};
  all.insert(all.end(), table.rows.begin(), table.rows.end());
  return all;
}

}  // namespace

std::string to_text(const Table& table) {
  const auto all = all_rows(table);
  std::vector<std::size_t> width;
  for (const auto& cells : all) {
    width.resize(std::max(width.size(), cells.size()), 0);
    for (std::size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], cells[i].size());
  }
  std::string out;
  for (const auto& cells : all) {
    for (std::size_t i = 0; i < cells.size(); ++i)
      out += cells[i] + std::string(width[i] - cells[i].size() + 2, ' ');
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  return out;
}

namespace {

// A Markdown cell may not hold a bar (it would end the cell) or a line break (the row).
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string to_markdown(const Table& table) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    out += "|";
    for (const auto& c : cells) {
      out += ' ';
      out += markdown_cell(c);
      out += " |";
    }
    out += "\n";
  };
  line(table.headers);
  out += "|";
  for (std::size_t i = 0; i < table.headers.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : table.rows) line(r);
  return out;
}

std::string to_csv(const Table& table) {
  std::string out;
  for (const auto& cells : all_rows(table)) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) out += ',';
      out += sweep::csv_cell(cells[i]);
    }
    out += "\n";
  }
  return out;
}

std::string to_html(const Table& table) {
  std::string out = "<table>\n<thead><tr>";
  for (const auto& h : table.headers) out += "<th>" + chart::escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& r : table.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < r.size(); ++i)
      out += (i == 0 ? "<th>" : "<td>") + chart::escape(r[i]) + (i == 0 ? "</th>" : "</td>");
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace sonicsim::report
