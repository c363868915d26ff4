// Worker nodes (src/engine/worker_nodes.cpp, `workload.node`): a node's CPU work runs at the
// per-thread speed of its busy count. Checked against closed forms: the product-form closed
// network of a node (a processor-sharing station whose capacity grows with its busy threads up to
// its cores) and a remote call (an infinite-server delay), the CPU-only baseline on full nodes,
// and a node that never contends, which must run exactly as no node at all.
#include "support.hpp"

#include <cmath>
#include <vector>

#include <sonicsim/results/results.hpp>
#include <sonicsim/results_format/reader.hpp>

using namespace test;

namespace {

// `threads` single-thread jobs, all on one node of `cores` cores x 2 hardware threads, with
// exponential CPU time per event (mean t_cpu, p of it offloaded) and one remote call of `d`
// seconds that never queues (as many devices as threads, no network, no overheads); p = 0: no
// call at all (CPU-only).
json node_loop(int cores, int threads, double hyperthread, double p, double d, double t_cpu,
               double duration) {
  json doc{
      {"duration", duration},
      {"warmup", duration / 20},
      {"workload",
       {{"jobs", threads},
        {"threads_per_job", 1},
        {"jobs_per_node", threads},
        {"cpu_time_per_event", {{"dist", "exponential"}, {"mean", t_cpu}}},
        {"node",
         {{"cores", cores}, {"threads_per_core", 2}, {"speed", {{"hyperthread", hyperthread}}}}},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", p}}})}}},
      {"models", {{"m", {{"service_time", {{"batch", {1}}, {"seconds", {d}}}}}}}},
      {"servers",
       json::array({{{"name", "gpu"}, {"count", threads}, {"device", "T4"}, {"models", {"m"}}}})}};
  if (p == 0.0) doc["workload"]["requests"] = json::array();
  return doc;
}

// The closed network in product form (BCMP: a processor-sharing station and an infinite-server
// one are insensitive to their service distributions beyond the mean). n threads at the CPU run
// at min(n, C) thread-equivalents when hyper-threads halve the speed: pi(n) ~ w^n / prod min(k, C)
// x d^(N-n) / (N-n)!. Returns {throughput, mean busy threads, mean speed factor}.
struct Closed {
  double throughput, busy, speed;
};
Closed closed_form(int cores, int n_threads, double w, double d) {
  std::vector<double> pi(static_cast<std::size_t>(n_threads) + 1);
  double norm = 0.0;
  for (int n = 0; n <= n_threads; ++n) {
    double x = std::pow(d, n_threads - n) / std::tgamma(n_threads - n + 1.0);
    for (int k = 1; k <= n; ++k) x *= w / std::min(k, cores);
    pi[static_cast<std::size_t>(n)] = x;
    norm += x;
  }
  double served = 0.0, busy = 0.0;
  for (int n = 0; n <= n_threads; ++n) {
    served += pi[static_cast<std::size_t>(n)] / norm * std::min(n, cores);
    busy += pi[static_cast<std::size_t>(n)] / norm * n;
  }
  return {served / w, busy, served / busy};
}

const sonicsim::engine::RunMetrics::Workload::Nodes& nodes_of(
    const sonicsim::engine::RunMetrics& m) {
  REQUIRE(m.workloads.size() == 1);
  REQUIRE(m.workloads[0].nodes);
  return *m.workloads[0].nodes;
}

double mean_speed(const sonicsim::engine::RunMetrics& m) {
  const auto& n = nodes_of(m);
  return n.work_seconds / n.busy_seconds;
}

}  // namespace

TEST_CASE(
    "a node of C cores and 2C hyper-threads at half speed reproduces the closed loop's "
    "product-form throughput",
    "[engine][nodes]") {
  const int cores = 4, threads = 8;
  const double t_cpu = 1.0, d = 0.5;
  for (const double p : {0.0, 0.25, 0.5, 0.75}) {
    INFO("offload fraction " << p);
    const auto m = run(node_loop(cores, threads, 0.5, p, d, t_cpu, 20000.0));
    check_conservation(m);
    const Closed want = closed_form(cores, threads, (1.0 - p) * t_cpu, p > 0.0 ? d : 0.0);
    // 20,000 s of 8 threads: about 10^5 events, a relative error of about 0.5%.
    CHECK(throughput(m) == Approx(want.throughput).epsilon(0.02));
    const auto& n = nodes_of(m);
    const double span = m.duration - m.warmup;
    CHECK(n.busy_seconds / span == Approx(want.busy).epsilon(0.02));
    CHECK(mean_speed(m) == Approx(want.speed).epsilon(0.02));
    CHECK(n.cpu_only_events_per_s == Approx(cores / t_cpu));  // 8 threads at half speed
  }
}

TEST_CASE("threads that wait on a remote call speed up the threads still working beside them",
          "[engine][nodes]") {
  const auto cpu_only = run(node_loop(4, 8, 0.5, 0.0, 0.5, 1.0, 4000.0));
  const auto offload = run(node_loop(4, 8, 0.5, 0.5, 0.5, 1.0, 4000.0));
  // CPU-only, all eight hardware threads are busy all the time: each runs at exactly half speed.
  CHECK(mean_speed(cpu_only) == Approx(0.5).epsilon(1e-9));
  CHECK(throughput(cpu_only) == Approx(4.0).epsilon(0.02));
  // Offloading half the work leaves threads waiting; the others run faster than half speed, so
  // the node gains more than the (1 - p) the formula credits: the CPU phase's mean time is below
  // (1 - p) t_CPU / 0.5, the speed a full node would give it.
  CHECK(mean_speed(offload) > 0.6);
  const double cpu_phase = 0.5 / mean_speed(offload);
  CHECK(cpu_phase < 0.5 / 0.5 * 0.85);
  CHECK(throughput(offload) > 1.3 * throughput(cpu_only));
}

TEST_CASE("a node that never contends runs exactly as threads on machines of their own",
          "[engine][nodes]") {
  // 4 single-thread jobs on a node of 64 cores: every thread always runs at speed 1.
  auto alone = deterministic(4, 1, 0.1, 0.3, 0.01);
  alone["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 0.1}};
  alone["duration"] = 200.0;
  auto on_node = alone;
  on_node["workload"]["jobs_per_node"] = 4;
  on_node["workload"]["node"] = {{"cores", 64}, {"threads_per_core", 2}};
  const auto a = run(alone), b = run(on_node);
  CHECK(b.events_completed == a.events_completed);
  CHECK(b.completed == a.completed);
  CHECK(b.time_per_event.mean() == Approx(a.time_per_event.mean()).epsilon(1e-9));
  CHECK(b.latency.mean() == Approx(a.latency.mean()).epsilon(1e-9));
  CHECK(mean_speed(b) == 1.0);
}

TEST_CASE(
    "a node's memory-bandwidth cap and the time's reference occupancy set the CPU-only "
    "throughput exactly",
    "[engine][nodes]") {
  // CPU-only, constant 1 s events: 16 threads on 16 cores, capped at 10 thread-equivalents.
  auto doc = node_loop(16, 16, 0.6, 0.0, 0.01, 1.0, 400.0);
  doc["workload"]["cpu_time_per_event"] = 1.0;
  doc["workload"]["node"]["speed"]["memory_bandwidth_threads"] = 10;
  SECTION("the cap binds") {
    const auto m = run(doc);
    CHECK(mean_speed(m) == Approx(10.0 / 16.0).epsilon(1e-9));
    CHECK(nodes_of(m).cpu_only_events_per_s == Approx(10.0));
    CHECK(throughput(m) == Approx(10.0).epsilon(0.01));
  }
  SECTION("cpu_time_per_event measured on the full node is the time it takes there") {
    doc["workload"]["node"]["cpu_time_measured_at"] = "full";
    const auto m = run(doc);
    CHECK(mean_speed(m) == Approx(1.0).epsilon(1e-9));
    CHECK(throughput(m) == Approx(16.0).epsilon(0.01));
  }
}

TEST_CASE("the results file reports each node workload's occupancy, speed and speed-up",
          "[engine][nodes][results]") {
  const auto s = scenario_of(node_loop(4, 8, 0.5, 0.5, 0.5, 1.0, 2000.0));
  const auto run_out = sonicsim::runner::simulate(s, {});
  const nlohmann::json written = sonicsim::results::to_json(s, run_out, nlohmann::json());
  const sonicsim::results::Document doc(written);
  const auto nodes = doc.nodes();
  REQUIRE(nodes.size() == 1);
  const auto& n = nodes[0];
  const auto& mn = *run_out.metrics.workloads[0].nodes;
  const double span = run_out.metrics.duration - run_out.metrics.warmup;
  CHECK(n.count() == 1);
  CHECK(n.hardware_threads() == 8);
  CHECK(n.mean_busy_threads() == Approx(mn.busy_seconds / span));
  CHECK(n.mean_occupancy() == Approx(mn.busy_seconds / span / 8));
  CHECK(n.mean_speed_factor() == Approx(mn.work_seconds / mn.busy_seconds));
  CHECK(n.cpu_only_speed_factor() == Approx(0.5));
  REQUIRE(n.speedup_vs_cpu_only());
  CHECK(*n.speedup_vs_cpu_only() ==
        Approx(throughput(run_out.metrics) / n.cpu_only_throughput_per_s()));
  doc.check();
}
