// Random quantities in a scenario (src/scenario/load_distribution.cpp): a number, a time with its
// unit or a distribution object of every form, read into a Distribution with its mean and
// spread; bad forms refused with the JSON path, what was found and what is expected.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "problems.hpp"
#include "support.hpp"

using namespace test;
using namespace sonicsim::scenario;

TEST_CASE("distribution forms in a scenario", "[loader]") {
  json doc = json::parse(R"({"duration": 100, "workload": {"jobs": 1, "threads_per_job": 1,
      "cpu_time_per_event": 1}})");
  const auto cpu = [&](const json& d) {
    doc["workload"]["cpu_time_per_event"] = d;
    return load_json(doc).workload().cpu_time_per_event;
  };
  CHECK(cpu("250ms").expected() == Approx(0.25));
  CHECK(cpu({{"dist", "constant"}, {"mean", "2s"}}).expected() == 2);
  CHECK(cpu({{"dist", "exponential"}, {"mean", 0.5}}).kind == Distribution::Kind::Exponential);
  const Distribution g = cpu({{"dist", "gamma"}, {"mean", "1s"}, {"stddev", "250ms"}});
  CHECK(g.cv == Approx(0.25));
  const Distribution n = cpu({{"dist", "normal"}, {"mean", 1}, {"stddev", 0.5}});
  CHECK(n.kind == Distribution::Kind::Normal);
  CHECK(n.expected() > 1.0);  // the truncated mean
  const Distribution u = cpu({{"dist", "uniform"}, {"min", "1s"}, {"max", "3s"}});
  CHECK(u.expected() == 2);
  const Distribution e = cpu({{"dist", "empirical"}, {"values", {"1s", 2, "3000ms"}}});
  CHECK(e.values == std::vector<double>{1, 2, 3});
  CHECK(e.weights.empty());
}

namespace {

// deterministic() with `cpu` as its CPU time per event.
json ld_with_cpu(const json& cpu) {
  auto doc = deterministic(2, 1);
  doc["workload"]["cpu_time_per_event"] = cpu;
  return doc;
}

}  // namespace

TEST_CASE("distributions: a bad form names its key, what was found and what is expected",
          "[loader][distribution]") {
  const std::string cpu = "workload.cpu_time_per_event";
  auto problems = problems_of(ld_with_cpu({{"mean", "1s"}, {"cv", 0.3}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, cpu + ".dist",
                    {"missing, expected the kind of distribution: one of \"constant\", "
                     "\"exponential\", \"lognormal\""}));

  problems = problems_of(ld_with_cpu({{"dist", "uniform"}, {"min", "3s"}, {"max", "1s"}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, cpu + ".max",
                    {"found max \"1s\" below min \"3s\", expected max >= min"}));

  problems =
      problems_of(ld_with_cpu({{"dist", "empirical"}, {"values", {1, 2, 3}}, {"weights", {1, 2}}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, cpu + ".weights", {"found 2 weights, expected 3 (one per value)"}));

  problems = problems_of(
      ld_with_cpu({{"dist", "lognormal"}, {"mean", "1s"}, {"cv", 0.3}, {"stddev", "300ms"}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, cpu + ".stddev",
                    {"found both `cv` and `stddev`, expected only one of them"}));

  problems = problems_of(ld_with_cpu(json::array({1, 2})));
  INFO(dump(problems));
  CHECK(has_problem(problems, cpu,
                    {"or a distribution object such as {\"dist\": \"lognormal\", \"mean\": "
                     "\"1s\", \"cv\": 0.3}"}));
}
