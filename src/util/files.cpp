#include <sonicsim/util/files.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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

}  // namespace sonicsim
