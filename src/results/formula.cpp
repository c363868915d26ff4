#include <sonicsim/results/formula.hpp>

#include <cmath>
#include <cstdio>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::results {

namespace {

// One line through printf, as the rest of the summary is printed.
template <class... Args>
std::string printed(const char* format, Args... args) {
  char text[512];
  std::snprintf(text, sizeof text, format, args...);
  return text;
}

const char* state(bool saturated) {
  return saturated ? "saturated" : "below saturation";
}

}  // namespace

std::optional<analytic::FormedBatches> formed_batches(const scenario::Scenario& s,
                                                      const analytic::Prediction& prediction,
                                                      const engine::RunMetrics& m) {
  std::vector<analytic::ModelBatches> run;
  for (const auto& mm : m.models)
    run.push_back({mm.name, static_cast<double>(mm.executions), static_cast<double>(mm.items)});
  return analytic::at_formed_batches(s, prediction, run);
}

std::vector<std::string> formula_summary(const scenario::Scenario& s, const engine::RunMetrics& m,
                                         const nlohmann::json& analytic) {
  std::vector<std::string> lines;
  // The formula speaks of a fixed population; jobs that come and go are not one. Nor does it
  // speak of several workloads sharing the servers.
  const bool open = m.open_loop && s.workload().arrivals;
  if (open || m.jobs || !s.single_workload()) return lines;
  const nlohmann::json doc = {{keys::top::analytic, analytic}};
  const Analytic a = Document(doc).analytic();
  const double t_sonic = a.t_sonic_s();  // NaN when the block has none
  if (std::isnan(t_sonic)) return lines;
  const double thread_time = m.thread_time_per_event(s.workload().n_threads());
  lines.push_back(
      printed("           formula t_SONIC %s (%s), simulated/formula = %.4f (N_CPU / throughput)",
              util::format_time(t_sonic).c_str(), state(a.saturated()),
              t_sonic > 0 ? thread_time / t_sonic : 0.0));
  // Batch-1 service times overstate the device time per request wherever batches formed.
  if (const auto formed = a.formed_batches()) {
    const double at_formed = formed->t_sonic_s();
    if (!std::isnan(at_formed))
      lines.push_back(printed(
          "           formula at the batches this run formed (mean %.2f items): t_SONIC %s (%s), "
          "simulated/formula = %.4f",
          formed->mean_batch_size(), util::format_time(at_formed).c_str(),
          state(formed->saturated()), at_formed > 0 ? thread_time / at_formed : 0.0));
  }
  return lines;
}

}  // namespace sonicsim::results
