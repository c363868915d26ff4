// When the clients' jobs begin (workload.start, src/engine/clients.cpp: Clients::start_threads
// and pattern_start): each pattern starts every job when it says, a job's threads together,
// without moving the threads' own random draws; a burst of jobs started together queues by
// exactly what a short argument predicts, and more than the steady state; a batch system does
// not preempt a job it has not started.
#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "support.hpp"

using namespace test;
using sonicsim::engine::RunMetrics;

namespace {

// `n` single-thread jobs in a closed loop: constant t_CPU = `c`, all of it before the event's
// one request (p = 0), which one GPU serves in a constant `s`, one request at a time (no
// batching), with no network and no overheads. Every instant of such a run is a sum of c's and
// s's, so its queue times can be worked out by hand.
json lockstep(int n, double c, double s, const json& start, double duration) {
  return json{
      {"name", "start-burst"},
      {"duration", duration},
      {"warmup", 0.0},
      {"workload",
       {{"jobs", n},
        {"threads_per_job", 1},
        {"cpu_time_per_event", c},
        {"start", start},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.0}}})}}},
      {"models", {{"m", {{"service_time", {{"batch", {1}}, {"seconds", {s}}}}}}}},
      {"servers",
       json::array({{{"name", "gpu"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}})}};
}

// A run with every request traced.
sonicsim::runner::RunOutput traced(const json& doc) {
  return sonicsim::runner::simulate(scenario_of(doc), sonicsim::runner::TransportChoice{},
                                    {1, 1'000'000});
}

// Each thread's requests' queue times, in the order it sent them: [thread][wave].
std::vector<std::vector<double>> queue_times_by_wave(const RunMetrics& m, std::size_t threads) {
  std::vector<std::vector<double>> by_thread(threads);
  for (const auto& r : m.trace)
    if (!std::isnan(r.exec_start)) by_thread.at(r.thread).push_back(r.exec_start - r.at_server);
  return by_thread;
}

// Each thread's first request's send time.
std::map<std::uint32_t, double> first_sends(const RunMetrics& m) {
  std::map<std::uint32_t, double> first;
  for (const auto& r : m.trace) first.emplace(r.thread, r.sent);  // in issue order: the first
  return first;
}

// The time series' queue time per request in each window, of the one pool and model.
std::vector<double> window_queue_times(const RunMetrics& m) {
  REQUIRE(m.timeseries);
  REQUIRE(m.timeseries->servers.size() == 1);
  const auto& c = m.timeseries->servers[0];
  std::vector<double> q;
  for (std::size_t k = 0; k < c.requests.size(); ++k)
    q.push_back(c.requests[k] > 0.0 ? c.queue_s[k] / c.requests[k] : -1.0);
  return q;
}

}  // namespace

