#include "identity/invitation.h"

#include <fmt/format.h>

#include "identity/fields.h"
#include "identity/refusal.h"

namespace carlos::identity {

namespace {

using internal::Fields;
using internal::Problems;

constexpr std::string_view kWhat = "an invitation";

void Check(const Invitation& inv, Problems* p) {
  p->Time("issued_at", inv.issued_at);
  p->Time("expires_at", inv.expires_at);
  p->Label("box", inv.box);
  p->Digest("record_digest", inv.record_digest);
  p->Label("region", inv.region);
  if (inv.floor_release) p->Text("floor_release", *inv.floor_release, 1, 128);
  if (p->ok() && inv.expires_at <= inv.issued_at)
    p->Add("\"expires_at\" is not after \"issued_at\"");
}

}  // namespace

Invitation NewInvitation(std::string box, std::string record_digest, std::string region,
                         SystemTime now, bool forced, std::optional<std::string> floor_release) {
  Invitation inv;
  inv.box = std::move(box);
  inv.record_digest = std::move(record_digest);
  inv.region = std::move(region);
  inv.issued_at = now;
  inv.expires_at = now + kInvitationLifetime;
  inv.forced = forced;
  inv.floor_release = std::move(floor_release);
  return inv;
}

StatusOr<std::string> SignInvitation(const Invitation& inv, const PrivateKey& enrollment_key) {
  Problems p;
  Check(inv, &p);
  if (!p.ok())
    return InvalidArgument(
        fmt::format("the invitation for {} is not valid: {}", inv.box, p.first()));
  nlohmann::json o = {
      {"format", kInvitationFormat},
      {"box", inv.box},
      {"record_digest", inv.record_digest},
      {"region", inv.region},
      {"issued_at", internal::TimeText(inv.issued_at)},
      {"expires_at", internal::TimeText(inv.expires_at)},
      {"forced", inv.forced},
  };
  if (inv.floor_release) o["floor_release"] = *inv.floor_release;
  return SignObject(std::move(o), enrollment_key);
}

StatusOr<Parsed<Invitation>> ParseInvitation(std::string_view bytes) {
  CARLOS_ASSIGN_OR_RETURN(SignedObject so, ParseSignedObject(bytes, kInvitationFormat, kWhat));
  Problems p;
  Fields f(so.object, &p);
  Invitation inv;
  inv.box = f.String("box");
  inv.record_digest = f.String("record_digest");
  inv.region = f.String("region");
  inv.issued_at = f.Time("issued_at");
  inv.expires_at = f.Time("expires_at");
  inv.forced = f.Bool("forced");
  inv.floor_release = f.OptString("floor_release");
  if (p.ok()) Check(inv, &p);
  if (!p.ok()) return Refuse(Refusal::kMalformed, kWhat, p.first());
  return internal::FromSigned(std::move(inv), std::move(so));
}

Status VerifyInvitation(const Parsed<Invitation>& parsed, const PublicKey& enrollment_key,
                        std::string_view box, std::string_view record_digest, SystemTime now) {
  std::string what = fmt::format("the invitation for {}", box);
  CARLOS_RETURN_IF_ERROR(VerifySignature(parsed, enrollment_key, what));
  const Invitation& inv = parsed.doc;
  if (inv.box != box) {
    return Refuse(Refusal::kMismatch, what, fmt::format("it invites {}", inv.box));
  }
  if (inv.record_digest != record_digest) {
    return Refuse(
        Refusal::kBoundToAnotherDigest, what,
        fmt::format("it is bound to the record {}, not to {}", inv.record_digest, record_digest));
  }
  if (now >= inv.expires_at) {
    return Refuse(Refusal::kExpired, what,
                  fmt::format("it expired at {}; it is now {}", FormatRfc3339(inv.expires_at),
                              FormatRfc3339(now)));
  }
  return OkStatus();
}

}  // namespace carlos::identity
