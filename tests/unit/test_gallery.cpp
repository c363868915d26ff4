// `sonicsim reproduce`: a figures file's problems all named with their JSON paths, the verdict
// against each kind of tolerance, the operations (Jain's index), and an end-to-end figure that
// holds the simulation to the formula in its exact limit through shared runs.
#include "support.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <sonicsim/gallery/figures.hpp>
#include <sonicsim/gallery/reproduce.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>

using namespace sonicsim;
using test::json;

namespace {

namespace fs = std::filesystem;

// Each test's scenario and figures file, side by side as in a gallery folder.
struct GalleryDir : test::ScratchDir {
  GalleryDir() : test::ScratchDir("gallery") {}
};

// The deterministic single-GPU system of scenarios/examples/formula-knee.json, small.
json knee_scenario() {
  return json::parse(R"({
    "name": "knee", "seed": 1, "duration": "200s", "warmup": "20s",
    "workload": {"jobs": 10, "threads_per_job": 1, "mode": "sync",
                 "cpu_time_per_event": "50ms",
                 "requests": [{"model": "m", "offload_fraction": 0.2, "items": 1}]},
    "models": {"m": {"input_bytes_per_item": "1kB", "output_bytes_per_item": "8B",
                     "service_time": {"batch": [1], "seconds": [0.01]}}},
    "servers": [{"name": "g", "count": 1, "device": "T4", "models": ["m"]}]
  })");
}

json figure(json simulated, json published, json tolerance) {
  json f = {{"id", "f"},
            {"figure", "a figure"},
            {"source", "a test"},
            {"unit", "x"},
            {"published", published},
            {"simulated", simulated},
            {"tolerance", tolerance}};
  if (tolerance.is_null()) f.erase("tolerance");
  return f;
}

gallery::Reproduction reproduce_one(const GalleryDir& dir, const json& fig) {
  dir.write("knee.json", knee_scenario());
  const auto file = dir.write(
      "figures.json",
      {{"system", "test"}, {"source", "tests"}, {"scenario", "knee.json"}, {"figures", {fig}}});
  gallery::ReproduceRequest request;
  request.files.push_back(gallery::load_figures(file));
  request.workers = 1;
  request.simulate = pipeline::simulator();
  return gallery::reproduce(request);
}

