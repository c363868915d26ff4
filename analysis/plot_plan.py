#!/usr/bin/env python3
"""Plot how ``sonicsim plan`` found its answer (``plan -o plan.json``, docs/plan.md): every value
simulated with its metric's mean and 95% confidence interval (filled: meets the constraint,
open: misses it), the constraint's threshold, the answer and the formula's and MVA's answers.

Examples:
  plot_plan.py plan.json -o plan.pdf
  plot_plan.py bandwidth-plan.json --logx -o bw.svg
"""

from __future__ import annotations

import math
import sys
from typing import Any, Sequence

import plot_common as pc
from sonicsim_io import Plan, read_plan

#: Labels of the varied paths' axes when the question implies them.
VARY_LABELS = {"min-devices": "Devices", "max-cpu": "Jobs", "cost": "Jobs"}


def _x_axis(plan: Plan) -> tuple[float, str]:
    """(factor applied to values, axis label). Bandwidths (bytes/s in the file) in bit/s."""
    if plan.question == "min-bandwidth":
        factor = 8.0
        scale, unit = pc.scale_for([v * factor for v in plan.values], "bit/s")
        return factor / scale, f"{plan.link or 'link'} bandwidth ({unit})"
    label = VARY_LABELS.get(plan.question, "")
    label = pc.LABELS.get(plan.vary, label or plan.vary)
    return 1.0, label


def plot(plan: Plan, args: Any) -> Any:
    plt = pc.pyplot()
    from matplotlib.lines import Line2D
    height = args.height or 2.4
    fig, ax = plt.subplots(figsize=(args.width, height), constrained_layout=True)
    x_factor, x_label = _x_axis(plan)
    metric_unit = "" if plan.question == "cost" else pc.metric_unit(plan.metric)
    y_scale, y_unit = pc.scale_for(plan.means + [plan.threshold], metric_unit)
    colour = pc.colour(0)
    for value, mean, ci, ok in zip(plan.values, plan.means, plan.ci95, plan.ok):
        ax.errorbar([value * x_factor], [mean / y_scale],
                    yerr=None if math.isnan(ci) else [ci / y_scale], color=colour, marker="o",
                    markersize=4, capsize=2, elinewidth=0.8, linestyle="none",
                    markerfacecolor=colour if ok else "white")
    handles = [Line2D([], [], color=colour, marker="o", markersize=4, linestyle="none",
                      label="meets"),
               Line2D([], [], color=colour, marker="o", markersize=4, linestyle="none",
                      markerfacecolor="white", label="misses")]
    if math.isfinite(plan.threshold):
        ax.axhline(plan.threshold / y_scale, color="#000000", linewidth=0.8)
        handles.append(Line2D([], [], color="#000000", linewidth=0.8, label="constraint"))
    for value, label, style, k in ((plan.answer, "answer", "-", 1),
                                   (plan.formula, "formula's answer", "--", 2),
                                   (plan.mva, "MVA's answer", ":", 3)):
        if value is not None and math.isfinite(value):
            ax.axvline(value * x_factor, color=pc.colour(k), linestyle=style, linewidth=1.0)
            handles.append(Line2D([], [], color=pc.colour(k), linestyle=style, label=label))
    if args.logx or plan.question == "min-bandwidth":
        pc.log_axis(ax.xaxis)
    ax.set_xlabel(x_label)
    y_label = "Cost per million events" if plan.question == "cost" else \
        pc.LABELS.get(plan.metric, plan.metric)
    ax.set_ylabel(f"{y_label} ({y_unit})" if y_unit else y_label)
    ax.legend(handles=handles, loc="best")
    return fig


def main(argv: Sequence[str] | None) -> None:
    p = pc.parser(__doc__.split("\n\n")[0], pc.COLUMN_WIDTH_IN, None)
    p.add_argument("plan", metavar="PLAN.json", help="`sonicsim plan ... -o PLAN.json`")
    p.add_argument("--logx", action="store_true",
                   help="logarithmic x axis (always for min-bandwidth)")
    args = p.parse_args(argv)
    pc.output_format(args.output)
    plan = read_plan(args.plan)
    pc.save(plot(plan, args), args.output, args.title)


if __name__ == "__main__":
    sys.exit(pc.main_wrapper(main)())
