// Fuzz target: the scenario loader with a `--set` override. The input's first line, when it
// starts with "--set ", is an override (`--set key.path=value`); the rest is the scenario's JSON,
// loaded from a file as `sonicsim run FILE --set ...` loads it. The loader must return a
// scenario or throw InputError whose every problem has a JSON path or a line.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(scenario) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto [first, rest] = fuzz::split_first_line(input);
  std::string override_text;
  if (first.rfind("--set ", 0) == 0) {
    override_text = std::string(first.substr(6));
  } else {
    rest = input;
  }
  const std::string path = fuzz::scratch_file("scenario.json", rest);
  // JSON that is not an object is refused as a whole, at the document's root (path "").
  const auto doc = nlohmann::json::parse(rest, nullptr, false);
  const bool whole = !doc.is_discarded() && !doc.is_object();
  fuzz::expect_contract("scenario", whole ? fuzz::Where::Anywhere : fuzz::Where::Located, [&] {
    std::vector<scenario::Override> overrides;
    if (!override_text.empty()) overrides.push_back(scenario::parse_override(override_text));
    scenario::load_file(path, overrides);
  });
  return 0;
}
