// The steps of a sweep, one file each, and what they hand each other: the definition (the grid,
// the sweep's identity, its files) and the runs known so far with the CSV header written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <sonicsim/pipeline/sweep.hpp>
#include <sonicsim/sweep/sweep.hpp>

#include "sweep_records.hpp"

namespace sonicsim::pipeline {

struct SweepDefinition {
  sweep::Grid grid;
  sweep::Shard shard;
  std::vector<scenario::Override> common;  // --set and --seed
  std::size_t replications = 1, n_points = 0;
  std::string id;                  // sweep::fingerprint: what --resume and merge check
  std::vector<std::string> fixed;  // the CSV's fixed columns
  std::string csv, jsonl;
};

struct SweepState {
  RunsByPoint runs;
  std::vector<std::string> metrics;  // the CSV's metric columns, once its header is written
  bool header_written = false;
  std::size_t resumed = 0;  // points kept from before
};

// sweep_run.cpp: "N points x R replications", as the reports begin.
std::string points_text(std::size_t points, std::size_t replications);

// sweep_resume.cpp: the complete points --resume keeps (none without it); the files start over
// from them, whole lines only, in point order.
SweepState start_files(const SweepRequest& request, const SweepDefinition& sweep);

// sweep_samples.cpp: --samples as a grid dimension (a `sample` pseudo-parameter zipped with the
// paths the samples set), what a child simulates of a point, and the per-point quantiles.
inline constexpr char kSampleParameter[] = "sample";
void add_sample_dimension(const SweepRequest& request,
                          const std::vector<scenario::Override>& common,
                          std::uint64_t scenario_seed, std::vector<sweep::Parameter>& params,
                          std::vector<std::string>& zips);
// A point's overrides without the `sample` pseudo-parameter.
std::vector<scenario::Override> simulated(std::vector<scenario::Override> point);
// OUT.csv -> OUT.quantiles.csv.
std::string quantiles_path_of(const std::string& csv);
// p05/p50/p95 of every metric's mean over the samples of each grid point; "" for a table without
// a `param.sample` column.
std::string quantiles_csv(const std::vector<std::string>& fixed,
                          const std::vector<std::string>& metrics,
                          const std::vector<sweep::TableRow>& rows);

// sweep_launch.cpp: writes the batch files, submits (Slurm) and waits, then merges the shards.
int launch(const SweepRequest& request, const BatchRequest& batch, const SweepDefinition& sweep);

}  // namespace sonicsim::pipeline
