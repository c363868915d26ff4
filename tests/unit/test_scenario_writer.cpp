// The typed scenario writer (scenario/writer.hpp) over every shipped scenario and every test
// scenario that loads: an unchanged scenario writes the user's document back unchanged, and each
// covered field, changed in the typed Scenario, is written, read back to the same value, and is
// the only thing that differs from the user's document.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/writer.hpp>

using namespace sonicsim;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

std::vector<std::string> writer_scenario_files() {
  std::vector<std::string> out;
  const fs::path source(SONICSIM_SOURCE_DIR);
  for (const auto& entry : fs::recursive_directory_iterator(source / "scenarios"))
    if (entry.is_regular_file() && entry.path().extension() == ".json" &&
        entry.path().filename() != "figures.json")
      out.push_back(entry.path().string());
  for (const auto& entry : fs::directory_iterator(fs::path(SONICSIM_TEST_DATA_DIR)))
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The shipped scenarios and test scenarios the loader accepts (a few test files are bad on
// purpose, and some JSON files there are not scenarios).
const std::vector<scenario::Scenario>& writer_scenarios() {
  static const std::vector<scenario::Scenario> all = [] {
    std::vector<scenario::Scenario> out;
    for (const auto& file : writer_scenario_files()) {
      try {
        out.push_back(scenario::load_file(file));
      } catch (const scenario::InputError&) {
      }
    }
    return out;
  }();
  return all;
}

scenario::Scenario writer_reload(const scenario::Scenario& base, const json& doc) {
  std::string dir = fs::path(base.source_file).parent_path().string();
  return scenario::load_json(doc, base.source_file, dir.empty() ? "." : dir);
}

// One typed change: `apply` edits the copy and says whether this scenario has the field;
// `check` compares the reloaded scenario with the edited one; `prefixes` are the only document
// paths the change may touch.
struct WriterChange {
  std::string name;
  std::function<bool(scenario::Scenario&)> apply;
  std::function<void(const scenario::Scenario& reloaded, const scenario::Scenario& edited)> check;
  std::vector<std::string> prefixes;
};

bool writer_within(const std::string& path, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes)
    if (path.compare(0, p.size(), p) == 0) return true;
  return false;
}

// The top level and the workloads.
std::vector<WriterChange> writer_workload_changes() {
  using scenario::Scenario;
  std::vector<WriterChange> out;
  out.push_back({"top level",
                 [](Scenario& s) {
                   s.description += " (rewritten)";
                   s.seed += 17;
                   s.warmup *= 0.5;
                   s.duration *= 1.25;
                   return true;
                 },
                 [](const Scenario& r, const Scenario& e) {
                   CHECK(r.description == e.description);
                   CHECK(r.seed == e.seed);
                   CHECK(r.duration == e.duration);
                   CHECK(r.warmup == e.warmup);
                 },
                 {"description", "seed", "duration", "warmup"}});
  out.push_back({"workload cpu time and requests",
                 [](Scenario& s) {
                   bool any = false;
                   for (auto& w : s.workloads) {
                     if (!w.open_loop()) {
                       w.cpu_time_per_event.mean *= 1.1;
                       w.cpu_time_per_event.min *= 1.1;
                       w.cpu_time_per_event.max *= 1.1;
                       for (double& v : w.cpu_time_per_event.values) v *= 1.1;
                       any = true;
                     }
                     for (auto& r : w.requests) r.offload_fraction *= 0.5;
                     any = any || !w.requests.empty();
                   }
                   return any;
                 },
                 [](const Scenario& r, const Scenario& e) {
                   REQUIRE(r.workloads.size() == e.workloads.size());
                   for (std::size_t i = 0; i < e.workloads.size(); ++i) {
                     const auto& rw = r.workloads[i];
                     const auto& ew = e.workloads[i];
                     CHECK(rw.cpu_time_per_event.expected() ==
                           Approx(ew.cpu_time_per_event.expected()).epsilon(1e-12));
                     REQUIRE(rw.requests.size() == ew.requests.size());
                     for (std::size_t j = 0; j < ew.requests.size(); ++j)
                       CHECK(rw.requests[j].offload_fraction == ew.requests[j].offload_fraction);
                   }
                 },
                 {"workload", "workloads"}});
  out.push_back({"workload client, arrivals and core power",
                 [](Scenario& s) {
                   for (auto& w : s.workloads) {
                     w.client.retry_delay += 0.25;
                     if (w.arrivals)
                       w.arrivals->rate *= 1.5;
                     else
                       w.core_power.emplace().watts = {3.0, 9.5};
                   }
                   return true;
                 },
                 [](const Scenario& r, const Scenario& e) {
                   for (std::size_t i = 0; i < e.workloads.size(); ++i) {
                     const auto& rw = r.workloads[i];
                     const auto& ew = e.workloads[i];
                     CHECK(rw.client.retry_delay == ew.client.retry_delay);
                     CHECK(rw.client.allowed_tries == ew.client.allowed_tries);
                     if (ew.arrivals) {
                       REQUIRE(rw.arrivals);
                       CHECK(rw.arrivals->rate == ew.arrivals->rate);
                     } else {
                       REQUIRE(rw.core_power);
                       CHECK(rw.core_power->watts == ew.core_power->watts);
                     }
                   }
                 },
                 {"workload", "workloads"}});
  out.push_back({"jobs",
                 [](Scenario& s) {
                   bool any = false;
                   for (auto& w : s.workloads)
                     if (!w.open_loop() && !w.flow && w.jobs % w.jobs_per_node == 0) {
                       w.jobs += w.jobs_per_node;
                       any = true;
                     }
                   return any;
                 },
                 [](const Scenario& r, const Scenario& e) {
                   for (std::size_t i = 0; i < e.workloads.size(); ++i)
                     CHECK(r.workloads[i].jobs == e.workloads[i].jobs);
                 },
                 {"workload", "workloads"}});
  return out;
}

// Models, pools, devices and prices.
std::vector<WriterChange> writer_section_changes() {
  using scenario::Scenario;
  std::vector<WriterChange> out;
  out.push_back({"service times, overheads and host work",
                 [](Scenario& s) {
                   for (auto& m : s.models) {
                     for (auto& [device, curve] : m.service_time)
                       for (double& t : curve.seconds) t *= 1.25;
                     for (auto& [device, timing] : m.pipeline_time) {
                       timing.latency *= 1.25;
                       timing.interval *= 1.25;
                     }
                     m.overhead.server = m.overhead.server.shifted(1e-4);
                     if (m.host_cost) m.host_cost->per_request *= 2.0;
                   }
                   return !s.models.empty();
                 },
                 [](const Scenario& r, const Scenario& e) {
                   REQUIRE(r.models.size() == e.models.size());
                   for (std::size_t i = 0; i < e.models.size(); ++i) {
                     const auto& rm = r.models[i];
                     const auto& em = e.models[i];
                     for (const auto& [device, curve] : em.service_time) {
                       REQUIRE(rm.service_time.count(device));
                       const auto& got = rm.service_time.at(device).seconds;
                       REQUIRE(got.size() == curve.seconds.size());
                       for (std::size_t j = 0; j < got.size(); ++j)
                         CHECK(got[j] == Approx(curve.seconds[j]).epsilon(1e-12));
                     }
                     CHECK(rm.overhead.server.fixed == Approx(em.overhead.server.fixed));
                     CHECK(rm.overhead.total(4) == Approx(em.overhead.total(4)).epsilon(1e-12));
                     CHECK(rm.overhead.spread.kind == em.overhead.spread.kind);
                     CHECK(rm.overhead.spread.cv == em.overhead.spread.cv);
                     REQUIRE(rm.host_cost.has_value() == em.host_cost.has_value());
                     if (em.host_cost)
                       CHECK(rm.host_cost->per_request == em.host_cost->per_request);
                   }
                 },
                 {"models"}});
  out.push_back({"pool sizes and startup",
                 [](Scenario& s) {
                   bool any = false;
                   for (auto& p : s.servers)
                     if (!p.autoscaler && !p.attached && !p.host) {
                       p.count += 1;
                       p.startup_delay += 5.0;
                       any = true;
                     }
                   return any;
                 },
                 [](const Scenario& r, const Scenario& e) {
                   REQUIRE(r.servers.size() == e.servers.size());
                   for (std::size_t i = 0; i < e.servers.size(); ++i) {
                     CHECK(r.servers[i].count == e.servers[i].count);
                     CHECK(r.servers[i].startup_delay == e.servers[i].startup_delay);
                   }
                 },
                 {"servers"}});
  out.push_back({"device power and prices",
                 [](Scenario& s) {
                   for (auto& d : s.devices) d.power.emplace().watts = {20.0, 71.5};
                   auto& p = s.prices.emplace(s.prices.value_or(scenario::Prices{}));
                   p.device_hour = 0.75;
                   p.device_hour_by_device.clear();
                   p.core_hour = 0.0125;
                   p.kwh = 0.3;
                   p.host_hour = 0.05;
                   return true;
                 },
                 [](const Scenario& r, const Scenario& e) {
                   for (const auto& d : e.devices) {
                     const auto* got = r.find_device(d.name);
                     REQUIRE(got);
                     REQUIRE(got->power);
                     CHECK(got->power->watts == d.power->watts);
                   }
                   REQUIRE(r.prices);
                   CHECK(r.prices->device_hour == 0.75);
                   CHECK(r.prices->device_hour_by_device.empty());
                   CHECK(r.prices->core_hour == 0.0125);
                   CHECK(r.prices->kwh == 0.3);
                   CHECK(r.prices->host_hour == 0.05);
                 },
                 {"devices", "prices"}});
  return out;
}

std::vector<WriterChange> writer_changes() {
  std::vector<WriterChange> out = writer_workload_changes();
  for (auto& c : writer_section_changes()) out.push_back(std::move(c));
  return out;
}

}  // namespace

