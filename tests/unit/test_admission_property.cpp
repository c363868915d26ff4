// The admission gate's promise (issue 35, item 6): any scenario the loader accepts either
// finishes within its estimate or is refused before it runs. Scenarios are drawn at random from
// the shipped ones: every number in them (counts, times, sizes, bandwidths, rates, fractions)
// may be scaled by up to 12 orders of magnitude either way, set to zero or made negative, and
// faults, time series, async modes and a job flow may be added. Each draw must end in one of
// three ways: the loader refuses it, the gate (the work and memory estimates against the
// budgets) refuses it, or it runs to its end, processing no more engine events than the
// estimate allows, with every request accounted for. A run that stops on the engine's stall
// net, throws anything else, or outruns its estimate breaks the promise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/runner/memory.hpp>
#include <sonicsim/runner/work_estimate.hpp>
#include <sonicsim/util/errors.hpp>

#include "support.hpp"

namespace {

using test::json;
namespace runner = sonicsim::runner;

// The shipped scenarios drawn from: every kind of workload (sync, async, open loop, job waves,
// jobs started together), batching, fallback, sites and a WAN, an autoscaler with its load
// balancer, host limits.
const char* const kAdmissionBases[] = {
    "scenarios/default.json",
    "scenarios/examples/async-external-work.json",
    "scenarios/examples/bandwidth-bound-uplink.json",
    "scenarios/examples/burst-start.json",
    "scenarios/examples/cpu-fallback.json",
    "scenarios/examples/heterogeneous-devices.json",
    "scenarios/examples/host-bound-server.json",
    "scenarios/examples/job-waves.json",
    "scenarios/examples/model-memory-explicit-control.json",
    "scenarios/examples/open-loop-arrivals.json",
    "scenarios/examples/shared-priorities.json",
    "scenarios/examples/sites-analysis-facility.json",
    "scenarios/examples/sites-grid-to-gpu-site.json",
    "scenarios/examples/sites-local-gpus-spill-over.json",
    "scenarios/examples/tensor-shapes.json",
    "scenarios/sites/tier2-keda.json",
};

json admission_read(const std::string& relative) {
  std::ifstream in(std::string(SONICSIM_SOURCE_DIR) + "/" + relative);
  return json::parse(in);
}

// Every number in the document, and every string that starts with one ("10Gbps", "5ms"), by
// JSON pointer; names, seeds and the schema are left alone.
void admission_leaves(const json& j, const std::string& at, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      if (key != "seed" && key != "name" && key != "$schema" && key != "description")
        admission_leaves(value, at + "/" + key, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      admission_leaves(j[i], at + "/" + std::to_string(i), out);
  } else if (j.is_number() ||
             (j.is_string() && !j.get<std::string>().empty() &&
              (std::isdigit(static_cast<unsigned char>(j.get<std::string>()[0])) != 0))) {
    out.push_back(at);
  }
}

// A number as a mutation would write it: whole when it was whole and fits, else with all its
// digits.
json admission_number(double v, bool whole) {
  if (whole && std::abs(v) < 9e15) return static_cast<std::int64_t>(std::llround(v));
  return v;
}

json admission_scaled(const json& leaf, std::mt19937_64& rng) {
  // Three in ten extreme (up to 12 decades either way), three nearby, two unit slips (a factor of
  // 1000^k), a zero and a negative.
  std::uniform_int_distribution<int> how(0, 9);
  std::uniform_real_distribution<double> decades(-12.0, 12.0), near(-2.0, 2.0);
  const int h = how(rng);
  double factor = std::pow(10.0, h < 3 ? decades(rng) : near(rng));
  if (h == 6 || h == 7) factor = std::pow(1000.0, std::round(decades(rng) / 6.0));
  if (h == 8) factor = 0.0;
  if (h == 9) factor = -1.0;
  if (leaf.is_number()) {
    const bool whole = leaf.is_number_integer() || leaf.is_number_unsigned();
    double base = leaf.get<double>();
    if (base == 0.0) base = 1.0;
    return admission_number(base * factor, whole);
  }
  const std::string text = leaf.get<std::string>();
  std::size_t used = 0;
  double base = 0.0;
  try {
    base = std::stod(text, &used);
  } catch (const std::exception&) {
    return leaf;
  }
  if (base == 0.0) base = 1.0;
  std::ostringstream out;
  out.precision(17);
  out << base * factor << text.substr(used);
  return out.str();
}

// A structure the shipped scenarios do not all have, added to the first workload or pool.
void admission_add_structure(json& doc, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> which(0, 5);
  std::uniform_real_distribution<double> decades(-9.0, 8.0);
  const auto time = [&] { return std::pow(10.0, decades(rng)); };
  json* workload = doc.contains("workload")                                 ? &doc["workload"]
                   : doc.contains("workloads") && !doc["workloads"].empty() ? &doc["workloads"][0]
                                                                            : nullptr;
  const std::string pool =
      doc["servers"].empty() ? std::string("none") : doc["servers"][0]["name"].get<std::string>();
  switch (which(rng)) {
    case 0:
      doc["faults"] = json::array(
          {{{"kind", "random_crashes"}, {"pool", pool}, {"mtbf", time()}, {"mttr", time()}}});
      break;
    case 1:
      doc["timeseries"] = {{"interval", time()}};
      break;
    case 2:
      if (workload && !workload->contains("arrivals")) {
        (*workload)["mode"] = "async";
        (*workload)["events_in_flight"] = std::llround(std::pow(10.0, decades(rng) / 2.0 + 1.0));
      }
      break;
    case 3:
      doc["faults"] = json::array({{{"kind", "crash"}, {"pool", pool}, {"at", time()}}});
      break;
    case 4:
      doc["faults"] = json::array(
          {{{"kind", "random_preemption"}, {"mtbf", time()}, {"restart_after", time()}}});
      break;
    default:
      doc["duration"] = time() * 1000.0;
      break;
  }
}

struct AdmissionTally {
  int loader = 0, gate = 0, ran = 0;
  std::vector<std::string> broken;
};

}  // namespace

