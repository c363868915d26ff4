// The sweep's two files, shared by running, resuming, merging and launching: the JSONL holds one
// line per run (its full results), the CSV one row per point computed from the point's runs.
// Lines are appended whole, with one write each, so an interrupted sweep leaves whole lines
// behind and --resume can trust every complete line.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <sonicsim/points/children.hpp>
#include <sonicsim/sweep/sweep.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::pipeline {

// False when the file cannot be read; InputError when it is larger than
// InputLimits::max_data_bytes.
bool read_text(const std::string& path, std::string& out);
// Lines without their newline; a last line without one (an interrupted append) is dropped.
std::vector<std::string> complete_lines(const std::string& text);

// Appends whole lines. Throws OutputError when the file cannot be opened, WriteError (a line
// left out whole) when a write fails.
class Appender {
 public:
  explicit Appender(const std::string& path);
  ~Appender();
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;
  void write(const std::string& line);

 private:
  std::string path_;
  int fd_ = -1;
};

// One replication's JSONL record, from what its child process returned.
sweep::Run run_of(const std::string& sweep_id, std::size_t point, std::size_t replication,
                  const std::vector<scenario::Override>& params, const points::ChildOutcome& o);

// A JSONL line read back for --resume or merge; `sweep_id` receives the line's. Throws
// scenario::InputError naming the file and line.
sweep::Run parse_run(const std::string& file, std::size_t line_no, const std::string& text,
                     std::string& sweep_id);

// Runs by point, then by replication: point order is the files' order.
using RunsByPoint = std::map<std::size_t, std::map<std::size_t, sweep::Run>>;

// The CSV row of a point from its replications.
sweep::TableRow row_of(const std::string& id, const sweep::Grid& grid, std::size_t point,
                       const std::map<std::size_t, sweep::Run>& runs);

// Whether a row's status cell says its simulations failed.
bool row_failed(const sweep::TableRow& row, const std::vector<std::string>& fixed);

}  // namespace sonicsim::pipeline
