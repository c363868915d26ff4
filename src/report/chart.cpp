#include <sonicsim/report/chart.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include <sonicsim/util/format.hpp>

namespace sonicsim::report::chart {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kCharWidth = 6.2;  // mean advance of an 11 px sans-serif glyph, for layout
constexpr double kLegendRow = 16.0;

using util::formatted;

// SVG coordinates: one decimal is below a pixel and keeps the file small.
std::string c(double v) {
  return formatted("%.1f", v);
}

double text_width(const std::string& s) {
  // UTF-8 continuation bytes take no room of their own.
  const auto glyphs =
      std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xC0) != 0x80; });
  return kCharWidth * static_cast<double>(glyphs);
}

std::string text(double x, double y, const std::string& cls, const std::string& anchor,
                 const std::string& content, const std::string& extra = "") {
  return "<text class=\"" + cls + "\" x=\"" + c(x) + "\" y=\"" + c(y) + "\" text-anchor=\"" +
         anchor + "\"" + extra + ">" + escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& cls,
                 const std::string& extra = "") {
  return "<line class=\"" + cls + "\" x1=\"" + c(x1) + "\" y1=\"" + c(y1) + "\" x2=\"" + c(x2) +
         "\" y2=\"" + c(y2) + "\"" + extra + "/>\n";
}

std::string rect(double x, double y, double w, double h, const std::string& cls,
                 const std::string& fill, const std::string& tooltip) {
  return "<rect class=\"" + cls + "\" x=\"" + c(x) + "\" y=\"" + c(y) + "\" width=\"" +
         c(std::max(w, 0.0)) + "\" height=\"" + c(std::max(h, 0.0)) + "\" fill=\"" + fill +
         "\"><title>" + escape(tooltip) + "</title></rect>\n";
}

std::string dash(Style style) {
  switch (style) {
    case Style::Dashed:
      return " stroke-dasharray=\"7 4\"";
    case Style::Dotted:
      return " stroke-dasharray=\"2 3\"";
    default:
      return "";
  }
}

std::string open_svg(double width, double height, const std::string& title) {
  return "<svg class=\"chart\" viewBox=\"0 0 " + c(width) + " " + c(height) + "\" width=\"" +
         c(width) + "\" height=\"" + c(height) +
         "\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\">\n<title>" + escape(title) +
         "</title>\n" +
         text(8, 18, "title", "start", title, " font-size=\"13\" font-weight=\"bold\"");
}

std::string close_svg(const std::string& note, double height) {
  std::string out;
  if (!note.empty())
    out += text(8, height - 6, "note", "start", note, " fill=\"#555\" font-size=\"10\"");
  return out + "</svg>\n";
}

// A legend entry: what its swatch looks like and its label.
struct LegendItem {
  std::string label, colour;
  Style style = Style::Line;
  bool box = false;  // a filled square (bars) rather than a line sample
};

// Lays the entries out in rows from (x0, y0) within `width`; returns the SVG and its height.
std::pair<std::string, double> legend(const std::vector<LegendItem>& items, double x0, double y0,
                                      double width) {
  std::string out;
  double x = x0, y = y0;
  for (const auto& item : items) {
    const double w = 26.0 + text_width(item.label) + 14.0;
    if (x > x0 && x + w > x0 + width) {
      x = x0;
      y += kLegendRow;
    }
    if (item.box)
      out += "<rect class=\"legend\" x=\"" + c(x) + "\" y=\"" + c(y - 8) +
             "\" width=\"10\" height=\"10\" fill=\"" + item.colour + "\"/>\n";
    else
      out += line(x, y - 4, x + 20, y - 4, "legend",
                  " stroke=\"" + item.colour + "\" stroke-width=\"2\"" + dash(item.style));
    out += text(x + 26, y, "legend", "start", item.label);
    x += w;
  }
  return {out, items.empty() ? 0.0 : y - y0 + kLegendRow};
}

