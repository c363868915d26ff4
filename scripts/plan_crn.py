#!/usr/bin/env python3
"""Common random numbers in a plan JSON (docs/performance.md, issue 39): for neighbouring simulated
values (sorted), the variance of the paired differences (same seed) against var(a) + var(b), the
variance two independent runs would have. Prints each pair and the median ratio.

    scripts/plan_crn.py out/plan.json [...]
"""
import json, sys, statistics as st
for f in sys.argv[1:]:
    j = json.load(open(f))
    pts = sorted(j["points"], key=lambda p: p["value"])
    ratios = []
    for a, b in zip(pts, pts[1:]):
        n = min(len(a["seeds"]), len(b["seeds"]))
        va = [x for x in a["metric"]["values"][:n]]; vb = [x for x in b["metric"]["values"][:n]]
        if n < 2 or None in va or None in vb: continue
        d = [x - y for x, y in zip(va, vb)]
        ind = st.variance(va) + st.variance(vb)
        pair = st.variance(d)
        r = ind / pair if pair > 0 else float("inf")
        ratios.append(r)
        print(f"{f}: {a['value']} vs {b['value']} n={n} var(a)+var(b)={ind:.3g} var(a-b)={pair:.3g} ratio={r:.3g}")
    if ratios: print(f"{f}: median ratio {st.median(ratios):.3g} over {len(ratios)} pairs")
