// What a client policy is made of, for the policies of this folder (policies.hpp lists them). A
// client policy is the last resort of `workload.client`: what a client does with a request whose
// tries are used up (`allowed_tries` failed, or no try was allowed: a job the balancer did not
// admit). Timeouts, tries and the delay between them are the same for every policy (the loader's
// `workload.client` keys, the engine's src/engine/client_policy.cpp); a policy is one struct
// holding everything about its last resort:
//   name         its value of `workload.client.fallback`;
//   meaning      what it does, for the documentation and the messages;
//   keys         its own keys beside `fallback` in `workload.client` (an integer each: range,
//                default, meaning), which the loader reads and the schema test holds
//                docs/scenario.schema.json to; none so far;
//   open_loop    whether a workload with `arrivals` (an open loop: no client jobs, threads or
//                CPU) may use it; when not, `open_loop_refusal` is the loader's reason;
//   Settings     what the scenario keeps of it;
//   cpu_seconds  the client CPU time its last resort takes for a request whose share of the
//                event's CPU time is `share` (the work estimate's shortest failed request);
//   give_up      the engine's hook: what happens to the request, called once per request that
//                runs out of tries, with no virtual dispatch (see Env below).
#pragma once

#include <cstdint>
#include <string_view>

#include <sonicsim/util/type_table.hpp>

namespace sonicsim::client_policies {

using util::IntKey;  // an integer key of a policy (util/type_table.hpp)

// The engine's side of a last resort (src/engine/client_policy.cpp, Clients::GiveUpEnv), a
// template parameter of give_up:
//   void fail(std::uint32_t request)            the request counts as `failed`; its event goes on
//                                               without it
//   void compute_on_cpu(std::uint32_t request)  the request's share of its event's CPU time on
//                                               the client's own CPU (blocking a sync thread; an
//                                               async thread's CPU runs it as one more piece),
//                                               then it counts as `fallback`

}  // namespace sonicsim::client_policies
