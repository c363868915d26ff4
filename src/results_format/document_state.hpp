// The state behind a document's views (reader.hpp, plan_reader.hpp): the JSON and what its
// readers found wrong in it. Private to the layer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/util/errors.hpp>

namespace sonicsim::results::detail {

// The document and what its readers found wrong in it. Views point here, so a Document can
// move without leaving them behind.
struct DocumentState {
  nlohmann::json owned;  // read from a file; empty for results in memory
  const nlohmann::json* root = nullptr;
  std::string file;
  mutable std::vector<Problem> problems;

  const nlohmann::json* find(const std::string& pointer) const {
    const nlohmann::json::json_pointer p(pointer);
    return root->contains(p) ? &root->at(p) : nullptr;
  }
  void problem(const std::string& pointer, std::string message) const {
    problems.push_back({pointer, std::move(message)});
  }
};

}  // namespace sonicsim::results::detail
