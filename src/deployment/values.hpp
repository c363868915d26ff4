// Helm values as a plain tree (private to src/deployment): what yaml-cpp read, with the file and
// line of every node, and Helm's way of layering files over the chart's defaults. yaml-cpp itself
// stays in values_yaml.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sonicsim/util/errors.hpp>

namespace sonicsim::deployment {

// Refused up front, before anything is built from a file: values files are a few kB with ten
// levels at most; a file past these is not what the user meant (or an alias bomb).
struct ValuesLimits {
  static constexpr std::size_t max_bytes = std::size_t{1} << 20;
  static constexpr int max_depth = 64;
  // Nodes after alias expansion: the chart's own values.yaml has about 500.
  static constexpr std::size_t max_nodes = 100000;
};

struct ValueNode {
  enum class Kind { null, scalar, list, map };
  Kind kind = Kind::null;
  std::string text;     // a scalar as written (quotes removed)
  bool quoted = false;  // "false" is a string to Helm's templates, false is a boolean
  std::vector<std::pair<std::string, ValueNode>> map;  // in file order
  std::vector<ValueNode> list;
  std::string file;  // where it was written: a values file, or the chart's defaults
  int line = 0, column = 0;

  // Defined in values.cpp, where ValueNode is complete: a vector of pairs holding the type being
  // defined may not be destroyed or copied inside its own definition (clang refuses it).
  ValueNode();
  ValueNode(const ValueNode&);
  ValueNode(ValueNode&&) noexcept;
  ValueNode& operator=(const ValueNode&);
  ValueNode& operator=(ValueNode&&) noexcept;
  ~ValueNode();

  bool is_map() const { return kind == Kind::map; }
  bool is_null() const { return kind == Kind::null; }
  const ValueNode* find(std::string_view key) const;
  ValueNode* find(std::string_view key);
  std::string where() const;  // "values.yaml:12"
};

// The file's tree (an empty file is an empty map). Throws InputError(path, ...) for a file that
// cannot be read or is over the size cap, malformed YAML (line, column), nesting deeper than
// max_depth, more than max_nodes nodes, duplicate keys, several documents, a top level that is
// not a map.
ValueNode read_values_file(const std::string& path);
// The same from text; `name` names it in messages and in every node's `file`.
ValueNode parse_values(const std::string& text, const std::string& name);

// Helm's coalesce of `over` onto `base` (both maps): maps merge key by key, anything else
// replaces, an explicit null deletes the key.
void coalesce(ValueNode& base, const ValueNode& over);

// "keda.scaleUp.periodSeconds" -> {"keda", "scaleUp", "periodSeconds"}: a dotted key as the
// chart's tables write one (no key of theirs holds a dot).
std::vector<std::string> split_key(std::string_view dotted);

// "triton.replicas", `triton.resources.limits."nvidia.com/gpu"`, "triton.args[0]": the key path
// as helm-docs writes it.
std::string join_key(const std::string& parent, std::string_view key);

}  // namespace sonicsim::deployment
