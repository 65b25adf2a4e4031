#include "identity/enrollment.h"

#include <fmt/format.h>

#include "identity/fields.h"
#include "identity/refusal.h"

namespace carlos::identity {

namespace {

using internal::Fields;
using internal::Problems;

constexpr std::string_view kWhat = "an enrollment";

void Check(const Enrollment& e, Problems* p) {
  p->Time("enrolled_at", e.enrolled_at);
  p->Label("box", e.box);
  p->Digest("record_digest", e.record_digest);
  p->Digest("invitation_digest", e.invitation_digest);
  p->Digest("guard_digest", e.guard_digest);
}

Status Bound(std::string_view what, std::string_view field, const std::string& got,
             const std::optional<std::string>& want) {
  if (!want || got == *want) return OkStatus();
  return Refuse(Refusal::kBoundToAnotherDigest, what,
                fmt::format("its {} is {}, not {}", field, got, *want));
}

}  // namespace

StatusOr<std::string> SignEnrollment(const Enrollment& e, const PrivateKey& enrollment_key) {
  Problems p;
  Check(e, &p);
  if (!p.ok()) {
    return InvalidArgument(fmt::format("the enrollment for {} is not valid: {}", e.box, p.first()));
  }
  nlohmann::json o = {
      {"format", kEnrollmentFormat},      {"box", e.box},
      {"record_digest", e.record_digest}, {"invitation_digest", e.invitation_digest},
      {"guard_digest", e.guard_digest},   {"enrolled_at", internal::TimeText(e.enrolled_at)},
  };
  return SignObject(std::move(o), enrollment_key);
}

StatusOr<Parsed<Enrollment>> ParseEnrollment(std::string_view bytes) {
  CARLOS_ASSIGN_OR_RETURN(SignedObject so, ParseSignedObject(bytes, kEnrollmentFormat, kWhat));
  Problems p;
  Fields f(so.object, &p);
  Enrollment e;
  e.box = f.String("box");
  e.record_digest = f.String("record_digest");
  e.invitation_digest = f.String("invitation_digest");
  e.guard_digest = f.String("guard_digest");
  e.enrolled_at = f.Time("enrolled_at");
  if (p.ok()) Check(e, &p);
  if (!p.ok()) return Refuse(Refusal::kMalformed, kWhat, p.first());
  return internal::FromSigned(std::move(e), std::move(so));
}

Status VerifyEnrollment(const Parsed<Enrollment>& parsed, const PublicKey& enrollment_key,
                        const EnrollmentBinding& binding) {
  std::string what = fmt::format("the enrollment for {}", binding.box);
  CARLOS_RETURN_IF_ERROR(VerifySignature(parsed, enrollment_key, what));
  const Enrollment& e = parsed.doc;
  if (e.box != binding.box) {
    return Refuse(Refusal::kMismatch, what, fmt::format("it enrolls {}", e.box));
  }
  CARLOS_RETURN_IF_ERROR(Bound(what, "record digest", e.record_digest, binding.record_digest));
  CARLOS_RETURN_IF_ERROR(
      Bound(what, "invitation digest", e.invitation_digest, binding.invitation_digest));
  CARLOS_RETURN_IF_ERROR(Bound(what, "guard digest", e.guard_digest, binding.guard_digest));
  return OkStatus();
}

}  // namespace carlos::identity