// A value axis: its ticks and how to map values to pixels on [p0, p1].
struct ValueAxis {
  std::vector<double> ticks;
  Scale scale;
  double p0 = 0, p1 = 1;
  bool log = false;
  std::vector<std::string> names;  // the ticks' own labels (Axis::named_ticks), or none
  double lo() const { return ticks.front(); }
  double hi() const { return ticks.back(); }
  // A value this axis can place: finite, and positive on a log axis.
  bool holds(double v) const { return std::isfinite(v) && (!log || v > 0); }
  double at(double v) const {
    if (log) return p0 + std::log10(v / lo()) / std::log10(hi() / lo()) * (p1 - p0);
    return p0 + (v - lo()) / (hi() - lo()) * (p1 - p0);
  }
  // On a log axis each tick carries the decimals it needs itself (0.01, 0.1, 1, 10).
  std::string label(double v) const {
    if (!names.empty()) {
      const auto at = std::find(ticks.begin(), ticks.end(), v) - ticks.begin();
      return static_cast<std::size_t>(at) < names.size() ? names[at] : "";
    }
    return tick_label(v, log ? v : ticks[1] - ticks[0], scale);
  }
};

// An axis with its own ticks and their labels (dates).
ValueAxis named_axis(const std::vector<std::pair<double, std::string>>& ticks, double p0,
                     double p1) {
  ValueAxis a;
  a.p0 = p0;
  a.p1 = p1;
  for (const auto& [at, name] : ticks) {
    a.ticks.push_back(at);
    a.names.push_back(name);
  }
  return a;
}

ValueAxis value_axis(double lo, double hi, const Axis& axis, double p0, double p1) {
  ValueAxis a;
  a.p0 = p0;
  a.p1 = p1;
  if (axis.log && std::isfinite(lo) && std::isfinite(hi) && lo > 0) {
    a.log = true;
    a.ticks = log_ticks(lo, hi);
  } else {
    if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0.0, hi = 1.0;
    if (axis.include_zero) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
    // All zero (an idle queue): 0..1 rather than a range around zero with negative ticks.
    if (axis.include_zero && lo == 0.0 && hi == 0.0) hi = 1.0;
    a.ticks = nice_ticks(lo, hi);
  }
  a.scale = scale_for(axis.unit, std::max(std::abs(a.lo()), std::abs(a.hi())));
  return a;
}

std::string axis_title(const Axis& axis, const Scale& scale) {
  return scale.unit.empty() || scale.on_ticks ? axis.label : axis.label + " (" + scale.unit + ")";
}

// The left value axis: grid lines, tick labels, the axis line and its title.
std::string draw_y_axis(const ValueAxis& y, const Axis& axis, double left, double right) {
  std::string out;
  for (double t : y.ticks) {
    out += line(left, y.at(t), right, y.at(t), "grid", " stroke=\"#e4e4e4\"");
    out += text(left - 6, y.at(t) + 4, "tick", "end", y.label(t));
  }
  out += line(left, y.p0, left, y.p1, "axis", " stroke=\"#333\"");
  const double mid = (y.p0 + y.p1) / 2;
  out += text(14, mid, "axis-label", "middle", axis_title(axis, y.scale),
              " transform=\"rotate(-90 14 " + c(mid) + ")\"");
  return out;
}

// The bottom value axis: tick labels, the axis line and its title.
std::string draw_x_axis(const ValueAxis& x, const Axis& axis, double top, double bottom,
                        bool grid) {
  std::string out;
  for (double t : x.ticks) {
    if (grid) out += line(x.at(t), top, x.at(t), bottom, "grid", " stroke=\"#e4e4e4\"");
    out += text(x.at(t), bottom + 15, "tick", "middle", x.label(t));
  }
  out += line(x.p0, bottom, x.p1, bottom, "axis", " stroke=\"#333\"");
  out += text((x.p0 + x.p1) / 2, bottom + 32, "axis-label", "middle", axis_title(axis, x.scale));
  return out;
}

// Data path "M x y L x y ...", broken at missing values.
std::string path_data(const Series& s, const ValueAxis& x, const ValueAxis& y) {
  std::string d;
  bool pen_down = false;
  for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
    if (!x.holds(s.x[i]) || !y.holds(s.y[i])) {
      pen_down = false;
      continue;
    }
    d += (pen_down ? " L" : (d.empty() ? "M" : " M")) + c(x.at(s.x[i])) + " " + c(y.at(s.y[i]));
    pen_down = true;
  }
  return d;
}

