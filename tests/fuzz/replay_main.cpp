// Corpus replay without libFuzzer: runs one fuzz target over every file of a folder (or over the
// files given), so that the normal builds (Release, ASan) replay every input ever checked in,
// crashers included, as ctest tests. A broken contract aborts, as under libFuzzer.
//
//   sonicsim_fuzz_replay TARGET PATH...    (PATH: a file or a folder of inputs)
//   sonicsim_fuzz_replay --list
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const auto& all = sonicsim::fuzz::targets();
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& [name, fn] : all) std::printf("%s\n", name.c_str());
    return 0;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TARGET PATH... | --list\n", argv[0]);
    return 2;
  }
  const auto target =
      std::find_if(all.begin(), all.end(), [&](const auto& t) { return t.first == argv[1]; });
  if (target == all.end()) {
    std::fprintf(stderr, "unknown fuzz target `%s` (--list names them)\n", argv[1]);
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 2; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else {
      inputs.emplace_back(argv[i]);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "no inputs for `%s`\n", argv[1]);
    return 2;
  }
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 2;
    }
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::fprintf(stderr, "replay %s %s\n", argv[1], path.c_str());
    target->second(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: %zu inputs replayed, contract kept\n", argv[1], inputs.size());
  return 0;
}
