// A retirement, control/retired/<box>.json (DESIGN.md, "Enrollment" and
// "Mode selection"; docs/protocol.md, "Retirement"). Written by the enroller,
// create-only, signed with the enrollment key: the box hosts nothing again
// under the identity record it names.
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

inline constexpr std::string_view kRetirementFormat = "carlos.retirement/v1";

struct Retirement {
  std::string box;            // Label.
  std::string record_digest;  // The retired identity record's digest.
  SystemTime retired_at;
  std::string reason;  // The operator's words; 0-1024 bytes.
};

// Signs `retirement` with the enrollment key; returns the bytes to store.
// Errors: kInvalidArgument when a field breaks its limits; kInternal when
// OpenSSL fails.
StatusOr<std::string> SignRetirement(const Retirement& retirement,
                                     const PrivateKey& enrollment_key);

// Parses stored bytes. Errors (Refuse): kOversized, kMalformed, kNotCanonical,
// kUnknownFormat. Does not verify the signature.
StatusOr<Parsed<Retirement>> ParseRetirement(std::string_view bytes);

// Verifies a retirement for `box` against the enrollment key and, when set,
// the digest of the record it must retire. Errors (Refuse), the first that
// applies: kWrongKey, kBadSignature; kMismatch when it names another box;
// kBoundToAnotherDigest when its record_digest differs from `record_digest`.
Status VerifyRetirement(const Parsed<Retirement>& retirement, const PublicKey& enrollment_key,
                        std::string_view box, std::optional<std::string_view> record_digest);

}  // namespace carlos::identity
