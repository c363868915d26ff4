// The types SuperSONIC's values.schema.json gives each key (private to src/deployment): Helm
// validates the merged values against it before it renders anything, and refuses the install
// for a value of another type ("Invalid type. Expected: integer, given: number").
#pragma once

#include <string>
#include <vector>

#include "values.hpp"

namespace sonicsim::deployment {

// A value whose type the chart's schema refuses: the key, where, what Helm would say.
struct SchemaProblem {
  std::string file;
  std::string key;
  std::string message;
};

// Checks every value of `file` (keys as written for `version`) against that release's schema,
// or against `schema_json` (a chart checkout's values.schema.json) when it is not empty.
std::vector<SchemaProblem> check_schema_types(const ValueNode& file, const std::string& version,
                                              const std::string& schema_json);

}  // namespace sonicsim::deployment
