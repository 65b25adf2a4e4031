#include "identity/refusal.h"

#include <fmt/format.h>

#include <array>
#include <string>

namespace carlos::identity {

namespace {

constexpr std::string_view kRefusedMarker = " is refused: ";

constexpr std::array<Refusal, 10> kAll = {
    Refusal::kOversized,
    Refusal::kMalformed,
    Refusal::kNotCanonical,
    Refusal::kUnknownFormat,
    Refusal::kBadSignature,
    Refusal::kWrongKey,
    Refusal::kBoundToAnotherDigest,
    Refusal::kExpired,
    Refusal::kMismatch,
    Refusal::kUnattested,
};

}  // namespace

std::string_view RefusalName(Refusal reason) {
  switch (reason) {
    case Refusal::kOversized:
      return "oversized";
    case Refusal::kMalformed:
      return "malformed";
    case Refusal::kNotCanonical:
      return "not canonical";
    case Refusal::kUnknownFormat:
      return "unknown format";
    case Refusal::kBadSignature:
      return "bad signature";
    case Refusal::kWrongKey:
      return "wrong key";
    case Refusal::kBoundToAnotherDigest:
      return "bound to another digest";
    case Refusal::kExpired:
      return "expired";
    case Refusal::kMismatch:
      return "mismatch";
    case Refusal::kUnattested:
      return "unattested";
  }
  return "refused";
}

Status Refuse(Refusal reason, std::string_view what, std::string_view detail) {
  return Corrupt(fmt::format("{}{}{}: {}", what, kRefusedMarker, RefusalName(reason), detail));
}

std::optional<Refusal> RefusalOf(const Status& status) {
  if (status.code() != Code::kCorrupt) return std::nullopt;
  std::string_view msg = status.message();
  size_t at = msg.find(kRefusedMarker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = msg.substr(at + kRefusedMarker.size());
  for (Refusal r : kAll) {
    std::string_view name = RefusalName(r);
    if (rest.size() > name.size() && rest.substr(0, name.size()) == name &&
        rest[name.size()] == ':') {
      return r;
    }
  }
  return std::nullopt;
}

}  // namespace carlos::identity
