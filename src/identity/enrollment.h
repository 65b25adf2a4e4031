// An enrollment, control/enrollments/<box>.json (DESIGN.md, "Enrollment";
// docs/protocol.md, "Enrollment"). Written by the enroller once the box's
// guard-ready report is fresh, armed and bound to the same record and
// invitation; signed with the enrollment key; bound to the record's, the
// invitation's and the guard's digests. It does not expire: retirement ends
// it.
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

inline constexpr std::string_view kEnrollmentFormat = "carlos.enrollment/v1";

struct Enrollment {
  std::string box;                // Label.
  std::string record_digest;      // The identity record's digest.
  std::string invitation_digest;  // The invitation's digest (the one the guard binds).
  std::string guard_digest;       // The installed guard file's digest (guard_files.h).
  SystemTime enrolled_at;
};

// What a reader expects an enrollment to be bound to; the optional digests
// are checked only when set (the agent checks the guard's digest, which it
// reads from the box; the enroller may not know it).
struct EnrollmentBinding {
  std::string box;
  std::string record_digest;
  std::optional<std::string> invitation_digest;
  std::optional<std::string> guard_digest;
};

// Signs `enrollment` with the enrollment key; returns the bytes to store.
// Errors: kInvalidArgument when a field breaks its limits; kInternal when
// OpenSSL fails.
StatusOr<std::string> SignEnrollment(const Enrollment& enrollment,
                                     const PrivateKey& enrollment_key);

// Parses stored bytes. Errors (Refuse): kOversized, kMalformed, kNotCanonical,
// kUnknownFormat. Does not verify the signature.
StatusOr<Parsed<Enrollment>> ParseEnrollment(std::string_view bytes);

// Verifies an enrollment against the enrollment key and `binding`. Errors
// (Refuse), the first that applies: kWrongKey, kBadSignature; kMismatch when
// it names another box; kBoundToAnotherDigest when the record, invitation or
// guard digest differs (the message says which).
Status VerifyEnrollment(const Parsed<Enrollment>& enrollment, const PublicKey& enrollment_key,
                        const EnrollmentBinding& binding);

}  // namespace carlos::identity