TEST_CASE("property: a scenario the loader accepts finishes within its estimate or is refused",
          "[property][admission]") {
  // Budgets small enough that a draw runs in milliseconds: the gate must refuse what is larger.
  const double kTimeBudget = 0.05;  // s of estimated wall time: 100,000 engine events
  const double kMemoryBudget = 512.0 * 1024 * 1024;
  // What "within its estimate" allows: the shipped scenarios process between 1/51 and 1/0.74 of
  // their estimates (scripts/work-estimate.sh); a constant covers the events every run has.
  const double kOverEstimate = 2.0, kEventsEveryRun = 1000.0;
  // SONICSIM_PROPERTY_DRAWS=N draws more (a long search: 100,000 draws take about 2 minutes).
#if defined(__SANITIZE_ADDRESS__)
  int kDraws = 150;
#else
  int kDraws = 1500;
#endif
  if (const char* n = std::getenv("SONICSIM_PROPERTY_DRAWS")) kDraws = std::max(1, std::atoi(n));
  // SONICSIM_PROPERTY_DRAW=K: only draw K, its scenario written to property-draw-K.json in the
  // working directory (to run it with `sonicsim run`).
  int only = -1;
  if (const char* k = std::getenv("SONICSIM_PROPERTY_DRAW")) only = std::atoi(k);
  // SONICSIM_PROPERTY_SEED=S: another series of draws (S = 0 is the one ctest runs).
  std::uint64_t series = 0;
  if (const char* k = std::getenv("SONICSIM_PROPERTY_SEED")) series = std::strtoull(k, nullptr, 10);
  auto& time_budget = runner::time_budget();
  auto& memory_budget = runner::memory_budget();
  const double saved_time = time_budget.value(), saved_memory = memory_budget.value();
  time_budget.set(kTimeBudget);
  memory_budget.set(kMemoryBudget);

  // Each base cut to about a tenth of the budget's events, so that a mutation can push it over
  // or leave it under.
  std::vector<json> bases;
  for (const char* b : kAdmissionBases) {
    json doc = admission_read(b);
    const auto s = test::scenario_of(doc);
    const double cut = std::min(1.0, 0.1 * kTimeBudget / runner::estimate_work(s).wall_seconds);
    doc["duration"] = s.duration * cut;
    doc["warmup"] = s.warmup * cut;
    bases.push_back(doc);
  }
  AdmissionTally tally;
  for (int draw = only >= 0 ? only : 0; draw < (only >= 0 ? only + 1 : kDraws); ++draw) {
    std::mt19937_64 rng(0x5eed0000u + (series << 32) + static_cast<std::uint64_t>(draw));
    const std::size_t base = rng() % bases.size();
    json doc = bases[base];
    // One SimGrid engine per process: the draws use sonicsim's own flows.
    if (doc.contains("network") && doc["network"].contains("flow_model"))
      doc["network"].erase("flow_model");
    std::vector<std::string> leaves;
    admission_leaves(doc, "", leaves);
    const int mutations = 1 + static_cast<int>(rng() % 3);
    std::string what = kAdmissionBases[base];
    for (int m = 0; m < mutations; ++m) {
      if (rng() % 3 == 0) {
        admission_add_structure(doc, rng);
        what += " +structure";
        continue;
      }
      const json::json_pointer at(leaves[rng() % leaves.size()]);
      doc[at] = admission_scaled(doc[at], rng);
      what += " " + at.to_string() + "=" + doc[at].dump();
    }
    if (only >= 0) std::ofstream("property-draw-" + std::to_string(draw) + ".json") << doc.dump(2);
    sonicsim::scenario::Scenario s;
    try {
      s = test::scenario_of(doc);
    } catch (const sonicsim::InputError&) {
      ++tally.loader;
      continue;
    }
    const auto work = runner::estimate_work(s);
    const auto memory = runner::estimate_memory(s);
    if (!(work.wall_seconds <= kTimeBudget) || !(memory.bytes <= kMemoryBudget)) {
      ++tally.gate;
      continue;
    }
    try {
      const auto run = sonicsim::pipeline::simulate(s);
      const auto& out = run.output;
      ++tally.ran;
      if (out.events_processed > kOverEstimate * out.estimated_events + kEventsEveryRun)
        tally.broken.push_back("draw " + std::to_string(draw) + " (" + what +
                               "): " + std::to_string(out.events_processed) +
                               " events for an estimate of " +
                               std::to_string(out.estimated_events));
      const auto& m = out.metrics;
      if (m.sent != m.completed + m.failed + m.fallback + m.in_flight_at_end)
        tally.broken.push_back("draw " + std::to_string(draw) + " (" + what +
                               "): requests not accounted for");
    } catch (const std::exception& e) {
      tally.broken.push_back("draw " + std::to_string(draw) + " (" + what +
                             "): refused while running: " + e.what());
    }
  }
  time_budget.set(saved_time);
  memory_budget.set(saved_memory);

  INFO("of " << kDraws << " draws: " << tally.loader << " refused by the loader, " << tally.gate
             << " by the gate, " << tally.ran << " ran");
  for (const auto& b : tally.broken) UNSCOPED_INFO(b);
  CHECK(tally.broken.empty());
  if (only >= 0) return;
  // The draws reach every outcome: a property checked only on refusals would be empty.
  CHECK(tally.loader > kDraws / 20);
  CHECK(tally.gate > kDraws / 40);
  CHECK(tally.ran > kDraws / 10);
}
