// none: a request whose tries are used up fails; its event goes on without it.
#pragma once

#include <array>

#include <sonicsim/client_policies/policy.hpp>

namespace sonicsim::client_policies {

struct None {
  static constexpr std::string_view name = "none";
  static constexpr std::string_view meaning =
      "the request counts as failed and the event goes on without it";
  struct Settings {
    bool operator==(const Settings&) const = default;
  };
  static constexpr std::array<IntKey<Settings>, 0> keys{};
  static constexpr bool open_loop = true;
  static constexpr std::string_view open_loop_refusal = "";

  static double cpu_seconds(const Settings&, double) { return 0.0; }
  template <class Env>
  static void give_up(const Settings&, Env& env, std::uint32_t request) {
    env.fail(request);
  }
};

}  // namespace sonicsim::client_policies
