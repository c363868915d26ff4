// MIG slices (src/scenario/load_slices.cpp): `devices.D.slice` names the device it is a slice of
// and its share of the compute; a model's service time on the slice is the whole device's divided
// by that share unless the model gives its own. Bad slices are refused with the JSON path, what
// was found and what is expected.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/util/errors.hpp>

#include "problems.hpp"
#include "support.hpp"

namespace {

// Four threads on one pool of "A100-1g" slices, a seventh of an A100, serving m.
nlohmann::json lsl_sliced(const nlohmann::json& slice) {
  auto d = test::deterministic(4, 2);
  d["servers"][0]["device"] = "A100-1g";
  d["devices"] = {{"A100-1g", {{"slice", slice}}}};
  d["models"]["m"]["service_time"] = {{"A100", {{"batch", {1, 8}}, {"seconds", {"2ms", "7ms"}}}}};
  return d;
}

std::vector<sonicsim::scenario::Problem> lsl_problems(const nlohmann::json& doc) {
  try {
    sonicsim::scenario::load_json(doc, "<test>");
  } catch (const sonicsim::scenario::InputError& e) {
    return e.problems();
  }
  return {};
}

}  // namespace

TEST_CASE("devices.D.slice: the slice's device and share, and service times divided by it",
          "[loader][slices]") {
  const auto s = sonicsim::scenario::load_json(
      lsl_sliced({{"of", "A100"}, {"fraction", 1.0 / 7.0}}), "<test>");
  const auto* d = s.find_device("A100-1g");
  REQUIRE(d != nullptr);
  REQUIRE(d->slice);
  CHECK(d->slice->of == "A100");
  CHECK(d->slice->fraction == Approx(1.0 / 7.0));
  // Every point of the whole device's curve, seven times as long on a seventh of it.
  const auto& curve = s.models.front().service_time.at("A100-1g");
  CHECK(curve.batch == std::vector<double>{1, 8});
  CHECK(curve.seconds[0] == Approx(0.014));
  CHECK(curve.seconds[1] == Approx(0.049));
  CHECK_THAT(curve.source, Catch::StartsWith("slice of A100"));
  // The whole device keeps its own curve.
  CHECK(s.models.front().service_time.at("A100").seconds[0] == Approx(0.002));
}

TEST_CASE("devices.D.slice: a bad slice names its key, what was found and what is expected",
          "[loader][slices]") {
  using test::dump;
  using test::has_problem;
  auto problems = lsl_problems(lsl_sliced({{"of", "A100-1g"}, {"fraction", 0.5}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, "devices.A100-1g.slice.of",
                    {"found the device itself, expected another device's name"}));
  problems = lsl_problems(lsl_sliced({{"of", 7}, {"fraction", 0.5}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, "devices.A100-1g.slice.of",
                    {"found 7", "expected the name of the device this is a slice of"}));
  problems = lsl_problems(lsl_sliced({{"of", "A100"}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, "devices.A100-1g.slice.fraction",
                    {"missing", "the share of the device's compute, in (0, 1]"}));
  problems = lsl_problems(lsl_sliced("A100"));
  INFO(dump(problems));
  CHECK(has_problem(problems, "devices.A100-1g.slice",
                    {"found \"A100\"", "expected an object {\"of\": \"A100\", \"fraction\""}));
}

TEST_CASE("devices.D.slice: a slice names its device and a share in (0, 1]", "[loader][chart]") {
  auto d = test::deterministic(4, 1);
  d["servers"][0]["device"] = "T4-half";
  d["devices"] = {{"T4-half", {{"slice", {{"of", "T4"}, {"fraction", 0.5}}}}}};
  d["models"]["m"]["service_time"] = {{"T4", {{"batch", {1}}, {"seconds", {0.01}}}}};
  const auto s = sonicsim::scenario::load_json(d, "<test>");
  CHECK(s.models.front().service_time.at("T4-half").seconds.front() == Approx(0.02));
  // A service time of the slice's own wins over the derived one.
  d["models"]["m"]["service_time"] = {{"T4", {{"batch", {1}}, {"seconds", {0.01}}}},
                                      {"T4-half", {{"batch", {1}}, {"seconds", {0.015}}}}};
  CHECK(sonicsim::scenario::load_json(d, "<test>")
            .models.front()
            .service_time.at("T4-half")
            .seconds.front() == Approx(0.015));
  for (const auto& [slice, what] : std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"of", "T4"}, {"fraction", 0}}, "fraction: found 0"},
           {{{"of", "T4"}, {"fraction", 1.5}}, "fraction: found 1.5"},
           {{{"fraction", 0.5}}, "slice.of: missing"},
           {{{"of", "T4-half"}, {"fraction", 0.5}}, "found the device itself"}}) {
    auto bad = test::deterministic(4, 1);
    bad["servers"][0]["device"] = "T4-half";
    bad["devices"] = {{"T4-half", {{"slice", slice}}}};
    try {
      sonicsim::scenario::load_json(bad, "<test>");
      FAIL("accepted " << slice.dump());
    } catch (const sonicsim::InputError& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains(what));
    }
  }
}
