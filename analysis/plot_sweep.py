#!/usr/bin/env python3
"""Plot the CSV of ``sonicsim sweep``: throughput and time per event (or any --metric) against a
swept parameter, the simulation's mean with its 95% confidence band, the SONIC formula and exact
MVA overlaid from the ``analytic.*`` columns, and the formula's knee marked.

Several CSVs are overlaid (what-if comparisons, one colour each); in a sweep over several
parameters, every value of the other parameters is its own line.

Examples (inputs: ``sonicsim sweep ... -o knee.csv``, see analysis/README.md):
  plot_sweep.py knee.csv -o knee.pdf
  plot_sweep.py base.csv faster-gpu.csv --label base --label "faster GPU" -o whatif.pdf
  plot_sweep.py grid.csv --per-device -o collapse.pdf     # x = N_CPU/N_GPU, rates per device
  plot_sweep.py knee.csv --metric requests.latency_s.p99 --metric servers.0.utilization -o l.svg
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

import plot_common as pc
from sonicsim_io import InputError, Sweep, parse_quantity, read_sweep

DEFAULT_METRICS = ("events.throughput_per_s", "events.thread_time_per_event_s")
#: Derived x axes (from the analytic columns) besides the swept parameters.
N_CPU = "n_cpu"
N_CPU_PER_GPU = "n_cpu_per_gpu"
#: Per simulated metric: the formula's and MVA's prediction of the same quantity.
ANALYTIC = {
    "events.throughput_per_s": ("analytic.throughput_per_s", "analytic.mva.throughput_per_s"),
    "events.thread_time_per_event_s": ("analytic.t_sonic_s", "analytic.mva.time_per_event_s"),
    "events.time_per_event_s.mean": ("analytic.t_sonic_s", "analytic.mva.time_per_event_s"),
}
KNEE = "analytic.saturation_n_cpu_per_gpu"
KNEE_STYLE = {"linestyle": "-.", "linewidth": 0.7, "alpha": 0.8}
_UNIT_OF_KIND = {"time": "s", "bandwidth": "bit/s", "bytes": "B", "": ""}


@dataclass
class Series:
    """One line: the points of one CSV at one value of the parameters that are not on x."""

    label: str
    sweep: Sweep
    rows: list[int]                 # row indices into sweep.rows, sorted by x
    x: list[float] = field(default_factory=list)

    def values(self, column: str, per_device: bool = False) -> list[float]:
        """A mean column at this series' rows (divided by N_GPU when per_device)."""
        data = self.sweep.mean(column)
        out = [data[i] for i in self.rows]
        return self._per_device(out) if per_device else out

    def ci(self, metric: str, per_device: bool = False) -> list[float]:
        data = self.sweep.ci95(metric)
        out = [data[i] for i in self.rows]
        return self._per_device(out) if per_device else out

    def _per_device(self, values: list[float]) -> list[float]:
        n_gpu = self.sweep.mean("analytic.n_gpu")
        return [v / n_gpu[i] if n_gpu[i] else math.nan for v, i in zip(values, self.rows)]


def _x_values(sweep: Sweep, x: str) -> tuple[list[str] | list[float], str]:
    """Raw x values of every row of a sweep, and the name used for the axis label."""
    if x == N_CPU:
        return sweep.mean("analytic.n_cpu"), x
    if x == N_CPU_PER_GPU:
        n_cpu, n_gpu = sweep.mean("analytic.n_cpu"), sweep.mean("analytic.n_gpu")
        return [c / g if g else math.nan for c, g in zip(n_cpu, n_gpu)], x
    return sweep.param(x), x.removeprefix("param.")


def _choose_x(sweep: Sweep, requested: str | None, per_device: bool) -> str:
    if requested:
        return requested
    if per_device:
        return N_CPU_PER_GPU
    if not sweep.params:
        raise InputError(sweep.path, "no swept parameter (a one-point sweep): give --x n_cpu")
    return sweep.params[0]


def _group_params(sweep: Sweep, x: str) -> list[str]:
    """The parameters that make separate lines: all but x (all but the first for a derived x,
    whose first parameter is normally the load)."""
    x_path = x.removeprefix("param.")
    if x_path in sweep.params:
        return [p for p in sweep.params if p != x_path]
    return sweep.params[1:]


def _param_text(path: str, value: str) -> str:
    return f"{pc.LABELS.get(path, path)} = {value}"