// The argument: N requests arrive at one instant, t_CPU, at a FIFO server that takes t_GPU
// each. The k-th waits (k - 1) t_GPU: the first wave's mean queue time is (N - 1) t_GPU / 2 and
// its last waits (N - 1) t_GPU. Thread k is back at t_CPU + k t_GPU and sends again t_CPU later.
//   - Below saturation, (N - 1) t_GPU <= t_CPU: thread 1's second request arrives after thread
//     N's first is done, and the threads, now t_GPU apart, never queue again: the steady state
//     queues 0.
//   - Past it, the server never idles again: a thread's cycle is N t_GPU, of which t_CPU + t_GPU
//     working, so every later request waits (N - 1) t_GPU - t_CPU, exactly.
// So the burst queues (N - 1) t_GPU / 2 - max(0, (N - 1) t_GPU - t_CPU) more than the steady
// state per request. Spread starts reach the same steady state.
TEST_CASE("start together: the first wave queues as the argument says, the steady state less",
          "[engine][start]") {
  const int n = 50;
  const double s = 0.010;
  const double c = GENERATE(1.0, 0.3);  // below saturation ((N-1) s = 0.49 s <= c), and past it
  const double burst = (n - 1) * s / 2;
  const double steady = std::max(0.0, (n - 1) * s - c);
  INFO("t_CPU " << c << " s: burst " << burst << " s, steady state " << steady << " s");
  const double tight = 1e-9;

  json doc = lockstep(n, c, s, "together", 20.0);
  // The first window holds the first wave's executions (ending at c + k s, k = 1..N) and no
  // other: the second wave's first ends at c + 2 s at the earliest.
  doc["timeseries"] = {{"interval", c + (n + 0.5) * s}};
  const auto out = traced(doc);
  const RunMetrics& m = out.metrics;
  check_conservation(m);

  SECTION("request by request: wave 1 waits 0, s, ..., (N-1) s; every later one the steady") {
    const auto waves = queue_times_by_wave(m, n);
    std::vector<double> first;
    std::size_t later = 0;
    for (const auto& w : waves) {
      REQUIRE(w.size() >= 10);
      first.push_back(w[0]);
      for (std::size_t k = 1; k < w.size(); ++k, ++later)
        CHECK(w[k] == Approx(steady).margin(tight));
    }
    CHECK(later > 500);
    std::sort(first.begin(), first.end());
    for (int k = 0; k < n; ++k) CHECK(first[k] == Approx(k * s).margin(tight));
    CHECK(std::accumulate(first.begin(), first.end(), 0.0) / n == Approx(burst).margin(tight));
    CHECK(first.back() == Approx((n - 1) * s).margin(tight));
  }

  SECTION("the time series: the first window's queue time is the burst's, the others steady") {
    const auto q = window_queue_times(m);
    REQUIRE(q.size() >= 10);
    CHECK(q[0] == Approx(burst).margin(tight));
    for (std::size_t k = 1; k < q.size(); ++k) {
      INFO("window " << k);
      CHECK(q[k] == Approx(steady).margin(tight));
    }
    // Larger than the steady state, by the argument's difference.
    CHECK(q[0] - q.back() == Approx(burst - steady).margin(tight));
    CHECK(q[0] - q.back() > 0.05);
    // What a planner reads beside it: the first window's latency p99 is one of the last
    // requests' wait and execution (the quantile of 50 falls between the 49th and the 50th), the
    // later ones the steady state's (within the histogram's 0.07%).
    const auto& lat = m.timeseries->models.at(0).latency_p99_s;
    CHECK(lat[0] >= (n - 1) * s * (1 - 1e-3));
    CHECK(lat[0] <= n * s * (1 + 1e-3));
    CHECK(lat.back() == Approx(steady + s).epsilon(1e-3));
  }

  SECTION("spread starts reach the same steady state with a smaller first window") {
    doc["workload"]["start"] = "spread";
    const auto spread = window_queue_times(run(doc));
    REQUIRE(spread.size() >= 10);
    CHECK(spread[0] < burst);
    for (std::size_t k = spread.size() / 2; k < spread.size(); ++k) {
      INFO("window " << k);
      CHECK(spread[k] == Approx(steady).margin(tight));
    }
  }
}

TEST_CASE(
    "start together with batching: constant times keep the jobs in lock-step, random "
    "t_CPU drifts them apart",
    "[engine][start]") {
  // 20 jobs whose requests the server may batch by 20: started together, the first wave is one
  // batch of 20, which returns all 20 threads at one instant, and so on for ever: nothing but
  // randomness in the times moves one thread against another.
  const int n = 20;
  json doc = lockstep(n, 1.0, 0.010, "together", 60.0);
  doc["models"]["m"]["service_time"] = {{"batch", {1, n}}, {"seconds", {0.010, 0.030}}};
  doc["models"]["m"]["max_batch_size"] = n;
  doc["models"]["m"]["dynamic_batching"] = {{"max_queue_delay", "1ms"}};
  const auto constant = run(doc);
  CHECK(constant.events_completed > n * 50);
  REQUIRE(constant.models.size() == 1);
  // No execution exceeds the cap of n: a mean of n means every one took all n threads.
  const auto& cm = constant.models[0];
  CHECK(cm.items == cm.executions * n);

  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 1.0}, {"cv", 0.3}};
  doc["timeseries"] = {{"interval", "10s"}};
  const auto random = run(doc);
  REQUIRE(random.timeseries);
  const auto& batch = random.timeseries->models.at(0).mean_batch_size;
  REQUIRE(batch.size() == 6);
  // The first window holds the burst's batches; by the last the threads have drifted apart.
  CHECK(batch.front() > batch.back());
  CHECK(batch.back() < n / 4.0);
}

