// The box's signed identity record, control/boxes/<box>.json (DESIGN.md,
// "Identity"; docs/protocol.md, "Identity record"). Written by the agent
// (boxRecordLoop) create-only and never rewritten; signed by the box's own
// key, which it embeds, so the record is self-certifying: it proves that
// whoever wrote it holds the key, and, on EC2, the embedded instance
// identity document proves which instance it runs on.
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

inline constexpr std::string_view kIdentityRecordFormat = "carlos.identity-record/v1";

// The EC2 instance identity document and its RSA-2048 signature, verbatim
// from IMDS (iid.h).
struct InstanceAttestation {
  std::string document;  // JSON "instance_identity_document".
  std::string rsa2048;   // JSON "instance_identity_rsa2048".
};

struct IdentityRecord {
  std::string box;                             // Label ([a-z0-9-]{1,63}).
  std::string region;                          // Label.
  std::string machine_id;                      // /etc/machine-id; 1-128 bytes.
  std::string instance_id;                     // IMDS instance id; 1-128 bytes, or "" only
                                               // when unattested (a box without IMDS).
  std::optional<std::string> group_reference;  // The group reference, when group-launched
                                               // (1-256 bytes).
  std::string release;                         // The agent's release; 1-128 bytes.
  std::string platform;                        // e.g. "linux-amd64"; 1-128 bytes.
  PublicKey public_key;                        // The box key's public half.
  SystemTime created_at;
  // The IID and its signature, or nullopt for `"unattested": true` (a box
  // that is not on EC2; the enroller accepts those only when the deployment
  // allows unattested boxes).
  std::optional<InstanceAttestation> attestation;
};

// Signs `record` with `box_key` and returns the bytes to store. Errors:
// kInvalidArgument when a field breaks its limits (named in the message) or
// `box_key` is not the key `record.public_key` names (a record is always
// signed by its own key); kInternal when OpenSSL fails.
StatusOr<std::string> SignIdentityRecord(const IdentityRecord& record, const PrivateKey& box_key);

// Parses stored bytes (document.h ParseSignedObject, then the fields).
// Errors (Refuse): kOversized, kMalformed (a missing or ill-typed field, a
// field out of its limits, both or neither of the attestation and
// "unattested": true, "signer" not equal to "public_key"), kNotCanonical,
// kUnknownFormat. Does not verify the signature or the attestation.
StatusOr<Parsed<IdentityRecord>> ParseIdentityRecord(std::string_view bytes);

// Verifies a parsed record read under `box`'s key: its signature under its
// own public key, and that it names `box`. Errors (Refuse): kBadSignature;
// kMismatch when it names another box.
Status VerifyIdentityRecord(const Parsed<IdentityRecord>& record, std::string_view box);

// Verifies the record's attestation against AWS's RSA-2048 certificate for
// its region (`aws_certificate_pem`): the IID's signature (iid.h), and that
// the IID's instanceId and region equal the record's instance_id and region.
// Errors (Refuse): kUnattested when the record is unattested or the IID's
// signature does not verify (the message says which); kMalformed when the
// embedded IID does not parse; kMismatch when its instance or region differ
// from the record's. kInvalidArgument (not a refusal) when
// `aws_certificate_pem` is not a PEM certificate: the deployment's setting is
// wrong, not the record.
Status VerifyRecordAttestation(const IdentityRecord& record, std::string_view aws_certificate_pem);

}  // namespace carlos::identity
