// Fuzz target: a scenario's `uncertainty` block (src/uncertainty/inputs.cpp), as `plan
// --confidence` and `run --samples` read it: the input is the block's JSON, set into a small
// valid scenario written to a file, read by load_spec. Contract: the block is refused with
// InputError naming the file and a JSON path, or every sample of a small Latin hypercube and of
// a Sobol design is a scenario the loader accepts (a refused sample would stop a plan after
// hours; the checks up front promise it never does).
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/uncertainty/inputs.hpp>
#include <sonicsim/uncertainty/samples.hpp>
#include <sonicsim/util/errors.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(uncertainty) {
  using namespace sonicsim;
  auto doc = fuzz::read_back_scenario("GPU");
  const auto block = nlohmann::json::parse(
      std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (block.is_discarded()) return 0;
  doc["uncertainty"] = block;
  const std::string path = fuzz::scratch_file("uncertain.json", doc.dump());
  std::optional<uncertainty::Spec> spec;
  fuzz::expect_contract("uncertainty", fuzz::Where::Located,
                        [&] { spec = uncertainty::load_spec(path, {}); });
  if (!spec) return 0;
  for (auto method : {uncertainty::Method::Lhs, uncertainty::Method::Sobol}) {
    for (const auto& u : uncertainty::design(method, 4, spec->dims(), 1)) {
      const auto sample = uncertainty::realise(*spec, u);
      try {
        scenario::load_file(path, sample.overrides);
      } catch (const InputError& e) {
        fuzz::finding("uncertainty",
                      std::string("a sample of an accepted block is refused: ") + e.what());
      }
    }
  }
  return 0;
}
