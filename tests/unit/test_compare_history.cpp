// compare against a measured history: the twin's series held against the day's, window by
// window. The statistics are checked on hand-made days (hold_history), the whole command on a
// simulated day in tests/cli/twin_loop.sh.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <sonicsim/compare/history.hpp>

namespace {

namespace th = sonicsim::telemetry;
using sonicsim::compare::HistoryReport;
using sonicsim::compare::HistorySeries;
using sonicsim::results::Timeseries;

constexpr double kStep = 30.0;
constexpr std::size_t kWindows = 20;

// A measured day of one pool and model: requests rising from 100/s to 290/s, 2 ms of queue and
// 5 ms of compute per request, batches of 8, two replicas at half load.
th::Measurements measured_day() {
  th::Measurements m;
  m.start = 1'800'000'000.0;
  m.step_s = kStep;
  th::PoolSeries pool;
  pool.name = "supersonic";
  th::ModelSeries model;
  model.name = "pn";
  model.version = "1";
  for (std::size_t k = 0; k < kWindows; ++k) {
    m.t.push_back(kStep * static_cast<double>(k + 1));
    const double rate = 100.0 + 10.0 * static_cast<double>(k);
    model.requests_per_s.push_back(rate);
    model.inferences_per_s.push_back(8.0 * rate);
    model.executions_per_s.push_back(rate);
    model.batch_size.push_back(8.0);
    model.queue_time_s.push_back(0.002);
    model.compute_infer_time_s.push_back(0.005);
    model.compute_input_time_s.push_back(std::nullopt);  // not exported
    model.compute_output_time_s.push_back(std::nullopt);
    pool.replicas.push_back(2.0);
    pool.gpu_utilization.push_back(0.5);
    pool.autoscaler_metric_ms.push_back(2.0);
  }
  pool.models.push_back(model);
  m.pools.push_back(pool);
  return m;
}

// The same day as a run's time series (pool "gpu", two devices), `rate_factor` times the load.
Timeseries simulated_day(double rate_factor) {
  Timeseries ts;
  Timeseries::Server s;
  s.pool = "gpu";
  s.model = "pn";
  for (std::size_t k = 0; k < kWindows; ++k) {
    ts.t_s.push_back(kStep * static_cast<double>(k + 1));
    const double rate = rate_factor * (100.0 + 10.0 * static_cast<double>(k));
    s.requests_per_s.push_back(rate);
    s.failures_per_s.push_back(0.0);
    s.inferences_per_s.push_back(8.0 * rate);
    s.executions_per_s.push_back(rate);
    s.queue_time_s.push_back(0.002);
    s.compute_time_s.push_back(0.005);
  }
  ts.servers.push_back(s);
  for (int d = 0; d < 2; ++d) {
    Timeseries::Device dev;
    dev.pool = "gpu";
    dev.index = d;
    dev.utilization.assign(kWindows, 0.5);
    dev.queue_length.assign(kWindows, 0.0);
    ts.devices.push_back(dev);
  }
  return ts;
}

const HistorySeries& series(const HistoryReport& r, const std::string& metric) {
  for (const auto& s : r.series)
    if (s.metric == metric) return s;
  FAIL("no series " << metric);
  throw;
}

}  // namespace

TEST_CASE("compare history: the same day twice agrees exactly", "[compare][history]") {
  const auto r = sonicsim::compare::hold_history(measured_day(), simulated_day(1.0),
                                                 {{"supersonic", "gpu"}}, 0.0);
  for (const char* metric : {"requests_per_s", "batch_size", "queue_time_s", "compute_time_s",
                             "replicas", "gpu_utilization", "autoscaler_metric_ms"}) {
    INFO(metric);
    const auto& s = series(r, metric);
    CHECK(s.t.size() == kWindows);
    CHECK(s.errors.mape_percent == Approx(0.0).margin(1e-9));
    CHECK(s.simulated_mean == Approx(s.measured_mean));
  }
  // A rising load has a trend to rank; a constant queue time has none.
  CHECK(series(r, "requests_per_s").errors.spearman == Approx(1.0));
  CHECK_FALSE(series(r, "requests_per_s").flat);
  CHECK(series(r, "queue_time_s").flat);
  CHECK(std::isnan(series(r, "queue_time_s").errors.spearman));
  CHECK(series(r, "requests_per_s").verdict == "TRUST");
  CHECK_THAT(r.verdict, Catch::StartsWith("TRUST the twin"));
  // Compute without input and output exported is the inference alone.
  CHECK(series(r, "compute_time_s").measured_mean == Approx(0.005));
}

TEST_CASE("compare history: a twin that sends 20% too much is not trusted", "[compare][history]") {
  const auto r = sonicsim::compare::hold_history(measured_day(), simulated_day(1.2),
                                                 {{"supersonic", "gpu"}}, 0.0);
  const auto& s = series(r, "requests_per_s");
  CHECK(s.errors.mape_percent == Approx(20.0));
  CHECK((s.simulated_mean / s.measured_mean - 1.0) * 100.0 == Approx(20.0));
  CHECK(s.verdict == "DO NOT TRUST");
  CHECK_THAT(r.verdict,
             Catch::StartsWith("DO NOT TRUST") && Catch::Contains("supersonic pn requests_per_s"));
  // The times per request are the same: still trusted.
  CHECK(series(r, "compute_time_s").verdict == "TRUST");
}

TEST_CASE("compare history: missing values, measured zeros and the warm-up are left out",
          "[compare][history]") {
  auto m = measured_day();
  auto& model = m.pools[0].models[0];
  model.queue_time_s[3] = std::nullopt;  // no request in that window
  model.requests_per_s[4] = 0.0;         // measured idle: no relative error
  auto ts = simulated_day(1.0);
  ts.servers[0].requests_per_s[4] = 0.0;
  ts.servers[0].requests_per_s[5] = 0.0;  // simulated idle: no time per request to compare
  const auto r = sonicsim::compare::hold_history(m, ts, {{"supersonic", "gpu"}}, 2 * kStep);
  // Windows ending after 60 s: 18; window 3 has no measured queue time, windows 4 and 5 no
  // simulated requests.
  CHECK(series(r, "queue_time_s").t.size() == 18 - 3);
  const auto& requests = series(r, "requests_per_s");
  CHECK(requests.t.size() == 18);
  CHECK(requests.zero_windows == 1);
  CHECK(requests.errors.points == 17);  // window 5 among them: measured 150/s, simulated 0
  CHECK(requests.errors.max_abs_error_percent == Approx(100.0));
  CHECK(requests.errors.max_at_x == Approx(6 * kStep));
}

TEST_CASE("compare history: a measured model the twin does not serve is a note",
          "[compare][history]") {
  auto m = measured_day();
  auto other = m.pools[0].models[0];
  other.name = "deepmet";
  m.pools[0].models.push_back(other);
  const auto r = sonicsim::compare::hold_history(m, simulated_day(1.0), {{"supersonic", "gpu"}}, 0);
  REQUIRE(r.notes.size() == 1);
  CHECK_THAT(r.notes[0], Catch::Contains("model deepmet") && Catch::Contains("not compared"));
  const auto text = sonicsim::compare::to_text(r);
  CHECK_THAT(text, Catch::Contains("supersonic (measured) = gpu (simulated)"));
  const auto csv = sonicsim::compare::to_csv(r);
  CHECK_THAT(csv, Catch::StartsWith("time,t_s,pool,model,metric,measured,simulated\n"));
  CHECK_THAT(csv, Catch::Contains("2027-01-15T08:00:30Z,30,supersonic,pn,requests_per_s,100,100"));
}