def build_series(sweeps: Sequence[Sweep], labels: Sequence[str], x: str | None,
                 per_device: bool) -> tuple[list[Series], str, str, list[str]]:
    """Split the sweeps into lines; returns them with numeric x, the x name, its unit
    ("category" when x values are not numbers) and the category names."""
    series: list[Series] = []
    raw: list[list[Any]] = []
    x_name = ""
    for sweep, label in zip(sweeps, labels):
        x_key = _choose_x(sweep, x, per_device)
        values, name = _x_values(sweep, x_key)
        x_name = x_name or name
        groups: dict[tuple[str, ...], list[int]] = {}
        others = _group_params(sweep, x_key)
        columns = [sweep.param(p) for p in others]
        for i in range(len(sweep.rows)):
            groups.setdefault(tuple(c[i] for c in columns), []).append(i)
        for key, rows in groups.items():
            parts = ([label] if len(sweeps) > 1 else []) + \
                [_param_text(p, v) for p, v in zip(others, key)]
            series.append(Series(", ".join(parts) or "simulation", sweep, rows))
            raw.append([values[i] for i in rows])
    unit, categories = _numeric_x(series, raw)
    return series, x_name, unit, categories


def _numeric_x(series: list[Series], raw: list[list[Any]]) -> tuple[str, list[str]]:
    """Fill every series' x as numbers, sorted; strings with units become SI values, and values
    that are not numbers become categories 0, 1, ... (first appearance). Returns the x unit
    ("category" for categorical x) and the categories."""
    kinds: set[str] = set()
    parsed: list[list[float]] = []
    categorical = False
    for values in raw:
        numbers = []
        for v in values:
            if isinstance(v, float):
                numbers.append(v)
                continue
            q = parse_quantity(v)
            if q is None:
                categorical = True
                break
            numbers.append(q[0])
            kinds.add(q[1])
        parsed.append(numbers)
    if categorical or len(kinds) > 1:
        order: dict[str, int] = {}
        for values in raw:
            for v in values:
                order.setdefault(str(v), len(order))
        parsed = [[float(order[str(v)]) for v in values] for values in raw]
    for s, xs in zip(series, parsed):
        ranked = sorted(zip(xs, s.rows))
        s.x = [p[0] for p in ranked]
        s.rows = [p[1] for p in ranked]
    if categorical or len(kinds) > 1:
        return "category", list(order)
    return (_UNIT_OF_KIND[kinds.pop()] if kinds else ""), []


def knee_x(s: Series, x_name: str) -> float | None:
    """Where the formula's knee (N_CPU/N_GPU = t_ideal/t_GPU) lies on this series' x axis:
    directly for x = N_CPU/N_GPU, else by linear interpolation where the points' N_CPU/N_GPU
    crosses it. None when the sweep has no knee column or the knee is outside the range."""
    if not all(s.sweep.has(c) for c in (KNEE, "analytic.n_cpu", "analytic.n_gpu")):
        return None
    knee = s.values(KNEE)
    if x_name == N_CPU_PER_GPU:
        k = knee[0]
        return k if math.isfinite(k) and min(s.x) <= k <= max(s.x) else None
    ratio = s.values("analytic.n_cpu", per_device=True)
    gap = [r - k for r, k in zip(ratio, knee)]
    for i in range(len(gap) - 1):
        a, b = gap[i], gap[i + 1]
        if not (math.isfinite(a) and math.isfinite(b)):
            continue
        if a == 0:
            return s.x[i]
        if a * b < 0:
            return s.x[i] + (s.x[i + 1] - s.x[i]) * a / (a - b)
    return s.x[-1] if gap and gap[-1] == 0 else None


def _metric_axis_label(metric: str, unit: str, per_device: bool) -> str:
    if per_device:
        unit += "/device"
    return pc.metric_label(metric, unit)


