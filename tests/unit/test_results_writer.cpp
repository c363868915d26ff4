// The typed writer (results_format/writer.hpp) and the `analytic` block written through it:
// a figure that does not exist is null, which the reader reads back as missing.
#include <cmath>
#include <limits>
#include <optional>

#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/results_format/writer.hpp>

using namespace test;
using namespace sonicsim;

TEST_CASE("results writer: figures that do not exist are null, the rest as given",
          "[results][writer]") {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  results::Writer w;
  w.figure("finite", 1.5)
      .figure("infinite", kInf)
      .figure("nan", std::nan(""))
      .figure("none", std::optional<double>{})
      .figure("some", std::optional<double>{2.0})
      .put("count", 3)
      .put("name", "x")
      .put("block", results::Writer().figure("inner", -kInf).take());
  const json j = w.take();
  CHECK(j.dump() == R"({"block":{"inner":null},"count":3,"finite":1.5,"infinite":null,"name":"x",)"
                    R"("nan":null,"none":null,"some":2.0})");

  results::OrderedWriter o;
  o.put("z", 1).put("a", 2);
  CHECK(o.take().dump() == R"({"z":1,"a":2})");
}

TEST_CASE("results writer: the analytic block carries the keys the reader looks for",
          "[results][writer]") {
  json doc = deterministic(8, 2);
  const auto s = scenario_of(doc);
  const json a = analytic::to_json(analytic::predict(s));
  namespace k = results::keys;
  for (const char* key :
       {k::analytic::mode, k::analytic::t_cpu_s, k::analytic::p, k::analytic::p_fallback,
        k::analytic::t_gpu_s, k::analytic::t_latency_s, k::analytic::n_cpu, k::analytic::n_gpu,
        k::analytic::t_ideal_s, k::analytic::t_sonic_s, k::analytic::saturated,
        k::analytic::saturation_n_cpu_per_gpu, k::analytic::throughput_per_s,
        k::analytic::binding_pool, k::analytic::network, k::analytic::per_model,
        k::analytic::per_pool, k::analytic::mva, k::analytic::notes})
    CHECK(a.contains(key));
  CHECK(a[k::analytic::network].contains(k::analytic_network::links));
  REQUIRE(a[k::analytic::per_pool].size() == 1);
  CHECK(a[k::analytic::per_pool][0][k::analytic_pool::in_use] == true);
  CHECK(a[k::analytic::mva][k::mva::bounds].contains(k::mva_bounds::knee_n_cpu));
  const json results = {{k::top::analytic, a}};
  CHECK(results::Document(results).analytic().requests_per_event("m") == 1.0);
}
