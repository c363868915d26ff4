"""Readers for sonicsim's output files, for the plotting scripts in analysis/.

Pure standard library (no numpy, no matplotlib), so that the readers can be tested and used on
a machine without the plotting stack.

- ``read_sweep(path)``: the CSV of ``sonicsim sweep`` (docs/sweep.md) as a :class:`Sweep`:
  the swept parameters, and per numeric result ``NAME`` its ``NAME.mean`` and ``NAME.ci95``
  columns as floats (NaN for empty cells); failed points are left out (and counted).
- ``read_results(path)``: the results JSON of ``sonicsim run -o`` (docs/results.md).
- ``read_timeseries(path)``: its ``timeseries`` block (``--set timeseries=true``).
- ``read_compare(path)``: the table of ``sonicsim compare --csv``.

Every problem with an input raises :class:`InputError` with a message that names the file and
what is missing; the scripts turn it into a one-line message on stderr and exit code 2.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

#: Exit code of the scripts for bad input (a missing file, a file of the wrong kind, an unknown
#: column), as for sonicsim itself.
EXIT_BAD_INPUT = 2

#: Columns every sweep CSV starts with (docs/sweep.md, "CSV columns"), ``param.PATH`` aside.
SWEEP_FIXED_COLUMNS = ("sweep_id", "point", "n_points", "replications", "status", "error",
                       "seed")
PARAM_PREFIX = "param."
MEAN_SUFFIX = ".mean"
CI_SUFFIX = ".ci95"


class InputError(Exception):
    """A problem with an input file; the message names the file."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


# ---- numbers and quantities ---------------------------------------------------------------

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]*)\s*$")
# Unit suffix -> (factor to the SI base unit, kind). Kinds: "time" (s), "bandwidth" (bit/s),
# "bytes" (B). The suffixes are those scenario files accept (docs/scenario.md).
_UNITS: dict[str, tuple[float, str]] = {
    "ns": (1e-9, "time"), "us": (1e-6, "time"), "ms": (1e-3, "time"), "s": (1.0, "time"),
    "min": (60.0, "time"), "h": (3600.0, "time"),
    "bps": (1.0, "bandwidth"), "kbps": (1e3, "bandwidth"), "Kbps": (1e3, "bandwidth"),
    "Mbps": (1e6, "bandwidth"), "Gbps": (1e9, "bandwidth"), "Tbps": (1e12, "bandwidth"),
    "B": (1.0, "bytes"), "kB": (1e3, "bytes"), "KB": (1e3, "bytes"), "MB": (1e6, "bytes"),
    "GB": (1e9, "bytes"), "TB": (1e12, "bytes"), "KiB": (1024.0, "bytes"),
    "MiB": (1024.0**2, "bytes"), "GiB": (1024.0**3, "bytes"),
}


def to_float(text: str | None) -> float:
    """A CSV cell as a float: empty or missing is NaN; anything else non-numeric raises."""
    if text is None or text.strip() == "":
        return math.nan
    return float(text)


def parse_quantity(text: str) -> tuple[float, str] | None:
    """A parameter value as (value in SI units, kind), or None if it is not a number.

    ``"2.5ms"`` -> (0.0025, "time"), ``"10Gbps"`` -> (1e10, "bandwidth"), ``"4"`` -> (4.0, "").
    """
    match = _QUANTITY.match(text)
    if not match:
        return None
    number, unit = float(match.group(1)), match.group(2)
    if not unit:
        return number, ""
    if unit not in _UNITS:
        return None
    factor, kind = _UNITS[unit]
    return number * factor, kind


# ---- sweep CSV ------------------------------------------------------------------------------

@dataclass
class Sweep:
    """The points of one sweep CSV that ran (``status`` ok), in the file's order."""

    path: str
    #: Swept parameter paths in column order, without the ``param.`` prefix.
    params: list[str]
    #: Metric names (``NAME`` of ``NAME.mean``), in column order.
    metrics: list[str]
    #: One dict per kept row: column name -> cell text.
    rows: list[dict[str, str]]
    #: Rows left out because their status was not ``ok``.
    failed: int = 0
    #: Their ``point`` indices and error messages.
    failures: list[tuple[str, str]] = field(default_factory=list)

    def has(self, metric: str) -> bool:
        """Whether the sweep has a ``metric.mean`` column."""
        return metric in self.metrics

    def require(self, metric: str) -> None:
        """Raise InputError naming the file when ``metric`` is not a column."""
        if not self.has(metric):
            hint = _did_you_mean(metric, self.metrics)
            raise InputError(self.path, f"no column '{metric}{MEAN_SUFFIX}'{hint}")

    def mean(self, metric: str) -> list[float]:
        """The ``metric.mean`` column as floats (NaN for empty cells)."""
        return self._column(metric + MEAN_SUFFIX, metric)

    def ci95(self, metric: str) -> list[float]:
        """The ``metric.ci95`` column as floats (NaN when empty: a single replication)."""
        if metric + CI_SUFFIX not in self._columns():
            self.require(metric)
            return [math.nan] * len(self.rows)
        return self._column(metric + CI_SUFFIX, metric)

    def param(self, name: str) -> list[str]:
        """The values of a swept parameter (``workload.jobs`` or ``param.workload.jobs``)."""
        path = name[len(PARAM_PREFIX):] if name.startswith(PARAM_PREFIX) else name
        if path not in self.params:
            swept = ", ".join(self.params) or "none"
            raise InputError(self.path, f"parameter '{path}' was not swept (swept: {swept})")
        return [row[PARAM_PREFIX + path] for row in self.rows]

    def _columns(self) -> Sequence[str]:
        return list(self.rows[0].keys()) if self.rows else []

    def _column(self, column: str, metric: str) -> list[float]:
        self.require(metric)
        values = []
        for line, row in enumerate(self.rows, start=2):
            try:
                values.append(to_float(row.get(column)))
            except ValueError:
                raise InputError(self.path, f"column '{column}': '{row[column]}' is not a number"
                                 f" (point {row.get('point', line)})") from None
        return values


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    import difflib
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def _open_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(path, f"cannot read: {error}") from None


