// Reading a calibration file's chosen service-time curve for a "from": "calibration" input.
// Private to src/uncertainty.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/uncertainty/inputs.hpp>

namespace sonicsim::uncertainty {

// `value` is what the scenario holds at `path`: a curve reference {"calibration": FILE}. Problems
// go under `at` (the input's `path` key), naming the file and the key inside it.
std::optional<CalibratedCurve> read_curve_reference(const nlohmann::json& value,
                                                    const std::string& path,
                                                    const std::string& base_dir,
                                                    const std::string& at,
                                                    std::vector<Problem>& problems);

}  // namespace sonicsim::uncertainty
