// Loading a scenario file: JSON -> validated Scenario, with every problem reported at once.
//
// Errors name the file, the JSON path (e.g. `workload.requests[0].offload_fraction`), what was
// found and what is expected. Nothing here prints or exits: the CLI decides (exit code 2).
// src/scenario/loader.cpp holds the order in which the sections are read; each section has its
// own file there (load_workload.cpp, load_models.cpp, ...).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/scenario/overrides.hpp>
#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/scenario/triton_settings.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::scenario {

// How strictly to read. `strict_units` (--strict-units): a time, size or bandwidth other than 0
// written as a bare number (in SI base units) is a problem that names the unit to write;
// calibration files, which sonicsim writes in seconds, are exempt.
struct LoadOptions {
  bool strict_units = false;
};

// Reads the file, applies the overrides in order, validates. Relative paths inside the scenario
// (calibration files) are resolved against the scenario file's folder. A valid scenario carries
// its plausibility warnings (Scenario::warnings).
Scenario load_file(const std::string& path, const std::vector<Override>& overrides = {},
                   const LoadOptions& options = {});

// Same from a JSON document; `file` is only used to name the source in messages.
Scenario load_json(const nlohmann::json& doc, const std::string& file = "<inline>",
                   const std::string& base_dir = ".");

// Every problem of a file (for `sonicsim validate`); empty when the scenario is valid.
std::vector<Problem> validate_file(const std::string& path,
                                   const std::vector<Override>& overrides = {},
                                   const LoadOptions& options = {});

// A scenario as a command names it. The overrides stay as typed: a sweep on a batch system
// hands them on to its tasks word for word.
struct Source {
  std::string scenario_path;
  std::vector<std::string> sets;  // --set dotted.path=JSON
  long long seed = -1;            // --seed; < 0: the scenario's own
  bool strict_units = false;      // --strict-units (LoadOptions)
};
// The --set overrides, then the seed. Throws InputError on a --set without `=`.
std::vector<Override> overrides_of(const Source& source);
// With its plausibility warnings (Scenario::warnings), which the caller prints.
Scenario load(const Source& source);

// A warning as the commands print it on stderr: `FILE: PATH: warning: MESSAGE`.
std::string warning_line(const std::string& file, const Problem& warning);

}  // namespace sonicsim::scenario
