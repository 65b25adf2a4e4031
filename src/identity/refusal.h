// Why a protocol document is refused. Every reader of the deployment's
// documents (the agent, root's guard, the enroller) refuses a document for one
// of a small closed set of reasons (DESIGN.md, "The deployment store": "readers
// reject unknown formats, bad signatures, oversized documents and records
// bound to another digest, with a log line that says which and why"). A
// refusal is a Status of code kCorrupt whose message reads
//
//   "<what> is refused: <reason>: <detail>"
//
// e.g. "the invitation control/invitations/web-1.json is refused: expired:
// it expired at 2026-11-30T10:00:00Z, it is now 2026-11-30T10:00:05Z", so the
// log line names the document, the reason and the facts. The same facts
// travel as data: the Status carries a RefusalInfo payload (base/status.h),
// which RefusalOf and RefusalInfoOf read back for callers that branch on the
// reason or rephrase it. Nothing parses the message.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace carlos::identity {

enum class Refusal {
  kOversized,             // Larger than kMaxDocumentBytes (64 KiB, DESIGN.md).
  kMalformed,             // Not JSON, not an object, a missing or ill-typed field,
                          // a value out of its limits (label, digest, time...).
  kNotCanonical,          // Valid JSON, but not the exact RFC 8785 canonical bytes
                          // (white space, key order, escapes, duplicate keys...).
  kUnknownFormat,         // The "format" tag is missing or names another format.
  kBadSignature,          // The signature does not verify under the key it names.
  kWrongKey,              // Signed (or recorded) with a key other than the one expected.
  kBoundToAnotherDigest,  // Bound to another record, invitation or guard digest.
  kExpired,               // Past its expiry (an invitation) or too old (a report).
  kMismatch,              // Names another box, instance or region than expected.
  kUnattested,            // An identity record without an instance identity document
                          // where one is required, or whose document does not verify.
  kForeignAccount,        // An identity record whose verified instance identity document
                          // is of an AWS account the deployment does not accept.
};

// The reason's stable name as it appears in messages: "oversized", "malformed",
// "not canonical", "unknown format", "bad signature", "wrong key",
// "bound to another digest", "expired", "mismatch", "unattested",
// "foreign account".
std::string_view RefusalName(Refusal reason);

// A refusal as data: the payload Refuse puts on its Status.
struct RefusalInfo {
  Refusal reason;
  std::string what;    // The document, as Refuse was given it.
  std::string detail;  // The facts, as Refuse was given them.
};

// A kCorrupt Status "<what> is refused: <RefusalName(reason)>: <detail>"
// carrying RefusalInfo{reason, what, detail}. `what` names the document ("the
// invitation for web-1"); `detail` says the facts. Neither may contain key
// material.
Status Refuse(Refusal reason, std::string_view what, std::string_view detail);

// The reason of a Status built by Refuse (kept through Status::Annotate and
// Status::WithMessage); nullopt for OK and for any other Status.
std::optional<Refusal> RefusalOf(const Status& status);

// The whole RefusalInfo of such a Status, or nullptr. The pointer lives as
// long as `status`.
const RefusalInfo* RefusalInfoOf(const Status& status);

}  // namespace carlos::identity
