// Reading a values file with yaml-cpp (private to this folder) into a ValueNode tree. yaml-cpp
// keeps an alias as one shared node, so the tree is built by a walk that counts every node it
// visits, expansions included: a billion-laughs file stops at ValuesLimits::max_nodes.
#include <algorithm>
#include <cstdio>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <sonicsim/util/files.hpp>

#include "values.hpp"

namespace sonicsim::deployment {
namespace {

std::string at(const YAML::Mark& mark) {
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
}

// Where the first byte that is not well-formed UTF-8 is (std::string::npos: none). YAML is
// UTF-8, and every key and value ends in JSON, which refuses anything else.
std::size_t first_non_utf8(const std::string& text) {
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = b[i];
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range (overlongs, surrogates out)
    if (c < 0x80)
      len = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      len = 2;
    else if (c == 0xE0)
      len = 3, lo = 0xA0;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
      len = 3;
    else if (c == 0xED)
      len = 3, hi = 0x9F;
    else if (c == 0xF0)
      len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3)
      len = 4;
    else if (c == 0xF4)
      len = 4, hi = 0x8F;
    else
      return i;
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const unsigned char lo_k = k == 1 ? lo : 0x80, hi_k = k == 1 ? hi : 0xBF;
      if (b[i + k] < lo_k || b[i + k] > hi_k) return i;
    }
    i += len;
  }
  return std::string::npos;
}

class Builder {
 public:
  explicit Builder(std::string name) : name_(std::move(name)) {}

  ValueNode build(const YAML::Node& node, const std::string& path, int depth) {
    if (++nodes_ > ValuesLimits::max_nodes)
      fail(path, at(node.Mark()) + ": found more than " + std::to_string(ValuesLimits::max_nodes) +
                     " values (aliases count once per use), expected a values file of at most "
                     "that many: refused before it could exhaust memory");
    if (depth > ValuesLimits::max_depth)
      fail(path, at(node.Mark()) + ": found maps and lists nested deeper than " +
                     std::to_string(ValuesLimits::max_depth) + ", expected at most that many");
    ValueNode out;
    out.file = name_;
    out.line = node.Mark().line + 1;
    out.column = node.Mark().column + 1;
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.kind = ValueNode::Kind::null;
        break;
      case YAML::NodeType::Scalar:
        out.kind = ValueNode::Kind::scalar;
        out.text = node.Scalar();
        out.quoted = node.Tag() == "!";  // yaml-cpp's tag of a quoted (non-plain) scalar
        break;
      case YAML::NodeType::Sequence:
        out.kind = ValueNode::Kind::list;
        for (std::size_t i = 0; i < node.size(); ++i)
          out.list.push_back(build(node[i], path + "[" + std::to_string(i) + "]", depth + 1));
        break;
      case YAML::NodeType::Map:
        out.kind = ValueNode::Kind::map;
        for (auto it = node.begin(); it != node.end(); ++it) {
          if (!it->first.IsScalar())
            fail(path, at(it->first.Mark()) + ": found a map or list as a key, expected a name");
          const std::string key = it->first.Scalar();
          const std::string child_path = join_key(path, key);
          ValueNode child = build(it->second, child_path, depth + 1);
          if (key == "<<" && (child.is_map() || child.kind == ValueNode::Kind::list)) {
            merge_keys_.push_back({&out, std::move(child)});
            continue;
          }
          if (const ValueNode* twin = out.find(key))
            fail(child_path, at(it->first.Mark()) +
                                 ": found the key a second time (first at line " +
                                 std::to_string(twin->line) + "), expected each key once");
          out.map.emplace_back(key, std::move(child));
        }
        apply_merge_keys(out);
        break;
    }
    return out;
  }

 private:
  // YAML's merge key (`<<: *defaults`), which Helm's parser honours and yaml-cpp does not: the
  // merged map's keys that the map does not set itself.
  void apply_merge_keys(ValueNode& map) {
    for (auto& [target, merged] : merge_keys_) {
      if (target != &map) continue;
      std::vector<const ValueNode*> sources;
      if (merged.is_map()) sources.push_back(&merged);
      for (const auto& item : merged.list)
        if (item.is_map()) sources.push_back(&item);
      for (const ValueNode* source : sources)
        for (const auto& [key, value] : source->map)
          if (!map.find(key)) map.map.emplace_back(key, value);
    }
    std::erase_if(merge_keys_, [&](const auto& m) { return m.first == &map; });
  }

  [[noreturn]] void fail(const std::string& path, const std::string& message) {
    throw InputError(name_, {{path, message}});
  }

  std::string name_;
  std::size_t nodes_ = 0;
  std::vector<std::pair<const ValueNode*, ValueNode>> merge_keys_;
};

}  // namespace

ValueNode parse_values(const std::string& text, const std::string& name) {
  if (const std::size_t bad = first_non_utf8(text); bad != std::string::npos) {
    const std::size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
    const std::size_t line =
        1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + bad, '\n'));
    const std::size_t column =
        line_start == std::string::npos || bad == 0 ? bad + 1 : bad - line_start;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw InputError(name, {{"", "line " + std::to_string(line) + ", column " +
                                     std::to_string(column) + ": found the byte " + byte +
                                     ", which is not UTF-8, expected UTF-8 text (YAML is UTF-8)"}});
  }
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(
        name, {{"", at(e.mark) + ": found maps and lists nested deeper than " +
                        std::to_string(ValuesLimits::max_depth) + ", expected at most that many"}});
  } catch (const YAML::Exception& e) {
    throw InputError(name, {{"", at(e.mark) + ": malformed YAML: " + e.msg}});
  }
  std::vector<YAML::Node> present;
  for (const auto& d : documents)
    if (!d.IsNull()) present.push_back(d);
  if (present.size() > 1)
    throw InputError(name,
                     {{"", at(present[1].Mark()) +
                               ": found a second YAML document, expected one map of values"}});
  if (present.empty()) {
    ValueNode empty;
    empty.kind = ValueNode::Kind::map;
    empty.file = name;
    return empty;
  }
  if (!present[0].IsMap())
    throw InputError(name, {{"", at(present[0].Mark()) + ": found a " +
                                     (present[0].IsSequence() ? "list" : "single value") +
                                     " at the top level, expected a map of values (key: value)"}});
  try {
    return Builder(name).build(present[0], "", 0);
  } catch (const YAML::Exception& e) {
    throw InputError(name, {{"", at(e.mark) + ": malformed YAML: " + e.msg}});
  }
}

ValueNode read_values_file(const std::string& path) {
  std::string error;
  const std::string text = read_text(path, error, ValuesLimits::max_bytes);
  if (!error.empty()) throw InputError(path, {{"", "cannot read the values file: " + error}});
  return parse_values(text, path);
}

}  // namespace sonicsim::deployment
