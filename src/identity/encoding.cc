#include "identity/encoding.h"

#include <fmt/format.h>
#include <openssl/sha.h>

#include <array>

#include "base/strings.h"

namespace carlos::identity {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of a base64 character, -1 for any other byte.
int Sextet(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (uint32_t{static_cast<unsigned char>(bytes[i])} << 16) |
                 (uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8) |
                 uint32_t{static_cast<unsigned char>(bytes[i + 2])};
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest == 1) {
    uint32_t v = uint32_t{static_cast<unsigned char>(bytes[i])} << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out += "==";
  } else if (rest == 2) {
    uint32_t v = (uint32_t{static_cast<unsigned char>(bytes[i])} << 16) |
                 (uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

StatusOr<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Corrupt(fmt::format("base64 of {} characters is not a multiple of 4", text.size()));
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int pad = 0;
    if (last && text[i + 3] == '=') pad = text[i + 2] == '=' ? 2 : 1;
    std::array<int, 4> s{};
    for (size_t j = 0; j < 4; ++j) {
      if (j >= 4 - static_cast<size_t>(pad)) {
        s[j] = 0;
        continue;
      }
      s[j] = Sextet(static_cast<unsigned char>(text[i + j]));
      if (s[j] < 0) return Corrupt(fmt::format("base64 has a bad character at offset {}", i + j));
    }
    uint32_t v =
        (uint32_t(s[0]) << 18) | (uint32_t(s[1]) << 12) | (uint32_t(s[2]) << 6) | uint32_t(s[3]);
    out.push_back(static_cast<char>((v >> 16) & 0xff));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
    // Canonical form: the bits the padding leaves over must be zero, so no
    // two texts decode to the same bytes.
    if ((pad == 1 && (v & 0xff) != 0) || (pad == 2 && (v & 0xffff) != 0)) {
      return Corrupt(fmt::format("base64 is not canonical at offset {}", i + 3 - pad));
    }
  }
  return out;
}

StatusOr<std::string> Base64DecodeWrapped(std::string_view text) {
  std::string compact;
  compact.reserve(text.size());
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
    compact.push_back(c);
  }
  return Base64Decode(compact);
}

std::string Sha256(std::string_view bytes) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), md);
  return std::string(reinterpret_cast<const char*>(md), sizeof md);
}

std::string Sha256Digest(std::string_view bytes) { return "sha256:" + HexEncode(Sha256(bytes)); }

bool IsDigest(std::string_view s) {
  constexpr std::string_view kPrefix = "sha256:";
  if (s.size() != kPrefix.size() + 64 || s.substr(0, kPrefix.size()) != kPrefix) return false;
  for (char c : s.substr(kPrefix.size())) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace carlos::identity
