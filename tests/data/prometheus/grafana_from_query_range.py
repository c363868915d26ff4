#!/usr/bin/env python3
"""Writes day.json's series in the three shapes Grafana gives for a Prometheus panel, so that the
tests can hold `import prometheus` of each against the query_range form (same measurements):

  grafana_ds_query.json   the /api/ds/query response (Grafana 10/11, "dataplane" frames: the
                          value field named after __name__, config.displayNameFromDS only with a
                          legend), frames as grafana-plugin-sdk-go writes them (data/frame_json.go)
  grafana_frames.json     the panel inspector's JSON tab, "DataFrame JSON (from Query)": an array
                          of @grafana/data DataFrameJSON (dataFrameToJSON), Grafana 9-style frames
                          (field "Value", frame name and displayNameFromDS = metric{labels})
  grafana_panel_data.json the JSON tab's "Panel data": {"state", "series": [frames with values
                          inline], "timeRange", ...}

NaN and infinities become null, listed in `entities` where Grafana lists them: the Go SDK's frames
(data.entities) and the browser's fields (field.entities); the JSON tab's DataFrame JSON loses the
list (dataFrameToJSON drops it), its nulls unmarked. (Checked against @grafana/data 11: its
dataFrameFromJSON / dataFrameToJSON / JSON.stringify of grafana_ds_query.json's frames give files
that import to the same measurements.)
Run from this folder: python3 grafana_from_query_range.py
"""
import json

STEP_MS = 15000


def number(s):
    v = float(s)
    return int(v) if v.is_integer() else v


def legend(labels):
    inner = ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items()) if k != "__name__")
    return f"{labels['__name__']}{{{inner}}}"


def columns(series):
    times = [int(t * 1000) for t, _ in series["values"]]
    values, nan, inf, neg = [], [], [], []
    for i, (_, s) in enumerate(series["values"]):
        if s in ("NaN", "+Inf", "-Inf"):
            values.append(None)
            {"NaN": nan, "+Inf": inf, "-Inf": neg}[s].append(i)
        else:
            values.append(number(s))
    ent = {k: v for k, v in (("NaN", nan), ("Inf", inf), ("NegInf", neg)) if v}
    return times, values, ent


def meta(metric):
    return {"type": "timeseries-multi", "typeVersion": [0, 1], "custom": {"resultType": "matrix"},
            "executedQueryString": f"Expr: {metric}\nStep: 15s"}


def main():
    day = json.load(open("day.json"))
    results, frames, series_inline = {}, [], []
    for q, response in enumerate(day):
        ref = chr(ord("A") + q)
        result = response["data"]["result"]
        metric = result[0]["metric"]["__name__"]
        ds_frames = []
        for s in result:
            labels = dict(sorted(s["metric"].items()))
            times, values, ent = columns(s)
            time_field = {"name": "Time", "type": "time", "typeInfo": {"frame": "time.Time"},
                          "config": {"interval": STEP_MS}}
            data = {"values": [times, values]}
            if ent:
                data["entities"] = [None, ent]
            ds_frames.append({"schema": {"refId": ref, "meta": meta(metric), "fields": [
                time_field,
                {"name": metric, "type": "number", "typeInfo": {"frame": "float64"},
                 "labels": labels}]}, "data": data})
            name = legend(labels)
            value_field = {"name": "Value", "type": "number", "typeInfo": {"frame": "float64"},
                           "labels": labels, "config": {"displayNameFromDS": name}}
            frames.append({"schema": {"refId": ref, "meta": meta(metric), "name": name,
                                      "fields": [time_field, value_field]},
                           "data": {"values": [times, values]}})
            series_inline.append({"refId": ref, "meta": meta(metric), "name": name, "fields": [
                dict(time_field, values=times, entities={}),
                dict(value_field, values=values, entities=ent)], "length": len(times)})
        results[ref] = {"status": 200, "frames": ds_frames}
    json.dump({"results": results}, open("grafana_ds_query.json", "w"), separators=(",", ":"))
    json.dump(frames, open("grafana_frames.json", "w"), indent=1)
    start, end = day[0]["data"]["result"][0]["values"][0][0], 1732700120
    json.dump({"state": "Done", "series": series_inline, "annotations": [],
               "timeRange": {"from": start * 1000, "to": end * 1000,
                             "raw": {"from": "now-1d", "to": "now"}}},
              open("grafana_panel_data.json", "w"), indent=1)


main()
