#!/usr/bin/env python3
"""Plot the ``timeseries`` block of a results JSON (``sonicsim run --set timeseries=true -o``):
device utilization, queue length, inferences/s, batch size, request latency p50/p99 and link
utilization against simulated time, one panel each, the warm-up shaded.

Examples:
  plot_timeseries.py run.json -o timeseries.pdf
  plot_timeseries.py run.json --panels utilization,latency --width 3.4 -o two.svg
"""

from __future__ import annotations

import math
import sys
from typing import Any, Callable, Sequence

import plot_common as pc
from sonicsim_io import read_timeseries

Doc = dict[str, Any]
Panel = Callable[[Any, Doc, list[float], dict[str, str]], str]


def _nan_where_zero(values: Sequence[float]) -> list[float]:
    """Per-model statistics are 0 in windows without an execution: leave those out."""
    return [v if v else math.nan for v in values]


def _pools(series: Doc) -> dict[str, list[Doc]]:
    pools: dict[str, list[Doc]] = {}
    for device in series["devices"]:
        pools.setdefault(str(device.get("pool", "?")), []).append(device)
    return pools


def panel_utilization(ax: Any, series: Doc, t: list[float], colours: dict[str, str]) -> str:
    """Mean utilization of each pool's devices, the band spanning the least and most busy."""
    for pool, devices in _pools(series).items():
        columns = list(zip(*(d["utilization"] for d in devices)))
        mean = [100 * sum(c) / len(c) for c in columns]
        ax.fill_between(t, [100 * min(c) for c in columns], [100 * max(c) for c in columns],
                        color=colours[pool], alpha=0.25, linewidth=0)
        ax.plot(t, mean, color=colours[pool], label=f"{pool} ({len(devices)} devices)")
    ax.set_ylim(0, 105)
    return "Device utilization (%)"


def panel_queue(ax: Any, series: Doc, t: list[float], colours: dict[str, str]) -> str:
    """Requests queued at each window's end, summed over each pool's devices."""
    for pool, devices in _pools(series).items():
        total = [sum(c) for c in zip(*(d["queue_length"] for d in devices))]
        ax.plot(t, total, color=colours[pool], label=pool)
    ax.set_ylim(bottom=0)
    return "Queued requests"


def _per_model(key: str, label: str, zero_is_missing: bool) -> Panel:
    def panel(ax: Any, series: Doc, t: list[float], colours: dict[str, str]) -> str:
        for model, data in series["models"].items():
            values = data.get(key, [])
            ax.plot(t, _nan_where_zero(values) if zero_is_missing else values,
                    color=colours[model], label=model)
        ax.set_ylim(bottom=0)
        return label
    panel.__doc__ = f"Per model: {key}."
    return panel


def panel_latency(ax: Any, series: Doc, t: list[float], colours: dict[str, str]) -> str:
    """Per model: request latency p50 (solid) and p99 (dashed)."""
    models = series["models"]
    values = [v for m in models.values() for k in ("latency_p50_s", "latency_p99_s")
              for v in m.get(k, [])]
    scale, unit = pc.scale_for(values, "s")
    for model, data in models.items():
        for key, style in (("latency_p50_s", "-"), ("latency_p99_s", "--")):
            ys = [v / scale for v in _nan_where_zero(data.get(key, []))]
            ax.plot(t, ys, color=colours[model], linestyle=style,
                    label=model if style == "-" else "_p99")
    for style, what in (("-", "p50"), ("--", "p99")):
        ax.plot([], [], color="#000000", linestyle=style, label=what)
    ax.set_ylim(0, 1.3 * ax.get_ylim()[1])   # room for the legend above the curves
    return f"Request latency ({unit})"


def panel_links(ax: Any, series: Doc, t: list[float], colours: dict[str, str]) -> str:
    """Utilization of each link (busier direction, per physical link)."""
    for link in series["links"]:
        name = str(link.get("name", "?"))
        ax.plot(t, [100 * v for v in link["utilization"]], color=colours[name], label=name)
    ax.set_ylim(bottom=0)
    return "Link utilization (%)"


