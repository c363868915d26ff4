// The values tree's plain operations: lookups, key paths and Helm's coalesce.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "values.hpp"

namespace sonicsim::deployment {

ValueNode::ValueNode() = default;
ValueNode::ValueNode(const ValueNode&) = default;
ValueNode::ValueNode(ValueNode&&) noexcept = default;
ValueNode& ValueNode::operator=(const ValueNode&) = default;
ValueNode& ValueNode::operator=(ValueNode&&) noexcept = default;
ValueNode::~ValueNode() = default;

const ValueNode* ValueNode::find(std::string_view key) const {
  for (const auto& [k, v] : map)
    if (k == key) return &v;
  return nullptr;
}

ValueNode* ValueNode::find(std::string_view key) {
  for (auto& [k, v] : map)
    if (k == key) return &v;
  return nullptr;
}

std::string ValueNode::where() const {
  // The chart's defaults are text of sonicsim's own: their lines would point nowhere.
  return line > 0 && file.rfind("chart ", 0) != 0 ? file + ":" + std::to_string(line) : file;
}

std::string join_key(const std::string& parent, std::string_view key) {
  const bool plain = !key.empty() && key.find_first_of(". \"[]") == std::string_view::npos;
  const std::string part = plain ? std::string(key) : "\"" + std::string(key) + "\"";
  return parent.empty() ? part : parent + "." + part;
}

namespace {

// A subtree copied in whole loses its nulls too: Helm never renders a deleted key.
ValueNode without_nulls(const ValueNode& node) {
  ValueNode out = node;
  if (out.is_map()) {
    out.map.clear();
    for (const auto& [k, v] : node.map)
      if (!v.is_null()) out.map.emplace_back(k, without_nulls(v));
  }
  return out;
}

}  // namespace

void coalesce(ValueNode& base, const ValueNode& over) {
  // Indices, not a find per key: a file of many keys merges in linear time.
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < base.map.size(); ++i) index.emplace(base.map[i].first, i);
  std::unordered_set<std::string> deleted;
  for (const auto& [key, value] : over.map) {
    const auto it = index.find(key);
    if (value.is_null()) {
      if (it != index.end()) deleted.insert(key);
      continue;
    }
    ValueNode* existing = it == index.end() ? nullptr : &base.map[it->second].second;
    if (existing && existing->is_map() && value.is_map()) {
      // The map is now (also) the file's: a report names where the user wrote it.
      existing->file = value.file;
      existing->line = value.line;
      existing->column = value.column;
      coalesce(*existing, value);
    } else if (existing)
      *existing = without_nulls(value);
    else {
      index.emplace(key, base.map.size());
      base.map.emplace_back(key, without_nulls(value));
    }
  }
  if (!deleted.empty())
    std::erase_if(base.map, [&](const auto& kv) { return deleted.count(kv.first) > 0; });
}

std::vector<std::string> split_key(std::string_view dotted) {
  std::vector<std::string> out(1);
  for (char c : dotted) {
    if (c == '.')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

}  // namespace sonicsim::deployment
