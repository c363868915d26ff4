#include "server_hosts.hpp"

#include <algorithm>

#include "request_path.hpp"
#include "server_pools.hpp"
#include "site_operations.hpp"

namespace sonicsim::engine {

void ServerHosts::build() {
  const auto& sc = ctx_.sc;
  bool any = false;
  for (const auto& pool : sc.servers) any = any || (pool.host && pool.host->cores);
  host_seconds_.assign(sc.servers.size(), 0.0);
  host_requests_.assign(sc.servers.size(), 0.0);
  if (!any) return;
  const auto& servers = parts_.servers;
  host_of_.assign(servers.device_count(), kNoHost);
  jobs_of_.assign(servers.device_count(), 0);
  // Devices are numbered pool by pool; a pool's hosts take its devices `host.devices` at a time.
  std::uint32_t d = 0;
  for (std::size_t p = 0; p < sc.servers.size(); ++p) {
    const auto& pool = sc.servers[p];
    const bool modelled = pool.host && pool.host->cores;
    const int per_host = pool.host ? pool.host->devices : 1;
    for (int i = 0; i < pool.count; ++i, ++d) {
      if (!modelled) continue;
      if (i % per_host == 0) {
        hosts_.emplace_back(*pool.host->cores);
        pool_of_host_.push_back(static_cast<std::uint32_t>(p));
      }
      host_of_[d] = static_cast<std::uint32_t>(hosts_.size() - 1);
    }
  }
}

std::uint32_t ServerHosts::new_job(Work kind, std::uint32_t device, double work) {
  const std::uint32_t j = jobs_.add();  // a reused record keeps its gen, which moves on below
  Job& job = jobs_[j];
  job.kind = kind;
  job.device = device;
  job.work = work;
  job.since = ctx_.now;
  job.live = true;
  ++jobs_of_[device];
  job.gen = (job.gen + 1) & EventQueue::kStampMask;
  return j;
}

double ServerHosts::server_overhead_left(std::uint32_t r, double server) const {
  const Request& rq = ctx_.requests[r];
  const auto& model = ctx_.sc.models[ctx_.requests.model_of(r)];
  if (!model.host_cost || !model.host_cost->in_server_overhead || !modelled(rq.device))
    return server;
  const double work = model.host_cost->per_request_work(rq.items * model.input_bytes_per_item,
                                                        rq.items * model.output_bytes_per_item);
  return std::max(0.0, server - work);
}

void ServerHosts::request_in(std::uint32_t r) {
  const Request& rq = ctx_.requests[r];
  if (!modelled(rq.device)) return parts_.servers.arrive(r);
  const std::uint32_t host = host_of_[rq.device];
  if (ctx_.counts(ctx_.now)) host_requests_[pool_of_host_[host]] += 1.0;
  const auto& model = ctx_.sc.models[ctx_.requests.model_of(r)];
  const double work =
      model.host_cost ? model.host_cost->before_queue(rq.items * model.input_bytes_per_item) : 0.0;
  if (!(work > 0.0)) return parts_.servers.arrive(r);
  const std::uint32_t j = new_job(Work::RequestIn, rq.device, work);
  jobs_[j].request = r;
  submit(host, j);
}

void ServerHosts::execution_in(std::uint32_t device, ServerPools::Exec&& e) {
  const auto& model = ctx_.sc.models[parts_.servers.model_of_batcher(e.batcher)];
  const double work = model.host_cost ? model.host_cost->per_execution : 0.0;
  if (!modelled(device) || !(work > 0.0)) return parts_.servers.run_on_device(device, std::move(e));
  const std::uint32_t j = new_job(Work::Execution, device, work);
  jobs_[j].exec = std::move(e);
  submit(host_of_[device], j);
}

void ServerHosts::response_out(std::uint32_t r, double bytes) {
  const Request& rq = ctx_.requests[r];
  const auto& model = ctx_.sc.models[ctx_.requests.model_of(r)];
  const double work =
      modelled(rq.device) && model.host_cost ? model.host_cost->after_execution(bytes) : 0.0;
  if (!(work > 0.0)) return parts_.path.respond(r, bytes);
  const std::uint32_t j = new_job(Work::ResponseOut, rq.device, work);
  jobs_[j].request = r;
  jobs_[j].bytes = bytes;
  submit(host_of_[rq.device], j);
}

void ServerHosts::submit(std::uint32_t host, std::uint32_t job) {
  if (hosts_[host].arrive(job, ctx_.now, ctx_.warmup)) start(job);
}

void ServerHosts::start(std::uint32_t job) {
  ctx_.queue.push(ctx_.now + jobs_[job].work, EventKind::HostWorkDone, job, jobs_[job].gen);
}

void ServerHosts::on_work_done(std::uint32_t job, std::uint32_t stamp) {
  if (!jobs_[job].live || stamp != jobs_[job].gen) return;  // dropped with its server
  hosts_[host_of_[jobs_[job].device]].done(ctx_.now, ctx_.warmup,
                                           [&](std::uint32_t next) { start(next); });
  complete(job);
}

void ServerHosts::retire(std::uint32_t j) {
  jobs_[j].live = false;
  --jobs_of_[jobs_[j].device];
  jobs_.release(j);
}

void ServerHosts::complete(std::uint32_t j) {
  Job& job = jobs_[j];
  retire(j);
  const double held = ctx_.now - job.since;
  const std::uint32_t pool = pool_of_host_[host_of_[job.device]];
  const bool counted = ctx_.counts(ctx_.now);
  switch (job.kind) {
    case Work::RequestIn:
      if (counted) host_seconds_[pool] += held;
      return parts_.servers.arrive(job.request);
    case Work::Execution: {
      if (counted) host_seconds_[pool] += held * static_cast<double>(job.exec.batch.size());
      ServerPools::Exec e = std::move(job.exec);
      job.exec.batch.clear();
      return parts_.servers.run_on_device(job.device, std::move(e));
    }
    case Work::ResponseOut: {
      if (counted) host_seconds_[pool] += held;
      const std::uint32_t d = job.device;
      parts_.path.respond(job.request, job.bytes);
      // A draining server ends once its last response has left.
      if (parts_.servers.device(d).state == ServerPools::State::Draining &&
          !parts_.servers.holds_work(d))
        parts_.operations.stop_server(d, ServerPools::State::Off);
      return;
    }
  }
}

void ServerHosts::drop(std::uint32_t d, std::vector<Batcher::Queued>& lost) {
  if (!modelled(d)) return;
  Station& h = hosts_[host_of_[d]];
  // Jobs of the device still waiting leave the queue; those on a core free it now (their
  // completion events go stale with the job's generation).
  h.leave_queue([&](std::uint32_t j) { return jobs_[j].device == d; });
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    Job& job = jobs_[j];
    if (!job.live || job.device != d) continue;
    if (job.kind == Work::Execution) {
      lost.insert(lost.end(), job.exec.batch.begin(), job.exec.batch.end());
      parts_.servers.release_pending(job.exec);
    } else {
      lost.push_back({job.request, ctx_.requests[job.request].items, job.since});
    }
    retire(j);
  }
  // The cores in use: the jobs still live on this host, less those waiting.
  int live = 0;
  for (std::uint32_t j = 0; j < jobs_.size(); ++j)
    if (jobs_[j].live && host_of_[jobs_[j].device] == host_of_[d]) ++live;
  h.recount(live - static_cast<int>(h.waiting()), ctx_.now, ctx_.warmup,
            [&](std::uint32_t next) { start(next); });
}

void ServerHosts::finish() {
  auto& pools = ctx_.metrics.pools;
  const double span = ctx_.metrics.span();
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    Station& h = hosts_[i];
    h.account(ctx_.now, ctx_.warmup);
    pools[pool_of_host_[i]].host_cores = h.servers();
    pools[pool_of_host_[i]].host_utilization.push_back(
        span > 0.0 ? h.busy_area() / (span * h.servers()) : 0.0);
  }
  for (std::size_t p = 0; p < host_seconds_.size() && !hosts_.empty(); ++p)
    pools[p].host_seconds_per_request =
        host_requests_[p] > 0.0 ? host_seconds_[p] / host_requests_[p] : 0.0;
}

}  // namespace sonicsim::engine
