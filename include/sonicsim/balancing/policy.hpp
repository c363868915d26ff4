// What a load-balancing policy is made of, for the policies of this folder (policies.hpp lists
// them). A policy is one struct holding everything about it:
//   name         its value of `load_balancer.policy`;
//   keys         its own keys beside `policy` (an integer each: range, default, meaning), which
//                the loader reads and the schema test holds docs/scenario.schema.json to;
//   envoy        the `lbPolicy` values of SuperSONIC's Envoy it stands for (deployment mapping);
//   Settings     what the scenario keeps of it;
//   State, build, pick   the engine's hook: per-run state, built once, and the server a try
//                goes to, called per request with no virtual dispatch (see Env below).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <sonicsim/util/type_table.hpp>

namespace sonicsim::balancing {

using util::IntKey;  // an integer key of a policy (util/type_table.hpp)

// An Envoy lbPolicy a policy stands for, and what the mapping says when it is only a stand-in.
struct EnvoyName {
  std::string_view lb_policy;
  std::string_view note;  // empty: the same policy
};

// The servers up for the request's model (at its site, with several): never empty when `pick`
// is called.
using Hosts = std::vector<std::uint32_t>;

// The engine's side of a pick (src/engine/routing.cpp, RequestPath::RoutingEnv), a template
// parameter of build and pick:
//   Rng& rng()                                  the routing stream
//   std::uint32_t models(), sites()
//   const Hosts& hosting(std::uint32_t model)   every device hosting the model, up or not
//   std::uint32_t active(std::uint32_t device)  requests routed there, response not yet out
//   bool serves(std::uint32_t device, std::uint32_t site)   up, at that site
//   std::uint64_t ring_point(std::uint32_t device, std::uint64_t k)   a device's k-th hash
//   std::uint64_t client_hash(std::uint32_t thread)         the hash of the request's client

}  // namespace sonicsim::balancing
