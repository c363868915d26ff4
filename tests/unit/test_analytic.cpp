// The SONIC formulas and their breakdown, on scenarios small enough to compute by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <sonicsim/analytic/analytic.hpp>

namespace sc = sonicsim::scenario;
using sonicsim::analytic::closed_network;
using sonicsim::analytic::expected_items;
using sonicsim::analytic::predict;
using sonicsim::analytic::solve_mva;
using sonicsim::analytic::to_json;
using sonicsim::analytic::to_text;

namespace {

sc::ServiceCurve curve(std::vector<double> batch, std::vector<double> seconds) {
  sc::ServiceCurve c;
  c.batch = std::move(batch);
  c.seconds = std::move(seconds);
  c.source = "table";
  return c;
}

sc::ServerPool pool(const std::string& name, int count, const std::string& device,
                    std::vector<std::string> models) {
  sc::ServerPool p;
  p.name = name;
  p.count = count;
  p.device = device;
  p.models = std::move(models);
  return p;
}

sc::Model model(const std::string& name, sc::ServiceCurve c) {
  sc::Model m;
  m.name = name;
  m.input_bytes_per_item = 1000;
  m.output_bytes_per_item = 10;
  m.service_time["*"] = std::move(c);
  return m;
}

// 10 jobs x 4 threads, t_CPU = 1 s, one model (8 items, 1 kB in / 10 B out per item) on one
// T4, 10 Gbps NICs with 50 us each.
sc::Scenario one_pool() {
  sc::Scenario s;
  s.name = "one-pool";
  s.duration = 100;
  s.workload().jobs = 10;
  s.workload().threads_per_job = 4;
  s.workload().jobs_per_node = 5;
  s.workload().cpu_time_per_event = sc::Distribution::constant(1.0);
  sc::RequestSpec r;
  r.model = "pn";
  r.offload_fraction = 0.1;
  r.items = sc::Distribution::constant(8);
  s.workload().requests.push_back(r);
  s.models.push_back(model("pn", curve({1, 16}, {0.001, 0.004})));
  s.servers.push_back(pool("t4", 1, "T4", {"pn"}));
  s.network.client_nic = sc::LinkSpec{1.25e9, 50e-6};
  s.network.server_nic = sc::LinkSpec{1.25e9, 50e-6};
  return s;
}

// By hand: curve(8) = 0.001 + 7/15 x 0.003; 2 x 100 us + 8,080 B / 1.25 GB/s.
constexpr double kGpu = 0.001 + 7.0 / 15.0 * 0.003;
constexpr double kLatency = 200e-6 + 8080.0 / 1.25e9;
constexpr double kIdeal = 0.9 + kGpu + kLatency;

// The SPEC formula, literally.
double spec_t_sonic(double p, double t_cpu, double t_gpu, double t_lat, double n_cpu,
                    double n_gpu) {
  const double t_ideal = (1 - p) * t_cpu + t_gpu + t_lat;
  return (1 - p) * t_cpu + t_gpu * (1 + std::max(0.0, n_cpu / n_gpu - t_ideal / t_gpu)) + t_lat;
}

}  // namespace

TEST_CASE("Mean items follow the engine's rounding", "[analytic]") {
  sc::Distribution e;
  e.kind = sc::Distribution::Kind::Empirical;
  e.values = {4, 8, 12, 16, 20};
  CHECK(expected_items(e) == Approx(12.0));
  e.values = {0.2, 2.6};  // rounded to 1 and 3
  CHECK(expected_items(e) == Approx(2.0));
  e.weights = {0.75, 0.25};
  CHECK(expected_items(e) == Approx(1.5));
  CHECK(expected_items(sc::Distribution::constant(0.3)) == 1.0);
  CHECK(expected_items(sc::Distribution::constant(7.6)) == 8.0);
  sc::Distribution x;
  x.kind = sc::Distribution::Kind::Exponential;
  x.mean = 3.4;
  CHECK(expected_items(x) == 3.0);
}

