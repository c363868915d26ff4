#include <sonicsim/util/json_text.hpp>

#include <algorithm>

namespace sonicsim {

std::string line_column(std::string_view text, std::size_t position, std::size_t first_line) {
  const std::size_t end = std::min(position, text.size());
  std::size_t line = first_line, column = 0;
  for (std::size_t i = 0; i < end; ++i) {
    // The offending character itself counts on its line even when it is a newline.
    if (text[i] == '\n' && i + 1 < end) {
      ++line;
      column = 0;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " +
         std::to_string(std::max<std::size_t>(column, 1));
}

std::optional<Problem> json_depth_problem(std::string_view text, std::size_t first_line,
                                          int limit) {
  long depth = 0, deepest = 0;
  std::size_t first_past = std::string_view::npos;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
      deepest = std::max(deepest, depth);
      if (depth > limit && first_past == std::string_view::npos) first_past = i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  if (first_past == std::string_view::npos) return std::nullopt;
  return Problem{"", line_column(text, first_past + 1, first_line) +
                         ": found arrays and objects nested " + std::to_string(deepest) +
                         " deep, expected at most " + std::to_string(limit) +
                         " (the limit for JSON input, docs/limits.md)"};
}

void check_json_depth(std::string_view text, const std::string& file, std::size_t first_line) {
  if (auto p = json_depth_problem(text, first_line)) throw InputError(file, {std::move(*p)});
}

}  // namespace sonicsim
