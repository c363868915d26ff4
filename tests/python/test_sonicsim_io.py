"""Unit tests of analysis/sonicsim_io.py, the readers of the plotting scripts.

Pure standard library (no matplotlib): run with
  python3 -m unittest discover -s tests/python -v
(ctest: python_analysis_io).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

ANALYSIS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "analysis")
sys.path.insert(0, os.path.normpath(ANALYSIS))

import sonicsim_io as sio  # noqa: E402

SWEEP_HEADER = ("sweep_id,point,n_points,param.workload.jobs,param.servers.0.count,replications,"
                "status,error,seed,events.throughput_per_s.mean,events.throughput_per_s.ci95,"
                "analytic.n_gpu.mean,analytic.n_gpu.ci95")
SWEEP_ROWS = (
    "abc,0,3,10,1,3,ok,,1,100.5,1.25,1,0.0",
    "abc,1,3,10,2,3,failed,replication 1: boom | more,1,,,,",
    "abc,2,3,20,1,1,ok,,1,200,,1,",
)


class TempFiles(unittest.TestCase):
    """A scratch directory and a helper writing files into it."""

    def setUp(self) -> None:
        self._dir = tempfile.TemporaryDirectory()
        self.addCleanup(self._dir.cleanup)

    def write(self, name: str, text: str) -> str:
        path = os.path.join(self._dir.name, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path

    def write_json(self, name: str, doc: object) -> str:
        return self.write(name, json.dumps(doc))

    def assertInputError(self, path: str, fragment: str, call, *args) -> None:  # noqa: N802
        with self.assertRaises(sio.InputError) as caught:
            call(*args)
        message = str(caught.exception)
        self.assertTrue(message.startswith(path + ": "), message)
        self.assertIn(fragment, message)


class ParseTest(unittest.TestCase):
    def test_quantities(self) -> None:
        self.assertEqual(sio.parse_quantity("4"), (4.0, ""))
        self.assertEqual(sio.parse_quantity("-1.5e2"), (-150.0, ""))
        value, kind = sio.parse_quantity("2.5ms")
        self.assertAlmostEqual(value, 0.0025)
        self.assertEqual(kind, "time")
        self.assertEqual(sio.parse_quantity("10Gbps"), (1e10, "bandwidth"))
        self.assertEqual(sio.parse_quantity("9.8kB")[1], "bytes")
        self.assertIsNone(sio.parse_quantity("sync"))
        self.assertIsNone(sio.parse_quantity("3 parsecs"))

    def test_to_float(self) -> None:
        self.assertTrue(math.isnan(sio.to_float("")))
        self.assertTrue(math.isnan(sio.to_float(None)))
        self.assertEqual(sio.to_float("0.5"), 0.5)
        with self.assertRaises(ValueError):
            sio.to_float("abc")

    def test_get_path(self) -> None:
        doc = {"servers": [{"utilization": 0.5}], "a": {"b": 1}}
        self.assertEqual(sio.get_path(doc, "servers.0.utilization"), 0.5)
        self.assertEqual(sio.get_path(doc, "a.b"), 1)
        with self.assertRaises(KeyError):
            sio.get_path(doc, "a.c")


class SweepTest(TempFiles):
    def sweep_file(self) -> str:
        return self.write("s.csv", "\n".join((SWEEP_HEADER,) + SWEEP_ROWS) + "\n")

    def test_columns_and_failed_points(self) -> None:
        sweep = sio.read_sweep(self.sweep_file())
        self.assertEqual(sweep.params, ["workload.jobs", "servers.0.count"])
        self.assertEqual(sweep.metrics, ["events.throughput_per_s", "analytic.n_gpu"])
        self.assertEqual(sweep.failed, 1)
        self.assertEqual(sweep.failures, [("1", "replication 1: boom | more")])
        self.assertEqual(sweep.param("workload.jobs"), ["10", "20"])
        self.assertEqual(sweep.param("param.servers.0.count"), ["1", "1"])
        self.assertEqual(sweep.mean("events.throughput_per_s"), [100.5, 200.0])
        ci = sweep.ci95("events.throughput_per_s")
        self.assertEqual(ci[0], 1.25)
        self.assertTrue(math.isnan(ci[1]))   # one replication: empty cell

    def test_keep_failed(self) -> None:
        sweep = sio.read_sweep(self.sweep_file(), keep_failed=True)
        self.assertEqual(len(sweep.rows), 3)
        self.assertTrue(math.isnan(sweep.mean("events.throughput_per_s")[1]))

    def test_bad_inputs(self) -> None:
        missing = os.path.join(self._dir.name, "nope.csv")
        self.assertInputError(missing, "no such file", sio.read_sweep, missing)
        other = self.write("other.csv", "a,b\n1,2\n")
        self.assertInputError(other, "not a sonicsim sweep CSV", sio.read_sweep, other)
        empty = self.write("empty.csv", "")
        self.assertInputError(empty, "empty file", sio.read_sweep, empty)
        failed = self.write("failed.csv", SWEEP_HEADER + "\n" + SWEEP_ROWS[1] + "\n")
        self.assertInputError(failed, "all 1 points failed", sio.read_sweep, failed)
        sweep = sio.read_sweep(self.sweep_file())
        self.assertInputError(sweep.path, "did you mean events.throughput_per_s",
                              sweep.mean, "events.throughput_per_sec")
        self.assertInputError(sweep.path, "was not swept", sweep.param, "workload.mode")
        bad = self.write("bad.csv", SWEEP_HEADER + "\nabc,0,1,10,1,3,ok,,1,fast,,1,\n")
        self.assertInputError(bad, "'fast' is not a number",
                              sio.read_sweep(bad).mean, "events.throughput_per_s")

    def test_real_sweep_header(self) -> None:
        """The columns docs/sweep.md names, in its order, as `sonicsim sweep` writes them."""
        header = ("sweep_id,point,n_points,param.workload.jobs,replications,status,error,seed,"
                  "events.time_per_event_s.p99.mean,events.time_per_event_s.p99.ci95")
        sweep = sio.read_sweep(self.write("r.csv", header + "\nx,0,1,5,1,ok,,7,0.25,\n"))
        self.assertEqual(sweep.metrics, ["events.time_per_event_s.p99"])
        self.assertEqual(sweep.mean("events.time_per_event_s.p99"), [0.25])


class ResultsTest(TempFiles):
    RESULTS = {
        "events": {"throughput_per_s": 10.0}, "requests": {}, "warmup_s": 10.0,
        "timeseries": {
            "interval_s": 10.0, "t_s": [10.0, 20.0], "events_per_s": [1.0, 2.0],
            "devices": [{"pool": "gpu", "index": 0, "utilization": [0.5, 0.6],
                         "queue_length": [0.0, 1.0]}],
            "models": {"m": {"inferences_per_s": [1.0, 2.0]}},
            "links": [{"name": "wan", "utilization": [0.1, 0.2]}],
        },
    }

    def test_results(self) -> None:
        path = self.write_json("r.json", self.RESULTS)
        doc = sio.read_results(path)
        self.assertEqual(sio.results_value(doc, path, "events.throughput_per_s"), 10.0)
        self.assertEqual(sio.results_value(doc, path, "events.missing", 3), 3)
        self.assertInputError(path, "no key 'events.missing'", sio.results_value, doc, path,
                              "events.missing")

    def test_timeseries(self) -> None:
        doc, series = sio.read_timeseries(self.write_json("r.json", self.RESULTS))
        self.assertEqual(series["t_s"], [10.0, 20.0])
        self.assertEqual(doc["warmup_s"], 10.0)

    def test_bad_results(self) -> None:
        text = self.write("t.json", "{not json")
        self.assertInputError(text, "not valid JSON", sio.read_results, text)
        array = self.write_json("a.json", [1, 2])
        self.assertInputError(array, "expected a JSON object", sio.read_results, array)
        other = self.write_json("o.json", {"events": {}})
        self.assertInputError(other, "no requests", sio.read_results, other)
        no_series = self.write_json("n.json", {"events": {}, "requests": {}})
        self.assertInputError(no_series, "--set timeseries=true", sio.read_timeseries, no_series)
        short = json.loads(json.dumps(self.RESULTS))
        short["timeseries"]["devices"][0]["utilization"] = [0.5]
        short_path = self.write_json("s.json", short)
        self.assertInputError(short_path, "timeseries.devices.0.utilization has 1 windows",
                              sio.read_timeseries, short_path)


class CompareTest(TempFiles):
    CSV = ("jobs,measured,measured_stddev,simulated,simulated_error_percent,formula,"
           "formula_error_percent,mva,mva_error_percent,error\n"
           "2,30,0.2,32,6.6,32,6.6,29,-3.3,\n"
           "1,29,0.1,,,32,10.3,31,6.9,scenario rejected x\n")

    def test_csv(self) -> None:
        table = sio.read_compare(self.write("c.csv", self.CSV))
        self.assertEqual(table.x_name, "jobs")
        self.assertEqual(table.x, [2.0, 1.0])
        self.assertEqual(table.columns["measured"], [30.0, 29.0])
        self.assertTrue(math.isnan(table.columns["simulated"][1]))
        self.assertEqual(table.metric, "")

    def test_json(self) -> None:
        doc = {"x_column": "jobs", "metric": "per_job_throughput_per_s",
               "points": [{"x": 1, "measured": 30, "measured_stddev": 0.2, "simulated": 32,
                           "simulated_error_percent": 6.6, "formula": 32, "mva": None}]}
        table = sio.read_compare(self.write_json("c.json", doc))
        self.assertEqual(table.metric, "per_job_throughput_per_s")
        self.assertEqual(table.columns["simulated"], [32.0])
        self.assertTrue(math.isnan(table.columns["mva"][0]))

    def test_bad(self) -> None:
        other = self.write("o.csv", SWEEP_HEADER + "\n")
        self.assertInputError(other, "missing columns measured", sio.read_compare, other)
        results = self.write_json("r.json", {"events": {}})
        self.assertInputError(results, "no 'points'", sio.read_compare, results)


class PlanTest(TempFiles):
    PLAN = {"question": "min-devices", "vary": "servers.0.count",
            "constraint": {"metric": "events.thread_time_per_event_s", "threshold": 0.05,
                           "text": "t <= 50 ms"},
            "answer": {"value": 4}, "analytic": {"formula": 4, "mva": None},
            "points": [{"value": 18, "ok": True, "metric": {"mean": 0.04, "ci95": 0.001}},
                       {"value": 3, "ok": False, "metric": {"mean": 0.06, "ci95": None}},
                       {"value": 2, "ok": False, "metric": None}]}

    def test_plan(self) -> None:
        plan = sio.read_plan(self.write_json("p.json", self.PLAN))
        self.assertEqual(plan.values, [18.0, 3.0])       # the point without a metric left out
        self.assertEqual(plan.ok, [True, False])
        self.assertTrue(math.isnan(plan.ci95[1]))
        self.assertEqual((plan.answer, plan.formula, plan.mva), (4.0, 4.0, None))
        self.assertEqual(plan.threshold, 0.05)

    def test_bad(self) -> None:
        results = self.write_json("r.json", {"events": {}, "requests": {}})
        self.assertInputError(results, "not a `sonicsim plan -o` file", sio.read_plan, results)
        empty = self.write_json("e.json", dict(self.PLAN, points=[]))
        self.assertInputError(empty, "no simulated point", sio.read_plan, empty)


class ScriptsExitCodeTest(TempFiles):
    """Bad input: exit 2 with a one-line message naming the file, never a traceback; this holds
    without matplotlib too (the scripts read their inputs before importing it)."""

    def run_script(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                              check=False, cwd=self._dir.name)

    def test_bad_inputs_exit_2(self) -> None:
        junk = self.write("junk.json", "{")
        cases = {
            "plot_sweep.py": self.write("notasweep.csv", "a,b\n"),
            "plot_timeseries.py": self.write_json("nots.json", {"events": {}, "requests": {}}),
            "plot_run.py": junk,
            "plot_compare.py": os.path.join(self._dir.name, "missing.csv"),
            "plot_plan.py": self.write("plan.json", "[]"),
        }
        for script, path in cases.items():
            with self.subTest(script=script):
                done = self.run_script(os.path.join(ANALYSIS, script), path, "-o", "out.png")
                self.assertEqual(done.returncode, sio.EXIT_BAD_INPUT, done.stderr)
                self.assertIn(path, done.stderr)
                self.assertNotIn("Traceback", done.stderr)
                self.assertFalse(os.path.exists(os.path.join(self._dir.name, "out.png")))

    def test_bad_output_format(self) -> None:
        sweep = self.write("s.csv", "\n".join((SWEEP_HEADER,) + SWEEP_ROWS) + "\n")
        done = self.run_script(os.path.join(ANALYSIS, "plot_sweep.py"), sweep, "-o", "out.jpg")
        self.assertEqual(done.returncode, sio.EXIT_BAD_INPUT, done.stderr)
        self.assertIn("out.jpg: unsupported output format", done.stderr)


if __name__ == "__main__":
    unittest.main()
