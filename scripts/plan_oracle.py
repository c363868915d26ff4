#!/usr/bin/env python3
"""A differential oracle for `sonicsim plan` (docs/plan.md#the-oracle).

Generates seeded random scenarios (one or two pools, batching on and off, latency-bound and
bandwidth-bound, job flows, two sites), asks `plan` a question about each (min-devices,
min-bandwidth, max-cpu; the default `auto` transport), and checks the answer against a reference
that shares nothing with the search but the simulator's event core:

- the answer and the nearest value the plan found to miss are simulated again with every payload
  a flow (`network.flow_model = "flow"`), with the plan's own seeds: the answer must not certainly
  miss the constraint, the failing value must not certainly meet it (95% Student t intervals
  over the replications), and the two must be neighbours (adjacent integers, or within the
  bandwidth tolerance);
- `auto` against `flow` at the answer: the plan's own replications (auto) and the reference's
  (flow), paired by seed, must agree within `network.auto_tolerance` of the remote part of an
  event (time per event less its CPU work), beyond what the replications can tell apart.

Prints one line per case and a summary; writes every case (scenario, plan, reference runs) to
the output folder. Exit 0 when every case agrees, 1 when some disagree, 2 on bad usage.
Only the standard library: it runs wherever the test suite runs.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time

T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]


def t975(dof):
    return T975[dof - 1] if dof <= len(T975) else 1.96


def stats(values):
    n = len(values)
    mean = sum(values) / n
    if n < 2 or any(math.isinf(v) for v in values):
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, t975(n - 1) * math.sqrt(var / n)


# ---------------------------------------------------------------------------------------------
# Scenarios


def ms(x):
    return f"{x * 1e3:.4g}ms"


def base_scenario(rng, name, kind):
    """One workload, one model on a T4 pool; each kind changes what binds."""
    threads_per_job = rng.choice([1, 1, 2])
    t_cpu = rng.uniform(0.05, 0.4)
    p = rng.uniform(0.05, 0.5)
    t_gpu = rng.uniform(0.5e-3, 8e-3)
    dist = rng.choice(["constant", "exponential", "lognormal"])
    cpu = ms(t_cpu) if dist == "constant" else (
        {"dist": "exponential", "mean": ms(t_cpu)} if dist == "exponential"
        else {"dist": "lognormal", "mean": ms(t_cpu), "cv": round(rng.uniform(0.1, 0.6), 3)})
    model = {
        "input_bytes_per_item": f"{rng.uniform(1, 50):.3g}kB",
        "output_bytes_per_item": f"{rng.uniform(0.05, 2):.3g}kB",
        "service_time": {"batch": [1], "seconds": [ms(t_gpu)]},
        "max_batch_size": 1,
        "instances": 1,
    }
    s = {
        "name": name,
        "description": f"plan oracle case ({kind})",
        "seed": 1,
        "duration": "30s",
        "warmup": "3s",
        "workload": {
            "jobs": rng.randint(4, 60),
            "threads_per_job": threads_per_job,
            "mode": "sync",
            "cpu_time_per_event": cpu,
            "requests": [{"model": "m", "offload_fraction": round(p, 4), "per_event": 1,
                          "items": 1}],
        },
        "models": {"m": model},
        "servers": [{"name": "gpu", "count": rng.randint(1, 4), "device": "T4", "models": ["m"]}],
        "network": {
            "client_nic": {"bandwidth": "10Gbps", "latency": "50us"},
            "site_uplink": {"bandwidth": "100Gbps", "latency": ms(rng.uniform(0.2e-3, 3e-3))},
            "server_nic": {"bandwidth": "25Gbps", "latency": "50us"},
        },
    }
    return s, t_gpu


def make_case(rng, index):
    # New kinds go at the end: CI's short seeded set (the first six) stays the same.
    kinds = ["latency", "bandwidth", "batching", "two-pools", "flows", "sites", "open-loop",
             "two-workloads"]
    kind = kinds[index % len(kinds)]
    name = f"oracle-{index:04d}-{kind}"
    s, t_gpu = base_scenario(rng, name, kind)
    slowdown = rng.choice([5, 10, 20])
    question = rng.choice(["min-devices", "max-cpu"])
    args = ["--slowdown", str(slowdown)]
    if kind == "bandwidth":
        question = "min-bandwidth"
        s["models"]["m"]["input_bytes_per_item"] = f"{rng.uniform(0.2, 3):.3g}MB"
        s["network"]["site_uplink"]["bandwidth"] = f"{rng.uniform(1, 20):.3g}Gbps"
        s["workload"]["jobs"] = rng.randint(8, 80)
        args += ["--link", "site_uplink"]
    elif kind == "batching":
        m = s["models"]["m"]
        m["max_batch_size"] = 64
        m["service_time"] = {"batch": [1, 64],
                             "seconds": [ms(t_gpu), ms(t_gpu * rng.uniform(4, 20))]}
        m["dynamic_batching"] = {"max_queue_delay": f"{rng.choice([0, 50, 200, 1000])}us"}
        s["workload"]["requests"][0]["items"] = rng.choice([1, 4, 16])
        s["workload"]["jobs"] = rng.randint(20, 120)
    elif kind == "two-pools":
        s["servers"].append({"name": "gpu-b", "count": rng.randint(1, 2), "device": "T4",
                             "models": ["m"]})
        s["models"]["m"]["service_time"]["seconds"] = [ms(rng.uniform(3e-3, 15e-3))]
        s["workload"]["jobs"] = rng.randint(40, 150)
        question = "min-devices"
    elif kind == "flows":
        # Waves of jobs that each run a budget of events, every wave before the run ends.
        wave = rng.randint(20, 80)
        s["workload"]["jobs"] = wave * rng.randint(1, 3)
        s["workload"]["flow"] = {"events_per_job": rng.randint(50, 400),
                                 "waves": {"size": wave, "every": f"{rng.randint(4, 12)}s"}}
        s["models"]["m"]["service_time"]["seconds"] = [ms(rng.uniform(3e-3, 15e-3))]
        question = "min-devices"
    elif kind == "sites":
        s["sites"] = [
            {"name": "tier2", "network": {"site_uplink": {"bandwidth": "100Gbps",
                                                          "latency": "500us"}}},
            {"name": "gpus", "network": {"site_uplink": {"bandwidth": "100Gbps"},
                                         "server_nic": {"bandwidth": "25Gbps"}}},
        ]
        s["wan"] = {"links": [{"name": "wan", "between": ["tier2", "gpus"],
                               "bandwidth": f"{rng.uniform(2, 40):.3g}Gbps",
                               "latency": ms(rng.uniform(0.5e-3, 10e-3))}]}
        s["workload"]["site"] = "tier2"
        s["servers"][0]["site"] = "gpus"
        s["network"] = {"flow_model": "auto"}  # with sites, links live in each site's network
        if rng.random() < 0.5:
            question = "min-bandwidth"
            s["models"]["m"]["input_bytes_per_item"] = f"{rng.uniform(0.2, 2):.3g}MB"
            args += ["--link", "wan/wan"]
    elif kind == "open-loop":
        # An open loop: events arrive at a rate; min-devices holds it, max-cpu searches it.
        w = s["workload"]
        s["workload"] = {"arrivals": {"rate": f"{rng.uniform(1.2, 5.0) / t_gpu:.4g}/s",
                                      "distribution": rng.choice(["poisson", "constant"])},
                         "requests": [{"model": "m", "items": 1}]}
        del w
        args = ["--slowdown", str(rng.choice([20, 50, 100]))]
        question = rng.choice(["min-devices", "max-cpu"])
        s["servers"][0]["count"] = 1 if question == "max-cpu" else s["servers"][0]["count"]
        return kind, question, args, s
    elif kind == "two-workloads":
        # A second workload with its own CPU time and requests per event shares the pool; the
        # constraint on both, or on one named.
        a = dict(s.pop("workload"), name="a")
        b = dict(a, name="b", jobs=rng.randint(4, 40), threads_per_job=1,
                 cpu_time_per_event=ms(rng.uniform(0.05, 0.8)),
                 requests=[{"model": "m", "offload_fraction": round(rng.uniform(0.05, 0.5), 4),
                            "per_event": rng.randint(1, 4), "items": 1}])
        s["workloads"] = [a, b]
        s["models"]["m"]["service_time"]["seconds"] = [ms(rng.uniform(2e-3, 10e-3))]
        question = rng.choice(["min-devices", "max-cpu"])
        if rng.random() < 0.5:
            args += ["--workload", rng.choice(["a", "b"])]
        if question == "max-cpu":
            s["servers"][0]["count"] = rng.randint(1, 3)
        else:
            a["jobs"] = rng.randint(30, 150)
        return kind, question, args, s
    if question == "min-bandwidth":
        # Devices well below their knee: the link is what the question is about.
        w = s["workload"]
        s["servers"][0]["count"] = max(s["servers"][0]["count"],
                                       w["jobs"] * w["threads_per_job"] // 5 + 1)
    if question == "max-cpu":
        s["servers"][0]["count"] = rng.randint(1, 3)
    elif question == "min-devices" and kind in ("latency", "batching", "sites"):
        s["workload"]["jobs"] = rng.randint(30, 200)  # enough load that one device is not enough
    return kind, question, args, s


# ---------------------------------------------------------------------------------------------
# Running sonicsim


class Sonicsim:
    def __init__(self, binary, workers):
        self.binary = binary
        self.workers = workers
        self.runs = 0

    def plan(self, path, question, args, out):
        cmd = [self.binary, "plan", path, question, *args, "--replications", str(REPLICATIONS),
               "--workers", str(self.workers), "--quiet", "-o", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr, cmd

    def metric(self, path, sets, key, out, references=None):
        cmd = [self.binary, "run", path, "--quiet", "-o", out]
        for s in sets:
            cmd += ["--set", s]
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.runs += 1
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
        with open(out) as f:
            results = json.load(f)
        a = results.get("analytic", {})
        cpu_part = (1.0 - a.get("p", 0.0)) * a.get("t_cpu_s", 0.0)
        return metric_value(results, key, references), cpu_part


def walk(node, key):
    """The value at a dotted results key (`workloads[1].events.x` indexes an array); inf where
    missing, as plan counts a run with no finished event."""
    for part in key.split("."):
        index = None
        if part.endswith("]") and "[" in part:
            part, index = part[:-1].split("[")
        node = node.get(part) if isinstance(node, dict) else None
        if index is not None:
            node = node[int(index)] if isinstance(node, list) and int(index) < len(node) else None
    return float("inf") if node is None else float(node)


def metric_value(results, key, references):
    """The constraint's metric from a run, read from the results themselves (not through plan's
    own reader): a key, or for several workloads under --slowdown the worst ratio of a
    workload's time per event to its reference (docs/plan.md)."""
    if key.startswith("max workloads[*] time per event / reference"):
        worst = 0.0
        for w, ref in zip(results.get("workloads", []), references):
            v = walk(w, "events.thread_time_per_event_s")
            worst = max(worst, v / ref if v > 0 else float("inf"))
        return worst
    for agg in ("max ", "min "):
        if key.startswith(agg + "workloads[*]."):
            values = [walk(w, key[len(agg + "workloads[*]."):]) for w in results.get("workloads", [])]
            return max(values) if agg == "max " else min(values)
    value = walk(results, key)
    # No event finished after the warm-up: as slow as it gets (per-job throughput 0).
    return value if value > 0 else (0.0 if key.endswith("per_job_throughput_per_s") else float("inf"))


