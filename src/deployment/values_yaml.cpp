// Reading a values file with yaml-cpp (private to this folder) into a ValueNode tree. yaml-cpp
// keeps an alias as one shared node, so the tree is built by a walk that counts every node it
// visits, expansions included: a billion-laughs file stops at ValuesLimits::max_nodes.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sonicsim/util/files.hpp>
#include <sonicsim/util/json_text.hpp>

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

// A first pass over the stream's documents with yaml-cpp's event parser, before LoadAll builds
// them. On a stray comma (`,` alone), yaml-cpp 0.7 (Debian 12) hands out null documents forever
// without reading on (fixed upstream after 0.8.0 by jbeder/yaml-cpp#1319): LoadAll would collect
// them until memory runs out. Here a document that starts where the one before it started is that
// loop, refused as malformed. The pass also finds a second document with content, which sonicsim
// refuses anyway, without building either.
class DocumentScout : public YAML::EventHandler {
 public:
  struct Document {
    YAML::Mark start, root;
    bool empty = true;
  };

  void OnDocumentStart(const YAML::Mark& mark) override {
    current_ = Document{mark, mark, true};
    at_root_ = true;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { root_event(mark, false); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { root_event(mark, true); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    root_event(mark, true);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    root_event(mark, true);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    root_event(mark, true);
  }
  void OnMapEnd() override {}

  const Document& current() const { return current_; }

 private:
  void root_event(const YAML::Mark& mark, bool content) {
    if (!at_root_) return;
    at_root_ = false;
    current_.root = mark;
    current_.empty = !content;
  }

  Document current_;
  bool at_root_ = false;
};

// Throws InputError for a stream LoadAll cannot finish or that holds a second document with
// content; otherwise LoadAll reads the same events again, and ends.
void scout_documents(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentScout scout;
  bool had_content = false;
  int previous_start = -1;
  while (parser.HandleNextDocument(scout)) {
    const auto& doc = scout.current();
    if (doc.start.pos <= previous_start)
      throw InputError(
          name, {{"", at(doc.start) + ": malformed YAML: the parser reads no further here (a "
                                      "stray `,` outside a list or map?)"}});
    previous_start = doc.start.pos;
    if (doc.empty) continue;
    if (had_content)
      throw InputError(name,
                       {{"", at(doc.root) + ": found a second YAML document, expected one map of "
                                            "values"}});
    had_content = true;
  }
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
        out.text = utf8(node.Scalar(), path, node.Mark());
        out.quoted = node.Tag() == "!";  // yaml-cpp's tag of a quoted (non-plain) scalar
        break;
      case YAML::NodeType::Sequence:
        out.kind = ValueNode::Kind::list;
        for (std::size_t i = 0; i < node.size(); ++i)
          out.list.push_back(build(node[i], path + "[" + std::to_string(i) + "]", depth + 1));
        break;
      case YAML::NodeType::Map:
        out.kind = ValueNode::Kind::map;
        // Each key's line, for the duplicate check: a map of many keys stays linear.
        std::unordered_map<std::string, int> lines;
        for (auto it = node.begin(); it != node.end(); ++it) {
          if (!it->first.IsScalar())
            fail(path, at(it->first.Mark()) + ": found a map or list as a key, expected a name");
          const std::string key = utf8(it->first.Scalar(), path, it->first.Mark());
          const std::string child_path = join_key(path, key);
          ValueNode child = build(it->second, child_path, depth + 1);
          if (key == "<<" && (child.is_map() || child.kind == ValueNode::Kind::list)) {
            merge_keys_.push_back({&out, std::move(child)});
            continue;
          }
          if (const auto [twin, fresh] = lines.emplace(key, child.line); !fresh)
            fail(child_path, at(it->first.Mark()) +
                                 ": found the key a second time (first at line " +
                                 std::to_string(twin->second) + "), expected each key once");
          out.map.emplace_back(key, std::move(child));
        }
        apply_merge_keys(out, lines);
        break;
    }
    return out;
  }

 private:
  // Every name and value ends in JSON, which takes UTF-8 only: the file was checked before
  // yaml-cpp read it, and this checks what yaml-cpp made of it (escapes decoded).
  const std::string& utf8(const std::string& text, const std::string& path,
                          const YAML::Mark& mark) {
    if (first_non_utf8(text) != std::string::npos)
      fail(path, at(mark) + ": found a name or value that is not UTF-8 once read, expected text");
    return text;
  }

