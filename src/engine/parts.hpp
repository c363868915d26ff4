// The engine's parts. They call each other directly (no virtual dispatch and no callbacks on
// the hot path), but each only the parts its constructor names (its Uses), so that the graph
// below is the whole of who may call whom. Each part owns its state: another part reads it
// through const accessors or asks the owner to change it. simulation.cpp builds the parts in
// order and hands them the events.
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
  // The engine's dependency graph, one part per line: whom each part may call (its Uses).
  // Members are built in declaration order; a reference to a later one may be bound before it
  // is built, and no part calls another before build().
  explicit Parts(const scenario::Scenario& s)
      : ctx(s),
        clients(ctx,
                {.sites = sites, .path = path, .sampling = sampling, .accounting = accounting}),
        sites(ctx, {.path = path, .servers = servers}),
        path(ctx, {.clients = clients,
                   .sites = sites,
                   .network = network,
                   .servers = servers,
                   .hosts = hosts,
                   .attached = attached,
                   .operations = operations,
                   .accounting = accounting}),
        network(ctx, {.clients = clients,
                      .sites = sites,
                      .hosts = hosts,
                      .attached = attached,
                      .sampling = sampling}),
        servers(ctx, {.sites = sites,
                      .path = path,
                      .hosts = hosts,
                      .memory = memory,
                      .operations = operations,
                      .sampling = sampling,
                      .accounting = accounting}),
        hosts(ctx, {.path = path, .servers = servers, .operations = operations}),
        memory(ctx, {.servers = servers, .operations = operations}),
        attached(ctx, {.clients = clients, .path = path, .servers = servers}),
        operations(ctx, {.servers = servers, .memory = memory}),
        preemption(ctx, {.clients = clients, .path = path}),
        sampling(
            ctx,
            {.clients = clients, .servers = servers, .memory = memory, .operations = operations}),
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