TEST_CASE("the writer writes an unchanged scenario as the user's document", "[writer]") {
  const auto& all = writer_scenarios();
  // Every shipped scenario loads; a shorter list means the search above went wrong.
  REQUIRE(all.size() >= 40);
  for (const auto& s : all) {
    INFO(s.source_file);
    CHECK(scenario::write_scenario(s, s) == json::parse(s.canonical_json));
    CHECK(scenario::write_overrides(s, s).empty());
    const auto again = writer_reload(s, scenario::write_scenario(s, s));
    CHECK(again.sha256 == s.sha256);
  }
}

TEST_CASE("each field the writer covers reads back as written, and only it changes", "[writer]") {
  for (const auto& change : writer_changes()) {
    std::size_t applied = 0;
    for (const auto& s : writer_scenarios()) {
      INFO(change.name << " on " << s.source_file);
      scenario::Scenario edited = s;
      if (!change.apply(edited)) continue;
      const json doc = scenario::write_scenario(s, edited);
      scenario::Scenario reloaded;
      try {
        reloaded = writer_reload(s, doc);
      } catch (const scenario::InputError& e) {
        FAIL_CHECK("the written scenario does not load: " << e.what());
        continue;
      }
      ++applied;
      change.check(reloaded, edited);
      for (const auto& o : scenario::write_overrides(s, edited)) {
        INFO(o.path << "=" << o.value);
        CHECK(writer_within(o.path, change.prefixes));
      }
      // The overrides, applied as --set after the user's, give the same document.
      const auto by_overrides =
          scenario::load_file(s.source_file, scenario::write_overrides(s, edited));
      CHECK(json::parse(by_overrides.canonical_json) == doc);
    }
    INFO(change.name);
    CHECK(applied > 0);
  }
}