  // YAML's merge key (`<<: *defaults`), which Helm's parser honours and yaml-cpp does not: the
  // merged map's keys that the map does not set itself.
  void apply_merge_keys(ValueNode& map, std::unordered_map<std::string, int>& lines) {
    for (auto& [target, merged] : merge_keys_) {
      if (target != &map) continue;
      std::vector<const ValueNode*> sources;
      if (merged.is_map()) sources.push_back(&merged);
      for (const auto& item : merged.list)
        if (item.is_map()) sources.push_back(&item);
      for (const ValueNode* source : sources)
        for (const auto& [key, value] : source->map)
          if (lines.emplace(key, value.line).second) map.map.emplace_back(key, value);
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

// Where the first control character other than tab, line feed and carriage return is (npos:
// none). YAML allows none in a file, and from a NUL byte yaml-cpp 0.7 made a key that is not
// UTF-8 (found by fuzzing).
std::size_t first_control(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return i;
  }
  return std::string::npos;
}

// Line ends as Helm reads them. Helm's YAML (go-yaml, through sigs.k8s.io/yaml) breaks lines at
// CR LF, LF, a lone CR, NEL, LS and PS (go-yaml v3 yamlprivateh.go:124-130 `is_break`,
// scannerc.go:568-589 `read_line`; v2 the same at yamlprivateh.go:102-108); yaml-cpp 0.7 at CR LF
// and LF only, so a file saved with old Mac line ends (CR alone) became one long key. A lone CR
// is turned into LF, which keeps every line and column where Helm puts them; NEL, LS and PS,
// which no editor writes as line ends, are refused rather than read differently from Helm.
std::string helm_line_ends(const std::string& text, const std::string& name) {
  std::string out = text;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto c = static_cast<unsigned char>(out[i]);
    if (c == '\r' && (i + 1 == out.size() || out[i + 1] != '\n')) out[i] = '\n';
    const bool nel =
        c == 0xC2 && i + 1 < out.size() && static_cast<unsigned char>(out[i + 1]) == 0x85;
    const bool ls_ps = c == 0xE2 && i + 2 < out.size() &&
                       static_cast<unsigned char>(out[i + 1]) == 0x80 &&
                       (static_cast<unsigned char>(out[i + 2]) == 0xA8 ||
                        static_cast<unsigned char>(out[i + 2]) == 0xA9);
    if (nel || ls_ps)
      throw InputError(
          name, {{"", line_column(out, i + 1) + ": found " +
                          (nel                    ? std::string("U+0085 (NEL)")
                           : out[i + 2] == '\xA8' ? std::string("U+2028 (line separator)")
                                                  : std::string("U+2029 (paragraph separator)")) +
                          ", which Helm reads as a line end and yaml-cpp does not, expected line "
                          "ends of LF, CR LF or CR"}});
  }
  return out;
}

ValueNode parse_values(const std::string& given, const std::string& name) {
  const std::size_t non_utf8 = first_non_utf8(given);
  const std::size_t control = first_control(given);
  if (const std::size_t bad = std::min(non_utf8, control); bad != std::string::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(given[bad]));
    throw InputError(
        name, {{"", line_column(helm_line_ends(given, name), bad + 1) + ": found the byte " + byte +
                        (bad == control ? ", a control character, expected text "
                                          "(YAML allows tabs and line ends only)"
                                        : ", which is not UTF-8, expected UTF-8 "
                                          "text (YAML is UTF-8)")}});
  }
  const std::string text = helm_line_ends(given, name);
  std::vector<YAML::Node> documents;
  try {
    scout_documents(text, name);
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(
        name, {{"", at(e.mark) + ": found maps and lists nested deeper than " +
                        std::to_string(ValuesLimits::max_depth) + ", expected at most that many"}});
  } catch (const YAML::Exception& e) {
    throw InputError(name, {{"", at(e.mark) + ": malformed YAML: " + e.msg}});
  }
  // The one document with content (scout_documents refused a second).
  const auto root = std::find_if(documents.begin(), documents.end(),
                                 [](const YAML::Node& d) { return !d.IsNull(); });
  if (root == documents.end()) {
    ValueNode empty;
    empty.kind = ValueNode::Kind::map;
    empty.file = name;
    return empty;
  }
  if (!root->IsMap())
    throw InputError(name, {{"", at(root->Mark()) + ": found a " +
                                     (root->IsSequence() ? "list" : "single value") +
                                     " at the top level, expected a map of values (key: value)"}});
  try {
    return Builder(name).build(*root, "", 0);
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