def meets(value, comparison, threshold):
    return value <= threshold if comparison == "<=" else value >= threshold


def verdicts(values, comparison, threshold, slack=0.0):
    """Mean, CI, and whether the value certainly meets or misses: by its whole 95% interval
    widened by `slack`, what `auto` may differ from `flow` by (its tolerance of the remote part
    of an event): the plan searched with auto, and a verdict that flips inside that promise is
    not a disagreement."""
    mean, ci = stats(values)
    lo, hi = mean - ci - slack, mean + ci + slack
    if comparison == "<=":
        return mean, ci, hi <= threshold, lo > threshold
    return mean, ci, lo >= threshold, hi < threshold


def check_case(sim, workdir, index, kind, question, args, scenario):
    path = os.path.join(workdir, f"case-{index:04d}.json")
    with open(path, "w") as f:
        json.dump(scenario, f, indent=1)
    plan_out = os.path.join(workdir, f"case-{index:04d}-plan.json")
    rc, out, err, cmd = sim.plan(path, question, args, plan_out)
    case = {"index": index, "kind": kind, "question": question, "args": args,
            "command": " ".join(cmd), "problems": [], "notes": []}
    if rc == 2:
        case["status"] = "refused"
        case["notes"].append(err.strip().splitlines()[-1] if err.strip() else "exit 2")
        return case
    if rc != 0:
        case["status"] = "disagree"
        case["problems"].append(f"plan exited {rc}: {err.strip()[-400:]}")
        return case
    with open(plan_out) as f:
        plan = json.load(f)
    answer = plan["answer"]
    c = plan["constraint"]
    key, comparison, threshold = c["metric"], c["comparison"], c["threshold"]
    vary, seeds, common = plan["vary"], plan["seeds"], plan["set"]
    case.update(status_plan=answer["status"], value=answer["value"],
                fail_value=answer["fail_value"], threshold=threshold)
    tolerance = scenario.get("network", {}).get("auto_tolerance", 0.01)
    references = [t["reference_s"] for t in plan.get("workloads", {}).get("terms", [])]

    def reference(value):
        values, cpu = [], 0.0
        for seed in seeds:
            v, cpu = sim.metric(path, [*common, f"{vary}={json.dumps(value)}", f"seed={seed}",
                                       'network.flow_model="flow"'], key,
                                os.path.join(workdir, "run.json"), references)
            values.append(v)
        return values, cpu

    points = {p["value"]: p for p in plan["points"]}
    time_metric = key.endswith("thread_time_per_event_s") or key.endswith("time_per_event_s.mean")
    ratio_metric = key.startswith("max workloads[*] time per event")

    def judged(value, where):
        """The reference at `value`, recorded in the case, and its verdicts within auto's slack."""
        flow, cpu = reference(value)
        slack = tolerance * max(stats(flow)[0] - cpu, 0.0) if time_metric else 0.0
        if ratio_metric:  # auto's promise, bounded by the whole ratio (the remote part is less)
            slack = tolerance * stats(flow)[0]
        mean, ci, certain_ok, certain_fail = verdicts(flow, comparison, threshold, slack)
        case[where] = {"mean": mean, "ci95": ci, "values": flow}
        return flow, cpu, mean, ci, certain_ok, certain_fail

    if answer["value"] is not None:
        flow, cpu, mean, ci, _, certain_fail = judged(answer["value"], "reference_at_answer")
        if certain_fail:
            case["problems"].append(
                f"the answer {answer['value']} certainly misses with flows: {mean:.6g} +- "
                f"{ci:.3g} against {threshold:.6g}")
        auto = points.get(answer["value"], {}).get("metric", {}).get("values")
        if auto and len(auto) == len(flow) and time_metric:
            diffs = [a - b for a, b in zip(auto, flow)]
            d, dci = stats(diffs)
            remote = max(mean - cpu, 1e-12)
            case["auto_vs_flow"] = {"difference": d, "ci95": dci, "remote_s": remote,
                                    "relative": d / remote}
            if abs(d) - dci > tolerance * remote * (1 + 1e-9) + 1e-12:
                case["problems"].append(
                    f"auto and flow differ at {answer['value']}: {d:+.4g} s per event "
                    f"(+- {dci:.3g}) on a remote part of {remote:.4g} s "
                    f"({d / remote:+.2%}, auto_tolerance {tolerance:.2%})")
    if answer["fail_value"] is not None:
        _, _, mean, ci, certain_ok, _ = judged(answer["fail_value"], "reference_at_fail")
        if certain_ok:
            case["problems"].append(
                f"the value found to miss, {answer['fail_value']}, certainly meets with flows: "
                f"{mean:.6g} +- {ci:.3g} against {threshold:.6g}")
    if answer["value"] is not None and answer["fail_value"] is not None:
        v, f = answer["value"], answer["fail_value"]
        if question == "min-bandwidth" or vary.endswith("arrivals.rate"):
            if max(v, f) / min(v, f) > 1.0 + 0.02 + 1e-3:
                case["notes"].append(f"bracket {f:.4g}..{v:.4g} wider than the tolerance")
        elif abs(v - f) != 1:
            case["notes"].append(f"the answer {v} and the miss {f} are not neighbours")
    case["status"] = "disagree" if case["problems"] else "agree"
    return case


