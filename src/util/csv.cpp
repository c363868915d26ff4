#include <sonicsim/util/csv.hpp>

#include <sonicsim/util/text.hpp>

namespace sonicsim::util {

bool split_csv_line(std::string_view line, std::vector<std::string>& cells) {
  cells.clear();
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  cells.push_back(std::move(cur));
  return !quoted;
}

std::vector<std::string> split_csv_trimmed(std::string_view line, std::string_view blanks) {
  std::vector<std::string> cells;
  split_csv_line(line, cells);
  for (auto& c : cells) c = std::string(trim(c, blanks));
  return cells;
}

std::string cell_place(std::size_t line, std::size_t column, std::string_view name) {
  std::string s = "line " + std::to_string(line);
  if (column > 0) s += ", column " + std::to_string(column);
  if (!name.empty()) s += " (`" + std::string(name) + "`)";
  return s;
}

std::vector<std::pair<int, std::string>> csv_data_lines(std::string_view text) {
  std::vector<std::pair<int, std::string>> lines;
  std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  int number = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    const std::string_view line = trim(text.substr(start, end - start), " \t\r");
    if (!line.empty() && line[0] != '#') lines.emplace_back(number, std::string(line));
    start = end + 1;
  }
  return lines;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string q = "\"";
  for (char c : text) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

}  // namespace sonicsim::util