TEST_CASE("Formula inputs of a one-pool scenario, computed by hand", "[analytic]") {
  const auto pr = predict(one_pool());
  CHECK(pr.t_cpu_s == 1.0);
  CHECK(pr.p == Approx(0.1));
  CHECK(pr.n_cpu == 40);
  CHECK(pr.n_gpu == 1);
  CHECK(pr.t_gpu_s == Approx(kGpu));
  CHECK(pr.t_latency_s == Approx(kLatency));
  CHECK(pr.t_ideal_s == Approx(kIdeal));
  CHECK(pr.t_sonic_s == pr.t_ideal_s);
  CHECK_FALSE(pr.saturated);
  CHECK(pr.saturation_n_cpu_per_gpu == Approx(kIdeal / kGpu));
  CHECK(pr.throughput_per_s == Approx(40 / kIdeal));
  REQUIRE(pr.models.size() == 1);
  CHECK(pr.models[0].mean_items == 8.0);
  CHECK(pr.bytes_in_per_event == 8000.0);
  CHECK(pr.bytes_out_per_event == 80.0);
  REQUIRE(pr.pools.size() == 1);
  CHECK(pr.pools[0].binding);
  CHECK(pr.pools[0].utilization == Approx(40 / kIdeal * kGpu));
  // Client NIC: one node of 5 jobs x 4 threads carries half of the traffic.
  REQUIRE(pr.links.size() == 2);
  CHECK(pr.links[0].name == "client_nic");
  CHECK(pr.links[0].load_Bps == Approx(pr.throughput_per_s * 8080 * 20 / 40));
  CHECK(pr.links[1].load_Bps == Approx(pr.throughput_per_s * 8080));
}

TEST_CASE("The knee: the formula saturates above N_CPU/N_GPU = t_ideal / t_GPU", "[analytic]") {
  auto s = one_pool();
  const double knee = kIdeal / kGpu;  // ~376 threads per GPU
  for (const int threads : {100, 370, 380, 1000, 4000}) {
    s.workload().jobs = threads;
    s.workload().threads_per_job = 1;
    const auto pr = predict(s);
    INFO(threads << " threads");
    CHECK(pr.saturated == (threads > knee));
    CHECK(pr.t_sonic_s == Approx(spec_t_sonic(0.1, 1.0, kGpu, kLatency, threads, 1)));
    if (pr.saturated) CHECK(pr.t_sonic_s == Approx(kGpu * threads));
    if (pr.saturated) CHECK(pr.pools[0].utilization == Approx(1.0));
  }
  // Doubling the pool doubles the knee in threads, keeps it per GPU.
  s.workload().jobs = 500;
  s.servers[0].count = 2;
  const auto pr = predict(s);
  CHECK(pr.n_gpu == 2);
  CHECK(pr.saturation_n_cpu_per_gpu == Approx(knee));
  CHECK(pr.pools[0].saturation_n_cpu == Approx(2 * knee));
  CHECK_FALSE(pr.saturated);
  CHECK(pr.t_sonic_s == Approx(spec_t_sonic(0.1, 1.0, kGpu, kLatency, 500, 2)));
}

TEST_CASE("CPU-only: no pools means t_ideal = t_SONIC = t_CPU", "[analytic]") {
  auto s = one_pool();
  s.servers.clear();
  const auto pr = predict(s);
  CHECK(pr.p == 0.0);
  CHECK(pr.p_fallback == Approx(0.1));
  CHECK(pr.n_gpu == 0);
  CHECK(pr.t_gpu_s == 0.0);
  CHECK(pr.t_latency_s == 0.0);
  CHECK(pr.t_ideal_s == 1.0);
  CHECK(pr.t_sonic_s == 1.0);
  CHECK_FALSE(pr.saturated);
  CHECK(std::isinf(pr.saturation_n_cpu_per_gpu));
  CHECK(pr.binding_pool == -1);
  REQUIRE(pr.mva);
  CHECK(pr.mva->throughput_per_s == Approx(40.0));
  const auto j = to_json(pr);
  CHECK(j["saturation_n_cpu_per_gpu"].is_null());
  CHECK(j["binding_pool"].is_null());
  CHECK(j["t_sonic_s"] == 1.0);
}

