#include "identity/refusal.h"

#include <fmt/format.h>

namespace carlos::identity {

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
    case Refusal::kForeignAccount:
      return "foreign account";
  }
  return "refused";
}

Status Refuse(Refusal reason, std::string_view what, std::string_view detail) {
  return Corrupt(fmt::format("{} is refused: {}: {}", what, RefusalName(reason), detail))
      .WithPayload(RefusalInfo{reason, std::string(what), std::string(detail)});
}

std::optional<Refusal> RefusalOf(const Status& status) {
  const RefusalInfo* info = RefusalInfoOf(status);
  if (info == nullptr) return std::nullopt;
  return info->reason;
}

const RefusalInfo* RefusalInfoOf(const Status& status) {
  if (status.code() != Code::kCorrupt) return nullptr;
  return status.Payload<RefusalInfo>();
}

}  // namespace carlos::identity
