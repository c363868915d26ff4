// SVG charts for the HTML report: plain data in, one self-contained <svg> element out (no
// script, no external font or style). Line/scatter series with shaded confidence bands,
// vertical marker lines, grouped bars (also histograms) and horizontal stacked bars, on axes
// with "nice" 1/2/5 ticks and SI-formatted units, in the colour-blind-safe Okabe-Ito palette.
//
// Every chart marks its parts with classes the tests look for: `axis` (the two axis lines),
// `tick` (tick labels), `series` (one data path or bar each), `band`, `marker`, `legend`.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sonicsim::report::chart {

// Text and attribute escaping for XML/HTML: & < > " '.
std::string escape(std::string_view text);

// The Okabe-Ito palette, most distinct first; colour(i) cycles through it. Black is kept for
// what is not data (marker lines).
inline constexpr std::size_t kPaletteSize = 8, kBlack = 6;
const std::string& colour(std::size_t index);

// Ticks covering [lo, hi] with a step of 1, 2 or 5 x 10^k, about `target` intervals; the first
// tick <= lo and the last >= hi. lo == hi gives a small range around the value.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

// Ticks of a log axis: every power of ten from below lo to above hi (with 2 and 5 between when
// that spans fewer than three decades). lo and hi must be positive.
std::vector<double> log_ticks(double lo, double hi);

enum class Unit {
  Plain,           // counts and rates: SI suffixes on the ticks (1.5k, 2M)
  Seconds,         // ns, µs, ms, s chosen for the axis
  Fraction,        // 0..1 shown as percent
  BytesPerSecond,  // B/s, kB/s, MB/s, GB/s (powers of 1000)
};
// The divisor and unit text an axis whose largest magnitude is `max_abs` shows its ticks in
// ("ms" with 1e-3 for 0.012 s). Plain carries its suffix on each tick instead (`on_ticks`).
struct Scale {
  double divisor = 1.0;
  std::string unit;
  bool on_ticks = false;
};
Scale scale_for(Unit unit, double max_abs);
// A tick label: enough decimals to tell ticks `step` apart.
std::string tick_label(double value, double step, const Scale& scale);
// One value with its unit and three significant digits: "12.3 ms", "38%", "1.25k", "40 MB/s".
std::string format_value(double value, Unit unit);

struct Axis {
  std::string label;
  Unit unit = Unit::Plain;
  bool include_zero = true;  // start a value axis at 0 (counts, utilizations)
  bool log = false;          // logarithmic (x of a log-spaced sweep); places positive values only
};

// Band: only the shaded band y ± band, with the label as its tooltip (a range between two
// series, e.g. a low and a high quantile).
enum class Style { Line, Dashed, Dotted, Points, LinePoints, Band };

struct Series {
  std::string label;
  std::vector<double> x, y;  // NaN y values break the line
  std::vector<double> band;  // half-widths around y (e.g. ci95), empty for none
  Style style = Style::LinePoints;
  std::size_t colour = 0;  // palette index
};

struct Marker {  // a vertical line at x with a label, e.g. the formula's knee
  double x = 0.0;
  std::string label;
  std::size_t colour = 0;
};

struct XYChart {
  std::string title, note;  // note: one line under the chart (data source, caveats)
  Axis x, y;
  // A second labelling of the x axis along the top: value = x * x2_factor (e.g. N_CPU/N_GPU
  // for a sweep over jobs); 0 for none.
  std::string x2_label;
  double x2_factor = 0.0;
  std::vector<Series> series;
  std::vector<Marker> markers;
  // Ticks of the x axis at these values with these labels (dates), in increasing order, the
  // first and last spanning the data; empty: nice ticks from the data.
  std::vector<std::pair<double, std::string>> x_ticks;
  // Each marker's label on the first row where it overlaps no other (many markers close
  // together, e.g. dates); else on rows 0, 1, 2, 0, ... in turn.
  bool fit_markers = false;
  // tips[s][i]: the tooltip of point i of series s (drawn points only); empty for none.
  std::vector<std::vector<std::string>> tips;
  int width = 640, height = 300;  // plot area plus margins, before the legend
};
std::string render(const XYChart& chart);

// Grouped vertical bars: per category, one bar per series (a histogram: one series, bins as
// categories). values[series][category]; NaN leaves a gap.
struct BarChart {
  std::string title, note;
  Axis y;
  std::vector<std::string> categories, series;
  std::vector<std::vector<double>> values;
  std::vector<Marker> markers;  // x: a category's index (0 the first), marked at its centre
  int width = 640, height = 300;
};
std::string render(const BarChart& chart);

// Horizontal bars split into parts, e.g. where an event's time goes. values[bar][part].
struct StackedBarChart {
  std::string title, note;
  Axis x;
  std::vector<std::string> bars, parts;
  std::vector<std::vector<double>> values;
  int width = 640;
};
std::string render(const StackedBarChart& chart);

// Horizontal bars around a centre value, one per row from the top, e.g. a tornado chart: each
// bar runs from the centre to `low_end` in colour 0 and to `high_end` in colour 1 (NaN: that
// half is not drawn), with its label on the left and each end's value at the end.
struct RangeBar {
  std::string label;
  double low_end = 0.0, high_end = 0.0;
  std::string low_tooltip, high_tooltip;
};
struct RangeBarChart {
  std::string title, note;
  Axis x;
  double centre = 0.0;
  std::string centre_label;         // the marker at the centre ("nominal 31")
  std::string low_part, high_part;  // the legend of the two colours
  std::vector<RangeBar> bars;
  int width = 640;
};
std::string render(const RangeBarChart& chart);

}  // namespace sonicsim::report::chart
