// The machines the devices sit in (`servers[i].host`, docs/servers.md): a host's CPU cores do
// the gRPC front end's work on every request before the batcher sees it (receive, deserialise,
// copy the inputs to the device), a Python or custom backend's own work before each execution,
// and the response's serialisation after it. That work queues first come, first served on the
// host's cores, so a host can saturate before its devices do. Pools without host cores, and
// models without `host_cost`, pass straight through: exactly the engine without hosts.
#pragma once

#include <cstdint>
#include <vector>

#include <sonicsim/engine/free_list.hpp>

#include "context.hpp"
#include "server_pools.hpp"
#include "station.hpp"

namespace sonicsim::engine {

class RequestPath;
class ServerPools;
class SiteOperations;

class ServerHosts {
 public:
  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    RequestPath& path;
    ServerPools& servers;
    SiteOperations& operations;
  };

  ServerHosts(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses) {}
  void build();

  // The stages below are reached only when some host is modelled (`any()`): marked cold so
  // that runs without hosts keep a small hot path.
  // Request r reached its server: the host's work on it, then the batcher (ServerPools::arrive).
  [[gnu::cold]] void request_in(std::uint32_t r);
  // An execution was formed: the backend's work on a host core first when it has any (the
  // execution waits here, its instance held), then the device (ServerPools::run_on_device).
  [[gnu::cold]] void execution_in(std::uint32_t device, ServerPools::Exec&& e);
  // Request r's response leaves its server: its serialisation first, then the request path.
  [[gnu::cold]] void response_out(std::uint32_t r, double bytes);
  void on_work_done(std::uint32_t job, std::uint32_t stamp);
  // The server at device d goes away: the requests its host still works on, appended to `lost`.
  void drop(std::uint32_t d, std::vector<Batcher::Queued>& lost);
  // The end of the run: each host's utilization and the host time per request into the metrics.
  void finish();

  // Whether some host has cores whose work is modelled: without, every stage passes straight
  // through and the callers skip this part (the hot path of runs without hosts).
  bool any() const { return !host_of_.empty(); }
  // Request r's server overhead `server` once the host work it includes is taken off: a model
  // whose host_cost is part of its measured server overhead (in_server_overhead) has that time
  // as work on a core here, not as a delay too.
  [[gnu::cold]] double server_overhead_left(std::uint32_t r, double server) const;
  // Whether device d's host has cores whose work is modelled.
  bool modelled(std::uint32_t d) const { return !host_of_.empty() && host_of_[d] != kNoHost; }
  // Whether the host still works on something of device d's (a draining server waits for it).
  bool holds_work(std::uint32_t d) const { return modelled(d) && jobs_of_[d] > 0; }

 private:
  static constexpr std::uint32_t kNoHost = UINT32_MAX;
  enum class Work : std::uint8_t { RequestIn, Execution, ResponseOut };
  struct Job {
    Work kind = Work::RequestIn;
    std::uint32_t request = 0, device = 0, gen = 0;
    double work = 0.0, bytes = 0.0;
    Time since;
    bool live = false;
    ServerPools::Exec exec{};
  };
  void submit(std::uint32_t host, std::uint32_t job);
  void start(std::uint32_t job);  // on a core: its end is planned
  void complete(std::uint32_t job);
  void retire(std::uint32_t job);
  std::uint32_t new_job(Work kind, std::uint32_t device, double work);

  Context& ctx_;
  Uses parts_;
  std::vector<std::uint32_t> host_of_;  // per device; empty without any host modelled
  std::vector<int> jobs_of_;            // per device: its live jobs
  std::vector<std::uint32_t> pool_of_host_;
  std::vector<Station> hosts_;  // a host's cores
  FreeList<Job> jobs_;
  // Host time of the requests that reached a host after the warm-up, per pool: seconds in the
  // host stage (queue and work, every stage) and the requests.
  std::vector<double> host_seconds_;
  std::vector<double> host_requests_;
};

}  // namespace sonicsim::engine
