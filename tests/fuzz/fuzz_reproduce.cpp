// Fuzz target: `sonicsim reproduce`'s evaluation of the figures (src/gallery/reproduce.cpp): a
// figures.json, then after each line `--- results` the results JSON of a simulation, which the
// runs the figures name receive in turn in place of simulating (ReproduceRequest::results_of).
// The figures' scenario `s.json` is a small valid scenario beside the file; their `set`s go
// through the scenario loader, and the runs that read only `analytic.*` are predicted. Contract:
// reproduce returns or throws InputError naming a file; a figure whose value is not a finite
// number (an overflow, a metric the results lack) is never judged within, by construction or a
// prediction (judge() with NaN and infinities too); the renderings never throw and the JSON one
// reads back as JSON.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/gallery/figures.hpp>
#include <sonicsim/gallery/reproduce.hpp>

#include "support.hpp"

namespace {

const char* const kReproduceScenario = R"({
  "name": "fuzz-reproduce", "duration": "10s",
  "workload": {"jobs": 4, "threads_per_job": 1, "cpu_time_per_event": "100ms",
               "requests": [{"model": "m", "offload_fraction": 0.2}]},
  "models": {"m": {"service_time": {"batch": [1, 8], "seconds": ["1ms", "4ms"]}}},
  "servers": [{"name": "gpu", "count": 1, "device": "T4", "models": ["m"]}]})";

// Results of a run when the input gives none: a few of the figures the gallery reads.
const char* const kReproduceResults = R"({
  "events": {"throughput_per_s": 39.5, "thread_time_per_event_s": 0.101},
  "requests": {"latency_s": {"p99": 0.004}},
  "servers": [{"name": "gpu", "utilization": 0.31}],
  "analytic": {"t_cpu_s": 0.1, "t_sonic_s": 0.1012}})";

bool reproduce_not_evidence(sonicsim::gallery::Verdict v) {
  return v == sonicsim::gallery::Verdict::Outside || v == sonicsim::gallery::Verdict::KnownMiss;
}

}  // namespace

SONICSIM_FUZZ_TARGET(reproduce) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto [figures_text, rest] = fuzz::split_at_marker(input, "--- results");
  std::vector<std::string> results;
  while (!rest.empty()) {
    auto [one, after] = fuzz::split_at_marker(rest, "--- results");
    // Results come from sonicsim's own runs, always a JSON object: the fuzzer picks the numbers.
    const auto doc = nlohmann::json::parse(one, nullptr, false);
    if (!doc.is_discarded() && doc.is_object()) results.push_back(doc.dump());
    if (one.size() == rest.size()) break;
    rest = after;
  }
  if (results.empty()) results.emplace_back(kReproduceResults);
  fuzz::scratch_file("s.json", kReproduceScenario);
  const std::string file = fuzz::scratch_file("figures.json", figures_text);
  fuzz::expect_contract("reproduce", fuzz::Where::Anywhere, [&] {
    gallery::ReproduceRequest request;
    request.files.push_back(gallery::load_figures(file));
    std::size_t next = 0;
    request.results_of = [&](const std::string&, const std::vector<std::string>&) {
      return results[next++ % results.size()];
    };
    const auto r = gallery::reproduce(request);
    std::size_t figures = 0;
    for (const auto& system : r.systems) {
      gallery::system_block(system);
      for (const auto& f : system.figures) {
        ++figures;
        if (std::isinf(f.simulated) || std::isinf(f.formula))
          fuzz::finding("reproduce", f.figure.path + ": an infinite value, expected NaN");
        if (!std::isfinite(f.simulated) && !reproduce_not_evidence(f.verdict))
          fuzz::finding("reproduce", f.figure.path + ": a non-finite figure judged " +
                                         gallery::verdict_name(f.verdict));
        if ((f.error && !std::isfinite(*f.error)) ||
            (f.formula_error && !std::isfinite(*f.formula_error)))
          fuzz::finding("reproduce", f.figure.path + ": an error that is not finite");
        for (const double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL})
          if (!reproduce_not_evidence(gallery::judge(f.figure, bad)))
            fuzz::finding("reproduce", f.figure.path + ": judge() of " + std::to_string(bad) +
                                           " is " +
                                           gallery::verdict_name(gallery::judge(f.figure, bad)));
      }
    }
    if (gallery::tally(r).total != figures)
      fuzz::finding("reproduce", "the tally does not count every figure");
    gallery::to_text(r);
    gallery::rollup(r);
    gallery::validation_table(r);
    if (nlohmann::json::parse(gallery::to_json(r), nullptr, false).is_discarded())
      fuzz::finding("reproduce", "to_json is not JSON");
  });
  return 0;
}