// Where a band may reach: a confidence interval of a quantity that cannot be negative (or, for
// a utilization, above 100%) is cut there rather than widening the axis past what is possible.
struct Clip {
  double lo = -HUGE_VAL, hi = HUGE_VAL;
  double operator()(double v) const { return std::clamp(v, lo, hi); }
};

Clip band_clip(const XYChart& chart) {
  Clip clip;
  bool non_negative = true, at_most_one = true;
  for (const auto& s : chart.series)
    for (double v : s.y)
      if (std::isfinite(v)) {
        non_negative = non_negative && v >= 0;
        at_most_one = at_most_one && v <= 1;
      }
  if (non_negative) clip.lo = 0;
  if (at_most_one && chart.y.unit == Unit::Fraction) clip.hi = 1;
  return clip;
}

// The shaded band y ± band: along the upper edge, back along the lower one.
std::string band_data(const Series& s, const ValueAxis& x, const ValueAxis& y, const Clip& clip) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < s.x.size() && i < s.y.size() && i < s.band.size(); ++i)
    if (x.holds(s.x[i]) && y.holds(s.y[i]) && std::isfinite(s.band[i])) idx.push_back(i);
  if (idx.size() < 2) return "";
  std::string d;
  for (std::size_t k = 0; k < idx.size(); ++k)
    d +=
        (k ? " L" : "M") + c(x.at(s.x[idx[k]])) + " " + c(y.at(clip(s.y[idx[k]] + s.band[idx[k]])));
  for (std::size_t k = idx.size(); k-- > 0;)
    d += " L" + c(x.at(s.x[idx[k]])) + " " + c(y.at(clip(s.y[idx[k]] - s.band[idx[k]])));
  return d + " Z";
}

// A marker's dashed vertical line at px and its label, on the given row under the top. Labels
// are staggered (the row of the i-th marker drawn is i % 3, or with XYChart::fit_markers the
// first row where the label overlaps no other) so that neighbouring markers stay readable;
// near the right edge they hang to the left of their line.
std::string marker(double px, const Marker& m, int row, double top, double bottom, double right) {
  std::string out =
      line(px, top, px, bottom, "marker",
           " stroke=\"" + colour(m.colour) + "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"");
  const bool flip = px + text_width(m.label) + 4 > right;
  return out + text(flip ? px - 4 : px + 4, top + 12 + 13.0 * row, "marker", flip ? "end" : "start",
                    m.label, " fill=\"" + colour(m.colour) + "\"");
}

// The first row where a marker's label at px overlaps no label already there; takes its room.
int free_row(std::vector<std::vector<std::pair<double, double>>>& rows, double px,
             const std::string& label, double right) {
  const double w = text_width(label) + 8;
  const double x0 = px + w - 4 > right ? px - w : px, x1 = x0 + w;
  for (std::size_t r = 0;; ++r) {
    if (r == rows.size()) rows.emplace_back();
    const bool clear = std::none_of(rows[r].begin(), rows[r].end(),
                                    [&](const auto& e) { return x0 < e.second && e.first < x1; });
    if (clear) {
      rows[r].emplace_back(x0, x1);
      return static_cast<int>(r);
    }
  }
}

std::pair<double, double> finite_range(std::initializer_list<const std::vector<double>*> lists) {
  double lo = kNaN, hi = kNaN;
  for (const auto* l : lists)
    for (double v : *l)
      if (std::isfinite(v)) {
        lo = std::isfinite(lo) ? std::min(lo, v) : v;
        hi = std::isfinite(hi) ? std::max(hi, v) : v;
      }
  return {lo, hi};
}

// The data lines and points of an XY chart (not the bands), each point with its tooltip when
// the chart gives one.
std::string draw_series(const XYChart& chart, const ValueAxis& x, const ValueAxis& y) {
  std::string out;
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const Series& s = chart.series[k];
    const std::string& col = colour(s.colour);
    const std::string d = path_data(s, x, y);
    if (d.empty() || s.style == Style::Band) continue;
    const bool lines = s.style != Style::Points;
    const bool points =
        s.style == Style::Points || (s.style == Style::LinePoints && s.x.size() <= 60);
    out += "<path class=\"series\" d=\"" + d + "\" fill=\"none\" stroke=\"" + col +
           "\" stroke-width=\"" + (lines ? "2" : "0") + "\"" + dash(s.style) + "><title>" +
           escape(s.label) + "</title></path>\n";
    const auto* tips = k < chart.tips.size() ? &chart.tips[k] : nullptr;
    if (points)
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
        if (x.holds(s.x[i]) && y.holds(s.y[i]))
          out += "<circle class=\"point\" cx=\"" + c(x.at(s.x[i])) + "\" cy=\"" + c(y.at(s.y[i])) +
                 "\" r=\"2.5\" fill=\"" + col + "\"" +
                 (tips && i < tips->size() ? "><title>" + escape((*tips)[i]) + "</title></circle>\n"
                                           : "/>\n");
  }
  return out;
}

}  // namespace

