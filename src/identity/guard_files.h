// The guard's own files on the box, under $CARLOS_DATA_DIR/hostguard/
// (DESIGN.md, "The guard"; docs/protocol.md, "The guard's files"): guard.json,
// written when root installs the guard, and armed.json, written when root
// arms it. They are NOT signed: their trust is their ownership (root-owned
// files in a root-owned directory the agent's user cannot write), which the
// guard checks when it reads them. They have format tags, the 64 KiB limit,
// canonical encoding and a digest like every other document: the enrollment
// binds guard.json's digest, and armed.json names it.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "identity/document.h"

namespace carlos::identity {

inline constexpr std::string_view kGuardFileFormat = "carlos.guard/v1";
inline constexpr std::string_view kArmedFileFormat = "carlos.guard-armed/v1";

// What the guard enforces beyond the bindings; from the invitation.
struct GuardPolicy {
  std::optional<std::string> floor_release;  // 1-128 bytes when set.
};

struct GuardFile {
  std::string box;                // Label.
  std::string instance_id;        // IMDS's instance id, 0-128 bytes.
  std::string region;             // Label.
  std::string record_digest;      // The identity record's digest.
  std::string invitation_digest;  // The invitation's digest.
  GuardPolicy policy;
  SystemTime installed_at;
};

struct ArmedFile {
  std::string guard_digest;  // guard.json's digest when it was armed.
  SystemTime armed_at;
};

// The canonical bytes of `guard` to write (atomically, root-owned, 0644).
// Errors: kInvalidArgument when a field breaks its limits.
StatusOr<std::string> EncodeGuardFile(const GuardFile& guard);

// Parses guard.json's bytes; `signer`, `signed_payload` and `signature` of
// the result are empty. Errors (Refuse): kOversized, kMalformed,
// kNotCanonical, kUnknownFormat.
StatusOr<Parsed<GuardFile>> ParseGuardFile(std::string_view bytes);

// What the guard (and guard-exec) expect guard.json to bind.
struct GuardBinding {
  std::string box;
  std::string instance_id;
  std::string region;
  std::string record_digest;
  std::string invitation_digest;
};

// OK when `guard` binds exactly `expected`. Errors (Refuse): kMismatch when
// the box, instance or region differ; kBoundToAnotherDigest when the record
// or invitation digest differs (the message says which field, both values).
Status CheckGuardBinding(const GuardFile& guard, const GuardBinding& expected);

// The canonical bytes of `armed` to write. Errors: kInvalidArgument when
// guard_digest is not a digest.
StatusOr<std::string> EncodeArmedFile(const ArmedFile& armed);

// Parses armed.json's bytes. Errors (Refuse): kOversized, kMalformed,
// kNotCanonical, kUnknownFormat.
StatusOr<Parsed<ArmedFile>> ParseArmedFile(std::string_view bytes);

// OK when `armed` names `guard_digest` (the digest of the guard.json now
// installed). Errors (Refuse): kBoundToAnotherDigest otherwise (the guard was
// reinstalled since it was armed).
Status CheckArmedFor(const ArmedFile& armed, std::string_view guard_digest);

}  // namespace carlos::identity
