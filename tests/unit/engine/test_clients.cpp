// The clients (src/engine/clients.cpp): each workload's jobs and threads and the events they
// process. The CPU-only baseline; async events in flight; job flows, jobs that start in waves, on
// a ramp or at given times, process their events and exit: every job and every event is
// accounted for, and the start times are the ones asked for.
#include "support.hpp"

#include <sonicsim/results/results.hpp>

using namespace test;

TEST_CASE("job flow: every job starts, processes its events and exits", "[engine][jobflow]") {
  const auto m = run(job_flow(120, {{"waves", {{"size", 40}, {"every", "10min"}}}}));
  REQUIRE(m.jobs);
  CHECK(m.jobs->total == 120);
  CHECK(m.jobs->started == 120);
  CHECK(m.jobs->finished == 120);
  CHECK(m.events_completed == 120 * 100);  // each job's budget, no more, no less
  check_conservation(m);
  CHECK(m.in_flight_at_end == 0);
  // 100 events of about 0.912 s (plus a start within one event time): waves never overlap.
  const double event = 0.9 + 0.01 + 2 * 600e-6 + 10100.0 / 1.25e9;
  CHECK(m.jobs->wall_time.quantile(0.0) >= 100 * event - 1e-9);
  CHECK(m.jobs->wall_time.max() <= 100 * event + 1.0 + 1e-9);
  CHECK(m.jobs->peak_running == 40);
  CHECK(m.jobs->last_exit > 1200.0 + 100 * event);
  CHECK(m.jobs->last_exit <= 1200.0 + 100 * event + 1.0 + 1e-9);
}

