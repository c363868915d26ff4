// SHA-256 of bytes as lowercase hex: the identity of scenarios, calibrations and their inputs.
#pragma once

#include <string>

namespace sonicsim {

std::string sha256_hex(const std::string& data);

// Of a file's bytes; throws std::runtime_error when it cannot be read, InputError when it is
// larger than InputLimits::max_data_bytes.
std::string sha256_of_file(const std::string& path);

}  // namespace sonicsim
