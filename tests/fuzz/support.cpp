// The contract check, scratch files and input splitting of support.hpp.
#include "support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <typeinfo>

#include <sonicsim/util/errors.hpp>

namespace sonicsim::fuzz {

std::vector<std::pair<std::string, TargetFn>>& targets() {
  static std::vector<std::pair<std::string, TargetFn>> all;
  return all;
}

Registration::Registration(const char* name, TargetFn fn) {
  targets().emplace_back(name, fn);
}

void finding(const char* target, const std::string& what) {
  std::fprintf(stderr, "\nsonicsim fuzz target `%s`: contract broken: %s\n", target, what.c_str());
  std::fflush(stderr);
  std::abort();
}

namespace {

// A problem says where it is when it has a JSON path, when its message names a line (the
// parser's "line 3, column 7"), or when the error's source is a flag (`--set`), not a file.
bool located(const InputError& e, const Problem& p) {
  return !p.path.empty() || p.message.find("line ") != std::string::npos ||
         e.file().rfind("--", 0) == 0;
}

}  // namespace

void expect_contract(const char* target, Where where, const std::function<void()>& call) {
  try {
    call();
  } catch (const InputError& e) {
    // SONICSIM_FUZZ_VERBOSE=1: each refusal on stderr, to see how far a seed gets.
    static const bool verbose = std::getenv("SONICSIM_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "%s: refused: %s\n", target, e.what());
    if (e.file().empty())
      finding(target, "InputError without a file name: " + std::string(e.what()));
    if (e.problems().empty()) finding(target, "InputError without a problem");
    for (const Problem& p : e.problems()) {
      if (p.message.empty()) finding(target, "a problem without a message at `" + p.path + "`");
      if (where == Where::Located && !located(e, p))
        finding(target, "a problem without a JSON path or line: " + p.message);
    }
  } catch (const std::bad_alloc&) {
    finding(target, "std::bad_alloc (memory proportional to the input)");
  } catch (const std::exception& e) {
    finding(target,
            std::string("exception ") + typeid(e).name() + " instead of InputError: " + e.what());
  } catch (...) {
    finding(target, "an exception that is not a std::exception");
  }
}

std::string scratch_folder() {
  static const std::string folder = [] {
    std::filesystem::path base = "/dev/shm";
    std::error_code ec;
    if (!std::filesystem::is_directory(base, ec) || access(base.c_str(), W_OK) != 0)
      base = std::filesystem::temp_directory_path();
    const auto dir = base / ("sonicsim-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    // Left behind by a crash only; a normal exit cleans it.
    static const std::string to_remove = dir.string();
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(to_remove, ignored);
    });
    return dir.string();
  }();
  return folder;
}

std::string scratch_file(const std::string& name, std::string_view content) {
  const std::string path = scratch_folder() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) {
    std::perror(path.c_str());
    std::abort();  // the machine, not the target: stop rather than fuzz nothing
  }
  return path;
}

nlohmann::json read_back_scenario(const std::string& device) {
  auto s = nlohmann::json::parse(R"({
    "name": "read-back", "duration": "1min",
    "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "1s",
                 "requests": [{"model": "m", "offload_fraction": 1}]},
    "models": {"m": {"service_time": {"batch": [1], "seconds": ["1ms"]}}},
    "servers": [{"name": "pool", "count": 1, "models": ["m"]}]})");
  s["servers"][0]["device"] = device;
  return s;
}

std::pair<std::string_view, std::string_view> split_first_line(std::string_view data) {
  const auto nl = data.find('\n');
  if (nl == std::string_view::npos) return {{}, data};
  return {data.substr(0, nl), data.substr(nl + 1)};
}

std::pair<std::string_view, std::string_view> split_at_marker(std::string_view data,
                                                              std::string_view marker) {
  std::size_t start = 0;
  while (start <= data.size()) {
    auto end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    if (data.substr(start, end - start) == marker)
      return {data.substr(0, start), end < data.size() ? data.substr(end + 1) : std::string_view{}};
    start = end + 1;
  }
  return {data, {}};
}

bool splice(nlohmann::json& base, std::string_view input, const std::vector<std::string>& replace,
            const std::vector<std::string>& merge, std::size_t max_elements) {
  const auto doc = nlohmann::json::parse(input, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return false;
  for (const std::string& key : replace)
    if (const auto it = doc.find(key); it != doc.end()) base[key] = *it;
  for (const std::string& key : merge) {
    const auto it = doc.find(key);
    if (it == doc.end()) continue;
    nlohmann::json& target = base[key];
    if (it->is_array() && target.is_array() && !target.empty()) {
      nlohmann::json out = nlohmann::json::array();
      for (std::size_t i = 0; i < it->size() && i < max_elements; ++i) {
        nlohmann::json element = target[std::min(i, target.size() - 1)];
        element.merge_patch((*it)[i]);
        out.push_back(std::move(element));
      }
      target = std::move(out);
    } else {
      target.merge_patch(*it);
    }
  }
  return true;
}

std::size_t mutate_json_object(std::uint8_t* data, std::size_t size, std::size_t max_size,
                               std::size_t (*mutate)(std::uint8_t*, std::size_t, std::size_t)) {
  const std::vector<std::uint8_t> original(data, data + size);
  std::size_t n = 0;
  for (int attempt = 0; attempt < 16; ++attempt) {
    if (attempt > 0) std::copy(original.begin(), original.end(), data);
    n = mutate(data, size, max_size);
    const char* begin = reinterpret_cast<const char*>(data);
    const char* end = begin + n;
    const char* first = std::find_if(
        begin, end, [](char c) { return !std::isspace(static_cast<unsigned char>(c)); });
    if (first != end && *first == '{' && nlohmann::json::accept(begin, end)) return n;
  }
  return n;
}

}  // namespace sonicsim::fuzz
