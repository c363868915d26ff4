#!/usr/bin/env python3
"""Plot ``sonicsim compare``'s table: the measured points (with their standard deviation)
against the simulation, the SONIC formula and exact MVA, and below it each one's error in
percent, the 5% band of the TRUST verdict shaded.

Input: the CSV of ``compare --csv`` or the JSON report of ``compare -o`` (which also names the
metric, used for the y label).

Examples:
  plot_compare.py compare.json -o compare.pdf
  plot_compare.py compare.csv --ylabel "Throughput per job (events/s)" --xlabel Jobs -o c.svg
"""

from __future__ import annotations

import sys
from typing import Any, Sequence

import plot_common as pc
from sonicsim_io import Comparison, read_compare

#: Predictions, their legend names and line styles.
PREDICTIONS = (("simulated", "simulation", pc.SIMULATION_STYLE),
               ("formula", "SONIC formula", pc.FORMULA_STYLE),
               ("mva", "MVA", pc.MVA_STYLE))
#: MAPE of the TRUST verdict (docs/validation.md, "Validating against measurements").
TRUST_PERCENT = 5.0


def _y_label(table: Comparison) -> str:
    if not table.metric:
        return "Measured metric"
    return pc.metric_label("events." + table.metric)


def _x_label(table: Comparison) -> str:
    for key in (table.x_name, "workload." + table.x_name):
        if key in pc.LABELS:
            return pc.LABELS[key]
    return table.x_name


def plot(table: Comparison, args: Any) -> Any:
    plt = pc.pyplot()
    panels = 1 if args.no_errors else 2
    height = args.height or (0.5 + 1.9 + (1.2 if panels == 2 else 0))
    fig, axes = plt.subplots(panels, 1, sharex=True, figsize=(args.width, height),
                             squeeze=False, constrained_layout=True,
                             gridspec_kw={"height_ratios": [1.6, 1.0][:panels]})
    ax = axes[0, 0]
    order = sorted(range(len(table.x)), key=lambda i: table.x[i])
    x = [table.x[i] for i in order]

    def column(name: str) -> list[float]:
        values = table.columns.get(name)
        return [values[i] for i in order] if values else []

    stddev = column("measured_stddev") or None
    ax.errorbar(x, column("measured"), yerr=stddev, color="#000000", marker="o", markersize=3,
                linestyle="none", capsize=2, elinewidth=0.8, label="measured", zorder=3)
    for k, (name, label, style) in enumerate(PREDICTIONS):
        if column(name):
            ax.plot(x, column(name), color=pc.colour(k), label=label, **style)
    ax.set_ylabel(args.ylabel or _y_label(table))
    ax.set_ylim(bottom=0)
    ax.legend(loc="best")
    if panels == 2:
        err = axes[1, 0]
        err.axhspan(-TRUST_PERCENT, TRUST_PERCENT, color="#000000", alpha=0.08, linewidth=0)
        err.axhline(0, color="#000000", linewidth=0.6)
        for k, (name, _, style) in enumerate(PREDICTIONS):
            values = column(f"{name}_error_percent")
            if values:
                err.plot(x, values, color=pc.colour(k), **style)
        err.set_ylabel("Error (%)")
    axes[-1, 0].set_xlabel(args.xlabel or _x_label(table))
    return fig


def main(argv: Sequence[str] | None) -> None:
    p = pc.parser(__doc__.split("\n\n")[0], pc.COLUMN_WIDTH_IN, None)
    p.add_argument("table", metavar="COMPARE.csv|COMPARE.json",
                   help="`sonicsim compare ... --csv FILE` or `-o FILE`")
    p.add_argument("--xlabel", default=None, help="x axis label (default: the x column)")
    p.add_argument("--ylabel", default=None,
                   help="y axis label (default: from the JSON report's metric)")
    p.add_argument("--no-errors", action="store_true", help="leave out the error panel")
    args = p.parse_args(argv)
    pc.output_format(args.output)
    table = read_compare(args.table)
    pc.save(plot(table, args), args.output, args.title)


if __name__ == "__main__":
    sys.exit(pc.main_wrapper(main)())
