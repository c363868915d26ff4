// What every fuzz target shares: the contract a reader of user input keeps (it returns, or it
// throws InputError saying where), scratch files for readers that take a path, and the macro that
// makes one target function both a libFuzzer entry point (the Fuzz build) and an entry of the
// corpus replay driver (the normal g++ builds, run by ctest). docs/fuzzing.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace sonicsim::fuzz {

using TargetFn = int (*)(const std::uint8_t*, std::size_t);

// The replay driver's table of targets, filled before main by SONICSIM_FUZZ_TARGET.
std::vector<std::pair<std::string, TargetFn>>& targets();
struct Registration {
  Registration(const char* name, TargetFn fn);
};

// How precisely a refusal must say where the problem is.
enum class Where {
  Anywhere,  // InputError naming the file with at least one problem: enough for a whole file
  Located,   // and every problem with a JSON path or a line (the scenario loader's promise)
};

// Runs `call`. Returns when it returns or throws an InputError that keeps the contract; for any
// other exception, or an InputError that does not say where, prints what broke the contract and
// calls abort() so that libFuzzer records the input as a crash (and the replay test fails).
void expect_contract(const char* target, Where where, const std::function<void()>& call);

// A finding that is not an exception (a NaN where a number was promised, a wrong count): prints
// and aborts as expect_contract does.
[[noreturn]] void finding(const char* target, const std::string& what);

// Writes `content` to `name` in this process's scratch folder (tmpfs when there is one) and
// returns its path: the readers that take a path read the fuzz input through the file system,
// exactly as they read a user's file.
std::string scratch_file(const std::string& name, std::string_view content);
std::string scratch_folder();

// The input split at its first newline: (first line, the rest); ("", data) without a newline.
std::pair<std::string_view, std::string_view> split_first_line(std::string_view data);
// The input split at the first line that is exactly `marker`: (before, after); (data, "")
// without one.
std::pair<std::string_view, std::string_view> split_at_marker(std::string_view data,
                                                              std::string_view marker);

// The smallest scenario a calibration's output can be tried in, as src/cli/read_back.cpp builds
// it: one model on one pool of `device`, a client that calls it, plain figures far inside every
// range, so that a refusal is the output's.
nlohmann::json read_back_scenario(const std::string& device);

// Splices a fuzzed JSON object into a valid base document, so that the fuzzer works on one block
// instead of the outer document around it. For each key of `replace` the input's value (when it
// has the key) replaces the base's; for each key of `merge` an object is merge-patched (RFC 7386)
// onto the base's value and an array onto the base's array element by element (elements past
// the base's end patch a copy of its last element; at most `max_elements`). Returns false, and
// leaves `base` alone, when the input is not a JSON object: the outer JSON is the scenario
// target's work.
bool splice(nlohmann::json& base, std::string_view input, const std::vector<std::string>& replace,
            const std::vector<std::string>& merge, std::size_t max_elements = 16);

}  // namespace sonicsim::fuzz

// The mutator of a target whose input is a JSON object (sites, hosts): libFuzzer's byte
// mutations mostly break JSON's syntax, and such a target skips an input that is not an object,
// so without it most of a run went into the JSON parser's error paths (4,000 of the 4,400 inputs
// of the sites corpus after two minutes held no object). libFuzzer's mutations are kept, retried
// from the same input until one gives a JSON object (at most 16 times; then the last is taken).
#define SONICSIM_FUZZ_JSON_OBJECT_MUTATOR                                                \
  extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t*, std::size_t, std::size_t);      \
  extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,   \
                                                 std::size_t max_size, unsigned int) {   \
    return ::sonicsim::fuzz::mutate_json_object(data, size, max_size, LLVMFuzzerMutate); \
  }

namespace sonicsim::fuzz {
std::size_t mutate_json_object(std::uint8_t* data, std::size_t size, std::size_t max_size,
                               std::size_t (*mutate)(std::uint8_t*, std::size_t, std::size_t));
}  // namespace sonicsim::fuzz

#ifdef SONICSIM_FUZZ_REPLAY
#undef SONICSIM_FUZZ_JSON_OBJECT_MUTATOR
#define SONICSIM_FUZZ_JSON_OBJECT_MUTATOR
#define SONICSIM_FUZZ_TARGET(name)                                                                 \
  static int fuzz_target_##name(const std::uint8_t*, std::size_t);                                 \
  static const ::sonicsim::fuzz::Registration fuzz_registration_##name(#name, fuzz_target_##name); \
  static int fuzz_target_##name(const std::uint8_t* data, std::size_t size)
#else
#define SONICSIM_FUZZ_TARGET(name) \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
#endif
