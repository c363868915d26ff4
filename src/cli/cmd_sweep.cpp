// sweep, merge: parameter grids, one process per simulation, resumable tables (README "Sweeps").
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/points.hpp>
#include <sonicsim/runner/runner.hpp>
#include <sonicsim/sweep/batch.hpp>
#include <sonicsim/sweep/sweep.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

using nlohmann::ordered_json;
using scenario::InputError;

// Exit codes beyond main.cpp's: some points failed (their rows carry the error), or merge found
// points missing; and the shell's code for an interrupt.
constexpr int kSomeFailed = 3;
constexpr int kInterrupted = 130;

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) {
  g_stop = 1;
}

// Ctrl-C and SIGTERM only raise g_stop while this lives (the work finishes its files); the
// previous handlers come back on restore() or when it goes.
class StopSignals {
 public:
  StopSignals() {
    g_stop = 0;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() { restore(); }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  void restore() {
    if (restored_) return;
    restored_ = true;
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {
  }, old_term_{};
  bool restored_ = false;
};

std::string jsonl_path_of(const std::string& csv) {
  const std::string ext = ".csv";
  if (csv.size() > ext.size() && csv.compare(csv.size() - ext.size(), ext.size(), ext) == 0)
    return csv.substr(0, csv.size() - ext.size()) + ".jsonl";
  return csv + ".jsonl";
}

bool read_text(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  out = buffer.str();
  return true;
}

// Lines with their newline; a last line without one (an interrupted append) is dropped.
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

// Appends whole lines with one write() each, so an interrupted sweep leaves whole rows behind.
class Appender {
 public:
  explicit Appender(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw results::OutputError(path + ": cannot append: " + std::strerror(errno));
  }
  ~Appender() {
    if (fd_ >= 0) ::close(fd_);
  }
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;
  void write(const std::string& line) {
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw results::OutputError(path_ + ": write failed: " + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

std::string clock_text(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  char buffer[32];
  if (s >= 3600)
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld", s / 60, s % 60);
  return buffer;
}

// A bar with an ETA on a terminal; a line per tenth of the sweep otherwise (logs, batch jobs).
class Progress {
 public:
  Progress(std::size_t points, std::size_t runs)
      : tty_(::isatty(2)), points_(points), runs_(runs), start_(Clock::now()) {}
  void run_done() { ++runs_done_; }
  void point_done(bool failed) {
    ++points_done_;
    failed_ += failed ? 1 : 0;
    draw();
  }
  void tick() {
    // A terminal needs the clock to move, not a redraw per pipe read.
    if (tty_ && Clock::now() - last_draw_ > std::chrono::milliseconds(200)) draw();
  }
  void finish() {
    if (tty_ && drawn_) std::cerr << "\n";
  }

 private:
  using Clock = std::chrono::steady_clock;
  void draw() {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double eta = runs_done_ ? elapsed / static_cast<double>(runs_done_) *
                                        static_cast<double>(runs_ - runs_done_)
                                  : -1;
    const std::size_t percent = runs_ ? runs_done_ * 100 / runs_ : 100;
    std::string failed = failed_ ? ", " + std::to_string(failed_) + " failed" : "";
    if (tty_) {
      const std::size_t width = 30, full = runs_ ? runs_done_ * width / runs_ : width;
      std::cerr << "\r[" << std::string(full, '#') << std::string(width - full, '.') << "] "
                << points_done_ << "/" << points_ << " points" << failed << "  "
                << clock_text(elapsed) << " elapsed, ETA " << clock_text(eta) << "\033[K"
                << std::flush;
      drawn_ = true;
      last_draw_ = Clock::now();
    } else if (percent / 10 > last_decile_ || points_done_ == points_) {
      last_decile_ = percent / 10;
      std::cerr << "sweep: " << points_done_ << "/" << points_ << " points (" << percent << "%)"
                << failed << ", " << clock_text(elapsed) << " elapsed, ETA " << clock_text(eta)
                << "\n";
    }
  }
  bool tty_;
  std::size_t points_, runs_, points_done_ = 0, runs_done_ = 0, failed_ = 0;
  std::size_t last_decile_ = 0;
  bool drawn_ = false;
  Clock::time_point start_, last_draw_{};
};

struct SweepArgs {
  ScenarioArgs scenario;
  std::vector<std::string> params, zips;
  std::size_t replications = 1;
  int workers = 0;
  std::string output, jsonl, shard;
  bool resume = false, dry_run = false;
  // On a batch system (README "Sweeps on Slurm and HTCondor").
  bool slurm = false, condor = false, no_wait = false;
  std::string batch_dir;
  std::size_t tasks = 0, max_running = 0;
  int cpus_per_task = 1;
  std::string partition, time, account, qos, memory, request_memory;
  std::vector<std::string> sbatch_options, condor_commands;
};

// Defined after merge, which it ends with.
int sweep_on_batch_system(const SweepArgs& a, const sweep::Grid& grid, const std::string& id);

// One replication's JSONL record.
sweep::Run run_of(const std::string& sweep_id, std::size_t point, std::size_t replication,
                  const std::vector<scenario::Override>& params, const runner::ChildOutcome& o) {
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
      if (results.contains("seed") && results["seed"].is_number_unsigned()) {
        run.seed = results["seed"].get<std::uint64_t>();
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
  for (const auto& o2 : params) {
    try {
      p[o2.path] = ordered_json::parse(o2.value);
    } catch (const nlohmann::json::exception&) {
      p[o2.path] = o2.value;
    }
  }
  line["params"] = p;
  line["ok"] = run.ok;
  line["error"] = run.ok ? ordered_json(nullptr) : ordered_json(run.error);
  line["results"] = run.ok ? results : ordered_json(nullptr);
  run.line = line.dump();
  return run;
}

// A JSONL line read back for --resume or merge. Throws InputError naming the file and line.
sweep::Run parse_run(const std::string& file, std::size_t line_no, const std::string& text,
                     std::string& sweep_id) {
  const auto where = "line " + std::to_string(line_no);
  ordered_json j;
  try {
    j = ordered_json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw InputError(file, {{"", where + ": found text that is not JSON, expected one run per "
                                         "line as sonicsim sweep writes"}});
  }
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

using RunsByPoint = std::map<std::size_t, std::map<std::size_t, sweep::Run>>;

std::vector<std::string> param_cells(const sweep::Grid& grid, std::size_t point) {
  std::vector<std::string> cells;
  for (const auto& o : grid.point(point)) cells.push_back(sweep::param_cell(o.value));
  return cells;
}

sweep::TableRow row_of(const std::string& id, const sweep::Grid& grid, std::size_t point,
                       const std::map<std::size_t, sweep::Run>& runs) {
  std::vector<const sweep::Run*> rs;
  for (const auto& [r, run] : runs) rs.push_back(&run);
  return sweep::make_row(id, grid.size(), point, param_cells(grid, point), rs);
}

std::string ranges_text(const std::vector<std::size_t>& v, std::size_t max_ranges = 20) {
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (shown++ == max_ranges) return out + ", ...";
    out += (out.empty() ? "" : ", ") + std::to_string(v[i]) +
           (j > i ? "-" + std::to_string(v[j]) : "");
    i = j + 1;
  }
  return out;
}

// A parameter none of whose values the scenario accepts is a bad flag, not a sweep of failures.
void check_parameters(const SweepArgs& a, const sweep::Grid& grid,
                      const std::vector<scenario::Override>& common) {
  for (const auto& p : grid.parameters) {
    std::string first_error;
    bool accepted = false;
    for (std::size_t k = 0; k < p.values.size() && k < 20 && !accepted; ++k) {
      auto overrides = common;
      overrides.push_back({p.path, p.values[k]});
      try {
        scenario::load_file(a.scenario.scenario_path, overrides);
        accepted = true;
      } catch (const InputError& e) {
        if (first_error.empty()) first_error = e.what();
      }
    }
    if (!accepted)
      throw InputError(
          "--param",
          {{"", "`" + p.path + "=" + p.spec + "`: the scenario accepts none of its values (tried " +
                    std::to_string(std::min<std::size_t>(p.values.size(), 20)) +
                    "), expected a path and values it accepts; the "
                    "first was refused with:\n" +
                    first_error}});
  }
}

void check_batch_flags(const SweepArgs& a) {
  if (a.slurm && a.condor) throw UsageError("sweep: --slurm and --condor exclude each other");
  const bool batch = a.slurm || a.condor;
  if (batch && !a.shard.empty())
    throw UsageError("sweep: --shard with --" + std::string(a.slurm ? "slurm" : "condor") +
                     ": the batch system runs every shard itself (set their number with --tasks)");
  const std::vector<std::pair<const char*, bool>> slurm_only{
      {"--partition", !a.partition.empty()}, {"--time", !a.time.empty()},
      {"--account", !a.account.empty()},     {"--qos", !a.qos.empty()},
      {"--mem", !a.memory.empty()},          {"--sbatch-option", !a.sbatch_options.empty()},
      {"--max-running", a.max_running > 0},  {"--no-wait", a.no_wait}};
  for (const auto& [flag, given] : slurm_only)
    if (given && !a.slurm) throw UsageError(std::string("sweep: ") + flag + " needs --slurm");
  const std::vector<std::pair<const char*, bool>> condor_only{
      {"--request-memory", !a.request_memory.empty()},
      {"--condor-command", !a.condor_commands.empty()}};
  for (const auto& [flag, given] : condor_only)
    if (given && !a.condor) throw UsageError(std::string("sweep: ") + flag + " needs --condor");
  const std::vector<std::pair<const char*, bool>> either{{"--batch-dir", !a.batch_dir.empty()},
                                                         {"--tasks", a.tasks > 0},
                                                         {"--cpus-per-task", a.cpus_per_task != 1}};
  for (const auto& [flag, given] : either)
    if (given && !batch)
      throw UsageError(std::string("sweep: ") + flag + " needs --slurm or --condor");
}

int cmd_sweep(const SweepArgs& a) {
  const std::string& csv = a.output;
  const std::string jsonl = a.jsonl.empty() ? jsonl_path_of(csv) : a.jsonl;
  if (csv == jsonl) throw UsageError("sweep: --jsonl must differ from -o (" + csv + ")");
  check_batch_flags(a);
  results::check_writable(csv);
  results::check_writable(jsonl);
  std::vector<sweep::Parameter> params;
  for (const auto& text : a.params) params.push_back(sweep::parse_parameter(text));
  const sweep::Grid grid = sweep::make_grid(std::move(params), a.zips);
  const sweep::Shard shard = a.shard.empty() ? sweep::Shard{} : sweep::parse_shard(a.shard);
  const auto common = overrides_of(a.scenario);
  // A broken scenario is reported as itself, not as every point failing.
  const auto base = scenario::load_file(a.scenario.scenario_path, common);
  check_parameters(a, grid, common);
  const std::size_t R = a.replications, n_points = grid.size();
  const std::string id = sweep::fingerprint(base.sha256, grid, a.zips, R);
  const auto fixed = sweep::fixed_header(grid);

  if (a.slurm || a.condor) return sweep_on_batch_system(a, grid, id);

  std::vector<std::size_t> selected;
  for (std::size_t p = 0; p < n_points; ++p)
    if (shard.contains(p)) selected.push_back(p);

  if (a.dry_run) {
    std::cout << "sweep " << id << ": " << n_points << (n_points == 1 ? " point" : " points")
              << " x " << R << (R == 1 ? " replication" : " replications");
    if (!a.shard.empty())
      std::cout << ", shard " << a.shard << ": " << selected.size() << " points";
    std::cout << "\n";
    for (std::size_t p : selected) {
      std::cout << "point " << p << ":";
      for (const auto& o : grid.point(p)) std::cout << " " << o.path << "=" << o.value;
      std::cout << "\n";
    }
    return 0;
  }

  RunsByPoint runs;
  std::vector<std::string> stream_metrics;
  bool header_written = false;
  std::size_t resumed = 0;
  if (a.resume) {
    std::string text;
    if (read_text(jsonl, text)) {
      const auto lines = complete_lines(text);
      for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string sid;
        sweep::Run run = parse_run(jsonl, i + 1, lines[i], sid);
        if (sid != id)
          throw InputError(jsonl, {{"", "line " + std::to_string(i + 1) + ": found sweep_id " +
                                            sid + ", expected " + id +
                                            ": the file holds another sweep (a different "
                                            "scenario, --set, --seed, --param, --zip or "
                                            "--replications); resume only the same sweep, or "
                                            "write to another -o"}});
        if (run.point < n_points && run.replication < R)
          runs[run.point][run.replication] = std::move(run);
      }
    }
    if (read_text(csv, text) && !text.empty()) {
      const sweep::Table t = sweep::read_table(csv);
      for (const auto& row : t.rows)
        if (row.fixed[0] != id)
          throw InputError(csv, {{"", "found sweep_id " + row.fixed[0] + ", expected " + id +
                                          ": the file holds another sweep; resume only the same "
                                          "sweep, or write to another -o"}});
      if (t.fixed == fixed && !t.metrics.empty()) {
        stream_metrics = t.metrics;
        header_written = true;
      }
      // The CSV is computed from the runs; without them its rows cannot be kept.
      if (runs.empty() && !t.rows.empty())
        std::cerr << "sonicsim sweep: --resume: " << jsonl << " holds no run of this sweep, so the "
                  << t.rows.size() << " rows of " << csv << " are simulated again\n";
    }
    // A point is done when all its replications are in the JSONL; partial points run again.
    for (auto it = runs.begin(); it != runs.end();)
      it = it->second.size() == R ? std::next(it) : runs.erase(it);
    resumed = runs.size();
  }

  // Start the files over from what is kept: whole lines only, in point order.
  {
    std::vector<sweep::TableRow> rows;
    std::string jsonl_text;
    for (const auto& [p, reps] : runs) {
      rows.push_back(row_of(id, grid, p, reps));
      for (const auto& [r, run] : reps) jsonl_text += run.line + "\n";
    }
    if (!header_written && !sweep::metric_union(rows).empty()) {
      stream_metrics = sweep::metric_union(rows);
      header_written = true;
    }
    std::string csv_text;
    if (header_written) {
      csv_text = sweep::header_line(fixed, stream_metrics);
      for (const auto& row : rows) csv_text += sweep::row_line(row, stream_metrics);
    }
    results::write_atomically(csv, csv_text);
    results::write_atomically(jsonl, jsonl_text);
  }

  std::vector<std::pair<std::size_t, std::size_t>> items;  // (point, replication)
  std::size_t todo_points = 0;
  for (std::size_t p : selected) {
    if (runs.count(p)) continue;
    ++todo_points;
    for (std::size_t r = 0; r < R; ++r) items.push_back({p, r});
  }

  const std::string path = a.scenario.scenario_path;
  const auto work = [&](std::size_t k) {
    // Ctrl-C must end a child at once; the parent's handler only raises a flag.
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    const auto [p, r] = items[k];
    auto overrides = common;
    const auto point = grid.point(p);
    overrides.insert(overrides.end(), point.begin(), point.end());
    auto s = scenario::load_file(path, overrides);
    if (r > 0) {
      overrides.push_back({"seed", std::to_string(sweep::replication_seed(s.seed, r))});
      s = scenario::load_file(path, overrides);
    }
    const auto prediction = analytic::predict(s);
    const auto out = runner::simulate(s, runner::choose_transport(s, prediction));
    return results::to_json(s, out, analytic::to_json(prediction)).dump();
  };

  Appender csv_out(csv), jsonl_out(jsonl);
  Progress progress(todo_points, items.size());
  std::vector<sweep::TableRow> held;  // failed rows that came before any metric was known
  const auto wall_start = std::chrono::steady_clock::now();
  runner::StreamHooks hooks;
  hooks.stop = &g_stop;
  hooks.on_tick = [&] { progress.tick(); };
  hooks.on_done = [&](std::size_t k, runner::ChildOutcome&& outcome) {
    const auto [p, r] = items[k];
    sweep::Run run = run_of(id, p, r, grid.point(p), outcome);
    jsonl_out.write(run.line + "\n");
    auto& reps = runs[p];
    reps[r] = std::move(run);
    progress.run_done();
    if (reps.size() < R) return;
    sweep::TableRow row = row_of(id, grid, p, reps);
    const bool failed = row.fixed[fixed.size() - 3] == "failed";
    if (!header_written) {
      if (row.metrics.empty()) {
        held.push_back(std::move(row));
        progress.point_done(failed);
        return;
      }
      stream_metrics = sweep::metric_union({row});
      std::string text = sweep::header_line(fixed, stream_metrics);
      for (const auto& h : held) text += sweep::row_line(h, stream_metrics);
      csv_out.write(text);
      held.clear();
      header_written = true;
    }
    csv_out.write(sweep::row_line(row, stream_metrics));
    progress.point_done(failed);
  };

  StopSignals stop_signals;
  const int workers = a.workers > 0 ? a.workers : runner::default_workers();
  bool completed = false;
  {
    std::vector<std::size_t> indices(items.size());
    for (std::size_t k = 0; k < items.size(); ++k) indices[k] = k;
    completed = runner::run_in_children_streaming(indices, work, hooks, workers);
  }
  stop_signals.restore();
  progress.finish();

  std::size_t complete = 0;
  for (const auto& [p, reps] : runs) complete += reps.size() == R ? 1 : 0;
  if (!completed) {
    std::cerr << "sonicsim sweep: interrupted: " << complete << " of " << selected.size()
              << " points are complete in " << csv << " and " << jsonl
              << "; run the same command with --resume to finish\n";
    return kInterrupted;
  }

  // The final files in point order, whatever the completion order was.
  std::vector<sweep::TableRow> rows;
  std::string jsonl_text;
  std::vector<std::string> failures;
  for (const auto& [p, reps] : runs) {
    if (reps.size() != R) continue;
    rows.push_back(row_of(id, grid, p, reps));
    for (const auto& [r, run] : reps) jsonl_text += run.line + "\n";
    const auto& row = rows.back();
    if (row.fixed[fixed.size() - 3] == "failed")
      failures.push_back("point " + std::to_string(p) + ": " + row.fixed[fixed.size() - 2]);
  }
  std::string csv_text = sweep::header_line(fixed, sweep::metric_union(rows));
  const auto metrics = sweep::metric_union(rows);
  for (const auto& row : rows) csv_text += sweep::row_line(row, metrics);
  results::write_atomically(csv, csv_text);
  results::write_atomically(jsonl, jsonl_text);

  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  std::cout << "sweep " << id << ": " << n_points << (n_points == 1 ? " point" : " points") << " x "
            << R << (R == 1 ? " replication" : " replications");
  if (!a.shard.empty()) std::cout << ", shard " << a.shard << " holds " << selected.size();
  std::cout << "; " << todo_points << " simulated (" << items.size() << " runs, " << workers
            << " at a time, " << clock_text(wall) << " wall)";
  if (resumed) std::cout << ", " << resumed << " kept from before";
  std::cout << "; " << failures.size() << " failed\n";
  std::cout << "written to " << csv << " and " << jsonl << "\n";
  for (std::size_t i = 0; i < failures.size() && i < 10; ++i)
    std::cerr << "sonicsim sweep: " << failures[i] << "\n";
  if (failures.size() > 10)
    std::cerr << "sonicsim sweep: ... and " << failures.size() - 10 << " more failed points\n";
  return failures.empty() ? 0 : kSomeFailed;
}

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output, jsonl;
};

// Exit code 0, or 3 when points are missing. `failed`, when given, receives the number of rows
// whose simulations failed.
int merge_files(const MergeArgs& a, std::size_t* failed = nullptr) {
  const std::string jsonl = a.jsonl.empty() ? jsonl_path_of(a.output) : a.jsonl;
  results::check_writable(a.output);
  std::vector<sweep::Table> tables;
  for (const auto& f : a.inputs) {
    tables.push_back(sweep::read_table(f));
    if (tables.back().fixed.empty())
      throw InputError(f, {{"",
                            "found an empty file, expected a sweep CSV with its header (an "
                            "interrupted shard? finish it with --resume first)"}});
  }
  const sweep::Table& first = tables.front();
  std::string id, id_file, n_points_text;
  for (const auto& t : tables) {
    if (t.fixed != first.fixed)
      throw InputError(t.file, {{"",
                                 "found the columns of another sweep (its parameters differ "
                                 "from " +
                                     first.file +
                                     "'s), expected shards of one sweep; merge refuses to "
                                     "mix sweeps"}});
    for (const auto& row : t.rows) {
      if (id.empty()) {
        id = row.fixed[0];
        id_file = t.file;
        n_points_text = row.fixed[2];
      }
      if (row.fixed[0] != id)
        throw InputError(t.file, {{"", "point " + std::to_string(row.point) + ": found sweep_id " +
                                           row.fixed[0] + ", but " + id_file + " has " + id +
                                           ": shards of different sweeps (scenario, --set, "
                                           "--seed, --param, --zip or --replications differ); "
                                           "merge refuses to mix them"}});
      if (row.fixed[2] != n_points_text)
        throw InputError(t.file, {{"", "point " + std::to_string(row.point) + ": found n_points " +
                                           row.fixed[2] + ", expected " + n_points_text}});
    }
  }
  std::map<std::size_t, const sweep::TableRow*> by_point;
  for (const auto& t : tables)
    for (const auto& row : t.rows) {
      const auto [it, fresh] = by_point.try_emplace(row.point, &row);
      if (!fresh && (it->second->fixed != row.fixed || it->second->metrics != row.metrics))
        throw InputError(t.file, {{"", "point " + std::to_string(row.point) +
                                           " is also in another input with different values, "
                                           "expected each point once (or identical)"}});
    }
  std::vector<sweep::TableRow> rows;
  for (const auto& [p, row] : by_point) rows.push_back(*row);
  if (failed) {
    *failed = 0;
    for (const auto& row : rows) *failed += row.fixed[first.fixed.size() - 3] == "failed" ? 1 : 0;
  }
  const auto metrics = sweep::metric_union(rows);
  std::string text = sweep::header_line(first.fixed, metrics);
  for (const auto& row : rows) text += sweep::row_line(row, metrics);

  // The full results follow their tables when every shard has its JSONL beside it.
  std::map<std::pair<std::size_t, std::size_t>, std::string> lines;
  std::size_t with_jsonl = 0;
  std::string lacking;
  for (const auto& f : a.inputs) {
    std::string content;
    if (!read_text(jsonl_path_of(f), content)) {
      lacking = jsonl_path_of(f);
      continue;
    }
    ++with_jsonl;
    const auto ls = complete_lines(content);
    for (std::size_t i = 0; i < ls.size(); ++i) {
      std::string sid;
      const sweep::Run run = parse_run(jsonl_path_of(f), i + 1, ls[i], sid);
      if (!id.empty() && sid != id)
        throw InputError(jsonl_path_of(f),
                         {{"", "line " + std::to_string(i + 1) + ": found sweep_id " + sid +
                                   ", expected " + id + " like the CSVs"}});
      lines[{run.point, run.replication}] = ls[i];
    }
  }
  results::write_atomically(a.output, text);
  const bool merge_jsonl = with_jsonl == a.inputs.size();
  if (merge_jsonl) {
    results::check_writable(jsonl);
    std::string all;
    for (const auto& [key, line] : lines)
      if (by_point.count(key.first)) all += line + "\n";
    results::write_atomically(jsonl, all);
  } else if (with_jsonl > 0) {
    std::cerr << "sonicsim merge: " << lacking
              << " does not exist, so the full results (JSONL) are not merged\n";
  }

  const std::size_t n_points = n_points_text.empty() ? 0 : std::stoull(n_points_text);
  std::vector<std::size_t> missing;
  for (std::size_t p = 0; p < n_points; ++p)
    if (!by_point.count(p)) missing.push_back(p);
  std::cout << "merged " << a.inputs.size() << " files of sweep " << (id.empty() ? "?" : id) << ": "
            << rows.size() << " of " << n_points << " points; written to " << a.output
            << (merge_jsonl ? " and " + jsonl : "") << "\n";
  if (!missing.empty()) {
    std::cerr << "sonicsim merge: " << missing.size() << " of " << n_points
              << " points missing: " << ranges_text(missing)
              << " (run the missing shards, or finish with sonicsim sweep ... --resume -o "
              << a.output << ")\n";
    return kSomeFailed;
  }
  return 0;
}

int cmd_merge(const MergeArgs& a) {
  return merge_files(a);
}

// --- Sweeps on a batch system -----------------------------------------------------------------

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// Starts argv (found on PATH) with stdin from /dev/null and stdout into a pipe; each line of
// its output goes to on_line, and on_idle runs about once a second while it runs. Returns the
// exit status (128 + signal when killed), or -1 with `error` set when it could not start.
int run_watched(const std::vector<std::string>& argv,
                const std::function<void(const std::string&)>& on_line,
                const std::function<void()>& on_idle, std::string& error) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    error = std::strerror(rc);
    return -1;
  }
  std::string pending;
  char buffer[4096];
  for (;;) {
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, 1000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      on_idle();
      continue;
    }
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
      on_line(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  ::close(fds[0]);
  if (!pending.empty()) on_line(pending);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void write_file(const std::string& path, const std::string& text, bool executable = false) {
  results::write_atomically(path, text);
  if (executable && ::chmod(path.c_str(), 0755) != 0)
    throw results::OutputError(path + ": cannot make it executable: " + std::strerror(errno));
}

// The batch directory holds one sweep's shards: --resume in the tasks would refuse another's.
void claim_batch_dir(const std::string& dir, const std::string& id) {
  std::error_code ec;
  std::filesystem::create_directories(dir + "/shards", ec);
  if (!ec) std::filesystem::create_directories(dir + "/logs", ec);
  if (ec) throw results::OutputError(dir + ": cannot create the batch directory: " + ec.message());
  const std::string id_file = dir + "/sweep_id";
  std::string existing;
  if (read_text(id_file, existing)) {
    while (!existing.empty() && std::isspace(static_cast<unsigned char>(existing.back())))
      existing.pop_back();
    if (!existing.empty() && existing != id)
      throw InputError(dir, {{"", "found the shards of sweep " + existing + ", expected " + id +
                                      " (this sweep): remove the directory or choose another "
                                      "--batch-dir"}});
  }
  write_file(id_file, id + "\n");
}

std::size_t runs_written(const sweep::BatchJob& job) {
  std::size_t runs = 0;
  for (std::size_t i = 1; i <= job.tasks; ++i) {
    std::string text;
    if (read_text(jsonl_path_of(sweep::shard_csv_path(job, i)), text))
      runs += complete_lines(text).size();
  }
  return runs;
}

std::string merge_command(const sweep::BatchJob& job, const SweepArgs& a) {
  return "sonicsim merge " + sweep::shell_quote(job.dir) + "/shards/shard-*.csv -o " +
         sweep::shell_quote(a.output) +
         (a.jsonl.empty() ? "" : " --jsonl " + sweep::shell_quote(a.jsonl));
}

int sweep_on_batch_system(const SweepArgs& a, const sweep::Grid& grid, const std::string& id) {
  const std::size_t n_points = grid.size();
  sweep::BatchJob job;
  std::error_code ec;
  job.sonicsim = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw results::OutputError("cannot find the sonicsim binary: " + ec.message());
  job.workdir = std::filesystem::current_path().string();
  std::string dir = a.batch_dir;
  if (dir.empty()) {
    const std::string jsonl = jsonl_path_of(a.output);  // OUT.csv -> OUT.batch
    dir = jsonl.substr(0, jsonl.size() - 6) + ".batch";
  }
  job.dir = absolute_path(dir);
  job.sweep_id = id;
  // As given: the tasks start in workdir, and error messages name the file as the user did.
  job.sweep_args.push_back(a.scenario.scenario_path);
  for (const auto& s : a.scenario.sets) job.sweep_args.insert(job.sweep_args.end(), {"--set", s});
  if (a.scenario.seed >= 0)
    job.sweep_args.insert(job.sweep_args.end(), {"--seed", std::to_string(a.scenario.seed)});
  for (const auto& p : a.params) job.sweep_args.insert(job.sweep_args.end(), {"--param", p});
  for (const auto& z : a.zips) job.sweep_args.insert(job.sweep_args.end(), {"--zip", z});
  job.sweep_args.insert(job.sweep_args.end(), {"--replications", std::to_string(a.replications)});
  // Slurm's default MaxArraySize is 1001: at most 1000 shards unless asked.
  job.tasks = std::min(n_points, a.tasks ? a.tasks : std::size_t{1000});
  job.max_running = a.max_running;
  job.cpus_per_task = a.cpus_per_task;
  job.partition = a.partition;
  job.time = a.time;
  job.account = a.account;
  job.qos = a.qos;
  job.memory = a.memory;
  job.sbatch_options = a.sbatch_options;
  job.request_memory = a.request_memory;
  job.condor_commands = a.condor_commands;
  sweep::check_batch_options(job);

  claim_batch_dir(job.dir, id);
  write_file(sweep::shard_script_path(job), sweep::shard_script(job), true);
  const std::string script =
      a.slurm ? sweep::slurm_script_path(job) : sweep::condor_submit_path(job);
  write_file(script, a.slurm ? sweep::slurm_script(job) : sweep::condor_submit(job));
  std::cout << "sweep " << id << ": " << n_points << (n_points == 1 ? " point" : " points") << " x "
            << a.replications << (a.replications == 1 ? " replication" : " replications") << " in "
            << job.tasks << (job.tasks == 1 ? " shard" : " shards") << "; wrote " << script
            << " and " << sweep::shard_script_path(job) << "\n";
  if (a.condor || a.dry_run) {
    std::cout << "submit with: "
              << (a.slurm ? "sbatch " + sweep::shell_quote(script)
                          : "condor_submit " + sweep::shell_quote(script))
              << "\nthen merge with: " << merge_command(job, a) << "\n";
    return 0;
  }

  std::vector<std::string> argv{"sbatch", "--parsable"};
  if (!a.no_wait) argv.push_back("--wait");
  argv.push_back(script);
  const bool tty = ::isatty(2);
  const std::size_t total_runs = n_points * a.replications;
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  std::string job_id, error;
  StopSignals stop_signals;
  const int status = run_watched(
      argv,
      [&](const std::string& line) {
        if (!job_id.empty() || line.empty()) return;
        job_id = line.substr(0, line.find(';'));  // "jobid[;cluster]"
        std::cout << "submitted Slurm job array " << job_id << " (" << job.tasks
                  << (job.tasks == 1 ? " task" : " tasks") << "); logs in " << sweep::logs_dir(job)
                  << (a.no_wait ? "" : "; waiting for it to finish") << "\n"
                  << std::flush;
      },
      [&] {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_report < std::chrono::seconds(tty ? 1 : 60)) return;
        last_report = now;
        const double elapsed = std::chrono::duration<double>(now - start).count();
        std::cerr << (tty ? "\r" : "") << "sweep: " << std::min(runs_written(job), total_runs)
                  << "/" << total_runs << " runs written by the shards, " << clock_text(elapsed)
                  << " elapsed" << (tty ? "\033[K" : "\n") << std::flush;
      },
      error);
  stop_signals.restore();
  if (tty) std::cerr << "\r\033[K";
  if (status < 0)
    throw UsageError("sweep --slurm: cannot run sbatch: " + error +
                     " (is this a Slurm submit host? --condor writes HTCondor files instead)");
  if (job_id.empty())
    throw UsageError("sweep --slurm: sbatch did not submit the job array (exit " +
                     std::to_string(status) + "; its message is above); the script is " + script);
  if (g_stop) {
    std::cerr << "sonicsim sweep: interrupted while waiting; Slurm job array " << job_id
              << " keeps running (scancel " << job_id
              << " stops it); when it is done: " << merge_command(job, a) << "\n";
    return kInterrupted;
  }
  if (a.no_wait) {
    std::cout << "when it is done, merge with: " << merge_command(job, a) << "\n";
    return 0;
  }
  if (status != 0)
    std::cerr << "sonicsim sweep: sbatch --wait exited " << status
              << ": some array tasks failed (see " << sweep::logs_dir(job)
              << "); merging what the shards wrote\n";

  MergeArgs merge;
  for (std::size_t i = 1; i <= job.tasks; ++i) {
    std::string text;
    const auto csv = sweep::shard_csv_path(job, i);
    if (read_text(csv, text) && !text.empty()) merge.inputs.push_back(csv);
  }
  if (merge.inputs.empty())
    throw InputError(job.dir + "/shards",
                     {{"", "found no shard output, expected " + std::to_string(job.tasks) +
                               " CSVs: no task ran its shard (see " + sweep::logs_dir(job) + ")"}});
  merge.output = a.output;
  merge.jsonl = a.jsonl;
  std::size_t failed = 0;
  const int merged = merge_files(merge, &failed);
  if (failed)
    std::cerr << "sonicsim sweep: " << failed << " failed points (their rows carry the error)\n";
  return merged != 0 || failed ? kSomeFailed : 0;
}

}  // namespace

void add_sweep_commands(CLI::App& app, Commands& out) {
  static SweepArgs args;
  auto* cmd = app.add_subcommand(
      "sweep",
      "Simulate a grid of parameter values, each run in its own process, K at a time: a CSV "
      "row per point (mean and 95% CI over replications) and the full results as JSONL. Exit 0 "
      "all points ran, 3 some failed (rows carry the error), 2 bad input, 130 interrupted "
      "(--resume finishes)");
  add_scenario_args(cmd, args.scenario);
  cmd->add_option("--param", args.params,
                  "PATH=VALUES, repeatable: a list 1,2,4 (JSON values or words like 2.5ms), a "
                  "range A:B:STEP, a geometric range A:B:xF or a log range log:A:B:N; bounds may "
                  "carry a unit (100us:1000us:100us). Points: the Cartesian product, first "
                  "--param slowest")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--zip", args.zips,
                  "PATH,PATH,...: these --param parameters move together (same number of "
                  "values), e.g. --zip workload.jobs,servers.0.count; repeatable")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--replications", args.replications,
                  "Simulations per point with distinct derived seeds (default 1)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  cmd->add_option("--workers", args.workers,
                  "Simulations running at once, each in its own process (default: the cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output", args.output, "The sweep CSV (one row per point)")->required();
  cmd->add_option("--jsonl", args.jsonl,
                  "The full results, one run per line (default: -o with .jsonl for .csv)");
  cmd->add_flag("--resume", args.resume,
                "Keep the points already complete in the output files and run the others");
  cmd->add_option("--shard", args.shard,
                  "I/N: run only the points whose index % N == I-1 (merge the shards with "
                  "sonicsim merge)");
  cmd->add_flag("--dry-run", args.dry_run,
                "Print the sweep id and its points, simulate nothing (with --slurm: write the "
                "batch files, submit nothing)");
  // On a batch system: README "Sweeps on Slurm and HTCondor", docs/sweep.md.
  cmd->add_flag("--slurm", args.slurm,
                "Run the shards as a Slurm job array (sbatch --array), wait, and merge into -o");
  cmd->add_flag("--condor", args.condor,
                "Write an HTCondor submit file for the shards (condor_submit it, then merge)");
  cmd->add_option("--batch-dir", args.batch_dir,
                  "Scripts, shard outputs and logs (default: -o with .batch for .csv); on a "
                  "filesystem the worker nodes share");
  cmd->add_option("--tasks", args.tasks,
                  "Shards, one per array task or job (default: one per point, at most 1000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000000}));
  cmd->add_option("--cpus-per-task", args.cpus_per_task,
                  "Cores per task; each task runs that many simulations at once (default 1)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--no-wait", args.no_wait,
                "--slurm: submit and return; print the merge command to run when it is done");
  cmd->add_option("--partition", args.partition, "--slurm: #SBATCH --partition");
  cmd->add_option("--time", args.time, "--slurm: #SBATCH --time per task, e.g. 1:00:00");
  cmd->add_option("--account", args.account, "--slurm: #SBATCH --account");
  cmd->add_option("--qos", args.qos, "--slurm: #SBATCH --qos");
  cmd->add_option("--mem", args.memory, "--slurm: #SBATCH --mem per task, e.g. 2G");
  cmd->add_option("--max-running", args.max_running,
                  "--slurm: at most this many tasks at once (--array=1-N%M)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--sbatch-option", args.sbatch_options,
                  "--slurm: another #SBATCH line, e.g. --sbatch-option=--constraint=skylake; "
                  "repeatable");
  cmd->add_option("--request-memory", args.request_memory,
                  "--condor: request_memory per job, e.g. 2GB");
  cmd->add_option("--condor-command", args.condor_commands,
                  "--condor: another submit command, e.g. '+JobFlavour = \"longlunch\"'; "
                  "repeatable");
  out.push_back({cmd, [] { return cmd_sweep(args); }});

  static MergeArgs merge_args;
  auto* merge = app.add_subcommand(
      "merge",
      "Combine the CSVs (and JSONLs beside them) of shards of one sweep into one, in point "
      "order; refuses shards of different sweeps (exit 2); exit 3 when points are missing");
  merge->add_option("inputs", merge_args.inputs, "Shard CSVs written by sonicsim sweep --shard")
      ->required();
  merge->add_option("-o,--output", merge_args.output, "The merged CSV")->required();
  merge->add_option("--jsonl", merge_args.jsonl,
                    "The merged JSONL (default: -o with .jsonl for .csv)");
  out.push_back({merge, [] { return cmd_merge(merge_args); }});
}

}  // namespace sonicsim::cli