def plot(series: list[Series], metrics: Sequence[str], x_name: str, x_unit: str,
         categories: Sequence[str], args: Any) -> Any:
    """Draw one panel per metric; returns the figure."""
    plt = pc.pyplot()
    from matplotlib.lines import Line2D
    height = args.height or (0.4 + 1.9 * len(metrics))
    fig, axes = plt.subplots(len(metrics), 1, sharex=True, figsize=(args.width, height),
                             squeeze=False)
    x_scale, x_unit_shown = pc.scale_for([v for s in series for v in s.x], x_unit)
    knees = [None if args.no_knee or x_unit == "category" else knee_x(s, x_name)
             for s in series]
    drew = {"formula": False, "mva": False, "knee": False}
    for ax, metric in zip(axes[:, 0], metrics):
        rate = args.per_device and pc.metric_unit(metric).endswith("/s")
        unit = pc.metric_unit(metric)
        all_values = [v for s in series for v in s.values(metric, rate)]
        y_scale, y_unit = pc.scale_for(all_values, unit)
        for i, s in enumerate(series):
            colour = pc.colour(i)
            xs = [v / x_scale for v in s.x]
            mean = [v / y_scale for v in s.values(metric, rate)]
            ci = [v / y_scale for v in s.ci(metric, rate)]
            ax.fill_between(xs, [m - c for m, c in zip(mean, ci)],
                            [m + c for m, c in zip(mean, ci)], color=colour, alpha=0.25,
                            linewidth=0)
            ax.plot(xs, mean, color=colour, **pc.SIMULATION_STYLE)
            if not args.no_analytic and metric in ANALYTIC:
                for kind, column, style in zip(("formula", "mva"), ANALYTIC[metric],
                                               (pc.FORMULA_STYLE, pc.MVA_STYLE)):
                    if s.sweep.has(column):
                        ys = [v / y_scale for v in s.values(column, rate)]
                        ax.plot(xs, ys, color=colour, **style)
                        drew[kind] = True
            if knees[i] is not None:
                ax.axvline(knees[i] / x_scale, color=colour, **KNEE_STYLE)
                drew["knee"] = True
        ax.set_ylabel(_metric_axis_label(metric, y_unit, rate))
        if args.logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=min(0.0, ax.get_ylim()[0]))
    bottom = axes[-1, 0]
    if x_unit == "category":
        bottom.set_xticks(range(len(categories)), categories)
        x_unit_shown = ""
    bottom.set_xlabel(pc.metric_label(x_name, x_unit_shown))
    if args.logx:
        bottom.set_xscale("log")
    handles = []
    if len(series) > 1:
        handles += [Line2D([], [], color=pc.colour(i), label=s.label)
                    for i, s in enumerate(series)]
    black = "#000000"
    handles.append(Line2D([], [], color=black, label="simulation (95% CI)",
                          **pc.SIMULATION_STYLE))
    if drew["formula"]:
        handles.append(Line2D([], [], color=black, label="SONIC formula", **pc.FORMULA_STYLE))
    if drew["mva"]:
        handles.append(Line2D([], [], color=black, label="MVA", **pc.MVA_STYLE))
    if drew["knee"]:
        handles.append(Line2D([], [], color=black, label="knee (formula)", **KNEE_STYLE))
    if args.legend == "outside":
        axes[0, 0].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    elif args.legend == "best":
        axes[0, 0].legend(handles=handles, loc="best")
    fig.align_ylabels(axes[:, 0])
    return fig


def main(argv: Sequence[str] | None) -> None:
    p = pc.parser(__doc__.split("\n\n")[0], pc.COLUMN_WIDTH_IN, None)
    p.add_argument("csv", nargs="+", metavar="SWEEP.csv", help="CSV of `sonicsim sweep`")
    p.add_argument("--label", action="append", default=[], metavar="TEXT",
                   help="legend label of each CSV, in order (default: the file names)")
    p.add_argument("--x", default=None, metavar="PARAM",
                   help="x axis: a swept parameter path (default: the first), "
                        f"'{N_CPU}' or '{N_CPU_PER_GPU}' (from the analytic columns)")
    p.add_argument("--metric", action="append", default=[], metavar="NAME",
                   help="results key to plot, one panel each (repeatable; default: "
                        + " and ".join(DEFAULT_METRICS) + ")")
    p.add_argument("--per-device", action="store_true",
                   help="rates per device (divided by N_GPU) against N_CPU/N_GPU unless --x "
                        "is given: sweeps over the device count collapse onto one curve")
    p.add_argument("--no-analytic", action="store_true", help="leave out formula and MVA")
    p.add_argument("--no-knee", action="store_true", help="do not mark the knee")
    p.add_argument("--logx", action="store_true", help="logarithmic x axis")
    p.add_argument("--logy", action="store_true", help="logarithmic y axes")
    p.add_argument("--legend", choices=("best", "outside", "none"), default="best",
                   help="legend placement (default best; outside: right of the top panel)")
    args = p.parse_args(argv)
    pc.output_format(args.output)
    labels = pc.file_labels(p, args.csv, args.label)
    sweeps = [read_sweep(f) for f in args.csv]
    metrics = args.metric or list(DEFAULT_METRICS)
    for sweep in sweeps:
        for metric in metrics:
            sweep.require(metric)
        if args.per_device or args.x in (N_CPU, N_CPU_PER_GPU):
            sweep.require("analytic.n_cpu")
            sweep.require("analytic.n_gpu")
        if sweep.failed:
            point, error = sweep.failures[0]
            print(f"warning: {sweep.path}: {sweep.failed} failed point(s) left out "
                  f"(point {point}: {error})", file=sys.stderr)
    series, x_name, x_unit, categories = build_series(sweeps, labels, args.x, args.per_device)
    fig = plot(series, metrics, x_name, x_unit, categories, args)
    pc.save(fig, args.output, args.title)


if __name__ == "__main__":
    sys.exit(pc.main_wrapper(main)())
