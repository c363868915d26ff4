// The engine's parts, each reachable by name, so that they call each other directly: no virtual
// dispatch and no callbacks on the hot path. Each part owns its state and is built with the
// shared context and this struct; simulation.cpp builds them in order and hands them the events.
//
// One request through the parts: a client issues it (clients), the request path admits and
// routes it, the network path carries it to its server's host (server hosts: the front end's
// CPU work, when modelled) and on to the server pools, which queue and execute it; the
// response goes back the same way to the client, whose policy retries, falls back or finishes it.
// Accounting counts it, sampling follows it in windows and traces, site operations and
// preemption change the servers and jobs under it.
#pragma once

#include <sonicsim/scenario/scenario.hpp>

#include "accounting.hpp"
#include "attached_devices.hpp"
#include "clients.hpp"
#include "context.hpp"
#include "model_memory.hpp"
#include "network_path.hpp"
#include "preemption.hpp"
#include "request_path.hpp"
#include "sampling.hpp"
#include "server_hosts.hpp"
#include "server_pools.hpp"
#include "site_operations.hpp"
#include "sites.hpp"

namespace sonicsim::engine {

struct Parts {
  explicit Parts(const scenario::Scenario& s)
      : ctx(s),
        clients(ctx, *this),
        sites(ctx, *this),
        path(ctx, *this),
        network(ctx, *this),
        servers(ctx, *this),
        hosts(ctx, *this),
        memory(ctx, *this),
        attached(ctx, *this),
        operations(ctx, *this),
        preemption(ctx, *this),
        sampling(ctx, *this),
        accounting(ctx) {}
  Parts(const Parts&) = delete;
  Parts& operator=(const Parts&) = delete;

  Context ctx;
  Clients clients;
  Sites sites;
  RequestPath path;
  NetworkPath network;
  ServerPools servers;
  ServerHosts hosts;
  ModelMemory memory;
  AttachedDevices attached;
  SiteOperations operations;
  Preemption preemption;
  Sampling sampling;
  Accounting accounting;
};

}  // namespace sonicsim::engine