REPLICATIONS = 3


def main():
    global REPLICATIONS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default="build/sonicsim")
    ap.add_argument("--cases", type=int, default=12)
    ap.add_argument("--first", type=int, default=0, help="index of the first case")
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--replications", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="out/plan-oracle")
    a = ap.parse_args()
    if a.cases < 1 or a.replications < 2 or a.workers < 1:
        print("plan-oracle: --cases >= 1, --replications >= 2, --workers >= 1", file=sys.stderr)
        return 2
    if not os.access(a.binary, os.X_OK):
        print(f"plan-oracle: {a.binary}: not an executable (build it first)", file=sys.stderr)
        return 2
    REPLICATIONS = a.replications
    os.makedirs(a.out, exist_ok=True)
    sim = Sonicsim(a.binary, a.workers)
    counts = {"agree": 0, "disagree": 0, "refused": 0}
    t0 = time.time()
    log = os.path.join(a.out, "cases.jsonl")
    with open(log, "w") as out:
        for i in range(a.first, a.first + a.cases):
            rng = random.Random(a.seed * 1_000_003 + i)
            kind, question, args, scenario = make_case(rng, i)
            t = time.time()
            try:
                case = check_case(sim, a.out, i, kind, question, args, scenario)
            except RuntimeError as e:
                case = {"index": i, "kind": kind, "question": question, "status": "disagree",
                        "problems": [str(e)], "notes": []}
            case["wall_s"] = round(time.time() - t, 2)
            counts[case["status"]] += 1
            out.write(json.dumps(case) + "\n")
            out.flush()
            what = (f"{case.get('status_plan', '')} {case.get('value')} (miss {case.get('fail_value')})"
                    if case["status"] != "refused" else "; ".join(case["notes"]))
            print(f"case {i:4d} {kind:10s} {question:14s} {case['status']:8s} {what} "
                  f"[{case['wall_s']:.1f} s]", flush=True)
            for p in case["problems"]:
                print(f"     PROBLEM: {p}", flush=True)
            for n in case["notes"] if case["status"] != "refused" else []:
                print(f"     note: {n}", flush=True)
    print(f"plan oracle: {a.cases} cases (seed {a.seed}), {counts['agree']} agree, "
          f"{counts['disagree']} disagree, {counts['refused']} refused; {sim.runs} reference "
          f"runs, {time.time() - t0:.0f} s; cases in {log}")
    return 1 if counts["disagree"] else 0


if __name__ == "__main__":
    sys.exit(main())
