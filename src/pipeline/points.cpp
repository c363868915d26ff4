#include <sonicsim/pipeline/points.hpp>

#include <sonicsim/pipeline/children.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>

namespace sonicsim::pipeline {

std::vector<PointResult> run_points(const std::string& scenario_path,
                                    const std::vector<scenario::Override>& common,
                                    const std::vector<std::vector<scenario::Override>>& points,
                                    int workers) {
  const auto work = [&](std::size_t i) {
    std::vector<scenario::Override> overrides = common;
    overrides.insert(overrides.end(), points[i].begin(), points[i].end());
    return simulate(scenario::load_file(scenario_path, overrides)).results.dump();
  };
  const auto outcomes = run_in_children(points.size(), work, workers);
  std::vector<PointResult> results(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    PointResult& r = results[i];
    r.input_error = outcomes[i].input_error;
    r.error = outcomes[i].error;
    if (!outcomes[i].ok) continue;
    try {
      r.results = nlohmann::json::parse(outcomes[i].output);
      r.ok = true;
    } catch (const nlohmann::json::exception& e) {
      r.error = std::string("the simulation process returned unreadable results: ") + e.what();
    }
  }
  return results;
}

}  // namespace sonicsim::pipeline
