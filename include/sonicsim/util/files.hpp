// Files in and out. Reading a whole input file gives the reason in words when it cannot be read,
// so that the caller can put it into its own message (which names what the file was for).
// Writing is checked before a long run and atomic after it: a reader never sees half a file.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sonicsim/util/errors.hpp>

namespace sonicsim {

// The bytes of `path`; on failure "" and `error` says why (strerror's wording).
std::string read_text(const std::string& path, std::string& error);

// Every byte of `data` to the open file `fd`, through short writes and interrupted calls; false
// with errno set when a write fails (n bytes may have gone before it).
bool write_fully(int fd, std::string_view data);

// Fails fast, before a long simulation, when `path` could not be written (missing folder, no
// permission, a folder). Throws OutputError.
void check_writable(const std::string& path);

// Refuses two outputs of one command that name the same file (say `--prometheus` and `-o`), which
// would silently overwrite one with the other. (flag, path) pairs; empty paths and "-" are
// skipped. Throws OutputError.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

// Writes through a temporary file in the same folder and renames it, so a reader never sees a
// half-written file and a failed write leaves no file behind. A target that is a device or a pipe
// (/dev/null, /dev/stdout) is written in place, never replaced. Every write, sync and close is
// checked: a failure throws WriteError naming the path and the system's reason.
void write_atomically(const std::string& path, const std::string& content);

// The outputs of one command, all or none: (path, content) pairs, each written as
// write_atomically does; when one fails, none of the regular files appears. Throws WriteError.
void write_all_or_none(const std::vector<std::pair<std::string, std::string>>& files);

// Flushes and closes standard output, checking both (`--json > /dev/full`, a closed pipe):
// what a command printed must have reached its destination before it says success. Throws
// WriteError.
void close_standard_output();

}  // namespace sonicsim
