#!/usr/bin/env python3
"""Plot one or more results JSON files of ``sonicsim run -o``: request latency percentiles per
model, and where the time of an event goes (CPU work, network and overheads, queueing in
Triton, GPU compute), one row per file for what-if comparisons.

The breakdown of an event (synchronous mode: the thread waits for each response) is
  CPU        (1 - p) t_CPU                                   analytic.t_cpu_s, analytic.p
  queue      sum over models of n_req x mean queue time     models.M.queue_time_s.mean
  compute    sum over models of n_req x mean execution      models.M.compute_time_s.mean
  network    sum over models of n_req x (latency - queue - compute)   models.M.latency_s.mean
  other      measured time per event minus the above        events.time_per_event_s.mean
with n_req = analytic.per_model.M.requests_per_event. The mean execution is averaged over
executions, not requests, so "compute" is approximate when batch sizes vary.

Examples:
  plot_run.py run.json -o run.pdf
  plot_run.py base.json more-gpus.json --label base --label "+2 GPUs" --panels breakdown -o b.svg
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Sequence

import plot_common as pc
from sonicsim_io import InputError, read_results, results_value

PERCENTILES = (("p50", "o", "median"), ("p90", "^", "p90"), ("p99", "s", "p99"))
ALL_REQUESTS = "all requests"
SEGMENTS = ("CPU", "network", "queue", "compute", "other")
PANEL_NAMES = ("latency", "breakdown")


@dataclass
class Run:
    """What the plots need from one results file."""

    label: str
    #: Row name ("all requests" or a model) -> percentile key -> seconds.
    latency: dict[str, dict[str, float]]
    #: Segment name -> seconds per event.
    breakdown: dict[str, float]
    time_per_event_s: float
    mode: str


def load_run(path: str, label: str) -> Run:
    """Read a results file and derive the latency table and the breakdown of an event."""
    doc = read_results(path, required=("events", "requests", "models", "analytic"))

    def value(dotted: str) -> float:
        v = results_value(doc, path, dotted)
        if not isinstance(v, (int, float)):
            raise InputError(path, f"'{dotted}' is not a number")
        return float(v)

    latency = {ALL_REQUESTS: {k: value(f"requests.latency_s.{k}") for k, _, _ in PERCENTILES}}
    segments = dict.fromkeys(SEGMENTS, 0.0)
    segments["CPU"] = value("analytic.t_cpu_s") * (1 - value("analytic.p"))
    for model in doc["models"]:
        latency[model] = {k: value(f"models.{model}.latency_s.{k}") for k, _, _ in PERCENTILES}
        n = float(results_value(doc, path, f"analytic.per_model.{model}.requests_per_event", 0))
        if not n or not value(f"models.{model}.requests"):
            continue
        queue = value(f"models.{model}.queue_time_s.mean")
        compute = value(f"models.{model}.compute_time_s.mean")
        segments["queue"] += n * queue
        segments["compute"] += n * compute
        mean_latency = value(f"models.{model}.latency_s.mean")
        segments["network"] += n * max(0.0, mean_latency - queue - compute)
    total = value("events.time_per_event_s.mean")
    segments["other"] = total - sum(segments.values())
    mode = str(results_value(doc, path, "analytic.mode", "sync"))
    if mode != "sync":
        print(f"warning: {path}: mode {mode}: requests overlap the CPU work, the parts need not "
              "add up to the time per event", file=sys.stderr)
    elif segments["other"] < -0.05 * total:
        print(f"warning: {path}: the parts exceed the time per event by "
              f"{-segments['other']:.3g} s (mean execution time weighted by executions)",
              file=sys.stderr)
    segments["other"] = max(0.0, segments["other"])
    return Run(label, latency, segments, total, mode)


def panel_latency(ax: Any, runs: Sequence[Run]) -> None:
    """Percentile markers per model (rows), one colour per file; log time axis."""
    from matplotlib.lines import Line2D
    rows = list(dict.fromkeys(name for run in runs for name in run.latency))
    values = [v for run in runs for row in run.latency.values() for v in row.values()]
    scale, unit = pc.scale_for(values, "s")
    height = 0.7 / len(runs)
    for j, run in enumerate(runs):
        for i, row in enumerate(rows):
            if row not in run.latency:
                continue
            y = i + (j - (len(runs) - 1) / 2) * height
            xs = [run.latency[row][k] / scale for k, _, _ in PERCENTILES]
            ax.plot([min(xs), max(xs)], [y, y], color=pc.colour(j), linewidth=0.8)
            for x, (_, marker, _) in zip(xs, PERCENTILES):
                ax.plot([x], [y], color=pc.colour(j), marker=marker, markersize=3.5,
                        linestyle="none")
    ax.set_yticks(range(len(rows)), rows)
    ax.invert_yaxis()
    pc.log_axis(ax.xaxis)
    ax.set_xlabel(f"Request latency ({unit})")
    ax.grid(axis="y", visible=False)
    handles = [Line2D([], [], color="#000000", marker=m, linestyle="none", markersize=3.5,
                      label=text) for _, m, text in PERCENTILES]
    if len(runs) > 1:
        handles += [Line2D([], [], color=pc.colour(j), label=run.label)
                    for j, run in enumerate(runs)]
    ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0),
              ncol=len(handles) if len(handles) <= 4 else 3, handletextpad=0.3)


def panel_breakdown(ax: Any, runs: Sequence[Run], cpu: str) -> None:
    """One stacked horizontal bar per file: the parts of the mean time per event. With
    cpu "hide" (or "auto" and CPU work above 80% of every event) the CPU part is left out and
    its value written beside the file's label, so that the remote parts can be seen."""
    hide = cpu == "hide" or (cpu == "auto" and all(
        r.breakdown["CPU"] > 0.8 * r.time_per_event_s for r in runs))
    shown = SEGMENTS[1:] if hide else SEGMENTS
    totals = [sum(r.breakdown[s] for s in shown) for r in runs]
    scale, unit = pc.scale_for(totals, "s")
    for k, segment in enumerate(shown):
        widths = [r.breakdown[segment] / scale for r in runs]
        lefts = [sum(r.breakdown[s] for s in shown[:k]) / scale for r in runs]
        ax.barh(range(len(runs)), widths, left=lefts, height=0.6,
                color=pc.colour(SEGMENTS.index(segment)), label=segment, linewidth=0)
    labels = [r.label for r in runs]
    if hide:
        cpu_scale, cpu_unit = pc.scale_for([r.breakdown["CPU"] for r in runs], "s")
        labels = [f"{r.label}\n(+ CPU {r.breakdown['CPU'] / cpu_scale:.3g} {cpu_unit})"
                  for r in runs]
    ax.set_yticks(range(len(runs)), labels)
    ax.invert_yaxis()
    what = "Remote time per event" if hide else "Time per event"
    ax.set_xlabel(f"{what} ({unit})")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(shown),
              handlelength=1.0, columnspacing=0.8, handletextpad=0.3)


