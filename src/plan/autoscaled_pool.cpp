#include "autoscaled_pool.hpp"

#include <algorithm>
#include <optional>
#include <regex>
#include <string>

#include <sonicsim/scenario/loader.hpp>

namespace sonicsim::plan::detail {
namespace {

std::optional<std::size_t> counted_pool(const std::string& vary) {
  static const std::regex count_path(R"(servers\.(\d{1,9})\.count)");
  std::smatch m;
  if (!std::regex_match(vary, m, count_path)) return std::nullopt;
  return static_cast<std::size_t>(std::stoul(m[1].str()));
}

// Whether the scenario (with the plan's --set) fixes max_replicas, rather than leaving it to
// follow count: the loader resolves both to a number, so load once more with a device more.
bool fixes_ceiling(const Report& r, std::size_t pool, int count, int max_replicas) {
  auto overrides = r.common;
  overrides.push_back({r.options.vary, std::to_string(count + 1)});
  try {
    const auto more = scenario::load_file(r.scenario_file, overrides);
    return more.servers.at(pool).autoscaler->max_replicas == max_replicas;
  } catch (const scenario::InputError&) {
    return false;  // count is at its limit already; base_value_of() reports any other problem
  }
}

}  // namespace

void check_autoscaled_count(Report& r, const scenario::Scenario& base) {
  Options& o = r.options;
  const auto i = counted_pool(o.vary);
  if (!i || *i >= base.servers.size() || !base.servers[*i].autoscaler) return;
  const scenario::ServerPool& pool = base.servers[*i];
  const auto& a = *pool.autoscaler;
  const std::string at = "servers." + std::to_string(*i) + ".autoscaler";
  if (fixes_ceiling(r, *i, pool.count, a.max_replicas))
    throw scenario::InputError(
        r.scenario_file,
        {{at + ".max_replicas",
          "found " + std::to_string(a.max_replicas) +
              ", set by the scenario, while the plan varies " + o.vary +
              ": the autoscaler never runs more than max_replicas devices, so every count "
              "above it plans the same pool. Let the ceiling follow the count (--set " +
              at +
              ".max_replicas=null: the answer is then the devices the pool must be able to scale "
              "to), or plan a fixed pool (--set " +
              at + "=null)"}});
  const double floor = std::max(1, a.min_replicas);
  if (o.range_min && *o.range_min < floor)
    throw scenario::InputError(
        r.scenario_file,
        {{at + ".min_replicas",
          "--range " + std::to_string(static_cast<long long>(*o.range_min)) +
              ":...: found a low end below the autoscaler's min_replicas " +
              std::to_string(a.min_replicas) +
              ", expected at least that: a pool holds at least the replicas its autoscaler keeps "
              "up (lower min_replicas to plan smaller pools)"}});
  if (!o.range_min) o.range_min = floor;
  r.autoscaler = at;
}

}  // namespace sonicsim::plan::detail