TEST_CASE("Unserved requests fall back to the CPU", "[analytic]") {
  auto s = one_pool();
  sc::RequestSpec extra;
  extra.model = "deepmet";
  extra.offload_fraction = 0.2;
  extra.per_event = 3;
  s.workload().requests.push_back(extra);
  s.models.push_back(model("deepmet", curve({1}, {0.5})));  // hosted nowhere
  const auto pr = predict(s);
  CHECK(pr.p == Approx(0.1));
  CHECK(pr.p_fallback == Approx(0.2));
  CHECK(pr.t_gpu_s == Approx(kGpu));
  CHECK(pr.t_ideal_s == Approx(kIdeal));  // deepmet's 0.2 s stays inside (1 - p) t_CPU
  REQUIRE(pr.models.size() == 2);
  CHECK_FALSE(pr.models[1].served);
  CHECK(pr.models[1].t_gpu_s == 0.0);
  CHECK_FALSE(pr.requests[1].served);
  CHECK(pr.mva->think_time_s == Approx(0.9 + kLatency));
  bool noted = false;
  for (const auto& n : pr.notes) noted |= n.find("deepmet") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("Several pools: per-pool demand and the binding pool", "[analytic]") {
  // m1 on 2 T4 (4 ms) and 1 A100 (1 ms); m2 (2 per event, 2 ms) on the A100 only; no network.
  sc::Scenario s;
  s.name = "multi";
  s.duration = 10;
  s.workload().jobs = 40;
  s.workload().cpu_time_per_event = sc::Distribution::constant(1.0);
  sc::RequestSpec r1, r2;
  r1.model = "m1";
  r1.offload_fraction = 0.1;
  r2.model = "m2";
  r2.offload_fraction = 0.1;
  r2.per_event = 2;
  s.workload().requests = {r1, r2};
  sc::Model m1 = model("m1", curve({1}, {0.004}));
  m1.service_time.clear();
  m1.service_time["T4"] = curve({1}, {0.004});
  m1.service_time["A100"] = curve({1}, {0.001});
  s.models = {m1, model("m2", curve({1}, {0.002}))};
  s.servers = {pool("t4s", 2, "T4", {"m1"}), pool("a100", 1, "A100", {"m1", "m2"}),
               pool("idle", 5, "T4", {"other"})};

  auto pr = predict(s);
  CHECK(pr.n_gpu == 3);  // the idle pool hosts nothing requested
  // Harmonic: 3 devices complete 2/4ms + 1/1ms = 1500 requests/s together -> 2 ms each.
  CHECK(pr.models[0].t_gpu_s == Approx(0.002));
  CHECK(pr.models[0].t_gpu_routed_s == Approx(2.0 / 3 * 0.004 + 1.0 / 3 * 0.001));
  CHECK(pr.t_gpu_s == Approx(0.006));
  CHECK(pr.t_ideal_s == Approx(0.806));
  CHECK(pr.pools[0].demand_s == Approx(2.0 / 3 * 0.004));
  CHECK(pr.pools[0].demand_per_device_s == Approx(1.0 / 3 * 0.004));
  CHECK(pr.pools[1].demand_per_device_s == Approx(1.0 / 3 * 0.001 + 0.004));
  CHECK_FALSE(pr.pools[2].in_use);
  CHECK(pr.binding_pool == 1);
  CHECK(pr.pools[1].binding);
  const double d_bind = 1.0 / 3 * 0.001 + 0.004;
  CHECK(pr.saturation_n_cpu_per_gpu == Approx(0.806 / (3 * d_bind)));
  CHECK(pr.pools[1].saturation_n_cpu == Approx(0.806 / d_bind));
  CHECK(pr.pools[0].saturation_n_cpu_per_gpu == Approx(0.806 / pr.pools[0].demand_s));
  CHECK_FALSE(pr.saturated);
  CHECK(pr.t_sonic_s == Approx(0.806));

  s.workload().jobs = 400;  // 400 x 4.33 ms > 0.806 s: the A100 saturates, the T4s do not
  pr = predict(s);
  CHECK(pr.saturated);
  CHECK(pr.pools[1].saturated);
  CHECK_FALSE(pr.pools[0].saturated);
  CHECK(pr.t_sonic_s == Approx(400 * d_bind));
  CHECK(pr.pools[1].utilization == Approx(1.0));
  CHECK(pr.pools[0].utilization == Approx(pr.pools[0].demand_per_device_s / d_bind));
  // MVA sees the same stations: the A100 caps the throughput.
  REQUIRE(pr.mva);
  CHECK(pr.mva->throughput_per_s <= 1.0 / d_bind * (1 + 1e-12));
  CHECK(pr.mva->throughput_per_s == Approx(1.0 / d_bind).epsilon(0.02));
  CHECK(pr.mva->device_utilization[1] > 0.98);
  const auto j = to_json(pr);
  CHECK(j["binding_pool"] == "a100");
  CHECK(j["per_pool"].size() == 3);
  CHECK(j["per_pool"][2]["saturation_n_cpu"].is_null());
  CHECK(j["mva"]["device_utilization"].contains("a100"));
  CHECK_FALSE(j["mva"]["device_utilization"].contains("idle"));
}

TEST_CASE("MVA of a scenario: one thread sees t_ideal, many see the GPU's capacity",
          "[analytic][mva]") {
  auto s = one_pool();
  s.workload().jobs = 1;
  s.workload().threads_per_job = 1;
  auto pr = predict(s);
  REQUIRE(pr.mva);
  CHECK(pr.mva->time_per_event_s == Approx(pr.t_ideal_s));
  CHECK(pr.mva->throughput_per_s == Approx(1.0 / kIdeal));
  CHECK(*pr.models[0].mva_request_latency_s == Approx(kGpu + kLatency));

  s.workload().jobs = 2000;
  pr = predict(s);
  const auto direct = solve_mva(closed_network(pr), 2000);
  CHECK(pr.mva->throughput_per_s == direct.throughput);
  CHECK(pr.mva->throughput_per_s <= 1.0 / kGpu * (1 + 1e-12));
  CHECK(pr.mva->throughput_per_s == Approx(1.0 / kGpu).epsilon(1e-6));
  // Little: a request waits for everything queued at its device.
  CHECK(*pr.models[0].mva_request_latency_s ==
        Approx(kLatency + kGpu * (1 + direct.arrival_queue[0])));
  // The sync formula and MVA agree far from the knee (MVA is exact there up to queueing).
  s.workload().jobs = 20;
  pr = predict(s);
  CHECK(pr.mva->time_per_event_s == Approx(pr.t_sonic_s).epsilon(1e-3));
}

TEST_CASE("Dynamic batching gives the full-batch capacity bound", "[analytic]") {
  auto s = one_pool();
  s.models[0].max_batch_size = 64;
  sc::DynamicBatching db;
  db.preferred_batch_size = {16};
  db.max_queue_delay = 100e-6;
  s.models[0].dynamic_batching = db;
  const auto pr = predict(s);
  CHECK(pr.t_gpu_s == Approx(kGpu));  // the formula itself ignores batching
  REQUIRE(pr.models[0].t_gpu_full_batch_s);
  CHECK(*pr.models[0].t_gpu_full_batch_s == Approx(8 * 0.004 / 16));
  REQUIRE(pr.pools[0].demand_per_device_full_batch_s);
  CHECK(*pr.pools[0].demand_per_device_full_batch_s == Approx(0.002));
}

TEST_CASE("Async mode keeps the sync formulas and says so", "[analytic]") {
  auto s = one_pool();
  s.workload().mode = sc::Mode::Async;
  const auto pr = predict(s);
  CHECK(pr.t_sonic_s == Approx(predict(one_pool()).t_sonic_s));
  CHECK_FALSE(pr.mva);
  REQUIRE_FALSE(pr.notes.empty());
  CHECK(pr.notes[0].find("async") != std::string::npos);
  const auto j = to_json(pr);
  CHECK(j["mva"].is_null());
  CHECK(j["mode"] == "async");
}

TEST_CASE("The JSON block has the SPEC keys and the text summary the key numbers", "[analytic]") {
  const auto pr = predict(one_pool());
  const auto j = to_json(pr);
  for (const char* key : {"t_cpu_s", "p", "t_gpu_s", "t_latency_s", "n_cpu", "n_gpu", "t_ideal_s",
                          "t_sonic_s", "saturated", "saturation_n_cpu_per_gpu", "throughput_per_s",
                          "per_model", "per_pool", "mva", "network", "notes"})
    CHECK(j.contains(key));
  CHECK(j["n_cpu"].is_number_integer());
  CHECK(j["saturated"].is_boolean());
  CHECK(j["t_gpu_s"].get<double>() == Approx(kGpu));
  CHECK(j["per_model"]["pn"]["mean_items"] == 8.0);
  CHECK(j["mva"]["throughput_per_s"].get<double>() > 0.0);
  CHECK(j["mva"]["device_utilization"]["t4"].get<double>() > 0.0);
  CHECK(j["mva"]["request_latency_s"].contains("pn"));
  CHECK(j["mva"]["bounds"]["throughput_upper_per_s"].get<double>() >=
        j["mva"]["throughput_per_s"].get<double>());
  CHECK(to_json(pr).dump() == j.dump());  // deterministic

  const std::string text = to_text(pr);
  CHECK(text.find("t_SONIC") != std::string::npos);
  CHECK(text.find("one-pool") != std::string::npos);
  CHECK(text.find("not saturated") != std::string::npos);
  CHECK(text.find("Exact MVA") != std::string::npos);
}

namespace {

// one_pool() with dynamic batching and no batch limit: only the clients bound a batch.
sc::Scenario unlimited_batches() {
  auto s = one_pool();
  s.models[0].max_batch_size = 0;
  s.models[0].dynamic_batching = sc::DynamicBatching{};
  return s;
}

// t_gpu_full_batch_s by its definition: one 8-item request's share of a batch of `batch` items.
double full_batch_t_gpu(const sc::Scenario& s, double batch) {
  return 8 * s.models[0].service_time.at("*").at(batch) / batch;
}

}  // namespace

TEST_CASE("Unlimited batches: the full batch is what the clients can have waiting per instance",
          "[analytic]") {
  using sonicsim::analytic::full_batch_items;
  auto s = unlimited_batches();
  // Sync: each of the 40 threads waits for one request at a time, 8 items each.
  CHECK(full_batch_items(s, "pn") == 40 * 8);
  auto pr = predict(s);
  REQUIRE(pr.models[0].t_gpu_full_batch_s);
  CHECK(*pr.models[0].t_gpu_full_batch_s == Approx(full_batch_t_gpu(s, 320)));
  CHECK(*pr.models[0].t_gpu_full_batch_s < pr.models[0].t_gpu_s);
  REQUIRE(pr.pools[0].demand_per_device_full_batch_s);
  CHECK(*pr.pools[0].demand_per_device_full_batch_s == Approx(full_batch_t_gpu(s, 320)));

  // Shared over the devices hosting the model and the instances on each.
  s.servers[0].count = 2;
  s.models[0].instances = 2;
  CHECK(full_batch_items(s, "pn") == 40 * 8 / 4);
  CHECK(*predict(s).models[0].t_gpu_full_batch_s == Approx(full_batch_t_gpu(s, 80)));

  // Async: every request of every event in flight at once.
  s = unlimited_batches();
  s.workload().mode = sc::Mode::Async;
  s.workload().async.events_in_flight = 3;
  s.workload().requests[0].per_event = 2;
  CHECK(full_batch_items(s, "pn") == 40 * 3 * 2 * 8);
  pr = predict(s);
  CHECK(*pr.models[0].t_gpu_full_batch_s == Approx(2 * full_batch_t_gpu(s, 1920)));

  // One thread cannot batch: the full batch is its own request.
  s = unlimited_batches();
  s.workload().jobs = 1;
  s.workload().threads_per_job = 1;
  pr = predict(s);
  CHECK(*pr.models[0].t_gpu_full_batch_s == Approx(pr.models[0].t_gpu_s));
}

TEST_CASE("Unlimited batches in an open loop: the client's max_in_flight bounds the batch",
          "[analytic]") {
  using sonicsim::analytic::full_batch_items;
  auto s = unlimited_batches();
  sc::Arrivals a;
  a.rate = 100;
  a.max_in_flight = 50;
  s.workload().arrivals = a;
  CHECK(full_batch_items(s, "pn") == 50 * 8);
  const auto pr = predict(s);
  REQUIRE(pr.models[0].t_gpu_full_batch_s);
  CHECK(*pr.models[0].t_gpu_full_batch_s == Approx(full_batch_t_gpu(s, 400)));
  CHECK(to_json(pr)["per_model"]["pn"]["t_gpu_full_batch_s"].is_number());
}

TEST_CASE("The full batch is Triton's where its config bounds one, else the clients'",
          "[analytic]") {
  using sonicsim::analytic::full_batch_items;
  auto s = unlimited_batches();
  s.models[0].dynamic_batching->preferred_batch_size = {16, 64};
  CHECK(full_batch_items(s, "pn") == 64);  // preferred sizes, even without max_batch_size
  s.models[0].max_batch_size = 32;
  s.models[0].dynamic_batching->preferred_batch_size = {16};
  CHECK(full_batch_items(s, "pn") == 16);
  s.models[0].dynamic_batching->preferred_batch_size.clear();
  CHECK(full_batch_items(s, "pn") == 32);
  // A bound of the model, not of the population: 40 threads fill only 320 of these items.
  s.models[0].max_batch_size = 1000;
  CHECK(full_batch_items(s, "pn") == 1000);
  s.models[0].max_batch_size = 0;
  CHECK(full_batch_items(s, "pn") == 320);
  s.models[0].dynamic_batching.reset();
  CHECK(full_batch_items(s, "pn") == 0);
  CHECK_FALSE(predict(s).models[0].t_gpu_full_batch_s);
}

TEST_CASE("The formula at a given t_GPU is the SPEC formula with that t_GPU", "[analytic]") {
  using sonicsim::analytic::sonic_formula;
  auto s = one_pool();
  s.workload().jobs = 200;  // 800 threads, past the knee at batch 1
  const auto pr = predict(s);
  const auto same = sonic_formula(pr, pr.t_gpu_s, pr.t_gpu_s);
  CHECK(same.t_sonic_s == pr.t_sonic_s);
  CHECK(same.t_ideal_s == pr.t_ideal_s);
  CHECK(same.saturated == pr.saturated);
  for (const double t_gpu : {kGpu / 10, kGpu / 3, kGpu}) {
    const auto f = sonic_formula(pr, t_gpu, t_gpu);
    CHECK(f.t_sonic_s == Approx(spec_t_sonic(0.1, 1.0, t_gpu, kLatency, 800, 1)));
    CHECK(f.t_ideal_s == Approx(0.9 + t_gpu + kLatency));
    CHECK(f.saturated == (800 > (0.9 + t_gpu + kLatency) / t_gpu));
  }
  CHECK_FALSE(sonic_formula(pr, kGpu / 10, kGpu / 10).saturated);
}

TEST_CASE("The formula at the batches a run formed takes each model's mean batch", "[analytic]") {
  using sonicsim::analytic::at_formed_batches;
  using sonicsim::analytic::ModelBatches;
  auto s = one_pool();
  s.workload().jobs = 200;
  s.models[0].max_batch_size = 64;
  s.models[0].dynamic_batching = sc::DynamicBatching{};
  const auto pr = predict(s);
  // 100 executions of 24 items: each 8-item request costs a third of curve(24).
  const std::vector<ModelBatches> run = {{"pn", 100, 2400}};
  const auto formed = at_formed_batches(s, pr, run);
  REQUIRE(formed);
  CHECK(formed->mean_batch_size == 24);
  const double t_gpu = 8 * s.models[0].service_time.at("*").at(24) / 24;
  CHECK(formed->formula.t_gpu_s == Approx(t_gpu));
  CHECK(formed->formula.t_sonic_s == Approx(spec_t_sonic(0.1, 1.0, t_gpu, kLatency, 800, 1)));
  CHECK(formed->formula.t_sonic_s < pr.t_sonic_s);
  const auto j = to_json(pr, formed);
  CHECK(j["formed_batches"]["t_sonic_s"].get<double>() == formed->formula.t_sonic_s);
  CHECK(j["formed_batches"]["mean_batch_size"].get<double>() == 24);
  CHECK_FALSE(to_json(pr).contains("formed_batches"));

  // Where one figure would mislead there is none.
  CHECK_FALSE(at_formed_batches(s, pr, {{"pn", 0, 0}}));  // nothing executed
  auto plain = one_pool();
  CHECK_FALSE(at_formed_batches(plain, predict(plain), run));  // no dynamic batching
  auto open = s;
  open.workload().arrivals = sc::Arrivals{};
  CHECK_FALSE(at_formed_batches(open, predict(open), run));
  auto flow = s;
  flow.workload().flow = sc::JobFlow{};
  CHECK_FALSE(at_formed_batches(flow, predict(flow), run));
}