TEST_CASE("a reduced scenario: one model, one pool, a new client workload", "[writer]") {
  const auto s = scenario::load_file(std::string(SONICSIM_SOURCE_DIR) + "/scenarios/default.json");
  REQUIRE(s.models.size() > 1);
  scenario::Scenario r = s;
  const std::string kept = s.servers.front().models.front();
  r.models.erase(std::remove_if(r.models.begin(), r.models.end(),
                                [&](const scenario::Model& m) { return m.name != kept; }),
                 r.models.end());
  r.servers = {s.servers.front()};
  r.servers[0].count = 3;
  r.servers[0].models = {kept};
  scenario::Workload client;
  client.jobs = 4;
  client.jobs_per_node = 4;
  client.cpu_time_per_event = scenario::Distribution::constant(0.0);
  client.requests = {scenario::RequestSpec{kept, 0.0, 1, scenario::Distribution::constant(8)}};
  r.workloads = {client};
  const json doc = scenario::write_scenario(s, r);
  CHECK(doc["models"].size() == 1);
  CHECK(doc["workload"].size() ==
        6);  // jobs, threads_per_job, jobs_per_node, mode, t_CPU, requests
  const auto back = writer_reload(s, doc);
  REQUIRE(back.models.size() == 1);
  CHECK(back.models[0].name == kept);
  REQUIRE(back.servers.size() == 1);
  CHECK(back.servers[0].count == 3);
  CHECK(back.workload().jobs == 4);
  CHECK(back.workload().requests.size() == 1);
  CHECK(back.workload().requests[0].items.mean == 8);
  CHECK(back.workload().client.timeout == 0.0);

  // The same client as an open loop: the closed loop's keys go.
  r.workloads[0].arrivals.emplace().rate = 250.0;
  const auto open = writer_reload(s, scenario::write_scenario(s, r));
  REQUIRE(open.workload().open_loop());
  CHECK(open.workload().arrivals->rate == 250.0);
  CHECK(open.workload().jobs == 1);
}

TEST_CASE("a change the writer does not cover is refused, not lost", "[writer]") {
  const auto s = scenario::load_file(std::string(SONICSIM_SOURCE_DIR) + "/scenarios/default.json");
  scenario::Scenario e = s;
  e.network.flow_model = scenario::FlowModel::SimGrid;
  CHECK_THROWS_WITH(scenario::write_scenario(s, e), Catch::Contains("network"));
  e = s;
  e.models.front().load_time = 12.0;
  CHECK_THROWS_WITH(scenario::write_overrides(s, e), Catch::Contains("models."));
  e = s;
  e.servers.front().drain_timeout += 1.0;  // covered
  CHECK_NOTHROW(scenario::write_scenario(s, e));
  e.servers.front().device = "A100";
  CHECK_THROWS_WITH(scenario::write_scenario(s, e), Catch::Contains("servers"));
  e = s;
  e.load_balancer.policy = sonicsim::balancing::LeastRequest::Settings{5};
  CHECK_THROWS_WITH(scenario::write_scenario(s, e), Catch::Contains("load_balancer"));
}
