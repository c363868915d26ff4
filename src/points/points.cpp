#include <sonicsim/points/points.hpp>

#include <sonicsim/points/children.hpp>
#include <sonicsim/scenario/loader.hpp>

namespace sonicsim::points {

std::vector<PointResult> run_points(const Simulator& simulate, const std::string& scenario_path,
                                    const std::vector<scenario::Override>& common,
                                    const std::vector<std::vector<scenario::Override>>& points,
                                    int workers, const PointsWatch& watch) {
  const auto work = [&](std::size_t i) {
    std::vector<scenario::Override> overrides = common;
    overrides.insert(overrides.end(), points[i].begin(), points[i].end());
    return simulate(scenario::load_file(scenario_path, overrides));
  };
  std::vector<ChildOutcome> outcomes(points.size());
  std::vector<std::size_t> indices(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) indices[i] = i;
  std::size_t finished = 0;
  StreamHooks hooks;
  hooks.on_done = [&](std::size_t i, ChildOutcome&& o) {
    outcomes[i] = std::move(o);
    if (watch.on_done) watch.on_done(++finished);
  };
  hooks.on_tick = watch.on_tick;
  run_in_children_streaming(indices, work, hooks, workers);
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

}  // namespace sonicsim::points
