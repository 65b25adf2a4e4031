#include "identity/canonical.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "identity/refusal.h"

namespace carlos::identity {

namespace {

// Decodes `s` (UTF-8) into UTF-16 code units; false when `s` is not valid
// UTF-8 (overlong forms, surrogates and code points past U+10FFFF included).
bool Utf16Units(std::string_view s, std::u16string* out) {
  out->clear();
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    size_t n;
    if (c < 0x80) {
      cp = c;
      n = 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
      cp = c & 0x1f;
      n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      cp = c & 0x0f;
      n = 3;
    } else if (c >= 0xf0 && c <= 0xf4) {
      cp = c & 0x07;
      n = 4;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return false;
    if (cp >= 0xd800 && cp <= 0xdfff) return false;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out->push_back(static_cast<char16_t>(0xd800 + (cp >> 10)));
      out->push_back(static_cast<char16_t>(0xdc00 + (cp & 0x3ff)));
    } else {
      out->push_back(static_cast<char16_t>(cp));
    }
    i += n;
  }
  return true;
}

// Appends the RFC 8785 §3.2.2.2 form of `s` (already checked UTF-8).
void AppendString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\f':
        *out += "\\f";
        break;
      case '\r':
        *out += "\\r";
        break;
      default:
        if (c < 0x20) {
          *out += "\\u00";
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

Status Append(const nlohmann::json& v, int depth, std::string* out) {
  using Type = nlohmann::json::value_t;
  switch (v.type()) {
    case Type::null:
      *out += "null";
      return OkStatus();
    case Type::boolean:
      *out += v.get<bool>() ? "true" : "false";
      return OkStatus();
    case Type::number_integer: {
      int64_t n = v.get<int64_t>();
      if (n > kMaxJsonInteger || n < -kMaxJsonInteger) {
        return InvalidArgument(fmt::format("the integer {} is beyond ±(2^53-1)", n));
      }
      *out += std::to_string(n);
      return OkStatus();
    }
    case Type::number_unsigned: {
      uint64_t n = v.get<uint64_t>();
      if (n > static_cast<uint64_t>(kMaxJsonInteger)) {
        return InvalidArgument(fmt::format("the integer {} is beyond ±(2^53-1)", n));
      }
      *out += std::to_string(n);
      return OkStatus();
    }
    case Type::number_float:
      return InvalidArgument(
          "a number with a fraction or exponent (the protocol has integers only)");
    case Type::string: {
      const auto& s = v.get_ref<const std::string&>();
      std::u16string units;
      if (!Utf16Units(s, &units)) return InvalidArgument("a string that is not valid UTF-8");
      AppendString(s, out);
      return OkStatus();
    }
    case Type::array: {
      if (depth >= kMaxJsonDepth) {
        return InvalidArgument(fmt::format("nesting deeper than {}", kMaxJsonDepth));
      }
      out->push_back('[');
      bool first = true;
      for (const auto& e : v) {
        if (!first) out->push_back(',');
        first = false;
        CARLOS_RETURN_IF_ERROR(Append(e, depth + 1, out));
      }
      out->push_back(']');
      return OkStatus();
    }
    case Type::object: {
      if (depth >= kMaxJsonDepth) {
        return InvalidArgument(fmt::format("nesting deeper than {}", kMaxJsonDepth));
      }
      // RFC 8785 §3.2.3: members sorted by their names' UTF-16 code units.
      std::vector<std::pair<std::u16string, nlohmann::json::const_iterator>> members;
      members.reserve(v.size());
      for (auto it = v.cbegin(); it != v.cend(); ++it) {
        std::u16string units;
        if (!Utf16Units(it.key(), &units)) {
          return InvalidArgument("a member name that is not valid UTF-8");
        }
        members.emplace_back(std::move(units), it);
      }
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      out->push_back('{');
      bool first = true;
      for (const auto& [units, it] : members) {
        if (!first) out->push_back(',');
        first = false;
        AppendString(it.key(), out);
        out->push_back(':');
        CARLOS_RETURN_IF_ERROR(Append(it.value(), depth + 1, out));
      }
      out->push_back('}');
      return OkStatus();
    }
    case Type::binary:
      return InvalidArgument("a binary value (JSON has none)");
    case Type::discarded:
      return InvalidArgument("a discarded value");
  }
  return InvalidArgument("a value of an unknown type");
}

}  // namespace

StatusOr<std::string> Canonicalize(const nlohmann::json& value) {
  std::string out;
  CARLOS_RETURN_IF_ERROR(Append(value, 0, &out));
  return out;
}

StatusOr<nlohmann::json> ParseCanonical(std::string_view bytes, std::string_view what) {
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::parse_error& e) {
    return Refuse(Refusal::kMalformed, what,
                  fmt::format("not JSON (at byte {} of {})", e.byte, bytes.size()));
  } catch (const nlohmann::json::exception& e) {
    return Refuse(Refusal::kMalformed, what, "not JSON");
  }
  StatusOr<std::string> canonical = Canonicalize(value);
  if (!canonical.ok()) {
    return Refuse(Refusal::kMalformed, what, "it holds " + canonical.status().message());
  }
  if (*canonical != bytes) {
    size_t at = 0;
    while (at < bytes.size() && at < canonical->size() && bytes[at] == (*canonical)[at]) ++at;
    return Refuse(Refusal::kNotCanonical, what,
                  fmt::format("its bytes are not the RFC 8785 canonical encoding (first "
                              "difference at byte {})",
                              at));
  }
  return value;
}

}  // namespace carlos::identity
