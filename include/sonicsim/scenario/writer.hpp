// The typed scenario writer: a Scenario's typed fields back into the scenario's JSON, for the
// tools that derive a scenario (plan's prices, perf_analyzer emulation, `calibrate scan`). Such a
// tool copies the loaded Scenario, changes typed fields and asks the writer for the document or
// the overrides; it never edits the JSON by key.
//
// The writer works against the user's own document (`base.canonical_json`): a field the tool left
// alone keeps the user's spelling ("2min", a calibration file reference, a Triton config), and
// only the fields that changed are written, in SI numbers the loader reads back to the same
// typed value. A value derived by the loader (a MIG slice's curve, the catalogue's figures) is
// written only where the document holds it; elsewhere it follows its source.
//
// Covered fields (docs/architecture.md, "A tool that derives a scenario"):
//   top level    description, seed, duration, warmup
//   workload(s)  name, priority, jobs, threads_per_job, jobs_per_node, mode, async,
//                cpu_time_per_event, requests, arrivals, client, core_power; flow, sites and
//                routing only cleared; a workload list only shortened
//   models       removed; input/output_bytes_per_item, max_batch_size, instances, service_time
//                (curves, pipeline timings, spread), request_overhead, host_cost
//   servers      removed or reordered (by name); count, models, startup_delay, drain_timeout
//   devices      power (a device may be added for it)
//   prices       every field
// A change to any other field (the types compare field by field) throws std::logic_error, so a
// tool's change is never silently lost: the writer is extended first.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/overrides.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::scenario {

// Typed values as the loaders read them, without units (seconds, bytes, watts).
nlohmann::json write_distribution(const Distribution& d);
nlohmann::json write_curve(const ServiceCurve& c);
nlohmann::json write_pipeline(const PipelineTiming& t);
nlohmann::json write_phase(const OverheadPhase& p);
// Only the phases that are not zero, and the spread when it is not constant.
nlohmann::json write_overhead(const RequestOverhead& o);
nlohmann::json write_host_cost(const HostCost& c);
nlohmann::json write_power(const PowerSpec& p);
nlohmann::json write_client(const ClientPolicy& c);
nlohmann::json write_arrivals(const Arrivals& a);
nlohmann::json write_request(const RequestSpec& r);

// `edited`'s document: `base`'s (its canonical_json, the user's file after --set) with every
// covered field in which `edited` differs from `base` written from `edited`. An `edited` equal
// to `base` gives `base`'s document unchanged. Throws std::logic_error for a change it does not
// cover (a tool's bug, not the user's).
nlohmann::json write_scenario(const Scenario& base, const Scenario& edited);

// The same change as `--set` overrides to apply after the ones `base` was loaded with: one per
// object member that differs, as deep as the document allows (a new key is set in its object,
// an array or an object that lost a key is set whole), in key order.
std::vector<Override> write_overrides(const Scenario& base, const Scenario& edited);

}  // namespace sonicsim::scenario
