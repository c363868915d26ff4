// A sweep defined and run on this machine: every (point, replication) in its own child process,
// each finished run appended to the JSONL and each finished point to the CSV as they come, then
// both files rewritten in point order.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <iostream>
#include <optional>
#include <utility>

#include <sonicsim/pipeline/sweep.hpp>
#include <sonicsim/points/children.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/util/files.hpp>

#include "progress.hpp"
#include "stop_signals.hpp"
#include "sweep_steps.hpp"

namespace sonicsim::pipeline {

namespace {

// A parameter none of whose values the scenario accepts is a bad flag, not a sweep of failures.
void check_parameters(const std::string& scenario_path, const sweep::Grid& grid,
                      const std::vector<scenario::Override>& common) {
  using scenario::InputError;
  for (const auto& p : grid.parameters) {
    if (p.path == kSampleParameter) continue;
    std::string first_error;
    bool accepted = false;
    for (std::size_t k = 0; k < p.values.size() && k < 20 && !accepted; ++k) {
      auto overrides = common;
      overrides.push_back({p.path, p.values[k]});
      try {
        scenario::load_file(scenario_path, overrides);
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

SweepDefinition define(const SweepRequest& a) {
  SweepDefinition d;
  d.csv = a.output;
  d.jsonl = a.jsonl_path();
  check_distinct_outputs({{"-o", d.csv}, {"--jsonl", d.jsonl}});
  check_writable(d.csv);
  check_writable(d.jsonl);
  std::vector<sweep::Parameter> params;
  for (const auto& text : a.params) params.push_back(sweep::parse_parameter(text));
  d.shard = a.shard.empty() ? sweep::Shard{} : sweep::parse_shard(a.shard);
  d.common = scenario::overrides_of(a.scenario);
  // A broken scenario is reported as itself, not as every point failing.
  const auto base = scenario::load_file(a.scenario.scenario_path, d.common);
  auto zips = a.zips;
  if (a.samples > 0) add_sample_dimension(a, d.common, base.seed, params, zips);
  d.grid = sweep::make_grid(std::move(params), zips);
  check_parameters(a.scenario.scenario_path, d.grid, d.common);
  d.replications = a.replications;
  d.n_points = d.grid.size();
  d.id = sweep::fingerprint(base.sha256, d.grid, a.zips, d.replications);
  d.fixed = sweep::fixed_header(d.grid);
  return d;
}

void print_dry_run(const SweepRequest& a, const SweepDefinition& d,
                   const std::vector<std::size_t>& selected) {
  std::cout << "sweep " << d.id << ": " << points_text(d.n_points, d.replications);
  if (!a.shard.empty()) std::cout << ", shard " << a.shard << ": " << selected.size() << " points";
  std::cout << "\n";
  for (std::size_t p : selected) {
    std::cout << "point " << p << ":";
    for (const auto& o : d.grid.point(p)) std::cout << " " << o.path << "=" << o.value;
    std::cout << "\n";
  }
}

struct Execution {
  bool completed = false;
  std::size_t todo_points = 0, runs = 0;
  int workers = 0;
  std::chrono::steady_clock::time_point started;
};

// Runs the selected points not kept, each replication in its own child; every run goes to the
// JSONL and every complete point to the CSV as it ends. Ctrl-C stops it with whole lines.
Execution execute(const SweepRequest& a, const SweepDefinition& d,
                  const std::vector<std::size_t>& selected, SweepState& state) {
  const std::size_t R = d.replications;
  std::vector<std::pair<std::size_t, std::size_t>> items;  // (point, replication)
  Execution e;
  for (std::size_t p : selected) {
    if (state.runs.count(p)) continue;
    ++e.todo_points;
    for (std::size_t r = 0; r < R; ++r) items.push_back({p, r});
  }
  e.runs = items.size();

  const std::string& path = a.scenario.scenario_path;
  const auto work = [&](std::size_t k) {
    // Ctrl-C must end a child at once; the parent's handler only raises a flag.
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    const auto [p, r] = items[k];
    auto overrides = d.common;
    const auto point = simulated(d.grid.point(p));
    overrides.insert(overrides.end(), point.begin(), point.end());
    auto s = scenario::load_file(path, overrides);
    if (r > 0) {
      overrides.push_back({"seed", std::to_string(sweep::replication_seed(s.seed, r))});
      s = scenario::load_file(path, overrides);
    }
    return simulate(std::move(s)).results.dump();
  };

  Appender csv_out(d.csv), jsonl_out(d.jsonl);
  Progress progress(e.todo_points, items.size());
  std::vector<sweep::TableRow> held;  // failed rows that came before any metric was known
  e.started = std::chrono::steady_clock::now();
  points::StreamHooks hooks;
  hooks.stop = StopSignals::flag();
  hooks.on_tick = [&] { progress.tick(); };
  hooks.on_done = [&](std::size_t k, points::ChildOutcome&& outcome) {
    const auto [p, r] = items[k];
    sweep::Run run = run_of(d.id, p, r, d.grid.point(p), outcome);
    jsonl_out.write(run.line + "\n");
    auto& reps = state.runs[p];
    reps[r] = std::move(run);
    progress.run_done();
    if (reps.size() < R) return;
    sweep::TableRow row = row_of(d.id, d.grid, p, reps);
    const bool failed = row_failed(row, d.fixed);
    if (!state.header_written) {
      if (row.metrics.empty()) {
        held.push_back(std::move(row));
        progress.point_done(failed);
        return;
      }
      state.metrics = sweep::metric_union({row});
      std::string text = sweep::header_line(d.fixed, state.metrics);
      for (const auto& h : held) text += sweep::row_line(h, state.metrics);
      csv_out.write(text);
      held.clear();
      state.header_written = true;
    }
    csv_out.write(sweep::row_line(row, state.metrics));
    progress.point_done(failed);
  };

  StopSignals stop_signals;
  std::optional<std::string> write_failed;
  e.workers = a.workers > 0 ? a.workers : points::default_workers();
  {
    std::vector<std::size_t> indices(items.size());
    for (std::size_t k = 0; k < items.size(); ++k) indices[k] = k;
    try {
      e.completed = points::run_in_children_streaming(indices, work, hooks, e.workers);
    } catch (const WriteError& error) {
      write_failed = error.what();
    }
  }
  stop_signals.restore();
  progress.finish();
  // The files hold whole records only (Appender), so the runs before the failure stand.
  if (write_failed)
    throw WriteError(*write_failed + "; the runs finished before it are kept in " + d.csv +
                     " and " + d.jsonl + ": make room and run the same command with --resume");
  return e;
}

// The final files in point order, whatever the completion order was, and the report.
int finish(const SweepRequest& a, const SweepDefinition& d,
           const std::vector<std::size_t>& selected, const SweepState& state, const Execution& e) {
  const std::size_t R = d.replications;
  std::size_t complete = 0;
  for (const auto& [p, reps] : state.runs) complete += reps.size() == R ? 1 : 0;
  if (!e.completed) {
    std::cerr << "sonicsim sweep: interrupted: " << complete << " of " << selected.size()
              << " points are complete in " << d.csv << " and " << d.jsonl
              << "; run the same command with --resume to finish\n";
    return kExitInterrupted;
  }

  std::vector<sweep::TableRow> rows;
  std::string jsonl_text;
  std::vector<std::string> failures;
  for (const auto& [p, reps] : state.runs) {
    if (reps.size() != R) continue;
    rows.push_back(row_of(d.id, d.grid, p, reps));
    for (const auto& [r, run] : reps) jsonl_text += run.line + "\n";
    const auto& row = rows.back();
    if (row_failed(row, d.fixed))
      failures.push_back("point " + std::to_string(p) + ": " + row.fixed[d.fixed.size() - 2]);
  }
  std::string csv_text = sweep::header_line(d.fixed, sweep::metric_union(rows));
  const auto metrics = sweep::metric_union(rows);
  for (const auto& row : rows) csv_text += sweep::row_line(row, metrics);
  std::vector<Output> outputs{{d.csv, csv_text}, {d.jsonl, jsonl_text}};
  if (a.samples > 0)
    outputs.push_back({quantiles_path_of(d.csv), quantiles_csv(d.fixed, metrics, rows)});
  write_all_or_none(outputs);

  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - e.started).count();
  std::cout << "sweep " << d.id << ": " << points_text(d.n_points, R);
  if (!a.shard.empty()) std::cout << ", shard " << a.shard << " holds " << selected.size();
  std::cout << "; " << e.todo_points << " simulated (" << e.runs << " runs, " << e.workers
            << " at a time, " << clock_text(wall) << " wall)";
  if (state.resumed) std::cout << ", " << state.resumed << " kept from before";
  std::cout << "; " << failures.size() << " failed\n";
  std::cout << "written to " << d.csv << " and " << d.jsonl
            << (a.samples > 0 ? " (quantiles over the samples: " + quantiles_path_of(d.csv) + ")"
                              : std::string())
            << "\n";
  for (std::size_t i = 0; i < failures.size() && i < 10; ++i)
    std::cerr << "sonicsim sweep: " << failures[i] << "\n";
  if (failures.size() > 10)
    std::cerr << "sonicsim sweep: ... and " << failures.size() - 10 << " more failed points\n";
  return failures.empty() ? 0 : kExitSomeFailed;
}

}  // namespace

std::string points_text(std::size_t points, std::size_t replications) {
  return std::to_string(points) + (points == 1 ? " point" : " points") + " x " +
         std::to_string(replications) + (replications == 1 ? " replication" : " replications");
}

int sweep(const SweepRequest& request, const BatchRequest& batch) {
  const SweepDefinition d = define(request);
  if (batch.slurm || batch.condor) return launch(request, batch, d);

  std::vector<std::size_t> selected;
  for (std::size_t p = 0; p < d.n_points; ++p)
    if (d.shard.contains(p)) selected.push_back(p);
  if (request.dry_run) {
    print_dry_run(request, d, selected);
    return 0;
  }
  SweepState state = start_files(request, d);
  const Execution e = execute(request, d, selected, state);
  return finish(request, d, selected, state, e);
}

}  // namespace sonicsim::pipeline
