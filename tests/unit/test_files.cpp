// The files sonicsim reads and writes (issue 35): only regular files are read, and opening
// anything else never blocks; an output is read back by sonicsim's own reader before it is put
// in place, and a refusal leaves nothing behind.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>

#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using sonicsim::InputError;

// read_text's refusal, or "" when it read the file; a read that does not end within 10 s
// (a blocked open) fails the test instead of hanging it.
std::string refusal(const std::string& path) {
  // A detached thread: a blocked open cannot be joined, and the process ends it at exit.
  auto promise = std::make_shared<std::promise<std::string>>();
  auto result = promise->get_future();
  std::thread([path, promise] {
    std::string error;
    try {
      sonicsim::read_text(path, error);
    } catch (const InputError& e) {
      error = e.what();
    }
    promise->set_value(error);
  }).detach();
  if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
    FAIL("reading " << path << " blocked");
  return result.get();
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::size_t entries(const fs::path& folder) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder), {}));
}

}  // namespace

TEST_CASE("only regular files are read: a FIFO or socket or device or folder is refused at once",
          "[files]") {
  test::ScratchDir dir("files-read");
  const std::string fifo = (dir.path / "f").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // No process writes to it: opening it for reading used to wait for a writer forever.
  CHECK(refusal(fifo) == fifo +
                             ": found a FIFO (named pipe), expected a regular file (sonicsim "
                             "reads only regular files: docs/limits.md)");

  const std::string socket_path = (dir.path / "s").string();
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(sock >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  REQUIRE(socket_path.size() < sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  REQUIRE(::bind(sock, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  CHECK_THAT(refusal(socket_path), Catch::Contains("s: found a socket, expected a regular file"));
  ::close(sock);

  // /dev/zero never ends: once read up to the size cap, now refused before a byte is read.
  CHECK_THAT(refusal("/dev/zero"),
             Catch::StartsWith("/dev/zero: found a character device, expected a regular file"));
  CHECK_THAT(refusal(dir.path.string()),
             Catch::Contains("found a folder, expected a regular file"));

  // A link to a regular file is that file; a missing file is the caller's to word.
  std::ofstream(dir.path / "real.json") << "{}";
  fs::create_symlink(dir.path / "real.json", dir.path / "link.json");
  std::string error;
  CHECK(sonicsim::read_text((dir.path / "link.json").string(), error) == "{}");
  CHECK(error.empty());
  CHECK(refusal((dir.path / "missing.json").string()) == "No such file or directory");
}

TEST_CASE("an output its reader refuses is not written and the message names the output",
          "[files]") {
  test::ScratchDir dir("files-read-back");
  const std::string out = (dir.path / "cal.json").string();
  const std::string other = (dir.path / "report.json").string();
  std::ofstream(out) << "old";
  // The reader names the file it read; here it refuses anything but "good".
  const sonicsim::ReadBack reader = [](const std::string& staged, const std::string&) {
    std::string error;
    if (sonicsim::read_text(staged, error) != "good")
      throw InputError(staged, {{"service_time.seconds[0]", "found null, expected a time"}});
  };
  try {
    sonicsim::write_all_or_none({{other, "report"}, {out, "bad", reader}});
    FAIL("the refused output was written");
  } catch (const sonicsim::ReadBackError& e) {
    // The temporary's name is put back to the output's: the file the user looks for.
    CHECK(std::string(e.what()) ==
          out + ": sonicsim's own reader refuses the file it was about to write (" + out +
              ": service_time.seconds[0]: found null, expected a time); nothing was written. "
              "This is a bug in sonicsim: please report it with the command line and its input "
              "files");
  }
  // Neither output moved, and no temporary is left beside them.
  CHECK(slurp(out) == "old");
  CHECK_FALSE(fs::exists(other));
  CHECK(entries(dir.path) == 1);

  sonicsim::write_all_or_none({{other, "report"}, {out, "good", reader}});
  CHECK(slurp(out) == "good");
  CHECK(slurp(other) == "report");
  CHECK(entries(dir.path) == 2);

  // A device cannot be read back: a copy in the temporary folder is, before the device is
  // written.
  CHECK_THROWS_AS(sonicsim::write_all_or_none({{"/dev/null", "bad", reader}}),
                  sonicsim::ReadBackError);
  CHECK_NOTHROW(sonicsim::write_all_or_none({{"/dev/null", "good", reader}}));
}
