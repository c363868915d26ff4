#!/usr/bin/python3
"""SimPy 3 reference model of the sonicsim closed loop (synchronous SONIC clients + Triton-like
dynamically batching servers), reading a sonicsim scenario JSON.

It is deliberately simple and independent of the C++ code: a cross-check of the engine's mean
behaviour (latency, batch size, utilisation, throughput) and a speed baseline for
scripts/bench.sh. What it models (see analysis/README.md for the full list of simplifications):

  * N = jobs x threads_per_job threads; each event: CPU work (1-p) t_CPU, then every request of
    workload.requests in order (per_event times each), synchronously.
  * A request carries `items` items and goes to the next device, round robin, among all devices
    hosting its model. Network: no contention; each way takes the sum of the latencies of the
    links present plus bytes / (narrowest bandwidth).
  * Each device runs one instance of each model it hosts, with Triton's dynamic batcher.
  * Execution time: the model's service-time curve at the batch size in items (piecewise linear,
    linear extrapolation above the last point, floored at the first point below it), with the
    optional spread ("dist" + "cv").

Run it with Debian's interpreter (python3-simpy3):  /usr/bin/python3 analysis/simpy_closed_loop.py
"""

import argparse
import bisect
import collections
import itertools
import json
import math
import os
import random
import re
import sys
import time

try:
    import simpy
except ImportError:  # pragma: no cover
    sys.exit("simpy_closed_loop.py: SimPy 3 is missing; on Debian: apt-get install python3-simpy3 "
             "and run with /usr/bin/python3")

# ---------------------------------------------------------------------------------------------
# Units (SPEC section 2)

