#include "sweep_records.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sonicsim/pipeline/sweep.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/json_text.hpp>

namespace sonicsim::pipeline {

using nlohmann::ordered_json;

std::string jsonl_path_of(const std::string& csv) {
  const std::string ext = ".csv";
  if (csv.size() > ext.size() && csv.compare(csv.size() - ext.size(), ext.size(), ext) == 0)
    return csv.substr(0, csv.size() - ext.size()) + ".jsonl";
  return csv + ".jsonl";
}

std::string SweepRequest::jsonl_path() const {
  return jsonl.empty() ? jsonl_path_of(output) : jsonl;
}

bool read_text(const std::string& path, std::string& out) {
  std::string error;
  out = sonicsim::read_text(path, error, InputLimits::max_data_bytes);
  return error.empty();
}

std::vector<std::string> complete_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) break;
    if (nl > start) lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

Appender::Appender(const std::string& path) : path_(path) {
  // O_NONBLOCK: a JSONL that is a FIFO no process reads would hold the open forever (ENXIO
  // instead); the appends then block as usual.
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == ENXIO)
    throw OutputError(path + ": cannot append: no process reads from this FIFO");
  if (fd_ < 0) throw OutputError(path + ": cannot append: " + std::strerror(errno));
  if (const int flags = ::fcntl(fd_, F_GETFL); flags >= 0)
    ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

Appender::~Appender() {
  if (fd_ >= 0) ::close(fd_);
}

void Appender::write(const std::string& line) {
  // A record is whole or absent: on a full disk the part written is cut off again, so that the
  // file stays a list of complete lines that --resume can read.
  const off_t before = ::lseek(fd_, 0, SEEK_END);
  if (write_fully(fd_, line)) return;
  const int err = errno;
  if (before >= 0) {
    // Should the cut fail too, --resume still skips a last line without its newline.
    [[maybe_unused]] const int cut = ::ftruncate(fd_, before);
  }
  throw WriteError(path_ + ": write failed: " + std::strerror(err));
}

sweep::Run run_of(const std::string& sweep_id, std::size_t point, std::size_t replication,
                  const std::vector<scenario::Override>& params, const points::ChildOutcome& o) {
  sweep::Run run;
  run.point = point;
  run.replication = replication;
  ordered_json results;
  run.ok = o.ok;
  run.error = o.error;
  if (o.ok) {
    try {
      results = ordered_json::parse(o.output);
      run.metrics = sweep::flatten_metrics(results);
      const nlohmann::json plain = results;  // the typed reader reads plain JSON
      if (const auto seed = results::Document(plain).seed()) {
        run.seed = *seed;
        run.has_seed = true;
      }
    } catch (const nlohmann::json::exception& e) {
      run.ok = false;
      run.error = std::string("the simulation process returned unreadable results: ") + e.what();
      results = nullptr;
    }
  }
  ordered_json line;
  line["sweep_id"] = sweep_id;
  line["point"] = point;
  line["replication"] = replication;
  line["seed"] = run.has_seed ? ordered_json(run.seed) : ordered_json(nullptr);
  ordered_json p = ordered_json::object();
  for (const auto& o2 : params)
    p[o2.path] = parse_json_value<ordered_json>(o2.value).value_or(ordered_json(o2.value));
  line["params"] = p;
  line["ok"] = run.ok;
  line["error"] = run.ok ? ordered_json(nullptr) : ordered_json(run.error);
  line["results"] = run.ok ? results : ordered_json(nullptr);
  run.line = line.dump();
  return run;
}

sweep::Run parse_run(const std::string& file, std::size_t line_no, const std::string& text,
                     std::string& sweep_id) {
  using scenario::InputError;
  const auto where = "line " + std::to_string(line_no);
  auto parsed = parse_json<ordered_json>(text, file, line_no);
  if (!parsed)
    throw InputError(file, {{"", where + ": found text that is not JSON, expected one run per "
                                         "line as sonicsim sweep writes"}});
  ordered_json& j = *parsed;
  if (!j.is_object() || !j.contains("point") || !j["point"].is_number_unsigned() ||
      !j.contains("replication") || !j["replication"].is_number_unsigned() ||
      !j.contains("sweep_id") || !j["sweep_id"].is_string() || !j.contains("ok"))
    throw InputError(file, {{"", where + ": found a line without sweep_id, point, replication "
                                         "and ok, expected a run as sonicsim sweep writes it"}});
  sweep::Run run;
  run.point = j["point"].get<std::size_t>();
  run.replication = j["replication"].get<std::size_t>();
  run.ok = j["ok"].is_boolean() && j["ok"].get<bool>();
  if (j.contains("error") && j["error"].is_string()) run.error = j["error"].get<std::string>();
  if (j.contains("seed") && j["seed"].is_number_unsigned()) {
    run.seed = j["seed"].get<std::uint64_t>();
    run.has_seed = true;
  }
  if (run.ok && j.contains("results")) run.metrics = sweep::flatten_metrics(j["results"]);
  if (run.ok) run.error.clear();
  run.line = text;
  sweep_id = j["sweep_id"].get<std::string>();
  return run;
}

sweep::TableRow row_of(const std::string& id, const sweep::Grid& grid, std::size_t point,
                       const std::map<std::size_t, sweep::Run>& runs) {
  std::vector<std::string> cells;
  for (const auto& o : grid.point(point)) cells.push_back(sweep::param_cell(o.value));
  std::vector<const sweep::Run*> rs;
  for (const auto& [r, run] : runs) rs.push_back(&run);
  return sweep::make_row(id, grid.size(), point, cells, rs);
}

bool row_failed(const sweep::TableRow& row, const std::vector<std::string>& fixed) {
  return row.fixed[fixed.size() - 3] == sweep::kStatusFailed;
}

}  // namespace sonicsim::pipeline
