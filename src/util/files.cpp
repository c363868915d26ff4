#include <sonicsim/util/files.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim {

namespace {

// What a path is, in the words a message gives it ("found a FIFO (named pipe), ...").
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a file that is not a regular file";
}

[[noreturn]] void not_regular(const std::string& path, mode_t mode) {
  throw InputError(path, {{"", std::string("found ") + kind_of(mode) +
                                   ", expected a regular file (sonicsim reads only regular "
                                   "files: docs/limits.md)"}});
}

}  // namespace

int open_regular_file(const std::string& path, std::string& error) {
  // stat first: a device's open can act (rewind a tape, arm a watchdog) and a socket cannot be
  // opened at all, so they are named without an open. The open cannot block (O_NONBLOCK), and
  // fstat checks what was opened, in case the path changed in between.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = std::strerror(errno);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) not_regular(path, st.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return -1;
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t mode = st.st_mode;
    ::close(fd);
    not_regular(path, mode);
  }
  // A regular file never blocks, but its reads should not see EAGAIN should that ever change.
  if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string read_text(const std::string& path, std::string& error, std::size_t cap) {
  const int fd = open_regular_file(path, error);
  if (fd < 0) return {};
  struct stat st {};
  std::string out;
  // A regular file says its size: refused before a byte is read, with the exact size.
  const bool sized = ::fstat(fd, &st) == 0;
  if (sized && static_cast<std::size_t>(st.st_size) > cap) {
    ::close(fd);
    throw InputError(
        path,
        {{"", "found a file of " + util::format_binary_bytes(static_cast<double>(st.st_size)) +
                  ", expected at most " + util::format_binary_bytes(static_cast<double>(cap)) +
                  " (the limit for this kind of input, docs/limits.md)"}});
  }
  if (sized) out.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const std::size_t want = std::min(sizeof buffer, cap + 1 - out.size());
    const ssize_t n = ::read(fd, buffer, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::strerror(errno);
      ::close(fd);
      return {};
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > cap) {
      ::close(fd);
      throw InputError(
          path, {{"", "found more than " + util::format_binary_bytes(static_cast<double>(cap)) +
                          " (a file that grew while it was read), expected a "
                          "file of at most " +
                          util::format_binary_bytes(static_cast<double>(cap)) +
                          " (the limit for this kind of input, docs/limits.md)"}});
    }
  }
  ::close(fd);
  return out;
}

