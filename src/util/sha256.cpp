#include <sonicsim/util/sha256.hpp>

#include <openssl/evp.h>

#include <stdexcept>

#include <sonicsim/util/files.hpp>

namespace sonicsim {

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xf];
  }
  return out;
}

std::string sha256_of_file(const std::string& path) {
  std::string error;
  const std::string bytes = read_text(path, error, InputLimits::max_data_bytes);
  if (!error.empty()) throw std::runtime_error("cannot read " + path + ": " + error);
  return sha256_hex(bytes);
}

}  // namespace sonicsim
