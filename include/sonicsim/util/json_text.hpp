// JSON text checked before a parser builds a tree from it. Nesting costs the readers memory per
// level (the scenario loader keeps the path of every open level), so a few kB of `[[[[...`
// could exhaust the machine: every reader of JSON (scenarios, calibration files, --set values,
// results, sweep JSONL lines) refuses text nested deeper than InputLimits::max_json_depth, in
// one linear scan that allocates nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>

namespace sonicsim {

// "line 3, column 7" of the character at byte `position` (1-based, as nlohmann counts); lines
// are counted from `first_line` (a line of a JSONL file).
std::string line_column(std::string_view text, std::size_t position, std::size_t first_line = 1);

// The problem ("line L, column C: found arrays and objects nested N deep, expected at most
// LIMIT") when `text` nests deeper than `limit`, pointing at the first bracket past the limit;
// nullopt otherwise. Brackets inside strings do not count.
std::optional<Problem> json_depth_problem(std::string_view text, std::size_t first_line = 1,
                                          int limit = InputLimits::max_json_depth);

// Throws InputError(file, ...) with json_depth_problem's message.
void check_json_depth(std::string_view text, const std::string& file, std::size_t first_line = 1);

// The two ways a reader turns text into a tree; both check the nesting first, so no reader can
// build a tree from text it should have refused. (The scenario loader and `--set` use
// json_depth_problem directly: they collect the problem among others instead of throwing.)
//
// A file's JSON: nullopt when the text is not JSON (the caller words what it expected); text
// nested too deep throws InputError(file, ...) at the line and column of the first bracket past
// the limit.
template <class Json = nlohmann::json>
std::optional<Json> parse_json(std::string_view text, const std::string& file,
                               std::size_t first_line = 1) {
  check_json_depth(text, file, first_line);
  Json value = Json::parse(text, nullptr, false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

// A value that may be JSON or a plain word (a flag such as `20ms`, a sweep cell, an optional
// section of a file): nullopt when it is not JSON or nests too deep, and the caller keeps the
// text as it is.
template <class Json = nlohmann::json>
std::optional<Json> parse_json_value(std::string_view text) {
  if (json_depth_problem(text)) return std::nullopt;
  Json value = Json::parse(text, nullptr, false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

}  // namespace sonicsim