std::string escape(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (char ch : in) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t')
          out += ' ';
        else
          out += ch;
    }
  }
  return out;
}

const std::string& colour(std::size_t index) {
  // Okabe & Ito (2008), ordered so the first few are far apart; yellow last (weak on white).
  static const std::array<std::string, kPaletteSize> palette{
      "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"};
  return palette[index % palette.size()];
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0.0, 1.0};
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= 1e-12 * std::max(std::abs(lo), std::abs(hi))) {
    // One value: a range around it (or 0..1 around 0).
    const double pad = lo == 0.0 ? 1.0 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / std::max(target, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  const double first = std::floor(lo / step + 1e-9) * step;
  const double last = std::ceil(hi / step - 1e-9) * step;
  std::vector<double> ticks;
  for (int i = 0; first + i * step <= last + step * 1e-6 && i < 100; ++i) {
    double t = first + i * step;
    if (std::abs(t) < step * 1e-9) t = 0.0;  // no "-0" from rounding
    ticks.push_back(t);
  }
  if (ticks.size() < 2) ticks.push_back(ticks.back() + step);
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi)) return {1.0, 10.0};
  if (lo > hi) std::swap(lo, hi);
  const int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int last = std::max(first + 1, static_cast<int>(std::ceil(std::log10(hi) - 1e-9)));
  // Fewer than three decades: 1-2-5 within each so the axis has enough labels.
  const bool fine = last - first < 3;
  std::vector<double> ticks;
  for (int e = first; e <= last; ++e) {
    ticks.push_back(std::pow(10.0, e));
    if (fine && e < last) {
      ticks.push_back(2 * std::pow(10.0, e));
      ticks.push_back(5 * std::pow(10.0, e));
    }
  }
  return ticks;
}

Scale scale_for(Unit unit, double max_abs) {
  switch (unit) {
    case Unit::Seconds:
      if (max_abs >= 1.0 || max_abs == 0.0) return {1.0, "s"};
      if (max_abs >= 1e-3) return {1e-3, "ms"};
      if (max_abs >= 1e-6) return {1e-6, "\xC2\xB5s"};
      return {1e-9, "ns"};
    case Unit::Fraction:
      return {0.01, "%"};
    case Unit::BytesPerSecond:
      if (max_abs >= 1e9) return {1e9, "GB/s"};
      if (max_abs >= 1e6) return {1e6, "MB/s"};
      if (max_abs >= 1e3) return {1e3, "kB/s"};
      return {1.0, "B/s"};
    case Unit::Plain:
      break;
  }
  if (max_abs >= 1e9) return {1e9, "G", true};
  if (max_abs >= 1e6) return {1e6, "M", true};
  if (max_abs >= 1e4) return {1e3, "k", true};
  return {1.0, "", true};
}

std::string tick_label(double value, double step, const Scale& scale) {
  const double s = step / scale.divisor;
  const int decimals =
      s > 0 ? std::clamp(static_cast<int>(-std::floor(std::log10(s) + 1e-9)), 0, 9) : 0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value / scale.divisor);
  std::string out = buf;
  if (value == 0.0) return "0";  // not "0k"
  if (out == "-0" || out.rfind("-0.", 0) == 0) {
    if (std::all_of(out.begin() + 1, out.end(), [](char ch) { return ch == '0' || ch == '.'; }))
      out.erase(0, 1);
  }
  return scale.on_ticks ? out + scale.unit : out;
}