def read_sweep(path: str, keep_failed: bool = False) -> Sweep:
    """Read a ``sonicsim sweep`` CSV; rows whose status is not ``ok`` are left out unless
    ``keep_failed``. Raises InputError when the file is not a sweep CSV or has no point."""
    text = _open_text(path)
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    missing = [c for c in SWEEP_FIXED_COLUMNS if c not in header]
    if missing:
        what = "empty file" if not header else f"missing columns {', '.join(missing)}"
        raise InputError(path, f"not a sonicsim sweep CSV ({what}; see docs/sweep.md)")
    params = [c[len(PARAM_PREFIX):] for c in header if c.startswith(PARAM_PREFIX)]
    metrics = [c[:-len(MEAN_SUFFIX)] for c in header if c.endswith(MEAN_SUFFIX)]
    sweep = Sweep(path=path, params=params, metrics=metrics, rows=[])
    for row in reader:
        if None in row:  # more cells than header columns
            raise InputError(path, f"line {reader.line_num}: more cells than columns")
        if row["status"] == "ok" or keep_failed:
            sweep.rows.append(row)
        else:
            sweep.failed += 1
            sweep.failures.append((row["point"], row["error"]))
    if not sweep.rows:
        reason = f"all {sweep.failed} points failed" if sweep.failed else "no points"
        raise InputError(path, f"nothing to plot: {reason}")
    return sweep


# ---- results JSON ---------------------------------------------------------------------------

def _load_json(path: str) -> Any:
    text = _open_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(path, f"not valid JSON ({error})") from None


def get_path(doc: Any, dotted: str) -> Any:
    """The value at a dotted path (``events.time_per_event_s.p99``, ``servers.0.utilization``);
    raises KeyError when it is absent."""
    value = doc
    for part in dotted.split(".") if dotted else []:
        if isinstance(value, list) and part.lstrip("-").isdigit():
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise KeyError(dotted)
    return value


def read_results(path: str, required: Sequence[str] = ("events", "requests")) -> dict[str, Any]:
    """Read the results JSON of ``sonicsim run -o``; ``required`` top-level keys must exist."""
    doc = _load_json(path)
    if not isinstance(doc, dict):
        raise InputError(path, "not a sonicsim results file (expected a JSON object)")
    missing = [k for k in required if k not in doc]
    if missing:
        raise InputError(path, f"not a sonicsim results file (no {', '.join(missing)}; "
                               "write one with `sonicsim run SCENARIO -o FILE`)")
    return doc


def results_value(doc: dict[str, Any], path: str, dotted: str, default: Any = None) -> Any:
    """The value at ``dotted`` in a results document; InputError if absent and no default."""
    try:
        return get_path(doc, dotted)
    except (KeyError, IndexError):
        if default is not None:
            return default
        raise InputError(path, f"no key '{dotted}'") from None


