// A gallery folder's `figures.json` as plain validated data: the published figures of one real
// system, the experiment that reproduces each in sonicsim, the formula's answer and the
// tolerance the figure must hold (docs/gallery.md). Loading checks everything at once and
// throws InputError with the JSON path of every problem; nothing is simulated here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace sonicsim::gallery {

// A number computed from runs' results: a constant, one figure of one run, or an operation on
// other expressions.
struct Expression {
  enum class Kind { Number, Metric, Ratio, Difference, Sum, Product, Min, Max, Jain };
  Kind kind = Kind::Number;
  double number = 0.0;           // Number
  std::string metric;            // Metric: the results figure's dotted path (a sweep column)
  std::string scenario;          // Metric: this term's scenario, resolved; "" = the figure's
  std::vector<std::string> set;  // Metric: this term's overrides, after the figure's
  std::vector<Expression> operands;
  std::string path;  // where it is in the file, for messages: "figures[2].simulated.ratio[0]"
};

// The operation's name as the file spells it ("ratio"), "metric" or "number".
const char* kind_name(Expression::Kind kind);

// Whether a simulated value holds the published figure.
struct Tolerance {
  enum class Kind { None, Relative, Absolute, AtLeast, AtMost };
  Kind kind = Kind::None;
  double value = 0.0;
};
// A stated inequality (at_least, at_most) rather than a distance from a published number.
inline bool is_bound(const Tolerance& t) {
  return t.kind == Tolerance::Kind::AtLeast || t.kind == Tolerance::Kind::AtMost;
}
// "±5%", "±2 ms", ">= 1", "<= 1"; "" for None.
std::string describe(const Tolerance& t, const std::string& unit);

// The assumption sweep: the figure at each value of one scenario path, or of several paths
// that one assumption moves together (a value is then an array, one element per path).
struct Vary {
  std::string set;                  // the path, or the paths joined by ", " (for display)
  std::vector<std::string> paths;   // scenario paths (`--set` style)
  std::string label;                // words: "offloaded fraction p"
  std::vector<std::string> values;  // each value as JSON text (an array with several paths)
  std::vector<std::string> labels;  // how the tables name each value ("s = 2"); may be empty
  std::vector<std::vector<std::string>> sets;  // per value, the PATH=JSON overrides it makes
};

// Why a figure cannot be evidence: the simulated value reproduces what went in, so its agreement
// with the published figure says nothing about the world. A figure that holds by construction and
// leaves its tolerance reveals a bug, and fails like any other.
struct Construction {
  enum class Kind {
    None,
    Input,     // it reproduces an input, or what the source computed from the same inputs
    Identity,  // it holds whatever the inputs (Little's law, T = N/l, Amdahl's bound)
    Solved,    // an input was solved from this published figure so that the formula gives it
  };
  Kind kind = Kind::None;
  std::string why;  // one sentence
};
// "input", "identity", "solved": the file's spelling.
const char* kind_name(Construction::Kind kind);

struct Figure {
  std::string id, figure, source, unit, published_text;
  Construction by_construction;  // kind None: an independent output
  // Why sonicsim does not reproduce this published figure, when the file knows it does not
  // (the inputs the source gives cannot make it): shown as a known miss, not failed.
  std::string miss;
  std::optional<double> published;  // nullopt: a prediction (no published number)
  Tolerance tolerance;
  std::string scenario;          // resolved path: the figure's or the file's
  std::vector<std::string> set;  // PATH=JSON, applied to every run of the figure
  Expression simulated;
  std::optional<Expression> formula;
  std::optional<Vary> vary;
  std::string path;  // "figures[2]"
};

// The sweep whose report chart the folder's README shows.
struct Plot {
  std::string scenario;  // resolved
  std::vector<std::string> set, params;
  std::string caption;
  std::string chart = "time-per-event";  // which of the report's charts (its SVG file's name)
};

struct FiguresFile {
  std::string file;    // as given
  std::string folder;  // the folder's name: the key of its pages
  std::string system, source;
  std::vector<Figure> figures;
  std::optional<Plot> plot;
};

// Reads and checks one figures file; scenario paths become paths relative to the working
// directory (the file's folder joined with what it names). Throws InputError naming the file
// and the JSON path of every problem.
FiguresFile load_figures(const std::string& path);

}  // namespace sonicsim::gallery
