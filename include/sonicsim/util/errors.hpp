// Bad input, reported the way every part of sonicsim reports it: all the problems found at once,
// each with where it is (a JSON path, a flag) and what was found against what is expected.
//
// Any layer may include this header to throw or catch without depending on the scenario loader,
// which is where these types were born. Nothing here prints or exits: the CLI decides (exit
// code 2).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sonicsim {

struct Problem {
  std::string path;     // JSON path, "" for the whole document
  std::string message;  // what was found and what is expected
};

// Thrown when input is bad; carries every problem found. `what()` gives them one per line as
// `FILE: PATH: MESSAGE`.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::vector<Problem> problems);
  const std::string& file() const { return file_; }
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::string file_;
  std::vector<Problem> problems_;
};

// An output file that cannot be written: the user's input (exit code 2), not a bug. The message
// names the path.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writing an output failed after the work was done (disk full, an I/O error, a closed pipe):
// not the user's input, so the CLI exits 1; the message names the path and the system's reason.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file sonicsim produced that its own reader refuses: a bug in sonicsim, not the user's input
// (exit 1). The message names the output and the reader's words; nothing was written.
class ReadBackError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "did you mean `x`?" for the candidate closest to a misspelt `word`, or "" when none is close:
// the hint a message gives for a key, a name or a choice that is almost right.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// The spelling these types had while they lived in the scenario loader.
namespace scenario {
using sonicsim::InputError;
using sonicsim::Problem;
}  // namespace scenario

}  // namespace sonicsim
