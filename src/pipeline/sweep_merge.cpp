// Shards of one sweep combined into one table, in point order: the CSVs must carry the same
// columns and sweep id (merge refuses to mix sweeps), a point held twice must hold the same
// values, and the JSONLs beside them follow when every shard has one.
#include <iostream>
#include <map>
#include <utility>

#include <sonicsim/pipeline/sweep.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/util/files.hpp>

#include "sweep_records.hpp"
#include "sweep_steps.hpp"

namespace sonicsim::pipeline {

namespace {

using scenario::InputError;

// "0-3, 7, 9-12", at most max_ranges ranges then ", ...".
std::string ranges_text(const std::vector<std::size_t>& v, std::size_t max_ranges = 20) {
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (shown++ == max_ranges) return out + ", ...";
    if (!out.empty()) out += ", ";
    out += std::to_string(v[i]);
    if (j > i) out += '-' + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

// The shards' tables, each one sweep's with the same columns; `id` and `n_points_text` receive
// the sweep's (empty when no shard has a row).
std::vector<sweep::Table> read_shards(const std::vector<std::string>& inputs, std::string& id,
                                      std::string& n_points_text) {
  std::vector<sweep::Table> tables;
  for (const auto& f : inputs) {
    tables.push_back(sweep::read_table(f));
    if (tables.back().fixed.empty())
      throw InputError(f, {{"",
                            "found an empty file, expected a sweep CSV with its header (an "
                            "interrupted shard? finish it with --resume first)"}});
  }
  const sweep::Table& first = tables.front();
  std::string id_file;
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
  return tables;
}

// The JSONL lines of every shard by (point, replication); `with_jsonl` counts the shards that
// have one, `lacking` names the last that has none.
std::map<std::pair<std::size_t, std::size_t>, std::string> read_shard_runs(
    const std::vector<std::string>& inputs, const std::string& id, std::size_t& with_jsonl,
    std::string& lacking) {
  std::map<std::pair<std::size_t, std::size_t>, std::string> lines;
  for (const auto& f : inputs) {
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
  return lines;
}

}  // namespace

int merge(const MergeRequest& a, std::size_t* failed) {
  const std::string jsonl = a.jsonl.empty() ? jsonl_path_of(a.output) : a.jsonl;
  check_writable(a.output);
  std::string id, n_points_text;
  const auto tables = read_shards(a.inputs, id, n_points_text);
  const sweep::Table& first = tables.front();
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
    for (const auto& row : rows) *failed += row_failed(row, first.fixed) ? 1 : 0;
  }
  const auto metrics = sweep::metric_union(rows);
  std::string text = sweep::header_line(first.fixed, metrics);
  for (const auto& row : rows) text += sweep::row_line(row, metrics);

  // The full results follow their tables when every shard has its JSONL beside it.
  std::size_t with_jsonl = 0;
  std::string lacking;
  const auto lines = read_shard_runs(a.inputs, id, with_jsonl, lacking);
  write_atomically(a.output, text);
  // A sweep with --samples: its per-point quantiles beside the merged table.
  const std::string quantiles = quantiles_csv(first.fixed, metrics, rows);
  if (!quantiles.empty()) write_atomically(quantiles_path_of(a.output), quantiles);
  const bool merge_jsonl = with_jsonl == a.inputs.size();
  if (merge_jsonl) {
    check_writable(jsonl);
    std::string all;
    for (const auto& [key, line] : lines)
      if (by_point.count(key.first)) all += line + "\n";
    write_atomically(jsonl, all);
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
    return kExitSomeFailed;
  }
  return 0;
}

}  // namespace sonicsim::pipeline
