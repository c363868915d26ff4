// `sonicsim reproduce`: every figure of the gallery's figures files computed from simulations
// and from the formulas, held against its published value. The runs the figures name are
// collected first and each distinct (scenario, overrides) is run once: simulated in its own
// child process (SimGrid allows one engine per process), or only predicted in process when
// every figure read from it is the formula's (`analytic.*`).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/gallery/figures.hpp>
#include <sonicsim/points/points.hpp>

namespace sonicsim::gallery {

// How a figure came out against its published value. Only Within is evidence: an independent
// output held against a published measurement.
enum class Verdict {
  Within,          // inside its tolerance
  ByConstruction,  // holds (its tolerance or bound, if any), but it reproduces what went in
  Outside,         // outside: a figure sonicsim no longer reproduces (the validation fails)
  KnownMiss,       // outside, and the file says why (`miss`): shown, not failed
  Prediction,      // no published number (its stated bound, if any, holds)
};
const char* verdict_name(Verdict v);

// A figure's verdict from its simulated value: its tolerance first (a figure outside it is
// Outside, or KnownMiss when the file says why), then what it is (by construction, a prediction).
Verdict judge(const Figure& f, double simulated);

// The figure at one value of its `vary`.
struct SweepPoint {
  std::string value;  // the JSON text set
  std::string label;  // how the tables show it: the vary's label for it, or the value
  double simulated = 0.0, formula = 0.0;  // NaN when it has none
};

struct FigureResult {
  Figure figure;
  double simulated = 0.0, formula = 0.0;       // NaN when absent or not computable
  std::optional<double> error, formula_error;  // relative to the published figure
  Verdict verdict = Verdict::Prediction;
  std::vector<SweepPoint> sweep;
  std::string command;  // the one line that reproduces it
};

struct SystemResult {
  std::string file, folder, system, source;
  std::string command;  // the line that reproduces all its figures
  std::vector<FigureResult> figures;
};

struct Reproduction {
  std::vector<SystemResult> systems;
  std::size_t runs_simulated = 0, runs_predicted = 0;
  // Figures outside their tolerance (not counting known misses).
  std::size_t outside() const;
};

// The figures counted by verdict, the ones by construction also by kind.
struct Tally {
  std::size_t total = 0, within = 0, by_construction = 0, outside = 0, known_misses = 0,
              predictions = 0;
  std::size_t inputs = 0, identities = 0, solved = 0;  // by construction, by kind
};
Tally tally(const Reproduction& r);
// The roll-up line under the tables: "47 figures: 1 within tolerance (evidence), 14 by
// construction (8 inputs, 3 identities, 3 solved for), 0 outside, 4 known misses, 28 predictions
// (...)"; evidence and construction never share a count.
std::string rollup(const Reproduction& r);

struct ReproduceRequest {
  std::vector<FiguresFile> files;
  std::string only_figure;                // --figure: just this id ("" = all)
  int workers = 0;                        // simulations at once (<= 0: the cores)
  std::string binary = "build/sonicsim";  // how the commands name the binary
  // Each run's simulation, in a child process of its own (the command's: pipeline::simulator()).
  points::Simulator simulate;
  // The results JSON of a run (its scenario, its overrides in order) in place of a simulation in
  // a child process: what a test or the fuzz target (tests/fuzz/fuzz_reproduce.cpp) feeds the
  // figures. An InputError it throws is the run refused, as a child's would be.
  std::function<std::string(const std::string&, const std::vector<std::string>&)> results_of;
};

// Runs what the figures need and evaluates them. Throws InputError naming the figures file and
// the figure's JSON path for a run the scenario rejects or a metric its results do not have;
// std::runtime_error when a simulation fails otherwise. `on_simulating(runs, workers)` is told
// before the simulations start.
Reproduction reproduce(const ReproduceRequest& request,
                       const std::function<void(std::size_t, int)>& on_simulating = {});

// The renderings (render.cpp): a terminal table, the JSON of everything, the validation page's
// one table of every published figure (a number, or a claim in words such as an ordering) of all
// systems, and one system's block for its README (its predictions too).
std::string to_text(const Reproduction& r);
std::string to_json(const Reproduction& r);
std::string validation_table(const Reproduction& r);
std::string system_block(const SystemResult& s);

}  // namespace sonicsim::gallery