TEST_CASE("job flow: the time series shows each wave come and go", "[engine][jobflow]") {
  auto doc = job_flow(120, {{"waves", {{"size", 40}, {"every", "10min"}, {"first", "1min"}}}});
  doc["timeseries"] = {{"interval", "1min"}};
  const auto m = run(doc);
  REQUIRE(m.timeseries);
  const auto& running = m.timeseries->running_jobs;
  REQUIRE(running.size() == 120);
  // Window k ends at (k + 1) minutes. A wave's jobs start at 1, 11 and 21 min, each thread's
  // first event within 1 s (one mean event time) of it, and run about 91.2 s.
  int checked = 0;
  for (std::size_t k = 0; k < running.size(); ++k) {
    const double t = 60.0 * static_cast<double>(k + 1);
    const double phase = std::fmod(t - 60.0, 600.0);
    INFO("window ending at " << t << " s");
    if (t < 1800.0 && phase >= 2.0 && phase <= 90.0) {
      CHECK(running[k] == 40.0);
      ++checked;
    } else if (t >= 1800.0 || phase >= 93.0) {
      CHECK(running[k] == 0.0);
      ++checked;
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("job flow: ramps, explicit start times and budgets that vary per job",
          "[engine][jobflow]") {
  SECTION("a ramp starts job j at over x j / jobs") {
    sonicsim::scenario::JobFlow f;
    f.start = sonicsim::scenario::JobFlow::Start::Ramp;
    f.ramp_over = 100.0;
    CHECK(f.start_of(0, 10) == 0.0);
    CHECK(f.start_of(5, 10) == 50.0);
    f.start = sonicsim::scenario::JobFlow::Start::Waves;
    f.wave_size = 3;
    f.wave_every = 60.0;
    f.first = 5.0;
    CHECK(f.start_of(2, 10) == 5.0);
    CHECK(f.start_of(3, 10) == 65.0);
  }
  SECTION("start times: no job starts before its time, one at a time on an idle fleet") {
    const auto m = run(job_flow(3, {{"start_times", {"0s", "1h", "90min"}}}, 50));
    REQUIRE(m.jobs);
    CHECK(m.jobs->finished == 3);
    CHECK(m.jobs->peak_running == 1);
    CHECK(m.jobs->last_exit > 5400.0 + 50 * 0.9);
  }
  SECTION("a distribution of events per job: the events are the sum of the budgets") {
    auto doc = job_flow(50, {{"ramp", {{"over", "30min"}}}});
    doc["workload"]["flow"]["events_per_job"] = {{"dist", "uniform"}, {"min", 10}, {"max", 200}};
    const auto m = run(doc);
    REQUIRE(m.jobs);
    CHECK(m.jobs->finished == 50);
    CHECK(m.events_completed > 50 * 10);
    CHECK(m.events_completed < 50 * 200);
    check_conservation(m);
    const auto again = run(doc);
    CHECK(again.events_completed == m.events_completed);
    CHECK(again.jobs->last_exit == m.jobs->last_exit);
  }
}

TEST_CASE("job flow: jobs still running or not started at the end are counted",
          "[engine][jobflow]") {
  auto doc = job_flow(100, {{"waves", {{"size", 25}, {"every", "30min"}}}}, 1000);
  doc["duration"] = 2400.0;  // waves at 0 and 30 min; each job needs about 15 min
  const auto m = run(doc);
  REQUIRE(m.jobs);
  CHECK(m.jobs->started == 50);
  CHECK(m.jobs->finished == 25);
  CHECK(m.jobs->started - m.jobs->finished == 25);
  CHECK(m.jobs->total - m.jobs->started == 50);
  check_conservation(m);
}

TEST_CASE("job flow: each workload's own jobs, its last exit its time to insight",
          "[engine][jobflow]") {
  // Two analysts on the same servers: A's 10 jobs of 100 events start at once, B's 20 jobs of
  // 50 events 10 minutes later, and a fixed population with no flow beside them.
  auto a = job_flow(10, json::object(), 100)["workload"];
  a["name"] = "analyst-a";
  auto b = a;
  b["name"] = "analyst-b";
  b["jobs"] = 20;
  b["flow"] = {{"events_per_job", 50}, {"start_times", json::array()}};
  for (int k = 0; k < 20; ++k) b["flow"]["start_times"].push_back("10min");
  auto steady = a;
  steady.erase("flow");
  steady["name"] = "reco";
  steady["jobs"] = 2;
  auto doc = job_flow(1, json::object());
  doc.erase("workload");
  doc["workloads"] = {a, b, steady};
  const auto m = run(doc);
  REQUIRE(m.workloads.size() == 3);
  REQUIRE(m.workloads[0].jobs);
  REQUIRE(m.workloads[1].jobs);
  CHECK_FALSE(m.workloads[2].jobs);  // no flow, no block
  const auto& ja = *m.workloads[0].jobs;
  const auto& jb = *m.workloads[1].jobs;
  CHECK(ja.total == 10);
  CHECK(ja.finished == 10);
  CHECK(jb.total == 20);
  CHECK(jb.finished == 20);
  CHECK(ja.peak_running == 10);
  CHECK(jb.peak_running == 20);
  // A's 100 events of about 0.91 s end after about 91 s; B's 50 after 600 s + 45.6 s.
  CHECK(ja.last_exit == Approx(100 * 0.912).epsilon(0.02));
  CHECK(jb.last_exit == Approx(600 + 50 * 0.912).epsilon(0.02));
  // The run's own block is their sum, its last exit the later one.
  REQUIRE(m.jobs);
  CHECK(m.jobs->total == 30);
  CHECK(m.jobs->finished == 30);
  CHECK(m.jobs->last_exit == jb.last_exit);
  CHECK(m.jobs->wall_time.count() == ja.wall_time.count() + jb.wall_time.count());
}

TEST_CASE("job flow: a measured profile of running jobs is replayed", "[engine][jobflow]") {
  // 30 jobs, then 80 at 20 min, 10 at 50 min, 0 at 90 min: 80 starts in all.
  const auto doc = running_profile({"0s", "20min", "50min", "90min"}, {30, 80, 10, 0});
  const auto s = sonicsim::scenario::load_json(doc);
  CHECK(s.workload().jobs == 80);
  const auto m = run(doc);
  REQUIRE(m.jobs);
  CHECK(m.jobs->total == 80);
  CHECK(m.jobs->started == 80);
  CHECK(m.jobs->finished == 80);  // all gone after 90 min
  CHECK(m.jobs->peak_running == 80);
  check_conservation(m);
  // A job that ends finishes the event it holds (about 0.91 s) and one that starts takes its
  // first event within a second: the count follows the profile within a second of each step, so
  // every window's end sees the profile (at a step itself, still the count before it).
  const auto& running = m.timeseries->running_jobs;
  REQUIRE(running.size() == 120);
  for (std::size_t k = 0; k < running.size(); ++k) {
    const double t = 60.0 * static_cast<double>(k + 1);
    INFO("window ending at " << t << " s");
    const double expected = t <= 1200.0 ? 30 : t <= 3000.0 ? 80 : t <= 5400.0 ? 10 : 0;
    CHECK(running[k] == expected);
  }
  // The oldest jobs end first: at 50 min the 30 started at 0 and the first 40 started at 20 min
  // (30 min: the shortest), the 10 left are the last started at 20 min and run to 90 min (70 min:
  // the longest).
  CHECK(m.jobs->wall_time.quantile(0.0) == Approx(1800.0).margin(2.0));
  CHECK(m.jobs->wall_time.max() == Approx(4200.0).margin(2.0));
  CHECK(m.jobs->last_exit == Approx(5400.0).margin(2.0));
}

TEST_CASE("the CPU-only baseline takes t_CPU per event", "[engine]") {
  auto doc = deterministic(8, 1);
  doc["servers"] = json::array();
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.1}, {"cv", 0.5}};
  const auto m = run(doc);
  CHECK(m.time_per_event.mean() == Approx(0.1).epsilon(0.01));
  CHECK(m.completed == 0);
  CHECK(m.fallback > 0);
  check_conservation(m);
}

TEST_CASE("async with no independent work and one event in flight equals sync", "[engine][async]") {
  auto doc = deterministic(6, 1);
  const auto sync = run(doc);
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 0.0}, {"events_in_flight", 1}};
  const auto async = run(doc);
  CHECK(async.time_per_event.mean() == Approx(sync.time_per_event.mean()).epsilon(1e-6));
}

