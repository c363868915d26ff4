#!/usr/bin/env python3
"""Writes supersonic-twin.json, the Grafana dashboard shipped with sonicsim.

SuperSONIC's own dashboard (helm/supersonic/dashboards/default.json in the chart) with its panel
titles and queries, grouped by `release` so that a real deployment and its simulated twin (run
with `sonicsim run --openmetrics FILE --release NAME-twin`, backfilled into the same Prometheus
or into one of its own) show side by side on every panel, plus the panels a planner asks for:
the autoscaler's metric against its threshold, replicas asked for and ready, connected clients,
batch size and failures. Every query is run against a backfilled simulation by
tests/cli/openmetrics.sh.

    python3 analysis/grafana/make_dashboard.py [OUTPUT]   (default: next to this script)
"""
import json
import os
import sys

SEL = 'app=~"supersonic", release=~"$release", namespace=~"$namespace"'
DS = {"type": "prometheus", "uid": "${datasource}"}


def rate(metric, extra=""):
    sel = SEL + (", " + extra if extra else "")
    return f"rate({metric}{{{sel}}}[30s])"


def per_execution(metric):
    """SuperSONIC's latency breakdown: a duration counter per execution, in ms."""
    return (f"sum by (release) ({rate(metric)}) / "
            f"sum by (release) ({rate('nv_inference_exec_count')} * 1000)")


PANELS = []
_y = [0]


def row(title):
    PANELS.append({"type": "row", "title": title, "collapsed": False,
                   "gridPos": {"x": 0, "y": _y[0], "w": 24, "h": 1}, "panels": []})
    _y[0] += 1


def panel(title, targets, unit="short", w=12, h=8, x=0, kind="timeseries", description="",
          threshold=None):
    p = {"type": kind, "title": title, "description": description, "datasource": DS,
         "gridPos": {"x": x, "y": _y[0], "w": w, "h": h},
         "targets": [{"datasource": DS, "expr": expr, "legendFormat": legend,
                      "refId": chr(ord("A") + i)} for i, (expr, legend) in enumerate(targets)],
         "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
         "options": {"legend": {"displayMode": "list", "placement": "bottom"},
                     "tooltip": {"mode": "multi"}}}
    if threshold:
        p["fieldConfig"]["defaults"]["thresholds"] = {
            "mode": "absolute",
            "steps": [{"color": "green", "value": None}, {"color": "red", "value": threshold}]}
        p["fieldConfig"]["defaults"]["custom"] = {"thresholdsStyle": {"mode": "line+area"}}
    if kind == "stat":
        p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"]}, "colorMode": "value"}
    PANELS.append(p)
    if x + w >= 24:
        _y[0] += h


row("SuperSONIC Overview")
panel("Number of Triton Servers",
      [(f"count by (release) (nv_gpu_utilization{{{SEL}}})", "{{release}}")],
      kind="stat", w=6, x=0)
panel("Latency Breakdown",
      [(per_execution("nv_inference_compute_infer_duration_us"), "Inference {{release}}"),
       (per_execution("nv_inference_queue_duration_us"), "Queue {{release}}"),
       (per_execution("nv_inference_compute_input_duration_us"), "Input {{release}}"),
       (per_execution("nv_inference_compute_output_duration_us"), "Output {{release}}"),
       ("sum by (release) (" + rate("envoy_http_downstream_rq_time_sum",
                                    'envoy_http_conn_manager_prefix="ingress_grpc"') + ") / "
        "sum by (release) (" + rate("envoy_http_downstream_rq_time_count",
                                    'envoy_http_conn_manager_prefix="ingress_grpc"') + ")",
        "Total (measured at proxy) {{release}}")],
      unit="ms", w=18, x=6,
      description="Per execution, as SuperSONIC's dashboard shows it; sonicsim puts all compute "
                  "in Inference and its proxy total is the clients' latency.")
panel("Inferences per second (all servers, all models)",
      [(f"sum by (release) ({rate('nv_inference_count')})", "{{release}}")], w=12, x=0)
panel("Number of Triton Servers",
      [(f"count by (release) (nv_gpu_utilization{{{SEL}}})", "serving {{release}}"),
       (f'sum by (release) (kube_deployment_spec_replicas{{{SEL}}})', "asked for {{release}}"),
       (f'sum by (release) (kube_deployment_status_replicas_ready{{{SEL}}})', "ready {{release}}")],
      w=12, x=12,
      description="Serving: Triton servers reporting metrics. Asked for and ready: the Triton "
                  "Deployment's replicas (kube-state-metrics), the autoscaler's decision.")
row("Autoscaling")
panel("Autoscaler metric: queue time per execution",
      [("sum by (release) (" + rate("nv_inference_queue_duration_us") + ") / "
        "(sum by (release) (" + rate("nv_inference_exec_count") + ") * 1000 + 0.001)",
        "{{release}}")],
      unit="ms", w=12, x=0, threshold=100,
      description="KEDA's trigger in SuperSONIC (serverLoadMetric's default); the red line is "
                  "serverLoadThreshold's default, 100 ms: edit the threshold to your site's.")
panel("Connected clients",
      [(f"sum by (release) (envoy_http_downstream_cx_active{{{SEL}}})", "{{release}}")],
      w=12, x=12,
      description="Client connections to Envoy: in SONIC, one per running client job.")
row("Inference Statistics")
panel("Inferences per second by server (all models)",
      [(f"sum by (release, pod) ({rate('nv_inference_count')})", "{{pod}}")], w=12, x=0)
panel("Inferences per second by model (all servers)",
      [(f"sum by (release, model) ({rate('nv_inference_count')})", "{{model}} {{release}}")],
      w=12, x=12)
panel("Batch size by model",
      [(f"sum by (release, model) ({rate('nv_inference_count')}) / "
        f"sum by (release, model) ({rate('nv_inference_exec_count')})", "{{model}} {{release}}")],
      w=12, x=0, description="Inferences per execution: what the dynamic batcher achieves.")
panel("Failed requests per second by model",
      [(f"sum by (release, model) ({rate('nv_inference_request_failure')})",
        "{{model}} {{release}}")], w=12, x=12,
      description="Requests Triton refused (queue full, queue timeout, too large).")
row("GPU Metrics")
panel("GPU utilization",
      [(f"nv_gpu_utilization{{{SEL}}}", "{{pod}}")], unit="percentunit", w=24, x=0)


def variable(name, query):
    return {"name": name, "type": "query", "datasource": DS, "refresh": 2, "includeAll": True,
            "multi": True, "allValue": ".*", "current": {"text": "All", "value": "$__all"},
            "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery",
                      "qryType": 1},
            "definition": query}


DASHBOARD = {
    "title": "SuperSONIC twin (sonicsim)",
    "uid": "sonicsim-supersonic-twin",
    "description": "SuperSONIC's panels for a deployment and its sonicsim twin side by side "
                   "(docs/deployment.md).",
    "tags": ["supersonic", "sonicsim", "triton"],
    "schemaVersion": 39,
    "editable": True,
    "time": {"from": "now-24h", "to": "now"},
    "refresh": "",
    "templating": {"list": [
        {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus",
         "current": {}, "hide": 0},
        variable("release", "label_values(nv_inference_exec_count, release)"),
        variable("namespace", "label_values(nv_inference_exec_count, namespace)"),
    ]},
    "panels": PANELS,
}

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                               "supersonic-twin.json")
    text = json.dumps(DASHBOARD, indent=2) + "\n"
    with open(out, "w") as f:
        f.write(text)