std::string format_value(double value, Unit unit) {
  if (!std::isfinite(value)) return "-";
  const Scale scale = scale_for(unit, std::abs(value));
  const double v = value / scale.divisor;
  const double a = std::abs(v);
  std::string n = a >= 100.0 || v == std::floor(v) ? formatted("%.0f", v)
                  : a >= 10.0                      ? formatted("%.1f", v)
                                                   : formatted("%.3g", v);
  if (scale.unit.empty()) return n;
  if (scale.on_ticks || unit == Unit::Fraction) return n + scale.unit;
  return n + " " + scale.unit;
}

std::string render(const XYChart& chart) {
  const double left = 64, right = chart.width - 16.0;
  const double top = 34 + (chart.x2_factor > 0 ? 24 : 0), bottom = chart.height - 46.0;
  const Clip clip = band_clip(chart);
  std::vector<double> xs, ys;
  for (const auto& s : chart.series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      const double b = i < s.band.size() && std::isfinite(s.band[i]) ? s.band[i] : 0.0;
      ys.push_back(clip(s.y[i] + b));
      ys.push_back(clip(s.y[i] - b));
    }
  }
  if (chart.x.log)  // a log axis places positive values only
    xs.erase(std::remove_if(xs.begin(), xs.end(), [](double v) { return !(v > 0); }), xs.end());
  const auto [xlo, xhi] = finite_range({&xs});
  const auto [ylo, yhi] = finite_range({&ys});
  const ValueAxis x = chart.x_ticks.size() >= 2 ? named_axis(chart.x_ticks, left, right)
                                                : value_axis(xlo, xhi, chart.x, left, right);
  const ValueAxis y = value_axis(ylo, yhi, chart.y, bottom, top);

  std::vector<LegendItem> items;
  for (const auto& s : chart.series)
    if (!s.label.empty())
      items.push_back({s.label, colour(s.colour), s.style, s.style == Style::Band});
  const auto [legend_svg, legend_height] = legend(items, left, bottom + 56, right - left);
  const double height = bottom + 56 + legend_height + (chart.note.empty() ? 0 : 14);

  std::string out = open_svg(chart.width, height, chart.title);
  out += draw_y_axis(y, chart.y, left, right);
  out += draw_x_axis(x, chart.x, top, bottom, true);
  if (chart.x2_factor > 0 && !x.log) {
    // The same axis in other units along the top: nice ticks of x * factor placed at x.
    const double f = chart.x2_factor;
    const auto t2 = nice_ticks(x.lo() * f, x.hi() * f);
    const Scale s2 = scale_for(Unit::Plain, std::max(std::abs(t2.front()), std::abs(t2.back())));
    for (double t : t2)
      if (t / f >= x.lo() - 1e-9 && t / f <= x.hi() + 1e-9)
        out += text(x.at(t / f), top - 6, "tick", "middle", tick_label(t, t2[1] - t2[0], s2));
    out += line(left, top, right, top, "axis x2", " stroke=\"#999\"");
    out += text(right, top - 20, "axis-label", "end", chart.x2_label);
  }
  for (const auto& s : chart.series) {
    const std::string band = band_data(s, x, y, clip);
    if (band.empty()) continue;
    out += "<path class=\"band\" d=\"" + band + "\" fill=\"" + colour(s.colour) +
           "\" fill-opacity=\"0.18\" stroke=\"none\"";
    out += s.style == Style::Band ? "><title>" + escape(s.label) + "</title></path>\n" : "/>\n";
  }
  out += draw_series(chart, x, y);
  int shown = 0;
  std::vector<std::vector<std::pair<double, double>>> rows;  // the labels' extents by row
  for (const auto& m : chart.markers) {
    if (!x.holds(m.x) || m.x < x.lo() || m.x > x.hi()) continue;
    const double px = x.at(m.x);
    out += marker(px, m, chart.fit_markers ? free_row(rows, px, m.label, right) : shown++ % 3, top,
                  bottom, right);
  }
  out += legend_svg;
  return out + close_svg(chart.note, height);
}