def print_breakdown(runs: Sequence[Run]) -> None:
    """The breakdown as a table on stdout (seconds per event)."""
    print("run\t" + "\t".join(SEGMENTS) + "\ttime_per_event_s")
    for r in runs:
        print(r.label + "\t" + "\t".join(f"{r.breakdown[s]:.6g}" for s in SEGMENTS)
              + f"\t{r.time_per_event_s:.6g}")


def main(argv: Sequence[str] | None) -> None:
    p = pc.parser(__doc__.split("\n\n")[0], pc.COLUMN_WIDTH_IN, None)
    p.add_argument("results", nargs="+", metavar="RESULTS.json",
                   help="results of `sonicsim run -o`")
    p.add_argument("--label", action="append", default=[], metavar="TEXT",
                   help="label of each file, in order (default: the file names)")
    p.add_argument("--panels", default=",".join(PANEL_NAMES), metavar="LIST",
                   help="comma-separated: latency, breakdown (default: both)")
    p.add_argument("--cpu", choices=("auto", "show", "hide"), default="auto",
                   help="the CPU part of the breakdown: hide it (its value is written by the "
                        "label) to see the remote parts; auto hides it when it is over 80%% "
                        "of every event (default auto)")
    args = p.parse_args(argv)
    pc.output_format(args.output)
    panels = pc.panel_list(p, args.panels, PANEL_NAMES)
    labels = pc.file_labels(p, args.results, args.label)
    runs = [load_run(f, label) for f, label in zip(args.results, labels)]
    print_breakdown(runs)
    plt = pc.pyplot()
    rows = {"latency": 0.35 + 0.28 * (1 + max(len(r.latency) for r in runs)),
            "breakdown": 0.75 + 0.35 * len(runs)}
    height = args.height or (0.5 + sum(rows[name] for name in panels))
    fig, axes = plt.subplots(len(panels), 1, figsize=(args.width, height), squeeze=False,
                             gridspec_kw={"height_ratios": [rows[n] for n in panels]},
                             constrained_layout=True)
    for ax, name in zip(axes[:, 0], panels):
        if name == "latency":
            panel_latency(ax, runs)
        else:
            panel_breakdown(ax, runs, args.cpu)
    pc.save(fig, args.output, args.title)


if __name__ == "__main__":
    sys.exit(pc.main_wrapper(main)())
