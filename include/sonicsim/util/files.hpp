// Reading a whole input file, with the reason in words when it cannot be read, so that the caller
// can put it into its own message (which names what the file was for).
#pragma once

#include <string>

namespace sonicsim {

// The bytes of `path`; on failure "" and `error` says why (strerror's wording).
std::string read_text(const std::string& path, std::string& error);

}  // namespace sonicsim
