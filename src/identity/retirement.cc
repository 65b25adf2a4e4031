#include "identity/retirement.h"

#include <fmt/format.h>

#include "identity/fields.h"
#include "identity/refusal.h"

namespace carlos::identity {

namespace {

using internal::Fields;
using internal::Problems;

constexpr std::string_view kWhat = "a retirement";

void Check(const Retirement& r, Problems* p) {
  p->Time("retired_at", r.retired_at);
  p->Label("box", r.box);
  p->Digest("record_digest", r.record_digest);
  p->Text("reason", r.reason, 0, 1024);
}

}  // namespace

StatusOr<std::string> SignRetirement(const Retirement& r, const PrivateKey& enrollment_key) {
  Problems p;
  Check(r, &p);
  if (!p.ok()) {
    return InvalidArgument(fmt::format("the retirement of {} is not valid: {}", r.box, p.first()));
  }
  nlohmann::json o = {
      {"format", kRetirementFormat},
      {"box", r.box},
      {"record_digest", r.record_digest},
      {"retired_at", internal::TimeText(r.retired_at)},
      {"reason", r.reason},
  };
  return SignObject(std::move(o), enrollment_key);
}

StatusOr<Parsed<Retirement>> ParseRetirement(std::string_view bytes) {
  CARLOS_ASSIGN_OR_RETURN(SignedObject so, ParseSignedObject(bytes, kRetirementFormat, kWhat));
  Problems p;
  Fields f(so.object, &p);
  Retirement r;
  r.box = f.String("box");
  r.record_digest = f.String("record_digest");
  r.retired_at = f.Time("retired_at");
  r.reason = f.String("reason");
  if (p.ok()) Check(r, &p);
  if (!p.ok()) return Refuse(Refusal::kMalformed, kWhat, p.first());
  return internal::FromSigned(std::move(r), std::move(so));
}

Status VerifyRetirement(const Parsed<Retirement>& parsed, const PublicKey& enrollment_key,
                        std::string_view box, std::optional<std::string_view> record_digest) {
  std::string what = fmt::format("the retirement of {}", box);
  CARLOS_RETURN_IF_ERROR(VerifySignature(parsed, enrollment_key, what));
  const Retirement& r = parsed.doc;
  if (r.box != box) return Refuse(Refusal::kMismatch, what, fmt::format("it retires {}", r.box));
  if (record_digest && r.record_digest != *record_digest) {
    return Refuse(Refusal::kBoundToAnotherDigest, what,
                  fmt::format("it retires the record {}, not {}", r.record_digest, *record_digest));
  }
  return OkStatus();
}

}  // namespace carlos::identity
