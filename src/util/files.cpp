#include <sonicsim/util/files.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sonicsim/util/errors.hpp>

namespace sonicsim {

std::string read_text(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return {};
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) error = "read error";
  return out.str();
}

void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw OutputError(path + ": cannot write: folder " + dir.string() + " does not exist");
  if (fs::is_directory(target, ec)) throw OutputError(path + ": cannot write: it is a folder");
  if (::access(dir.c_str(), W_OK) != 0)
    throw OutputError(path + ": cannot write: no permission in " + dir.string());
}

void write_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Appended rather than "." + ...: GCC 12 warns (-Wrestrict) on the temporary's concatenation.
  std::string hidden(".");
  hidden.append(target.filename().string()).append(".XXXXXX");
  std::string tmpl = (dir / hidden).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) throw OutputError(path + ": cannot write (" + std::strerror(errno) + ")");
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw OutputError(path + ": write failed (" + std::strerror(err) + ")");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    throw OutputError(path + ": write failed (" + std::strerror(errno) + ")");
  }
  ::chmod(tmpl.c_str(), 0644);
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw OutputError(path + ": cannot write (" + std::strerror(err) + ")");
  }
}

}  // namespace sonicsim
