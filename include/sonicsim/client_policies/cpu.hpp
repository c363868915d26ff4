// cpu: a request whose tries are used up is computed on the job's own CPU (CMSSW's SonicClient
// falling back to local inference): its share p_i x t_CPU of the event, split evenly over its
// kind's `per_event` requests, blocking the thread, and it counts as `fallback`. An open loop has
// no client CPU: refused with `arrivals`.
#pragma once

#include <array>

#include <sonicsim/client_policies/policy.hpp>

namespace sonicsim::client_policies {

struct Cpu {
  static constexpr std::string_view name = "cpu";
  static constexpr std::string_view meaning =
      "the request is computed on the job's own CPU (p_i x t_CPU of the event, split evenly over "
      "the kind's per_event requests), blocking the thread, and counts as fallback";
  struct Settings {
    bool operator==(const Settings&) const = default;
  };
  static constexpr std::array<IntKey<Settings>, 0> keys{};
  static constexpr bool open_loop = false;
  static constexpr std::string_view open_loop_refusal =
      "an open loop has no client CPU to fall back on (remove `arrivals` for client jobs that "
      "compute a failed request themselves)";

  static double cpu_seconds(const Settings&, double share) { return share; }
  template <class Env>
  static void give_up(const Settings&, Env& env, std::uint32_t request) {
    env.compute_on_cpu(request);
  }
};

}  // namespace sonicsim::client_policies