_NUM = r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*"
_TIME = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
_SIZE = {"B": 1.0, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
         "KiB": 1024.0, "kiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3, "TiB": 1024.0 ** 4}
_RATE = {"bps": 1 / 8, "kbps": 1e3 / 8, "Kbps": 1e3 / 8, "Mbps": 1e6 / 8, "Gbps": 1e9 / 8,
         "Tbps": 1e12 / 8, "Bps": 1.0, "kBps": 1e3, "KBps": 1e3, "MBps": 1e6, "GBps": 1e9,
         "TBps": 1e12}
_KINDS = {"time": _TIME, "size": _SIZE, "rate": _RATE}


def parse_unit(value, kind, where):
    """A plain number (SI base unit) or a string such as "1.03s", "9.8kB", "10Gbps"."""
    if isinstance(value, bool):
        raise ValueError(f"{where}: expected a {kind}, found {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        m = re.fullmatch(_NUM + r"([A-Za-zµ]*)\s*", value)
        if m:
            number, unit = float(m.group(1)), m.group(2)
            if unit == "":
                return number
            table = _KINDS[kind]
            if unit in table:
                return number * table[unit]
        raise ValueError(f"{where}: bad {kind} {value!r}; accepted units: {', '.join(_KINDS[kind])}")
    raise ValueError(f"{where}: expected a {kind}, found {value!r}")


# ---------------------------------------------------------------------------------------------
# Distributions (SPEC section 3)

def make_sampler(spec, kind, where, rng):
    """Returns (sample_function, mean). kind: "time" or "number" (unit-less)."""
    def val(v, key):
        return float(v) if kind == "number" else parse_unit(v, kind, f"{where}.{key}")

    if not isinstance(spec, dict):
        c = val(spec, "")
        return (lambda: c), c
    dist = spec.get("dist", "constant")
    if dist == "empirical":
        values = [val(v, "values") for v in spec["values"]]
        weights = spec.get("weights")
        if weights:
            total = float(sum(weights))
            cum = list(itertools.accumulate(w / total for w in weights))
            mean = sum(v * w / total for v, w in zip(values, weights))
            return (lambda: values[min(bisect.bisect_right(cum, rng.random()), len(values) - 1)]), mean
        mean = sum(values) / len(values)
        return (lambda: rng.choice(values)), mean
    if dist == "uniform":
        lo, hi = val(spec["min"], "min"), val(spec["max"], "max")
        return (lambda: rng.uniform(lo, hi)), (lo + hi) / 2
    mean = val(spec.get("mean", spec.get("value", 0.0)), "mean")
    if "cv" in spec:
        cv = float(spec["cv"])
    elif "stddev" in spec:
        cv = val(spec["stddev"], "stddev") / mean if mean > 0 else 0.0
    else:
        cv = 0.0
    if dist == "constant" or mean <= 0:
        return (lambda: mean), mean
    if dist == "exponential":
        rate = 1.0 / mean
        return (lambda: rng.expovariate(rate)), mean
    if cv <= 0:
        return (lambda: mean), mean
    if dist == "lognormal":
        s2 = math.log1p(cv * cv)
        mu, sigma = math.log(mean) - s2 / 2, math.sqrt(s2)
        return (lambda: rng.lognormvariate(mu, sigma)), mean
    if dist == "gamma":
        shape, scale = 1.0 / (cv * cv), mean * cv * cv
        return (lambda: rng.gammavariate(shape, scale)), mean
    if dist == "normal":  # truncated at 0 (resampled)
        sd = cv * mean

        def normal():
            while True:
                x = rng.gauss(mean, sd)
                if x >= 0:
                    return x
        return normal, mean
    raise ValueError(f"{where}: unknown dist {dist!r}")


# ---------------------------------------------------------------------------------------------
# Service-time curves

class Curve:
    def __init__(self, spec, where, base_dir):
        if isinstance(spec, dict) and "calibration" in spec:
            path = spec["calibration"]
            for cand in (path, os.path.join(base_dir, path), os.path.join(base_dir, "..", path)):
                if os.path.exists(cand):
                    with open(cand) as f:
                        cal = json.load(f)
                    break
            else:
                raise ValueError(f"{where}: calibration file {path!r} not found")
            merged = dict(cal.get("service_time", cal))
            for k in ("dist", "cv"):
                if k in spec:
                    merged[k] = spec[k]
            spec = merged
        self.batch = [float(b) for b in spec["batch"]]
        self.seconds = [parse_unit(s, "time", f"{where}.seconds") for s in spec["seconds"]]
        self.dist = spec.get("dist", "constant")
        self.cv = float(spec.get("cv", 0.0))

    def at(self, b):
        xs, ys = self.batch, self.seconds
        if len(xs) == 1:
            return ys[0]
        if b <= xs[0]:
            return ys[0]
        i = bisect.bisect_left(xs, b)
        if i >= len(xs):  # linear extrapolation from the last two points
            i = len(xs) - 1
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return y0 + (y1 - y0) * (b - x0) / (x1 - x0)

    def sampler(self, rng):
        at, cv = self.at, self.cv
        if self.dist == "exponential":
            return lambda b: rng.expovariate(1.0 / at(b))
        if self.dist == "lognormal" and cv > 0:
            s2 = math.log1p(cv * cv)
            sigma = math.sqrt(s2)
            return lambda b: rng.lognormvariate(math.log(at(b)) - s2 / 2, sigma)
        if self.dist == "gamma" and cv > 0:
            shape = 1.0 / (cv * cv)
            return lambda b: rng.gammavariate(shape, at(b) * cv * cv)
        return at


def curve_for(model, device, where, base_dir):
    st = model["service_time"]
    if isinstance(st, dict) and ("batch" in st or "calibration" in st):
        return Curve(st, where, base_dir)
    if isinstance(st, dict):
        for key in (device, "*", "default"):
            if key in st:
                return Curve(st[key], f"{where}.{key}", base_dir)
    raise ValueError(f"{where}: no service-time curve for device {device!r}")


# ---------------------------------------------------------------------------------------------
# The simulation

class Stats:
    def __init__(self, warmup):
        self.warmup = warmup
        self.requests_done = 0       # whole run (for the speed figure)
        self.requests_counted = 0    # finishing after warm-up
        self.latency_sum = 0.0
        self.events_counted = 0
        self.event_time_sum = 0.0
        self.executions = 0
        self.batch_items_sum = 0
        self.batch_requests_sum = 0


class Batcher:
    """One model instance on one device, with Triton's dynamic batcher."""

    def __init__(self, env, name, curve, model, rng, stats, busy_window):
        self.env, self.name, self.stats = env, name, stats
        self.exec_time = curve.sampler(rng)
        mbs = int(model.get("max_batch_size", 0) or 0)
        self.max_batch = mbs if mbs > 0 else math.inf
        db = model.get("dynamic_batching")
        self.batching = db is not None
        if self.batching:
            self.preferred = sorted(int(p) for p in db.get("preferred_batch_size", []) or [])
            self.max_delay = parse_unit(db.get("max_queue_delay", 0), "time",
                                        f"models.{name}.dynamic_batching.max_queue_delay")
        self.queue = collections.deque()  # (arrival time, items, completion event)
        self.wake = None
        self.busy = 0.0
        self.t0, self.t1 = busy_window
        env.process(self.run())

    def submit(self, items):
        done = self.env.event()
        self.queue.append((self.env.now, items, done))
        w = self.wake
        if w is not None and not w.triggered:
            w.succeed()
        return done

    def _form(self):
        """Number of queued requests to execute now, or (0, deadline) to wait."""
        q = self.queue
        if not self.batching:
            return 1, None
        total, n, reached = 0, 0, 0
        preferred = self.preferred
        full = False
        for _, items, _ in q:
            if n > 0 and total + items > self.max_batch:
                full = True
                break
            total += items
            n += 1
            if total in preferred:
                reached = n
        if n == 0:
            n = 1
        if reached:
            return reached, None
        if full:  # nothing more fits: Triton sends the batch
            return n, None
        deadline = q[0][0] + self.max_delay
        if self.env.now >= deadline - 1e-12:
            return n, None
        return 0, deadline

    def run(self):
        env, q, stats = self.env, self.queue, self.stats
        while True:
            if not q:
                self.wake = env.event()
                yield self.wake
                continue
            n, deadline = self._form()
            if n == 0:
                self.wake = env.event()
                yield env.any_of([self.wake, env.timeout(deadline - env.now)])
                continue
            batch = [q.popleft() for _ in range(n)]
            items = sum(b[1] for b in batch)
            start = env.now
            dt = self.exec_time(items)
            yield env.timeout(dt)
            end = env.now
            self.busy += max(0.0, min(end, self.t1) - max(start, self.t0))
            if end >= self.t0:
                stats.executions += 1
                stats.batch_items_sum += items
                stats.batch_requests_sum += n
            for _, _, done in batch:
                done.succeed()


def build(scenario, args, base_dir):
    seed = args.seed if args.seed is not None else int(scenario.get("seed", 1))
    rng = random.Random(seed)
    duration = parse_unit(args.duration if args.duration is not None else scenario["duration"],
                          "time", "duration")
    warmup = parse_unit(args.warmup if args.warmup is not None else scenario.get("warmup", 0),
                        "time", "warmup")
    if warmup >= duration:
        warmup = 0.0
    env = simpy.Environment()
    stats = Stats(warmup)
    notes = []

    wl = scenario["workload"]
    n_threads = int(wl.get("jobs", 1)) * int(wl.get("threads_per_job", 1))
    if wl.get("mode", "sync") != "sync":
        notes.append("workload.mode is not sync: modelled as sync")
    cpu_sample, t_cpu_mean = make_sampler(wl["cpu_time_per_event"], "time",
                                          "workload.cpu_time_per_event", rng)

    # Network: latency of the links present and the narrowest bandwidth.
    net = scenario.get("network", {}) or {}
    lat, bw = 0.0, math.inf
    for link in ("client_nic", "site_uplink", "wan", "server_nic"):
        spec = net.get(link)
        if spec:
            lat += parse_unit(spec.get("latency", 0), "time", f"network.{link}.latency")
            if "bandwidth" in spec:
                bw = min(bw, parse_unit(spec["bandwidth"], "rate", f"network.{link}.bandwidth"))

    models = scenario.get("models", {})
    devices_of = collections.defaultdict(list)  # model -> [Batcher]
    n_devices = 0
    for i, pool in enumerate(scenario.get("servers", []) or []):
        pname = pool.get("name", f"pool{i}")
        for d in range(int(pool.get("count", 1))):
            n_devices += 1
            for mname in pool.get("models", []):
                m = models[mname]
                if int(m.get("instances", 1)) != 1 and "instances" not in " ".join(notes):
                    notes.append("models.*.instances > 1 modelled as 1 instance")
                curve = curve_for(m, pool.get("device", ""), f"models.{mname}.service_time",
                                  base_dir)
                devices_of[mname].append(
                    Batcher(env, f"{pname}[{d}]/{mname}", curve, m, rng, stats,
                            (warmup, duration)))

    p_total = 0.0
    reqs = []  # per request kind: (batchers, rr counter list, items sampler, in B/item, out B/item, p)
    for j, r in enumerate(wl.get("requests", []) or []):
        mname = r["model"]
        m = models[mname]
        p = float(r.get("offload_fraction", 0.0))
        p_total += p
        items_sample, _ = make_sampler(r.get("items", 1), "number",
                                       f"workload.requests[{j}].items", rng)
        in_b = parse_unit(m.get("input_bytes_per_item", 0), "size", f"models.{mname}.input_bytes_per_item")
        out_b = parse_unit(m.get("output_bytes_per_item", 0), "size", f"models.{mname}.output_bytes_per_item")
        for k in range(int(r.get("per_event", 1))):
            reqs.append((devices_of.get(mname, []), [0], items_sample, in_b, out_b, p))
    if not devices_of:
        notes.append("no servers: requests run on the client CPU (p_i x t_CPU each)")

    inv_bw = 0.0 if bw == math.inf else 1.0 / bw

    def thread():
        timeout = env.timeout
        while True:
            t_event = env.now
            t_cpu = cpu_sample()
            cpu = (1.0 - p_total) * t_cpu
            if cpu > 0:
                yield timeout(cpu)
            for batchers, rr, items_sample, in_b, out_b, p in reqs:
                if not batchers:  # CPU fallback: the thread does the work itself
                    if p > 0:
                        yield timeout(p * t_cpu)
                    continue
                items = max(1, int(round(items_sample())))
                b = batchers[rr[0] % len(batchers)]
                rr[0] += 1
                sent = env.now
                yield timeout(lat + items * in_b * inv_bw)
                yield b.submit(items)
                yield timeout(lat + items * out_b * inv_bw)
                stats.requests_done += 1
                if env.now >= warmup:
                    stats.requests_counted += 1
                    stats.latency_sum += env.now - sent
            if env.now >= warmup:
                stats.events_counted += 1
                stats.event_time_sum += env.now - t_event

    for _ in range(n_threads):
        env.process(thread())
    all_batchers = [b for bs in devices_of.values() for b in bs]
    return env, stats, duration, warmup, seed, n_threads, n_devices, all_batchers, notes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", help="sonicsim scenario JSON")
    ap.add_argument("--duration", help="override the scenario's duration (e.g. 60s)")
    ap.add_argument("--warmup", help="override the scenario's warmup (e.g. 5s)")
    ap.add_argument("--seed", type=int, help="override the scenario's seed")
    ap.add_argument("-o", "--output", help="also write the JSON here")
    args = ap.parse_args(argv)

    with open(args.scenario) as f:
        scenario = json.load(f)
    base_dir = os.path.dirname(os.path.abspath(args.scenario))
    try:
        env, stats, duration, warmup, seed, n_threads, n_devices, batchers, notes = build(
            scenario, args, base_dir)
    except (KeyError, ValueError) as e:
        print(f"simpy_closed_loop.py: {args.scenario}: {e}", file=sys.stderr)
        return 2

    wall0 = time.perf_counter()
    env.run(until=duration)
    wall = time.perf_counter() - wall0

    window = duration - warmup
    out = {
        "model": "analysis/simpy_closed_loop.py",
        "simpy_version": getattr(simpy, "__version__", "?"),
        "scenario": scenario.get("name", os.path.basename(args.scenario)),
        "seed": seed,
        "simulated_time_s": duration,
        "warmup_s": warmup,
        "threads": n_threads,
        "devices": n_devices,
        "simulated_requests": stats.requests_done,
        "wall_time_s": round(wall, 3),
        "simulated_requests_per_wall_s": stats.requests_done / wall if wall > 0 else 0.0,
        "mean_request_latency_s": stats.latency_sum / stats.requests_counted
        if stats.requests_counted else None,
        "mean_batch_size": stats.batch_items_sum / stats.executions if stats.executions else None,
        "mean_requests_per_execution": stats.batch_requests_sum / stats.executions
        if stats.executions else None,
        "mean_device_utilization": sum(b.busy for b in batchers) / (len(batchers) * window)
        if batchers and window > 0 else None,
        "events_per_s": stats.events_counted / window if window > 0 else 0.0,
        "time_per_event_s": stats.event_time_sum / stats.events_counted
        if stats.events_counted else None,
        "requests_per_s": stats.requests_counted / window if window > 0 else 0.0,
        "executions": stats.executions,
        "notes": notes,
    }
    text = json.dumps(out, indent=2)
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
