// Parameter sweeps: the grid of points, replication seeds, statistics over replications and the
// flat CSV table that `sonicsim sweep` writes and `sonicsim merge` combines (README "Sweeps").
//
// A point is one combination of parameter values; each point runs `replications` simulations
// (one forked process each, pipeline/children.hpp). Everything here is plain data and text: no
// process, no SimGrid, so the grid, the statistics and the table are unit-testable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/overrides.hpp>

namespace sonicsim::sweep {

// One `--param PATH=SPEC`. SPEC is a list `1,2,4` (JSON values or bare words such as `2.5ms`,
// split at top-level commas), a linear range `A:B:STEP`, a geometric range `A:B:xF` (multiply by
// F while <= B) or a log range `log:A:B:N` (N values evenly spaced in log from A to B; rounded
// to integers, duplicates dropped, when A and B are integers). Range bounds may carry a unit the
// scenario accepts, the same on A and B and on STEP if STEP has one (`100us:1000us:100us`); the
// loader then reads `200us` as it would in the file.
struct Parameter {
  std::string path;                 // scenario path, as for --set
  std::string spec;                 // as written after '='
  std::vector<std::string> values;  // the --set value text of every point, in order
};
// Throws scenario::InputError naming `flag`, what was found and what is expected.
Parameter parse_parameter(const std::string& text, const std::string& flag = "--param");

// The points: a Cartesian product of dimensions, the first dimension varying slowest. A
// dimension is one parameter, or a --zip group of parameters that move together (same number
// of values, the k-th values go together); a group sits where its first member was given.
struct Grid {
  std::vector<Parameter> parameters;
  std::vector<std::vector<std::size_t>> dimensions;  // parameter indices
  std::size_t size() const;
  // The overrides of point `index` (0 <= index < size()), one per parameter in given order.
  std::vector<scenario::Override> point(std::size_t index) const;
};
// zips: each "a,b,c" names parameters by path. Throws InputError naming --zip / --param.
Grid make_grid(std::vector<Parameter> parameters, const std::vector<std::string>& zips);

constexpr std::size_t kMaxPoints = 10'000'000;

// `--shard I/N`, 1 <= I <= N: points whose index % N == I - 1 (round robin, so that shards get
// an even share of cheap and expensive points).
struct Shard {
  std::size_t index = 0, count = 1;  // 0-based index
  bool contains(std::size_t point) const { return point % count == index; }
};
Shard parse_shard(const std::string& text);

// Replication r of a point whose scenario seed is `base`: r = 0 keeps the base seed (so a
// one-replication sweep point is exactly `sonicsim run --set ...`), r > 0 uses
// splitmix64-derived seeds, masked to 53 bits so JSON readers keep them exact. The seeds depend
// only on the point's seed and r: points share replication seeds (common random numbers).
std::uint64_t replication_seed(std::uint64_t base, std::size_t replication);

// Identity of a sweep, for --resume and merge: the first 16 hex digits of the SHA-256 of the
// scenario's sha256 (with --set and --seed applied), every --param and --zip as given, the
// replications.
std::string fingerprint(const std::string& scenario_sha256, const Grid& grid,
                        const std::vector<std::string>& zips, std::size_t replications);

// Mean and 95% confidence half-width (Student t, n - 1 degrees of freedom); ci95 is NaN for
// n < 2, both NaN for n = 0.
struct Summary {
  double mean = 0.0, ci95 = 0.0;
  std::size_t n = 0;
};
Summary summarize(const std::vector<double>& values);
double student_t_975(std::size_t degrees_of_freedom);

// Every numeric leaf (booleans as 0/1) of a results JSON named by its path as results::column
// spells it, in document order; arrays by index (`servers.0.utilization`). Leaves out `perf`
// (timings differ run to run) and the identity keys (`seed`, `scenario_sha256`, version and names).
using Metrics = std::vector<std::pair<std::string, double>>;
Metrics flatten_metrics(const nlohmann::ordered_json& results);

// --- The CSV table ------------------------------------------------------------------------
// Fixed columns, in this order, then `param.PATH` per parameter, then per metric
// `NAME.mean`, `NAME.ci95`.
extern const std::vector<std::string> kLeadingColumns;  // sweep_id, point, n_points
extern const std::vector<std::string> kTrailingFixed;   // replications, status, error, seed
inline constexpr char kParamColumnPrefix[] = "param.";  // param.PATH: a swept value
// The fixed columns readers look up by name, and the values of `status`.
inline constexpr char kReplicationsColumn[] = "replications";
inline constexpr char kStatusColumn[] = "status";
inline constexpr char kErrorColumn[] = "error";
inline constexpr char kSeedColumn[] = "seed";
inline constexpr char kStatusOk[] = "ok";
inline constexpr char kStatusFailed[] = "failed";
std::vector<std::string> fixed_header(const Grid& grid);

// One row: the fixed cells, then the metrics this point has (in its own order) as cell text.
struct TableRow {
  std::size_t point = 0;
  std::vector<std::string> fixed;
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> metrics;
};
// The metric names of all rows, by first appearance in row order.
std::vector<std::string> metric_union(const std::vector<TableRow>& rows);
std::string header_line(const std::vector<std::string>& fixed,
                        const std::vector<std::string>& metrics);
std::string row_line(const TableRow& row, const std::vector<std::string>& metrics);

// One replication, as written to the JSONL file and read back on --resume.
struct Run {
  std::size_t point = 0, replication = 0;
  bool ok = false;
  std::string error;
  std::uint64_t seed = 0;
  bool has_seed = false;
  Metrics metrics;
  std::string line;  // the JSONL line, no newline
};
// The row of a point from its replications (any order; sorted here).
TableRow make_row(const std::string& sweep_id, std::size_t n_points, std::size_t point,
                  const std::vector<std::string>& param_cells, std::vector<const Run*> runs);

// A cell of the sweep table (util::csv_field), newlines made " | " so one row is one line.
std::string csv_cell(const std::string& text);
// Shortest text that reads back as the same double; "" for NaN.
std::string format_number(double v);
// The CSV cell of a --set value: a JSON string's contents, other JSON as written.
std::string param_cell(const std::string& value);

// A parsed sweep CSV (as written by sweep or merge). Throws InputError naming the file and line.
struct Table {
  std::string file;
  std::vector<std::string> fixed;    // header up to and including `seed`
  std::vector<std::string> metrics;  // metric names, in header order
  std::vector<TableRow> rows;
  bool truncated = false;  // a last line without its newline (an interrupted write) was dropped
};
Table read_table(const std::string& file);

}  // namespace sonicsim::sweep