std::string render(const BarChart& chart) {
  const double left = 64, right = chart.width - 16.0, top = 34, bottom = chart.height - 46.0;
  std::vector<double> all;
  for (const auto& v : chart.values) all.insert(all.end(), v.begin(), v.end());
  const auto [lo, hi] = finite_range({&all});
  Axis axis = chart.y;
  axis.include_zero = true;  // bars start at zero
  const ValueAxis y = value_axis(lo, hi, axis, bottom, top);

  std::vector<LegendItem> items;
  if (chart.series.size() > 1)
    for (std::size_t s = 0; s < chart.series.size(); ++s)
      items.push_back({chart.series[s], colour(s), Style::Line, true});
  const auto [legend_svg, legend_height] = legend(items, left, bottom + 40, right - left);
  const double height = bottom + 40 + legend_height + (chart.note.empty() ? 0 : 14);

  std::string out = open_svg(chart.width, height, chart.title);
  out += draw_y_axis(y, chart.y, left, right);
  out += line(left, bottom, right, bottom, "axis", " stroke=\"#333\"");
  const std::size_t n_cat = std::max<std::size_t>(chart.categories.size(), 1);
  const std::size_t n_ser = std::max<std::size_t>(chart.series.size(), 1);
  const double group = (right - left) / static_cast<double>(n_cat);
  const double bar = group * 0.8 / static_cast<double>(n_ser);
  const bool values_shown = n_cat * n_ser <= 24;
  for (std::size_t k = 0; k < chart.categories.size(); ++k) {
    const double gx = left + group * static_cast<double>(k) + group * 0.1;
    for (std::size_t s = 0; s < chart.values.size() && s < n_ser; ++s) {
      if (k >= chart.values[s].size() || !std::isfinite(chart.values[s][k])) continue;
      const double v = chart.values[s][k];
      const double bx = gx + bar * static_cast<double>(s);
      const double y0 = y.at(0.0), y1 = y.at(v);
      const std::string name = s < chart.series.size() ? chart.series[s] + ", " : "";
      out += rect(bx, std::min(y0, y1), bar * 0.92, std::abs(y0 - y1), "series bar", colour(s),
                  name + chart.categories[k] + ": " + format_value(v, chart.y.unit));
      if (values_shown)
        out += text(bx + bar * 0.46, std::min(y0, y1) - 3, "value", "middle",
                    format_value(v, chart.y.unit), " font-size=\"9\"");
    }
    // Category names are shortened to the room a group has; the full name is in each bar's
    // tooltip and in the tables.
    std::string label = chart.categories[k];
    const auto room = static_cast<std::size_t>(std::max(group / kCharWidth, 4.0));
    if (label.size() > room) label = label.substr(0, room - 1) + "~";
    out += text(gx + group * 0.4, bottom + 15, "tick", "middle", label);
  }
  int shown = 0;
  for (const auto& m : chart.markers)
    if (m.x >= 0 && m.x < static_cast<double>(chart.categories.size()))
      out += marker(left + group * (m.x + 0.5), m, shown++ % 3, top, bottom, right);
  out += legend_svg;
  return out + close_svg(chart.note, height);
}

std::string render(const StackedBarChart& chart) {
  double label_width = 0;
  for (const auto& b : chart.bars) label_width = std::max(label_width, text_width(b));
  const double left = std::clamp(label_width + 14, 60.0, 240.0), right = chart.width - 16.0;
  const double top = 34, bar_h = 22, gap = 10;
  const double bottom = top + static_cast<double>(chart.bars.size()) * (bar_h + gap) + gap;
  std::vector<double> totals;
  for (const auto& parts : chart.values) {
    double t = 0;
    for (double v : parts)
      if (std::isfinite(v) && v > 0) t += v;
    totals.push_back(t);
  }
  const auto [lo, hi] = finite_range({&totals});
  const ValueAxis x = value_axis(lo, hi, chart.x, left, right);

  std::vector<LegendItem> items;
  for (std::size_t p = 0; p < chart.parts.size(); ++p)
    items.push_back({chart.parts[p], colour(p), Style::Line, true});
  const auto [legend_svg, legend_height] = legend(items, left, bottom + 56, right - left);
  const double height = bottom + 56 + legend_height + (chart.note.empty() ? 0 : 14);

  std::string out = open_svg(chart.width, height, chart.title);
  out += draw_x_axis(x, chart.x, top, bottom, true);
  out += line(left, top, left, bottom, "axis", " stroke=\"#333\"");
  for (std::size_t b = 0; b < chart.bars.size() && b < chart.values.size(); ++b) {
    const double by = top + gap + static_cast<double>(b) * (bar_h + gap);
    out += text(left - 6, by + bar_h / 2 + 4, "tick", "end", chart.bars[b]);
    double at = 0;
    for (std::size_t p = 0; p < chart.values[b].size(); ++p) {
      const double v = chart.values[b][p];
      if (!std::isfinite(v) || v <= 0) continue;
      const double x0 = x.at(at), x1 = x.at(at + v);
      const std::string part = p < chart.parts.size() ? chart.parts[p] : "";
      const std::string value = format_value(v, chart.x.unit);
      out += rect(x0, by, x1 - x0, bar_h, "series bar", colour(p),
                  chart.bars[b] + ", " + part + ": " + value);
      if (x1 - x0 > text_width(value) + 6)
        out += text((x0 + x1) / 2, by + bar_h / 2 + 4, "value", "middle", value,
                    p % kPaletteSize == kBlack ? " fill=\"#fff\"" : "");
      at += v;
    }
  }
  out += legend_svg;
  return out + close_svg(chart.note, height);
}