def panel_events(ax: Any, series: Doc, t: list[float], colours: dict[str, str]) -> str:
    """Events completed per second, all threads."""
    ax.plot(t, series.get("events_per_s", []), color=pc.colour(0))
    ax.set_ylim(bottom=0)
    return "Throughput (events/s)"


PANELS: dict[str, Panel] = {
    "utilization": panel_utilization,
    "queue": panel_queue,
    "inferences": _per_model("inferences_per_s", "Inferences (1/s)", False),
    "batch": _per_model("mean_batch_size", "Mean batch size (items)", True),
    "latency": panel_latency,
    "links": panel_links,
    "events": panel_events,
}
DEFAULT_PANELS = ("utilization", "queue", "inferences", "batch", "latency", "links")


def _colours(series: Doc) -> dict[str, str]:
    """One colour per pool, model and link name, stable across panels."""
    names = list(_pools(series)) + list(series["models"]) + \
        [str(link.get("name", "?")) for link in series["links"]]
    colours: dict[str, str] = {}
    for name in names:
        colours.setdefault(name, pc.colour(len(colours)))
    return colours


def plot(doc: Doc, series: Doc, panels: Sequence[str], args: Any) -> Any:
    plt = pc.pyplot()
    ncols = 2 if args.width >= 5 and len(panels) > 1 else 1
    nrows = math.ceil(len(panels) / ncols)
    height = args.height or (0.3 + 1.6 * nrows)
    fig, axes = plt.subplots(nrows, ncols, sharex=True, figsize=(args.width, height),
                             squeeze=False, constrained_layout=True)
    t_s = series["t_s"]
    minutes = t_s[-1] > 1200
    t = [v / 60 for v in t_s] if minutes else list(t_s)
    warmup = float(doc.get("warmup_s", 0) or 0) / (60 if minutes else 1)
    colours = _colours(series)
    flat = [ax for row in axes for ax in row]
    in_a_legend: set[str] = set()   # each model, pool, link named in one legend only
    for ax, name in zip(flat, panels):
        if warmup > 0:
            ax.axvspan(0, warmup, color="#000000", alpha=0.08, linewidth=0, label="_warm-up")
        ax.set_ylabel(PANELS[name](ax, series, t, colours))
        handles, labels = ax.get_legend_handles_labels()
        keep = [(h, lab) for h, lab in zip(handles, labels) if lab not in in_a_legend]
        if keep:
            ax.legend(*zip(*keep), loc="best", ncol=2 if len(keep) > 3 else 1)
            in_a_legend.update(lab for _, lab in keep if lab not in ("p50", "p99"))
        ax.set_xlim(0, t[-1])
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(f"Simulated time ({'min' if minutes else 's'})")
        ax.xaxis.set_tick_params(labelbottom=True)
    if len(panels) % ncols and nrows > 1:   # an empty cell: label the axis above it
        flat[len(panels) - ncols].set_xlabel(axes[-1][0].get_xlabel())
        flat[len(panels) - ncols].xaxis.set_tick_params(labelbottom=True)
    if warmup > 0:
        flat[0].annotate("warm-up", xy=(warmup / 2, 0.02), xycoords=("data", "axes fraction"),
                         ha="center", va="bottom", fontsize=6, color="#555555")
    return fig


def main(argv: Sequence[str] | None) -> None:
    p = pc.parser(__doc__.split("\n\n")[0], pc.TEXT_WIDTH_IN, None)
    p.add_argument("results", metavar="RESULTS.json",
                   help="results of `sonicsim run --set timeseries=true -o RESULTS.json`")
    p.add_argument("--panels", default=",".join(DEFAULT_PANELS), metavar="LIST",
                   help="comma-separated panels, in order, from: " + ", ".join(PANELS)
                        + f" (default: {','.join(DEFAULT_PANELS)}); two columns when "
                        "--width >= 5 in")
    args = p.parse_args(argv)
    pc.output_format(args.output)
    panels = pc.panel_list(p, args.panels, list(PANELS))
    doc, series = read_timeseries(args.results)
    fig = plot(doc, series, panels, args)
    pc.save(fig, args.output, args.title)


if __name__ == "__main__":
    sys.exit(pc.main_wrapper(main)())
