"""Shared plumbing of the plotting scripts: the one place where the matplotlib style, the
palette, figure sizes, labels with units, the command-line options every script has and the
deterministic saving are defined.

matplotlib is imported lazily (:func:`pyplot`), after the inputs have been read, so that bad
input gives exit code 2 and its message even where matplotlib is not installed.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any, Callable, Sequence

from sonicsim_io import EXIT_BAD_INPUT, InputError

#: Exit code when python3-matplotlib is not installed.
EXIT_NO_MATPLOTLIB = 3

#: Okabe & Ito's colour-blind-safe palette, ordered for contrast on white (yellow last).
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#56B4E9", "#CC79A7", "#000000",
             "#F0E442")
#: Line styles of the three kinds of curve in the sweep and compare plots.
SIMULATION_STYLE = {"linestyle": "-", "marker": "o", "markersize": 3}
FORMULA_STYLE = {"linestyle": "--", "linewidth": 1.0}
MVA_STYLE = {"linestyle": ":", "linewidth": 1.2}

#: Single column of a two-column paper (inches), and the full text width.
COLUMN_WIDTH_IN = 3.4
TEXT_WIDTH_IN = 7.0

_STYLE: dict[str, Any] = {
    "font.size": 8,
    "axes.labelsize": 8,
    "axes.titlesize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.2,
    "axes.linewidth": 0.6,
    "axes.grid": True,
    "grid.linewidth": 0.4,
    "grid.alpha": 0.35,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "figure.dpi": 150,
    "savefig.dpi": 300,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.02,
    "pdf.fonttype": 42,        # TrueType in PDFs (journals reject Type 3)
    "ps.fonttype": 42,
    "svg.fonttype": "none",    # text stays text in SVGs (editable, searchable)
    "svg.hashsalt": "sonicsim",  # deterministic element ids
    "path.simplify": True,
}

_FORMATS = ("pdf", "png", "svg")
# Metadata that would make two runs differ (dates, tool versions).
_NO_DATES: dict[str, dict[str, Any]] = {
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
    "svg": {"Date": None, "Creator": None},
    "png": {"Software": None},
}


def pyplot() -> Any:
    """matplotlib.pyplot with the house style applied (non-interactive Agg backend).

    Exits with EXIT_NO_MATPLOTLIB and an installation hint when matplotlib is absent."""
    try:
        import matplotlib
    except ImportError:
        print("error: matplotlib is not installed (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        sys.exit(EXIT_NO_MATPLOTLIB)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from cycler import cycler
    plt.rcdefaults()
    plt.rcParams.update(_STYLE)
    plt.rcParams["axes.prop_cycle"] = cycler(color=list(OKABE_ITO))
    return plt


def colour(i: int) -> str:
    """The i-th colour of the palette (cycling)."""
    return OKABE_ITO[i % len(OKABE_ITO)]


# ---- command line ---------------------------------------------------------------------------

def parser(description: str, default_width: float,
           default_height: float | None) -> argparse.ArgumentParser:
    """An ArgumentParser with the options every script has: -o, --width, --height, --title.
    A default_height of None means "from the number of panels"."""
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", required=True, metavar="FIG",
                   help="output file; the format follows the extension: .pdf (vector, the "
                        "default for papers), .svg or .png (300 dpi)")
    p.add_argument("--width", type=float, default=default_width, metavar="IN",
                   help=f"figure width in inches (default {default_width}; "
                        f"{COLUMN_WIDTH_IN} is one column of a two-column paper)")
    p.add_argument("--height", type=float, default=default_height, metavar="IN",
                   help="figure height in inches (default: "
                        + (f"{default_height})" if default_height else "grows with the panels)"))
    p.add_argument("--title", default=None, help="figure title (default: none)")
    return p


def file_labels(p: argparse.ArgumentParser, files: Sequence[str],
                labels: Sequence[str]) -> list[str]:
    """The legend labels of input files: ``--label`` given once per file, or the file names
    without extension; a parser error when the counts differ."""
    if labels and len(labels) != len(files):
        p.error(f"--label given {len(labels)} times for {len(files)} input files")
    return list(labels) or [os.path.splitext(os.path.basename(f))[0] for f in files]


def panel_list(p: argparse.ArgumentParser, text: str, choices: Sequence[str]) -> list[str]:
    """The comma-separated ``--panels`` value as a list; a parser error for unknown names."""
    panels = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in panels if name not in choices]
    if unknown or not panels:
        p.error(f"--panels: unknown {', '.join(unknown) or '(empty)'}; "
                f"choose from {', '.join(choices)}")
    return panels


def output_format(path: str) -> str:
    """The format of an output path from its extension; InputError when unsupported."""
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in _FORMATS:
        raise InputError(path, f"unsupported output format '{ext or '(none)'}' "
                               f"(use .{', .'.join(_FORMATS)})")
    return ext


def save(fig: Any, path: str, title: str | None) -> None:
    """Save the figure deterministically (no dates in the metadata) and close it."""
    fmt = output_format(path)
    if title:
        fig.suptitle(title)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    fig.savefig(path, format=fmt, metadata=_NO_DATES[fmt])
    import matplotlib.pyplot as plt
    plt.close(fig)
    print(f"written to {path}", file=sys.stderr)


def main_wrapper(main: Callable[[Sequence[str] | None], None]) -> Callable[[], int]:
    """Run ``main`` turning InputError into a one-line message and exit code 2."""
    def run() -> int:
        try:
            main(None)
        except InputError as error:
            print(f"error: {error}", file=sys.stderr)
            return EXIT_BAD_INPUT
        return 0
    return run


# ---- labels and units -----------------------------------------------------------------------

#: Axis labels of well-known results keys and sweep parameters (unit appended separately).
LABELS = {
    "events.throughput_per_s": "Throughput",
    "events.per_job_throughput_per_s": "Throughput per job",
    "events.thread_time_per_event_s": "Time per event",
    "events.time_per_event_s.mean": "Time per event",
    "events.time_per_event_s.p50": "Time per event, median",
    "events.time_per_event_s.p99": "Time per event, p99",
    "requests.latency_s.mean": "Request latency",
    "requests.latency_s.p50": "Request latency, median",
    "requests.latency_s.p99": "Request latency, p99",
    "servers.0.utilization": "Device utilization",
    "workload.jobs": "Jobs",
    "workload.threads_per_job": "Threads per job",
    "servers.0.count": "Devices",
    "n_cpu": "$N_\\mathrm{CPU}$ (client threads)",
    "n_cpu_per_gpu": "$N_\\mathrm{CPU}/N_\\mathrm{GPU}$",
}


#: Statistic suffixes of results keys (``events.time_per_event_s.p99``).
STATISTICS = frozenset({"mean", "p50", "p90", "p95", "p99", "min", "max"})


def metric_unit(name: str) -> str:
    """The unit a results key's name implies: ``_per_s`` a rate, ``_s`` a time, ``_Bps``..."""
    parts = name.split(".")
    quantity = parts[-2] if len(parts) > 1 and parts[-1] in STATISTICS else parts[-1]
    if quantity.endswith("per_s"):
        return "events/s" if parts[0] == "events" else "1/s"
    if quantity.endswith("_Bps"):
        return "B/s"
    if quantity.endswith("_s"):
        return "s"
    if "bytes" in quantity:
        return "B"
    return ""


def metric_label(name: str, unit: str | None = None) -> str:
    """An axis label for a results key or parameter path, with its unit in parentheses."""
    label = LABELS.get(name, name)
    unit = metric_unit(name) if unit is None else unit
    return f"{label} ({unit})" if unit else label


_TIME_SCALES = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"))
_SI_SCALES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def scale_for(values: Sequence[float], unit: str) -> tuple[float, str]:
    """(divisor, unit) that brings the largest finite value of a series into a readable range:
    seconds become ms or µs, B/s and bit/s get SI prefixes; other units are left alone."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v) and v != 0]
    if not finite:
        return 1.0, unit
    top = max(finite)
    if unit == "s":
        for factor, name in _TIME_SCALES:
            if top >= factor:
                return factor, name
        return _TIME_SCALES[-1]
    if unit in ("B/s", "B", "bit/s"):
        for factor, prefix in _SI_SCALES:
            if top >= factor:
                return factor, prefix + unit
    return 1.0, unit


def log_axis(axis: Any) -> None:
    """A logarithmic axis labelled with plain numbers at 1, 2, 5 x 10^k (not 10^k notation)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    axis.axes.set_xscale("log") if axis.axis_name == "x" else axis.axes.set_yscale("log")
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())