namespace {

// One bar of a range chart: its two halves from the centre, their values at the ends.
std::string range_bar(const RangeBar& b, const ValueAxis& x, double centre, double by, double bar_h,
                      const Unit unit) {
  std::string out;
  const double right = x.p1;
  const std::array<std::pair<double, const std::string*>, 2> halves{
      std::pair{b.low_end, &b.low_tooltip}, std::pair{b.high_end, &b.high_tooltip}};
  for (std::size_t h = 0; h < halves.size(); ++h) {
    const double end = halves[h].first;
    if (!x.holds(end)) continue;
    const double x0 = x.at(centre), x1 = x.at(end);
    const double lo = std::min(x0, x1), width = std::max(std::abs(x1 - x0), 2.0);
    out += rect(x1 < x0 ? lo : std::min(lo, right - width), by, width, bar_h, "series bar",
                colour(h), *halves[h].second);
    const bool left_of = x1 < x0 || (x1 == x0 && h == 0);
    out += text(left_of ? lo - 3 : lo + width + 3, by + bar_h / 2 + 4, "value",
                left_of ? "end" : "start", format_value(end, unit), " font-size=\"10\"");
  }
  return out;
}

}  // namespace

std::string render(const RangeBarChart& chart) {
  double label_width = 0;
  for (const auto& b : chart.bars) label_width = std::max(label_width, text_width(b.label));
  const double left = std::clamp(label_width + 14, 60.0, 280.0), right = chart.width - 16.0;
  const double top = 34 + 16, bar_h = 18, gap = 8;
  const double bottom = top + static_cast<double>(chart.bars.size()) * (bar_h + gap) + gap;
  std::vector<double> ends{chart.centre};
  for (const auto& b : chart.bars) ends.insert(ends.end(), {b.low_end, b.high_end});
  const auto [lo, hi] = finite_range({&ends});
  // Room beyond the ends for their values.
  const double pad = (std::isfinite(hi - lo) && hi > lo ? hi - lo : 1.0) * 0.08;
  const ValueAxis x = value_axis(lo - pad, hi + pad, chart.x, left, right);

  const std::vector<LegendItem> items{{chart.low_part, colour(0), Style::Line, true},
                                      {chart.high_part, colour(1), Style::Line, true}};
  const auto [legend_svg, legend_height] = legend(items, left, bottom + 56, right - left);
  const double height = bottom + 56 + legend_height + (chart.note.empty() ? 0 : 14);

  std::string out = open_svg(chart.width, height, chart.title);
  out += draw_x_axis(x, chart.x, top, bottom, true);
  out += line(left, top, left, bottom, "axis", " stroke=\"#333\"");
  for (std::size_t b = 0; b < chart.bars.size(); ++b) {
    const double by = top + gap + static_cast<double>(b) * (bar_h + gap);
    out += text(left - 6, by + bar_h / 2 + 4, "tick", "end", chart.bars[b].label);
    out += range_bar(chart.bars[b], x, chart.centre, by, bar_h, chart.x.unit);
  }
  if (x.holds(chart.centre))
    out += marker(x.at(chart.centre), {chart.centre, chart.centre_label, kBlack}, 0, top - 16,
                  bottom, right);
  out += legend_svg;
  return out + close_svg(chart.note, height);
}

}  // namespace sonicsim::report::chart
