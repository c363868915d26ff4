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

// Reads the file, applies the overrides in order, validates. Relative paths inside the scenario
// (calibration files) are resolved against the scenario file's folder.
Scenario load_file(const std::string& path, const std::vector<Override>& overrides = {});

// Same from a JSON document; `file` is only used to name the source in messages.
Scenario load_json(const nlohmann::json& doc, const std::string& file = "<inline>",
                   const std::string& base_dir = ".");

// Every problem of a file (for `sonicsim validate`); empty when the scenario is valid.
std::vector<Problem> validate_file(const std::string& path,
                                   const std::vector<Override>& overrides = {});

}  // namespace sonicsim::scenario
