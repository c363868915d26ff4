#include <sonicsim/scenario/overrides.hpp>

#include <algorithm>
#include <cstdlib>

#include <sonicsim/util/json_text.hpp>

#include "checker.hpp"

namespace sonicsim::scenario {
namespace {

using detail::describe;
using detail::index_path;
using detail::json;
using detail::key_path;

// `name[2][0]` (a key and array indices, as problem paths spell them) as {"name", "2", "0"}; an
// empty vector when `part` is not of that form.
std::vector<std::string> split_indices(const std::string& part) {
  const std::size_t open = part.find('[');
  if (open == 0 || open == std::string::npos || part.back() != ']') return {};
  std::vector<std::string> out{part.substr(0, open)};
  for (std::size_t i = open; i < part.size();) {
    const std::size_t close = part.find(']', i);
    if (part[i] != '[' || close == std::string::npos || close == i + 1) return {};
    const std::string index = part.substr(i + 1, close - i - 1);
    if (!std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return {};
    out.push_back(index);
    i = close + 1;
  }
  return out;
}

json override_value(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::out_of_range&) {
    // A literal like 1e400: keep it as the infinity it means, for validation to name.
    return json(std::strtod(text.c_str(), nullptr));
  } catch (const json::parse_error&) {
    return json(text);
  }
}

void apply_override(json& doc, const Override& o, std::vector<Problem>& problems,
                    std::vector<AppliedOverride>& applied) {
  const std::string text = o.path + "=" + o.value;
  const auto fail = [&](const std::string& why) {
    problems.push_back({o.path, "--set " + text + ": " + why});
  };
  if (auto deep = json_depth_problem(o.value)) {
    // Not the whole value in the message: it is the deep one, possibly many kB.
    problems.push_back({o.path, "--set " + o.path + "=" + o.value.substr(0, 20) +
                                    "...: the value's " + deep->message});
    return;
  }
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = o.path.find('.', start);
    parts.push_back(o.path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  json* node = &doc;
  std::string where;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool last = i + 1 == parts.size();
    if (part.empty()) return fail("empty component in the key path");
    // `servers[0]` as in the problem paths is `servers.0`, unless the object has that very key.
    if (node->is_object() && !node->contains(part)) {
      if (auto split = split_indices(part); !split.empty()) {
        parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(i));
        parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(i), split.begin(), split.end());
        --i;
        continue;
      }
    }
    if (node->is_object()) {
      const std::string next = key_path(where, part);
      if (last) {
        (*node)[part] = override_value(o.value);
        applied.push_back({next, text});
        return;
      }
      const auto it = node->find(part);
      if (it == node->end()) {
        std::vector<std::string> keys;
        for (const auto& item : node->items()) keys.push_back(item.key());
        const std::string hint = did_you_mean(part, keys);
        return fail("`" + next + "` does not exist in the scenario" +
                    (hint.empty() ? "" : "; " + hint) + " (set the whole object instead, e.g. " +
                    next + "={...})");
      }
      node = &*it;
      where = next;
    } else if (node->is_array()) {
      const bool numeric =
          std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!numeric || part.size() > 9) {
        const std::string array = where.empty() ? std::string("(document)") : where;
        return fail("`" + array + "` is an array, expected a numeric index instead of `" + part +
                    "`");
      }
      const std::size_t index = std::stoul(part);
      if (index >= node->size()) {
        return fail("index " + part + " is out of range: `" + where + "` has " +
                    std::to_string(node->size()) + (node->size() == 1 ? " element" : " elements"));
      }
      const std::string next = index_path(where, index);
      if (last) {
        (*node)[index] = override_value(o.value);
        applied.push_back({next, text});
        return;
      }
      node = &(*node)[index];
      where = next;
    } else {
      return fail("`" + where + "` is " + describe(*node) + ", it has no member `" + part + "`");
    }
  }
}

bool starts_path(const std::string& path, const std::string& prefix) {
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

}  // namespace

Override parse_override(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--set", {{"", "found \"" + text +
                                        "\", expected KEY.PATH=VALUE such as workload.jobs=400"}});
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<AppliedOverride> apply_overrides(json& doc, const std::vector<Override>& overrides,
                                             std::vector<Problem>& problems) {
  std::vector<AppliedOverride> applied;
  for (const Override& o : overrides) apply_override(doc, o, problems, applied);
  return applied;
}

void credit_overrides(std::vector<Problem>& problems, const std::vector<AppliedOverride>& applied) {
  for (Problem& p : problems) {
    // The most specific override that covers this path explains where the value came from.
    const AppliedOverride* source = nullptr;
    for (const AppliedOverride& a : applied)
      if (starts_path(p.path, a.path) && (!source || a.path.size() >= source->path.size()))
        source = &a;
    if (source) p.message += " (value from --set " + source->text + ")";
  }
}

}  // namespace sonicsim::scenario
