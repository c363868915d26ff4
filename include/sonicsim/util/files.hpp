// Files in and out. Reading a whole input file gives the reason in words when it cannot be read,
// so that the caller can put it into its own message (which names what the file was for).
// Writing is checked before a long run and atomic after it: a reader never sees half a file.
#pragma once

#include <string>

#include <sonicsim/util/errors.hpp>

namespace sonicsim {

// The bytes of `path`; on failure "" and `error` says why (strerror's wording).
std::string read_text(const std::string& path, std::string& error);

// Fails fast, before a long simulation, when `path` could not be written (missing folder, no
// permission). Throws OutputError.
void check_writable(const std::string& path);

// Writes through a temporary file in the same folder and renames it, so a reader never sees a
// half-written file and a failed run leaves no file behind. Throws OutputError.
void write_atomically(const std::string& path, const std::string& content);

}  // namespace sonicsim
