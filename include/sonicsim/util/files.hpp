// Files in and out. Reading a whole input file gives the reason in words when it cannot be read,
// so that the caller can put it into its own message (which names what the file was for), and
// refuses a file larger than a cap no real input reaches (`run /dev/zero` ends at once).
// Writing is checked before a long run and atomic after it: a reader never sees half a file.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sonicsim/util/errors.hpp>

namespace sonicsim {

// What an input may hold before it is refused as not what the user meant (docs/limits.md). The
// caps sit far above any real input and far below what would exhaust memory; scenario::Limits
// holds them with the scenario's own limits.
struct InputLimits {
  // A scenario, a config.pbtxt, a calibration file, a perf_analyzer or measurements CSV, a --set
  // value: the largest shipped is under 100 kB.
  static constexpr std::size_t max_input_bytes = std::size_t{16} << 20;
  // What sonicsim wrote itself and reads back (results JSON, sweep CSV and JSONL for report,
  // merge and resume): a long sweep's JSONL reaches some hundred MB.
  static constexpr std::size_t max_data_bytes = std::size_t{1} << 30;
  // Arrays and objects nested in one another in a JSON text: scenarios need fewer than 10,
  // results fewer than 8. Every nesting level costs the readers memory (the loader names the
  // path of each level), so a deep file of a few kB could exhaust the machine.
  static constexpr int max_json_depth = 64;
};

// The one open every input file goes through: a descriptor of `path`, opened for reading, when it
// is a regular file. Anything else (a FIFO, a socket, a device, a folder) throws InputError
// naming the file and what it is ("found a FIFO (named pipe), expected a regular file"), and is
// never opened for long: the open does not block (a FIFO with no writer would wait forever) and
// a device's own open (a tape, a watchdog) is not attempted. -1 with `error` set (strerror's
// wording) when it cannot be opened at all (missing, no permission).
int open_regular_file(const std::string& path, std::string& error);

// The bytes of `path`, opened by open_regular_file; on failure "" and `error` says why. A file of
// more than `cap` bytes throws InputError naming the file, its size and the cap; at most cap + 1
// bytes are read, so a file that grows while it is read is refused too.
std::string read_text(const std::string& path, std::string& error,
                      std::size_t cap = InputLimits::max_input_bytes);

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

// Reads a file sonicsim is about to write back through sonicsim's own reader for it, and throws
// what that reader throws when it refuses the file. `staged` holds the content (a temporary file
// beside `target`, so that relative paths inside resolve as they will); `target` is where it goes.
using ReadBack = std::function<void(const std::string& staged, const std::string& target)>;

// One output of a command; `read_back`, when set, must accept the content before it is written.
struct Output {
  Output(std::string path, std::string content, ReadBack read_back = {})
      : path(std::move(path)), content(std::move(content)), read_back(std::move(read_back)) {}
  std::string path, content;
  ReadBack read_back;
};

// The outputs of one command, all or none, each written as write_atomically does; when one fails,
// none of the regular files appears. Each output's read-back runs on its staged copy before
// anything is renamed into place (a device target is checked through a copy in the system's
// temporary folder): a refusal throws ReadBackError naming the target and the reader's message,
// and nothing is written. Throws WriteError.
void write_all_or_none(const std::vector<Output>& files);

// Runs `read_back` on a copy of `content` in the system's temporary folder, for what goes where
// no file can be read back (standard output, a device); `name` is what the messages call it.
// Throws ReadBackError as write_all_or_none does.
void read_back_copy(const std::string& name, const std::string& content, const ReadBack& read_back);

// Flushes and closes standard output, checking both (`--json > /dev/full`, a closed pipe):
// what a command printed must have reached its destination before it says success. Throws
// WriteError.
void close_standard_output();

}  // namespace sonicsim