TEST_CASE("start patterns: each job's threads begin when the pattern says", "[engine][start]") {
  // t_CPU = 1 s before the one request: a thread's first request leaves 1 s after it starts.
  json doc = lockstep(6, 1.0, 0.001, "together", 200.0);
  doc["workload"]["threads_per_job"] = 3;

  SECTION("together: every thread at 0") {
    for (const auto& [t, sent] : first_sends(traced(doc).metrics)) CHECK(sent == Approx(1.0));
    CHECK(first_sends(traced(doc).metrics).size() == 18);
  }
  SECTION("staggered: job j's threads at j x interval") {
    doc["workload"]["start"] = {{"pattern", "staggered"}, {"interval", "20s"}};
    const auto first = first_sends(traced(doc).metrics);
    CHECK(first.size() == 18);
    for (const auto& [t, sent] : first) {
      INFO("thread " << t);
      CHECK(sent == Approx(20.0 * (t / 3) + 1.0));
    }
  }
  SECTION("staggered: jobs due after the end never start") {
    doc["workload"]["start"] = {{"pattern", "staggered"}, {"interval", "60s"}};
    const auto m = traced(doc).metrics;
    CHECK(first_sends(m).size() == 4 * 3);  // jobs at 0, 60, 120, 180 s of a 200 s run
  }
  SECTION("random: each job's threads at one time within the window") {
    doc["workload"]["jobs"] = 30;
    doc["workload"]["start"] = {{"pattern", "random"}, {"window", "100s"}};
    const auto first = first_sends(traced(doc).metrics);
    REQUIRE(first.size() == 90);
    std::vector<double> starts;
    for (std::uint32_t j = 0; j < 30; ++j) {
      const double start = first.at(3 * j) - 1.0;
      CHECK(start >= 0.0);
      CHECK(start < 100.0);
      CHECK(first.at(3 * j + 1) == first.at(3 * j));
      CHECK(first.at(3 * j + 2) == first.at(3 * j));
      starts.push_back(start);
    }
    std::sort(starts.begin(), starts.end());
    CHECK(std::adjacent_find(starts.begin(), starts.end()) == starts.end());
    CHECK(starts.back() - starts.front() > 50.0);
    // Another seed, other times: the draws are the seed's.
    doc["seed"] = 2;
    CHECK(first_sends(traced(doc).metrics).at(0) != first.at(0));
  }
}

TEST_CASE("start patterns move a thread's events in time, not its random draws",
          "[engine][start]") {
  // Exponential t_CPU: a thread's first request leaves at its start plus its first draw. Under
  // each pattern that draw is the same, so the first sends differ by the starts alone.
  json doc = lockstep(8, 1.0, 0.001, "together", 30.0);
  doc["workload"]["threads_per_job"] = 2;
  doc["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 1.0}};
  const auto together = first_sends(traced(doc).metrics);
  REQUIRE(together.size() == 16);

  doc["workload"]["start"] = {{"pattern", "random"}, {"window", "10s"}};
  const auto random = first_sends(traced(doc).metrics);
  doc["workload"]["start"] = "spread";
  const auto spread = first_sends(traced(doc).metrics);
  REQUIRE(random.size() == 16);
  REQUIRE(spread.size() == 16);
  for (std::uint32_t t = 0; t < 16; t += 2) {
    INFO("threads " << t << " and " << t + 1 << " (one job)");
    const double job_start = random.at(t) - together.at(t);
    CHECK(job_start >= -2e-9);
    CHECK(job_start < 10.0);
    CHECK(random.at(t + 1) - together.at(t + 1) == Approx(job_start).margin(2e-9));
    // Spread: each thread its own offset within one mean t_CPU.
    for (std::uint32_t u : {t, t + 1}) {
      CHECK(spread.at(u) - together.at(u) >= -2e-9);
      CHECK(spread.at(u) - together.at(u) < 1.0);
    }
  }
}

TEST_CASE("preemption takes only jobs that have started", "[engine][start][faults]") {
  // 10 single-thread jobs staggered by 100 s: at 250 s three have started (0, 100, 200 s).
  json doc = deterministic(10, 2, 1.0, 0.1, 0.010);
  doc["warmup"] = 0.0;
  doc["workload"]["start"] = {{"pattern", "staggered"}, {"interval", "100s"}};
  doc["faults"] =
      json::array({{{"kind", "preemption"}, {"at", 250}, {"jobs", 4}, {"restart_after", 60}}});
  const auto m = run(doc);
  check_conservation(m);
  CHECK(m.preemptions.jobs == 3);
  CHECK(m.preemptions.events_lost == 3);

  SECTION("a random preemption's clock starts with its job") {
    // Job 1 is due after the end: however often jobs are preempted, it never runs.
    json late = deterministic(2, 1, 1.0, 0.1, 0.010);
    late["duration"] = 300.0;
    late["warmup"] = 0.0;
    late["workload"]["start"] = {{"pattern", "staggered"}, {"interval", "400s"}};
    late["faults"] =
        json::array({{{"kind", "random_preemption"}, {"mtbf", "20s"}, {"restart_after", "1s"}}});
    const auto out = traced(late);
    CHECK(out.metrics.preemptions.jobs > 3);
    CHECK(first_sends(out.metrics).size() == 1);  // thread 0's requests only
  }
}