std::string load_error(const GalleryDir& dir, const json& doc) {
  dir.write("knee.json", knee_scenario());
  try {
    gallery::load_figures(dir.write("figures.json", doc));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("reproduce: a figure's verdict against each kind of tolerance", "[gallery]") {
  GalleryDir dir;
  const auto verdict = [&](double value, double published, json tolerance,
                           const std::string& miss = "") {
    json f = figure(value, published, tolerance);
    if (!miss.empty()) f["miss"] = miss;
    return reproduce_one(dir, f).systems.at(0).figures.at(0).verdict;
  };
  CHECK(verdict(2.8, 2.7, {{"relative", 0.05}}) == gallery::Verdict::Within);
  CHECK(verdict(2.9, 2.7, {{"relative", 0.05}}) == gallery::Verdict::Outside);
  CHECK(verdict(2.9, 2.7, {{"relative", 0.05}}, "the inputs cannot give it") ==
        gallery::Verdict::KnownMiss);
  CHECK(verdict(69, 68, {{"absolute", 2}}) == gallery::Verdict::Within);
  CHECK(verdict(71, 68, {{"absolute", 2}}) == gallery::Verdict::Outside);
  CHECK(verdict(1.2, 1.0, {{"at_least", 1}}) == gallery::Verdict::Within);
  CHECK(verdict(0.9, 1.0, {{"at_least", 1}}) == gallery::Verdict::Outside);
  CHECK(verdict(0.9, 1.0, {{"at_most", 1}}) == gallery::Verdict::Within);

  // A prediction: no error, and only a bound it states can fail it.
  const auto r = reproduce_one(dir, figure(3.0, nullptr, nullptr));
  CHECK(r.systems[0].figures[0].verdict == gallery::Verdict::Prediction);
  CHECK_FALSE(r.systems[0].figures[0].error.has_value());
  CHECK(reproduce_one(dir, figure(0.5, nullptr, {{"at_least", 1}})).outside() == 1);
}

TEST_CASE("reproduce: the operations, Jain's fairness index among them", "[gallery]") {
  GalleryDir dir;
  const auto value = [&](json expression) {
    return reproduce_one(dir, figure(expression, nullptr, nullptr))
        .systems.at(0)
        .figures.at(0)
        .simulated;
  };
  CHECK(value({{"jain", {2, 2, 2, 2}}}) == Approx(1.0));
  CHECK(value({{"jain", {1, 0, 0, 0}}}) == Approx(0.25));  // one user gets everything: 1/n
  CHECK(value({{"jain", {1, 3}}}) == Approx(16.0 / 20.0));
  CHECK(value({{"ratio", {3, 4}}}) == Approx(0.75));
  CHECK(std::isnan(value({{"ratio", {3, 0}}})));
  CHECK(value({{"difference", {3, 4}}}) == Approx(-1.0));
  CHECK(value({{"product", {2, 3, 4}}}) == Approx(24.0));
  CHECK(value({{"sum", {2, 3, 4}}}) == Approx(9.0));
  CHECK(value({{"min", {2, 3, 4}}}) == Approx(2.0));
  CHECK(value({{"max", {2, 3, 4}}}) == Approx(4.0));
}

TEST_CASE("reproduce: the simulation meets the formula at saturation through shared runs",
          "[gallery]") {
  GalleryDir dir;
  // 10 threads on one GPU of 10 ms: saturated (t_ideal / t_GPU = 5), so the thread time per
  // event is t_GPU N_CPU / N_GPU = 100 ms, simulated and by the formula.
  json f = figure(
      {{"ratio",
        {{{"metric", "events.thread_time_per_event_s"}}, {{"metric", "analytic.t_sonic_s"}}}}},
      1.0, {{"relative", 0.01}});
  // The formula's term alone reads a run that is only predicted; a vary runs the figure again.
  f["formula"] = {{"metric", "analytic.t_sonic_s"}, {"set", {"workload.jobs=20"}}};
  f["vary"] = {{"set", "workload.jobs"}, {"label", "threads"}, {"values", {20, 40}}};
  const auto r = reproduce_one(dir, f);
  const auto& fig = r.systems.at(0).figures.at(0);
  CHECK(fig.verdict == gallery::Verdict::Within);
  CHECK(fig.simulated == Approx(1.0).epsilon(0.01));
  CHECK(fig.formula == Approx(0.2));  // t_SONIC at 20 threads: 10 ms x 20
  REQUIRE(fig.sweep.size() == 2);
  CHECK(fig.sweep[0].simulated == Approx(1.0).epsilon(0.01));
  CHECK(fig.sweep[1].simulated == Approx(1.0).epsilon(0.01));
  CHECK(fig.sweep[0].formula == Approx(0.2));
  CHECK(fig.sweep[1].formula == Approx(0.2));  // the term's own jobs=20 comes after the vary
  // The figure's own point and two vary values are three simulations, each read twice (its
  // simulated time and its analytic t_SONIC). The formula's own run (jobs=20) is the same run
  // as the vary's first simulation, so it is not run again; its two vary runs (each ending in
  // jobs=20) are predicted.
  CHECK(r.runs_simulated == 3);
  CHECK(r.runs_predicted == 2);
}

TEST_CASE("reproduce: a figures file's problems, all at once, each with its JSON path",
          "[gallery]") {
  GalleryDir dir;
  json bad = {{"system", "s"},
              {"source", "x"},
              {"scenario", "knee.json"},
              {"figurs", 1},
              {"figures",
               {{{"id", "Bad Id"},
                 {"figure", "x"},
                 {"source", "x"},
                 {"unit", "x"},
                 {"published", 2.7},
                 {"simulated", {{"ratoi", {1, 2}}}}},
                {{"id", "b"},
                 {"figure", "x"},
                 {"source", "x"},
                 {"unit", "x"},
                 {"published", nullptr},
                 {"tolerance", {{"relative", 0.1}}},
                 {"scenario", "missing.json"},
                 {"simulated", {{"ratio", {1}}}}}}}};
  const std::string e = load_error(dir, bad);
  CHECK_THAT(e, Catch::Contains("figures.json: figurs: unknown key `figurs`"));
  CHECK_THAT(e, Catch::Contains("did you mean `figures`?"));
  CHECK_THAT(e, Catch::Contains("figures[0].id: \"Bad Id\"; expected lower-case letters"));
  CHECK_THAT(e, Catch::Contains("figures[0].tolerance: missing; a published figure needs"));
  CHECK_THAT(e, Catch::Contains("figures[0].simulated.ratoi: unknown operation `ratoi`"));
  CHECK_THAT(e, Catch::Contains("figures[1].tolerance: a relative or absolute tolerance needs "
                                "a published number"));
  CHECK_THAT(e, Catch::Contains("figures[1].scenario: \"missing.json\": no such file"));
  CHECK_THAT(e, Catch::Contains("figures[1].simulated.ratio: found [1]; expected an array of 2 "
                                "expressions"));
}

TEST_CASE("reproduce: a metric the results lack, or a run the scenario refuses, is named",
          "[gallery]") {
  GalleryDir dir;
  const auto error = [&](json expression) {
    try {
      reproduce_one(dir, figure(expression, nullptr, nullptr));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error({{"metric", "analytic.t_sonc_s"}}),
             Catch::Contains("figures[0].simulated.metric: \"analytic.t_sonc_s\" is not a "
                             "figure of the results of") &&
                 Catch::Contains("did you mean `analytic.t_sonic_s`?"));
  CHECK_THAT(error({{"metric", "analytic.t_sonic_s"}, {"set", {"workload.jobs=-3"}}}),
             Catch::Contains("figures[0].simulated: the run ") &&
                 Catch::Contains("--set workload.jobs=-3 is refused"));
}

TEST_CASE("reproduce: a vary that moves several paths together", "[gallery]") {
  GalleryDir dir;
  // Threads and GPUs doubled together keep 10 threads per GPU: t_SONIC stays t_GPU x 10.
  json f = figure({{"metric", "analytic.t_sonic_s"}}, nullptr, nullptr);
  f["vary"] = {{"set", {"workload.jobs", "servers.0.count"}},
               {"label", "threads and GPUs"},
               {"values", {{20, 2}, {40, 4}, {40, 2}}},
               {"labels", {"x1", "x2", "x2 threads"}}};
  const auto r = reproduce_one(dir, f);
  const auto& sweep = r.systems.at(0).figures.at(0).sweep;
  REQUIRE(sweep.size() == 3);
  CHECK(sweep[0].value == "[20,2]");
  CHECK(sweep[2].label == "x2 threads");
  CHECK(sweep[0].simulated == Approx(0.1));
  CHECK(sweep[1].simulated == Approx(0.1));
  CHECK(sweep[2].simulated == Approx(0.2));

  f["vary"]["values"] = {{20, 2}, 40};
  f["vary"]["labels"] = {"one"};
  dir.write("knee.json", knee_scenario());
  const std::string e = load_error(
      dir, {{"system", "s"}, {"source", "x"}, {"scenario", "knee.json"}, {"figures", {f}}});
  CHECK_THAT(e, Catch::Contains("figures[0].vary.values[1]: found 40; expected an array of 2 "
                                "values, one per path of `set`"));
  CHECK_THAT(e, Catch::Contains("figures[0].vary.labels: found [\"one\"]; expected an array of 2 "
                                "strings, one per value"));
}

TEST_CASE("reproduce: a figure by construction is told apart from evidence, and still fails",
          "[gallery]") {
  gallery::Figure f;
  f.published = 650.0;
  f.tolerance = {gallery::Tolerance::Kind::Relative, 0.077};
  CHECK(gallery::judge(f, 660.0) == gallery::Verdict::Within);
  f.by_construction = {gallery::Construction::Kind::Input, "the service interval is 1/650 s"};
  CHECK(gallery::judge(f, 660.0) == gallery::Verdict::ByConstruction);
  // Outside its tolerance it reveals a bug: never excused, not even as a known miss.
  CHECK(gallery::judge(f, 720.0) == gallery::Verdict::Outside);
  f.miss = "a reason";
  CHECK(gallery::judge(f, 720.0) == gallery::Verdict::Outside);
  CHECK(gallery::judge(f, std::nan("")) == gallery::Verdict::Outside);

  // A prediction that is an identity: its stated bound must hold, and it is no prediction.
  gallery::Figure bound;
  bound.tolerance = {gallery::Tolerance::Kind::AtMost, 1.107};
  CHECK(gallery::judge(bound, 1.08) == gallery::Verdict::Prediction);
  bound.by_construction = {gallery::Construction::Kind::Identity, "Amdahl's law"};
  CHECK(gallery::judge(bound, 1.08) == gallery::Verdict::ByConstruction);
  CHECK(gallery::judge(bound, 1.2) == gallery::Verdict::Outside);
  bound.tolerance = {};
  CHECK(gallery::judge(bound, 1.2) == gallery::Verdict::ByConstruction);

  // Through the file: the field read, the verdict and its words in every rendering.
  GalleryDir dir;
  json fig = figure(2.8, 2.7, {{"relative", 0.05}});
  fig["by_construction"] = {{"kind", "solved"}, {"why", "p was solved from the 2.7x"}};
  auto r = reproduce_one(dir, fig);
  CHECK(r.systems.at(0).figures.at(0).verdict == gallery::Verdict::ByConstruction);
  CHECK(r.outside() == 0);
  CHECK_THAT(gallery::validation_table(r),
             Catch::Contains("| by construction (solved for), within ±5%: p was solved from the "
                             "2.7x |"));
  CHECK_THAT(gallery::to_text(r),
             Catch::Contains("simulated 2.80x (+3.7%); by construction (solved for), within ±5%\n"
                             "    (not evidence: p was solved from the 2.7x)\n"));
  const json doc = json::parse(gallery::to_json(r));
  const json& jf = doc["systems"][0]["figures"][0];
  CHECK(jf["verdict"] == "by construction");
  CHECK(jf["by_construction"] == json({{"kind", "solved"}, {"why", "p was solved from the 2.7x"}}));
  CHECK(doc["figures"]["by_construction"] == 1);
  CHECK(doc["figures"]["within"] == 0);
  fig["simulated"] = 2.9;
  r = reproduce_one(dir, fig);
  CHECK(r.systems.at(0).figures.at(0).verdict == gallery::Verdict::Outside);
  CHECK(r.outside() == 1);
  CHECK_THAT(gallery::validation_table(r),
             Catch::Contains("| **OUTSIDE** ±5%: by construction (solved for), so a bug |"));
}

TEST_CASE("reproduce: the roll-up line counts evidence and construction apart", "[gallery]") {
  using gallery::Construction;
  using gallery::Verdict;
  gallery::Reproduction r;
  r.runs_simulated = 7;
  r.runs_predicted = 2;
  const auto add = [&](Verdict v, Construction::Kind k = Construction::Kind::None) {
    gallery::FigureResult f;
    f.verdict = v;
    f.figure.by_construction.kind = k;
    r.systems.back().figures.push_back(f);
  };
  r.systems.resize(1);
  add(Verdict::Within);
  add(Verdict::Within);
  add(Verdict::ByConstruction, Construction::Kind::Input);
  r.systems.resize(2);
  add(Verdict::ByConstruction, Construction::Kind::Identity);
  add(Verdict::ByConstruction, Construction::Kind::Identity);
  add(Verdict::ByConstruction, Construction::Kind::Solved);
  add(Verdict::KnownMiss);
  add(Verdict::Prediction);
  add(Verdict::Outside, Construction::Kind::Input);  // by construction, out: counted outside

  const gallery::Tally t = gallery::tally(r);
  CHECK(t.total == 9);
  CHECK(t.within == 2);
  CHECK(t.by_construction == 4);
  CHECK(t.inputs == 1);
  CHECK(t.identities == 2);
  CHECK(t.solved == 1);
  CHECK(t.outside == 1);
  CHECK(t.known_misses == 1);
  CHECK(t.predictions == 1);
  CHECK(t.outside == r.outside());
  CHECK(gallery::rollup(r) ==
        "9 figures: 2 within tolerance (evidence), 4 by construction (1 input, 2 identities, 1 "
        "solved for), 1 outside, 1 known misses, 1 predictions (7 simulations, 2 formula-only "
        "runs)");
  CHECK_THAT(gallery::to_text(r), Catch::EndsWith(gallery::rollup(r) + "\n"));

  gallery::Reproduction none;
  none.systems.resize(1);
  none.systems[0].figures.resize(1);  // a default FigureResult: a prediction
  CHECK(gallery::rollup(none) ==
        "1 figure: 0 within tolerance (evidence), 0 by construction, 0 outside, 0 known misses, "
        "1 predictions (0 simulations, 0 formula-only runs)");
}

TEST_CASE("reproduce: a bad by_construction is named with its JSON path", "[gallery]") {
  GalleryDir dir;
  const auto error = [&](json by_construction, const std::string& miss = "") {
    json f = figure(2.8, 2.7, {{"relative", 0.05}});
    f["by_construction"] = by_construction;
    if (!miss.empty()) f["miss"] = miss;
    return load_error(
        dir, {{"system", "s"}, {"source", "x"}, {"scenario", "knee.json"}, {"figures", {f}}});
  };
  CHECK_THAT(error("the interval is an input"),
             Catch::Contains("figures.json: figures[0].by_construction: found \"the interval is "
                             "an input\"; expected {\"kind\": \"input\", \"identity\" or "
                             "\"solved\", \"why\": one sentence}"));
  CHECK_THAT(error({{"kind", "inptu"}, {"why", "x"}}),
             Catch::Contains("figures[0].by_construction.kind: found \"inptu\"; expected "
                             "\"input\" (it reproduces an input), \"identity\" or \"solved\""));
  CHECK_THAT(error({{"kind", 3}, {"why", "x"}}),
             Catch::Contains("figures[0].by_construction.kind: found 3; expected a non-empty "
                             "string"));
  const std::string e = error({{"kind", "identity"}, {"whyy", "x"}});
  CHECK_THAT(e, Catch::Contains("figures[0].by_construction.whyy: unknown key `whyy`; did you mean "
                                "`why`?"));
  CHECK_THAT(e, Catch::Contains("figures[0].by_construction.why: missing; expected a string"));
  CHECK_THAT(error({{"kind", "input"}, {"why", "x"}}, "the inputs cannot give it"),
             Catch::Contains("figures[0].by_construction: a figure that holds by construction "
                             "cannot be a known miss"));
  CHECK(error({{"kind", "input"}, {"why", "x"}}).empty());
}

TEST_CASE("reproduce: a figure that is not a finite number is never within its tolerance",
          "[gallery]") {
  GalleryDir dir;
  const double max = std::numeric_limits<double>::max();
  const auto result = [&](json expression, json published, json tolerance) {
    return reproduce_one(dir, figure(expression, published, tolerance)).systems.at(0).figures.at(0);
  };
  // The largest finite product holds its bound; one step past it overflows: not reproduced,
  // even against `at_least`, which +inf would pass.
  CHECK(result({{"product", {max, 1}}}, nullptr, {{"at_least", 1}}).verdict ==
        gallery::Verdict::Prediction);
  const auto inf = result({{"product", {max, 2}}}, nullptr, {{"at_least", 1}});
  CHECK(std::isnan(inf.simulated));
  CHECK(inf.verdict == gallery::Verdict::Outside);
  // Against a published figure, with any tolerance, and as a prediction with none.
  for (const json& tolerance : {json{{"relative", 0.5}}, json{{"absolute", 1e300}},
                                json{{"at_least", 1}}, json{{"at_most", 1}}}) {
    INFO(tolerance.dump());
    const auto f = result({{"sum", {max, max}}}, 1e308, tolerance);
    CHECK(f.verdict == gallery::Verdict::Outside);
    CHECK_FALSE(f.error.has_value());
  }
  CHECK(result({{"product", {max, -2}}}, nullptr, nullptr).verdict == gallery::Verdict::Outside);
  CHECK(gallery::judge(gallery::Figure{}, std::numeric_limits<double>::infinity()) ==
        gallery::Verdict::Outside);
}

TEST_CASE("reproduce: a published figure whose tolerance band is not finite is refused",
          "[gallery]") {
  GalleryDir dir;
  const double half = std::numeric_limits<double>::max() / 2;
  const auto doc = [&](double published, json tolerance) {
    return json{{"system", "test"},
                {"source", "tests"},
                {"scenario", "knee.json"},
                {"figures", {figure(1.0, published, tolerance)}}};
  };
  // half + 1 x half is the largest double: the band's edge still finite. One step past, +inf.
  CHECK(load_error(dir, doc(half, {{"relative", 1.0}})).empty());
  CHECK_THAT(load_error(dir, doc(half, {{"relative", std::nextafter(1.0, 2.0)}})),
             Catch::Contains("figures[0].tolerance.relative: found 1.0000000000000002 around the "
                             "published 8.98") &&
                 Catch::Contains("expected a tolerance whose band around the published figure "
                                 "is finite"));
  CHECK(load_error(dir, doc(half, {{"absolute", half}})).empty());
  CHECK_THAT(load_error(dir, doc(half, {{"absolute", std::nextafter(half, 2 * half)}})),
             Catch::Contains("figures[0].tolerance.absolute"));
}

TEST_CASE("reproduce: results handed in (results_of) stand in for the simulations", "[gallery]") {
  GalleryDir dir;
  dir.write("knee.json", knee_scenario());
  const json fig =
      figure({{"ratio", {{{"metric", "events.throughput_per_s"}}, 2}}}, 5.0, {{"relative", 0.01}});
  const auto file = dir.write(
      "figures.json",
      {{"system", "test"}, {"source", "tests"}, {"scenario", "knee.json"}, {"figures", {fig}}});
  gallery::ReproduceRequest request;
  request.files.push_back(gallery::load_figures(file));
  std::vector<std::string> asked;
  request.results_of = [&](const std::string& scenario, const std::vector<std::string>&) {
    asked.push_back(scenario);
    return std::string(R"({"events": {"throughput_per_s": 10}})");
  };
  const auto r = gallery::reproduce(request);
  CHECK(asked.size() == 1);
  CHECK(r.runs_simulated == 1);
  CHECK(r.systems.at(0).figures.at(0).simulated == Approx(5.0));
  CHECK(r.systems.at(0).figures.at(0).verdict == gallery::Verdict::Within);
  // A run refused where results are made is named as a child's refusal is.
  request.results_of = [](const std::string&, const std::vector<std::string>&) -> std::string {
    throw InputError("knee.json", {{"workload.jobs", "found 0, expected at least 1"}});
  };
  try {
    gallery::reproduce(request);
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("figures[0].simulated") &&
                                          Catch::Contains("is refused") &&
                                          Catch::Contains("expected at least 1"));
  }
}
