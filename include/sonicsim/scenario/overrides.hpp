// `--set key.path=value`: changing one value of a scenario from the command line, as sweeps, plans
// and scans do for every point, without writing a file.
//
// Overrides apply to the JSON document before it is validated, so an overridden value is checked
// exactly as one written in the file; a problem in such a value says which --set gave it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/util/errors.hpp>

namespace sonicsim::scenario {

// One `--set key.path=value` override; value is JSON (a bare word is taken as a string).
struct Override {
  std::string path;
  std::string value;
};
Override parse_override(const std::string& text);  // throws InputError on `key` without `=`

// Where an applied override wrote, spelled as problem paths are ("servers[0].count"), and its
// text as given.
struct AppliedOverride {
  std::string path;
  std::string text;
};

// Applies the overrides to `doc` in order. One whose path does not lead into the document adds a
// problem (under its own path) and changes nothing.
std::vector<AppliedOverride> apply_overrides(nlohmann::json& doc,
                                             const std::vector<Override>& overrides,
                                             std::vector<Problem>& problems);

// Appends " (value from --set ...)" to each problem inside a value an override wrote, naming the
// most specific such override.
void credit_overrides(std::vector<Problem>& problems, const std::vector<AppliedOverride>& applied);

}  // namespace sonicsim::scenario