TEST_CASE("async with ample independent work hides the remote call", "[engine][async]") {
  auto doc = deterministic(6, 1);
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 1.0}, {"events_in_flight", 1}};
  const auto m = run(doc);
  // The 90 ms of CPU work covers the ~11 ms round trip: the event costs its CPU work only.
  CHECK(m.time_per_event.mean() == Approx(0.09).epsilon(0.005));
}

TEST_CASE("async with several events in flight keeps the CPU busy", "[engine][async]") {
  auto doc = deterministic(1, 4);
  doc["models"]["m"]["service_time"]["seconds"] = {0.2};  // a slow remote call, 4 devices
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 0.0}, {"events_in_flight", 4}};
  const auto m = run(doc);
  // One CPU, 90 ms of work per event: at most 11.1 events/s; the 0.2 s calls overlap.
  CHECK(throughput(m) == Approx(1.0 / 0.09).epsilon(0.02));
}

TEST_CASE("async: every event in flight progresses (Little's law, no starvation)",
          "[engine][async]") {
  auto doc = deterministic(4, 4);
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.2}, {"cv", 0.3}};
  doc["network"]["site_uplink"]["latency"] = "15ms";
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 0.8}, {"events_in_flight", 2}};
  const auto two = run(doc);
  doc["workload"]["async"]["events_in_flight"] = 1;
  const auto one = run(doc);
  // Each thread always holds E open events: mean time per event = E x N_CPU / throughput.
  CHECK(two.time_per_event.mean() == Approx(2 * 4 / throughput(two)).epsilon(0.01));
  CHECK(one.time_per_event.mean() == Approx(1 * 4 / throughput(one)).epsilon(0.01));
  // Here one event already hides the round trip: both are CPU-bound at N_CPU / (0.9 t_CPU).
  CHECK(throughput(two) == Approx(4 / 0.18).epsilon(0.01));
  CHECK(throughput(one) == Approx(4 / 0.18).epsilon(0.01));
  // Without independent work, a second event in flight fills the CPU during the round trip.
  doc["workload"]["async"] = {{"independent_work_fraction", 0.0}, {"events_in_flight", 1}};
  const auto blocking = run(doc);
  doc["workload"]["async"]["events_in_flight"] = 2;
  const auto overlapped = run(doc);
  CHECK(throughput(overlapped) > 1.1 * throughput(blocking));
}
