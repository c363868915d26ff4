// The device kinds are one table (include/sonicsim/device_kinds/kinds.hpp): the loader, the
// schema, the engine and the formulas all follow it. These tests hold each of them to it, so that
// a new kind that is one header and one row works everywhere or fails here.
#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/device_kinds/kinds.hpp>

#include "schema_support.hpp"
#include "support.hpp"

using namespace test;
namespace dk = sonicsim::device_kinds;

namespace {

// One device of kind K serving one model at a low, constant rate (no queue), with a model
// timing in the form K takes.
template <class K>
json one_device_of_kind() {
  json timing = K::timing == dk::Timing::Pipeline
                    ? json{{"latency", "2ms"}, {"interval", "1ms"}}
                    : json{{"batch", {1, 8}}, {"seconds", {0.002, 0.004}}};
  return json{{"name", std::string("kind ") + std::string(K::name)},
              {"duration", 30.0},
              {"warmup", 2.0},
              {"workload",
               {{"arrivals", {{"rate", 50.0}, {"distribution", "constant"}}},
                {"requests", json::array({{{"model", "m"}}})}}},
              {"devices", {{"D", {{"kind", std::string(K::name)}}}}},
              {"models", {{"m", {{"service_time", {{"D", timing}}}}}}},
              {"servers",
               json::array({{{"name", "p"}, {"count", 1}, {"device", "D"}, {"models", {"m"}}}})}};
}

}  // namespace

TEST_CASE("device kinds: the schema lists every kind of the table with its keys",
          "[loader][devices]") {
  const json schema = scenario_schema();
  const json* device = schema_object_with(schema, {"kind", "slice", "memory"});
  REQUIRE(device != nullptr);
  const json& props = (*device)["properties"];
  std::vector<std::string> names;
  for (std::string_view n : dk::names()) names.emplace_back(n);
  CHECK(props["kind"]["enum"].get<std::vector<std::string>>() == names);
  CHECK(props["kind"]["default"] == names.front());
  dk::List::each([&]<class K>() {
    for (const dk::KeyDoc& k : K::keys) {
      INFO(K::name << "." << k.name);
      CHECK(props.contains(std::string(k.name)));
    }
    if constexpr (K::timing == dk::Timing::Pipeline) {
      std::vector<std::string> keys(K::timing_keys.begin(), K::timing_keys.end());
      const json* timing = schema_object_with(schema, keys);
      INFO(K::name << " timing");
      CHECK(timing != nullptr);
    }
  });
}

TEST_CASE("device kinds: every kind of the table loads from its name and serves every request",
          "[engine][devices]") {
  dk::List::each([&]<class K>() {
    INFO(K::name);
    const json doc = one_device_of_kind<K>();
    const auto sc = scenario_of(doc);
    REQUIRE(sc.devices.size() == 1);
    CHECK(dk::name_of(sc.devices[0].kind) == K::name);
    CHECK(sc.execution_of(sc.servers[0]).model == K::executes);
    const auto m = run(doc);
    check_conservation(m);
    // 50 requests/s, one at a time, far below saturation: all served, none queued.
    CHECK(static_cast<double>(m.completed) / (m.duration - m.warmup) == Approx(50.0).epsilon(0.01));
    CHECK(m.models[0].queue_time.mean() == Approx(0.0).margin(1e-9));
  });
}

TEST_CASE("device kinds: a key of another kind and an unknown kind are refused by name",
          "[loader][devices]") {
  json doc = one_device_of_kind<dk::Pipeline>();
  doc["devices"]["D"]["overlap"] = {{"executions", {1, 2}}, {"throughput", {1.0, 1.5}}};
  CHECK_THAT(load_error(doc), Catch::Contains("devices.D.overlap: found `overlap` on a pipeline "
                                              "device, expected none: a pipeline's throughput"));
  doc = one_device_of_kind<dk::Gpu>();
  doc["devices"]["D"]["kind"] = "tpu";
  const std::string e = load_error(doc);
  CHECK_THAT(e, Catch::Contains("devices.D.kind"));
  for (std::string_view n : dk::names()) CHECK_THAT(e, Catch::Contains(std::string(n)));
  // A kind that may not be sliced says so by its name.
  doc = one_device_of_kind<dk::Pipeline>();
  doc["devices"]["D"]["slice"] = {{"of", "A100"}, {"fraction", 0.5}};
  CHECK_THAT(load_error(doc), Catch::Contains("found a slice of a pipeline device"));
}

TEST_CASE("device kinds: a gpu's execution is its overlap curve at each count, or plain sharing",
          "[analytic][devices]") {
  dk::Gpu::Settings plain;
  CHECK(dk::execution(plain, {4, nullptr}).plain());
  dk::Gpu::Settings curve;
  curve.overlap = dk::Overlap{{1, 2, 4}, {1.0, 1.6, 1.9}};
  const dk::Execution e = dk::execution(curve, {3, nullptr});
  REQUIRE(e.throughput.size() == 4);  // k = 0..3
  CHECK(e.throughput[1] == 1.0);
  CHECK(e.throughput[2] == 1.6);
  CHECK(e.throughput[3] == Approx(1.75));  // linear between 2 and 4
  const dk::PipelineTiming t{0.0018, 0.0016};
  const dk::Execution p = dk::execution(dk::Pipeline::Settings{}, {1, &t});
  CHECK(p.model == dk::Execution::Model::Pipeline);
  CHECK(p.latency == 0.0018);
  CHECK(p.interval == 0.0016);
  // The formulas' notes come from the kind: a pipeline's, and a gpu's only with a curve.
  CHECK_THAT(dk::note(dk::Pipeline::Settings{}, "fpga", "FPGA", {1, &t}),
             Catch::Contains("is a pipeline (FPGA)"));
  CHECK(dk::note(plain, "p", "T4", {4, nullptr}).empty());
  CHECK_THAT(dk::note(curve, "p", "T4", {4, nullptr}), Catch::Contains("does 1.9x the work"));
}
