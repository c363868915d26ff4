// Triton's Prometheus metrics for a finished run, in Prometheus' text exposition format (0.0.4):
// what a dashboard scraping the Triton servers would read at the end of the measured span, as if
// their counters had been reset when the warm-up ended. Same metric names, labels and units as
// Triton (docs/model.md, "Prometheus metrics"), so the same PromQL applies, e.g. the KEDA
// autoscaling metric rate(nv_inference_queue_duration_us[30s]) /
// (rate(nv_inference_exec_count[30s]) * 1000): over a whole run, queue_duration_us /
// (exec_count * 1000). With sites, a `site` label as a scrape config would add to each site's
// servers: on every GPU, and on a model's counters when all its devices are at one site.
#pragma once

#include <string>

#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results {

std::string to_prometheus(const scenario::Scenario& s, const runner::RunOutput& run);

}  // namespace sonicsim::results