namespace {

namespace fs = std::filesystem;

fs::path folder_of(const fs::path& target) {
  return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

// A target that exists and is not a regular file (a device such as /dev/null, a pipe, a
// terminal): written in place, never replaced by a rename (that would swap the device for a
// file).
bool is_special(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

[[noreturn]] void failed(const std::string& path, const char* what, int err) {
  throw WriteError(path + ": " + what + ": " + std::strerror(err));
}

void write_in_place(const std::string& path, const std::string& content) {
  // O_NONBLOCK: a FIFO no process reads would hold the open forever; it fails with ENXIO instead.
  // The writes then block as usual, so that a slow reader gets every byte.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO)
    throw WriteError(path + ": cannot write: no process reads from this FIFO");
  if (fd < 0) failed(path, "cannot write", errno);
  if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  if (!write_fully(fd, content)) {
    const int err = errno;
    ::close(fd);
    failed(path, "write failed", err);
  }
  if (::close(fd) != 0) failed(path, "write failed", errno);
}

// The content in a hidden temporary file beside `path`, synced; its name.
std::string write_temporary(const std::string& path, const std::string& content) {
  const fs::path target(path);
  // Appended rather than "." + ...: GCC 12 warns (-Wrestrict) on the temporary's concatenation.
  std::string hidden(".");
  hidden.append(target.filename().string()).append(".XXXXXX");
  std::string tmpl = (folder_of(target) / hidden).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) failed(path, "cannot write", errno);
  if (!write_fully(fd, content) || ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    failed(path, "write failed", err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    failed(path, "write failed", err);
  }
  ::chmod(tmpl.c_str(), 0644);
  return tmpl;
}

// Runs an output's read-back on its staged copy. The reader names the file it read: the
// temporary's name is put back to the target's, which is the file the user will look for.
void read_back(const std::string& target, const std::string& staged, const ReadBack& check) {
  std::string message;
  try {
    check(staged, target);
    return;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    message = e.what();
  }
  std::error_code ec;
  const std::string absolute = fs::absolute(staged, ec).lexically_normal().string();
  for (const std::string& name : {absolute, staged}) {
    if (name.empty()) continue;
    for (std::size_t at = message.find(name); at != std::string::npos;
         at = message.find(name, at + target.size()))
      message.replace(at, name.size(), target);
  }
  throw ReadBackError(target + ": sonicsim's own reader refuses the file it was about to write (" +
                      message +
                      "); nothing was written. This is a bug in sonicsim: please report "
                      "it with the command line and its input files");
}

}  // namespace

bool write_fully(int fd, std::string_view data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void check_writable(const std::string& path) {
  const fs::path target(path);
  const fs::path dir = folder_of(target);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw OutputError(path + ": cannot write: it is a folder");
  if (is_special(path)) {
    if (::access(path.c_str(), W_OK) != 0)
      throw OutputError(path + ": cannot write: " + std::strerror(errno));
    return;
  }
  if (!fs::is_directory(dir, ec))
    throw OutputError(path + ": cannot write: folder " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw OutputError(path + ": cannot write: no permission in " + dir.string());
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  std::vector<std::pair<fs::path, const std::string*>> seen;
  for (const auto& [flag, path] : outputs) {
    if (path.empty() || path == "-") continue;
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(fs::absolute(path, ec), ec);
    if (ec) canonical = fs::path(path).lexically_normal();
    for (const auto& [other, other_flag] : seen)
      if (other == canonical)
        throw OutputError(flag + " " + path + ": the same file as " + *other_flag +
                          "; give each output a file of its own");
    seen.emplace_back(canonical, &flag);
  }
}

void write_atomically(const std::string& path, const std::string& content) {
  write_all_or_none({{path, content}});
}

void write_all_or_none(const std::vector<Output>& files) {
  // Every regular file goes to a temporary first and is read back there; devices and pipes
  // (which cannot be taken back) are written once every temporary is in place and every
  // read-back has passed; the renames come last, and a rename within a folder does not fail for
  // want of space.
  std::vector<std::pair<std::string, const std::string*>> staged;  // temporary, target
  auto discard = [&staged] {
    for (const auto& [tmp, target] : staged) ::unlink(tmp.c_str());
  };
  try {
    for (const auto& f : files)
      if (!is_special(f.path)) staged.emplace_back(write_temporary(f.path, f.content), &f.path);
    std::size_t next = 0;
    for (const auto& f : files) {
      if (is_special(f.path)) {
        if (f.read_back) read_back_copy(f.path, f.content, f.read_back);
        continue;
      }
      const std::string& at = staged[next++].first;
      if (f.read_back) read_back(f.path, at, f.read_back);
    }
    for (const auto& f : files)
      if (is_special(f.path)) write_in_place(f.path, f.content);
  } catch (...) {
    discard();
    throw;
  }
  for (std::size_t i = 0; i < staged.size(); ++i)
    if (std::rename(staged[i].first.c_str(), staged[i].second->c_str()) != 0) {
      const int err = errno;
      for (std::size_t j = i; j < staged.size(); ++j) ::unlink(staged[j].first.c_str());
      failed(*staged[i].second, "cannot write", err);
    }
}

void read_back_copy(const std::string& name, const std::string& content, const ReadBack& check) {
  std::error_code ec;
  fs::path folder = fs::temp_directory_path(ec);
  if (ec) folder = "/tmp";
  std::string base = fs::path(name).filename().string();
  if (base.empty() || base == "." || base == "..") base = "output";
  const std::string copy = write_temporary((folder / base).string(), content);
  try {
    read_back(name, copy, check);
  } catch (...) {
    ::unlink(copy.c_str());
    throw;
  }
  ::unlink(copy.c_str());
}

void close_standard_output() {
  // std::cout writes through C's stdout (synced with stdio): flushing stdout is flushing both,
  // and an earlier failure left unflushed bytes behind, whose retry here sets errno again.
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (!flushed || std::ferror(stdout) || !std::cout)
    throw WriteError(std::string("standard output: write failed: ") +
                     std::strerror(err != 0 ? err : EIO));
  if (std::fclose(stdout) != 0)
    throw WriteError(std::string("standard output: write failed: ") + std::strerror(errno));
}

}  // namespace sonicsim
