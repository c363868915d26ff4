"""Unit tests of scripts/plan_oracle.py, the differential oracle of `sonicsim plan`: that it
finds a wrong answer, a wrong miss and an `auto` that strays from `flow`, and lets a right one
pass. sonicsim itself is replaced by a stand-in that returns chosen plans and metrics; the
oracle's run against the real binary is tests/cli/plan_oracle.sh.

Pure standard library: python3 -m unittest discover -s tests/python -v (ctest: python_analysis_io).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
sys.path.insert(0, os.path.normpath(SCRIPTS))

import plan_oracle as po  # noqa: E402


class FakeSonicsim:
    """Answers `plan` with a chosen plan and `run` with chosen metrics per (value, seed)."""

    def __init__(self, plan, metrics, rc=0, stderr=""):
        self.plan_json, self.metrics, self.rc, self.stderr = plan, metrics, rc, stderr
        self.runs = 0

    def plan(self, path, question, args, out):
        if self.rc == 0:
            with open(out, "w") as f:
                json.dump(self.plan_json, f)
        return self.rc, "", self.stderr, ["sonicsim", "plan", path, question]

    def metric(self, path, sets, key, out, references=None):
        self.runs += 1
        assert 'network.flow_model="flow"' in sets
        value = next(json.loads(s.split("=", 1)[1]) for s in sets if s.startswith("servers.0.count="))
        seed = next(int(s.split("=", 1)[1]) for s in sets if s.startswith("seed="))
        return self.metrics[(value, seed)], 0.09  # (1 - p) t_CPU: remote = metric - 0.09


def plan_of(value, fail, auto_at_answer):
    """A min-devices plan: slowdown threshold 0.105 s per event, seeds 1..3."""
    return {
        "vary": "servers.0.count", "seeds": [1, 2, 3], "set": [],
        "constraint": {"metric": "events.thread_time_per_event_s", "comparison": "<=",
                       "threshold": 0.105},
        "answer": {"status": "found", "value": value, "fail_value": fail},
        "points": [{"value": value, "metric": {"values": auto_at_answer}}],
    }


def metrics(at_answer, at_fail, answer=4, fail=3):
    m = {}
    for seed, (a, f) in enumerate(zip(at_answer, at_fail), start=1):
        m[(answer, seed)] = a
        m[(fail, seed)] = f
    return m


class OracleVerdicts(unittest.TestCase):
    def check(self, sim):
        with tempfile.TemporaryDirectory() as d:
            scenario = {"network": {"auto_tolerance": 0.01}}
            return po.check_case(sim, d, 0, "latency", "min-devices", [], scenario)

    def test_a_right_answer_agrees(self):
        sim = FakeSonicsim(plan_of(4, 3, [0.1010, 0.1011, 0.1009]),
                           metrics([0.1010, 0.1011, 0.1009], [0.12, 0.121, 0.119]))
        case = self.check(sim)
        self.assertEqual(case["status"], "agree", case["problems"])
        self.assertEqual(sim.runs, 6)  # the answer and the miss, three seeds each

    def test_an_answer_that_misses_with_flows_disagrees(self):
        sim = FakeSonicsim(plan_of(4, 3, [0.1010, 0.1011, 0.1009]),
                           metrics([0.130, 0.131, 0.129], [0.14, 0.141, 0.139]))
        case = self.check(sim)
        self.assertEqual(case["status"], "disagree")
        self.assertTrue(any("certainly misses with flows" in p for p in case["problems"]))

    def test_a_miss_that_meets_with_flows_disagrees(self):
        sim = FakeSonicsim(plan_of(4, 3, [0.1010, 0.1011, 0.1009]),
                           metrics([0.1010, 0.1011, 0.1009], [0.100, 0.1001, 0.0999]))
        case = self.check(sim)
        self.assertEqual(case["status"], "disagree")
        self.assertTrue(any("certainly meets with flows" in p for p in case["problems"]))

    def test_auto_beyond_its_tolerance_of_flow_disagrees(self):
        # The remote part is ~0.011 s: auto 0.0009 s faster is ~8%, far above 1%.
        sim = FakeSonicsim(plan_of(4, 3, [0.1001, 0.1002, 0.1000]),
                           metrics([0.1010, 0.1011, 0.1009], [0.12, 0.121, 0.119]))
        case = self.check(sim)
        self.assertEqual(case["status"], "disagree")
        self.assertTrue(any("auto and flow differ" in p for p in case["problems"]))

    def test_a_verdict_inside_autos_promise_is_not_a_disagreement(self):
        # Deterministic: no spread. Flow is 0.5% of the remote part above the threshold.
        remote = 0.105 - 0.09
        above = 0.105 + 0.005 * remote
        mean, ci, ok, fail = po.verdicts([above] * 3, "<=", 0.105, slack=0.01 * remote)
        self.assertFalse(fail)
        mean, ci, ok, fail = po.verdicts([above] * 3, "<=", 0.105)
        self.assertTrue(fail)

    def test_a_refusal_is_counted_apart(self):
        sim = FakeSonicsim({}, {}, rc=2, stderr="sonicsim: x.json: not met even at 64\n")
        case = self.check(sim)
        self.assertEqual(case["status"], "refused")
        self.assertIn("not met even at 64", case["notes"][0])

    def test_a_crash_of_plan_disagrees(self):
        case = self.check(FakeSonicsim({}, {}, rc=1, stderr="boom"))
        self.assertEqual(case["status"], "disagree")


class OracleScenarios(unittest.TestCase):
    def test_cases_cover_every_kind_and_repeat_by_seed(self):
        import random
        kinds = set()
        for i in range(16):
            a = po.make_case(random.Random(33 * 1_000_003 + i), i)
            b = po.make_case(random.Random(33 * 1_000_003 + i), i)
            self.assertEqual(json.dumps(a), json.dumps(b))
            kind, question, args, scenario = a
            kinds.add(kind)
            self.assertIn(question, ("min-devices", "max-cpu", "min-bandwidth"))
            if question == "min-bandwidth":
                self.assertIn("--link", args)
        self.assertEqual(kinds, {"latency", "bandwidth", "batching", "two-pools", "flows",
                                 "sites", "open-loop", "two-workloads"})


class OracleMetrics(unittest.TestCase):
    """The oracle reads a run's metric from the results itself, not through plan's reader."""

    RUN = {"events": {"time_per_event_s": {"mean": 0.004}, "per_job_throughput_per_s": 0},
           "workloads": [
               {"events": {"thread_time_per_event_s": 0.110, "per_job_throughput_per_s": 9.0},
                "requests": {"latency_s": {"p99": 0.02}}},
               {"events": {"thread_time_per_event_s": 0.300, "per_job_throughput_per_s": 3.0},
                "requests": {"latency_s": {"p99": 0.05}}}]}

    def test_every_workload_is_the_worst_ratio_to_its_own_reference(self):
        key = "max workloads[*] time per event / reference"
        self.assertAlmostEqual(po.metric_value(self.RUN, key, [0.1, 0.2]), 1.5)
        self.assertAlmostEqual(po.metric_value(self.RUN, key, [0.1, 0.4]), 1.1)

    def test_one_workload_and_the_aggregates(self):
        run = self.RUN
        self.assertEqual(po.metric_value(run, "workloads[1].events.thread_time_per_event_s", []),
                         0.300)
        self.assertEqual(po.metric_value(run, "max workloads[*].requests.latency_s.p99", []), 0.05)
        self.assertEqual(
            po.metric_value(run, "min workloads[*].events.per_job_throughput_per_s", []), 3.0)
        self.assertEqual(po.metric_value(run, "events.time_per_event_s.mean", []), 0.004)
        # Nothing finished: as slow as it gets; a missing workload likewise.
        self.assertEqual(po.metric_value(run, "events.per_job_throughput_per_s", []), 0.0)
        self.assertEqual(po.metric_value(run, "workloads[5].events.thread_time_per_event_s", []),
                         float("inf"))


if __name__ == "__main__":
    unittest.main()
