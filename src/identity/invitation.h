// An invitation, control/invitations/<box>.json (DESIGN.md, "Enrollment";
// docs/protocol.md, "Invitation"). Written by the enroller (create-only, or
// compare-and-swap over an expired or refused one), signed with the deployment's
// enrollment key, bound to the digest of the box's identity record, and
// expiring (24 h by default). An invited box asks root to install and arm its
// guard, which binds the invitation's digest.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "identity/document.h"
#include "identity/keys.h"

namespace carlos::identity {

inline constexpr std::string_view kInvitationFormat = "carlos.invitation/v1";

// How long an unused invitation stays valid (DESIGN.md, "Timings").
inline constexpr Seconds kInvitationLifetime{24 * 60 * 60};

struct Invitation {
  std::string box;            // Label.
  std::string record_digest;  // "sha256:<hex>" of the identity record invited.
  std::string region;         // Label: the region the box is invited into.
  SystemTime issued_at;
  SystemTime expires_at;  // After issued_at.
  bool forced = false;    // An operator invited a referenced box with --force.
  // Policy for the guard: the lowest release the box may host with (a
  // release string as protocol/version.h Release() gives; 1-128 bytes).
  std::optional<std::string> floor_release;
};

// An invitation issued at `now`, expiring kInvitationLifetime later.
Invitation NewInvitation(std::string box, std::string record_digest, std::string region,
                         SystemTime now, bool forced, std::optional<std::string> floor_release);

// Signs `invitation` with the enrollment key; returns the bytes to store.
// Errors: kInvalidArgument when a field breaks its limits or expires_at is
// not after issued_at; kInternal when OpenSSL fails.
StatusOr<std::string> SignInvitation(const Invitation& invitation,
                                     const PrivateKey& enrollment_key);

// Parses stored bytes. Errors (Refuse): kOversized, kMalformed, kNotCanonical,
// kUnknownFormat. Does not verify the signature.
StatusOr<Parsed<Invitation>> ParseInvitation(std::string_view bytes);

// Verifies an invitation for `box` against the deployment's enrollment key,
// the digest of the box's identity record, and `now`. Errors (Refuse), the
// first that applies: kWrongKey, kBadSignature; kMismatch when it names
// another box; kBoundToAnotherDigest when its record_digest differs from
// `record_digest`; kExpired when `now` is at or after expires_at.
Status VerifyInvitation(const Parsed<Invitation>& invitation, const PublicKey& enrollment_key,
                        std::string_view box, std::string_view record_digest, SystemTime now);

}  // namespace carlos::identity