def read_timeseries(path: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The results document and its ``timeseries`` block, checked for the keys the plots use."""
    doc = read_results(path)
    series = doc.get("timeseries")
    if not isinstance(series, dict):
        raise InputError(path, "no 'timeseries' block (run with `--set timeseries=true` or "
                               "\"timeseries\": {\"interval\": \"10s\"} in the scenario)")
    missing = [k for k in ("t_s", "devices", "models", "links") if k not in series]
    if missing:
        raise InputError(path, f"timeseries lacks {', '.join(missing)}")
    n = len(series["t_s"])
    if n == 0:
        raise InputError(path, "timeseries has no windows")
    for what, entries in (("devices", series["devices"]), ("links", series["links"])):
        for i, entry in enumerate(entries):
            for key, value in entry.items():
                if isinstance(value, list) and len(value) != n:
                    raise InputError(path, f"timeseries.{what}.{i}.{key} has {len(value)} "
                                           f"windows, t_s has {n}")
    return doc, series


# ---- compare CSV ----------------------------------------------------------------------------

COMPARE_COLUMNS = ("measured", "simulated", "formula", "mva")


@dataclass
class Comparison:
    """The table of ``sonicsim compare``: x, and per column its values (NaN if empty)."""

    path: str
    x_name: str
    x: list[float]
    columns: dict[str, list[float]]
    #: The compared results name (``per_job_throughput_per_s``); only the JSON report has it.
    metric: str = ""


def read_compare(path: str) -> Comparison:
    """Read ``sonicsim compare``'s table: the CSV of ``--csv`` (first column x, then measured,
    measured_stddev, simulated, formula, mva and their ``_error_percent``, and error) or the JSON
    report of ``-o`` (its ``points``, ``metric`` and ``x_column``)."""
    if path.lower().endswith(".json"):
        return _read_compare_json(path)
    rows = list(csv.reader(_open_text(path).splitlines()))
    if not rows or not rows[0]:
        raise InputError(path, "empty file")
    header = rows[0]
    missing = [c for c in COMPARE_COLUMNS if c not in header]
    if missing:
        raise InputError(path, f"not a `sonicsim compare --csv` table (missing columns "
                               f"{', '.join(missing)})")
    numeric = [c for c in header[1:] if c != "error"]
    columns: dict[str, list[float]] = {c: [] for c in numeric}
    x: list[float] = []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        cells = dict(zip(header, row))
        try:
            x.append(to_float(row[0]))
            for c in numeric:
                columns[c].append(to_float(cells.get(c)))
        except ValueError:
            raise InputError(path, f"line {line}: a cell is not a number") from None
    if not x:
        raise InputError(path, "no rows")
    return Comparison(path=path, x_name=header[0], x=x, columns=columns)


def _read_compare_json(path: str) -> Comparison:
    doc = _load_json(path)
    points = doc.get("points") if isinstance(doc, dict) else None
    if not isinstance(points, list) or not points:
        raise InputError(path, "not a `sonicsim compare -o` report (no 'points')")
    names = ("measured_stddev",) + COMPARE_COLUMNS + tuple(
        f"{c}_error_percent" for c in COMPARE_COLUMNS[1:])
    columns: dict[str, list[float]] = {c: [] for c in names}
    x: list[float] = []
    for i, point in enumerate(points):
        try:
            x.append(float(point["x"]))
            for c in names:
                v = point.get(c)
                columns[c].append(math.nan if v is None else float(v))
        except (KeyError, TypeError, ValueError):
            raise InputError(path, f"points.{i}: no numeric 'x' or a value is not a number") \
                from None
    return Comparison(path=path, x_name=str(doc.get("x_column", "x")), x=x, columns=columns,
                      metric=str(doc.get("metric", "")))


# ---- plan JSON ------------------------------------------------------------------------------

@dataclass
class Plan:
    """What ``sonicsim plan -o`` simulated (docs/plan.md): per point its value, the metric's
    mean and 95% CI half-width, and whether it met the constraint; and the answers."""

    path: str
    question: str
    vary: str
    link: str
    metric: str
    threshold: float
    constraint_text: str
    values: list[float]
    means: list[float]
    ci95: list[float]
    ok: list[bool]
    answer: float | None
    formula: float | None
    mva: float | None


def _number_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def read_plan(path: str) -> Plan:
    """Read the JSON of ``sonicsim plan -o``; points that did not run (no metric) are left out."""
    doc = _load_json(path)
    if not isinstance(doc, dict) or "question" not in doc or "points" not in doc:
        raise InputError(path, "not a `sonicsim plan -o` file (no 'question' or 'points')")
    constraint = doc.get("constraint") or {}
    plan = Plan(path=path, question=str(doc["question"]), vary=str(doc.get("vary", "")),
                link=str(doc.get("link") or ""), metric=str(constraint.get("metric", "")),
                threshold=_number_or_none(constraint.get("threshold")) or math.nan,
                constraint_text=str(constraint.get("text", "")), values=[], means=[],
                ci95=[], ok=[], answer=_number_or_none((doc.get("answer") or {}).get("value")),
                formula=_number_or_none((doc.get("analytic") or {}).get("formula")),
                mva=_number_or_none((doc.get("analytic") or {}).get("mva")))
    for i, point in enumerate(doc["points"] or []):
        metric = point.get("metric") if isinstance(point, dict) else None
        mean = _number_or_none((metric or {}).get("mean"))
        value = _number_or_none(point.get("value")) if isinstance(point, dict) else None
        if value is None:
            raise InputError(path, f"points.{i}: no numeric 'value'")
        if mean is None:
            continue
        ci = _number_or_none(metric.get("ci95"))
        plan.values.append(value)
        plan.means.append(mean)
        plan.ci95.append(math.nan if ci is None else ci)
        plan.ok.append(bool(point.get("ok")))
    if not plan.values:
        raise InputError(path, "no simulated point (an --analytic-only plan has nothing to plot)")
    return plan
