// What every protocol document shares: the size limit, the parsed form with
// its digest, and the generic signing rule (docs/protocol.md, "Canonical
// encoding and signatures").
//
// Rule, exactly: a document is a JSON object with a "format" tag. Its stored
// bytes are the RFC 8785 (JCS) canonical encoding of the whole object, with
// no trailing newline. A signed document also carries "signer" (the signing
// key's text form, keys.h) and "signature": the base64 Ed25519 signature over
// the JCS encoding of the object WITHOUT its "signature" member. Its digest —
// what other documents bind to — is Sha256Digest of the stored bytes, i.e. of
// the JCS encoding of the whole signed object, signature included.
//
// Unknown members are accepted and ignored (so a newer writer can add fields
// that older readers skip), but they are covered by the signature like every
// other member, and by the digest.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "identity/keys.h"

namespace carlos::identity {

// The most bytes a stored document may have (DESIGN.md: 64 KiB).
inline constexpr size_t kMaxDocumentBytes = 64 * 1024;

// A document as read and parsed, before or after verification.
template <typename T>
struct Parsed {
  // The document's fields.
  T doc;
  // "sha256:<hex>" of `bytes`: what other documents bind to.
  std::string digest;
  // The stored bytes, exactly (canonical JSON).
  std::string bytes;
  // Signed documents only: the key named by "signer" (not yet checked against
  // anything: the Verify* functions do that), the canonical bytes the
  // signature covers, and the raw 64-byte signature. Empty for the guard's
  // unsigned files.
  std::optional<PublicKey> signer;
  std::string signed_payload;
  std::string signature;
};

// The parts of a signed document the generic layer extracts; the typed
// Parse* functions read their fields from `object`.
struct SignedObject {
  nlohmann::json object;  // The whole object, "signer" and "signature" included.
  std::string digest;
  std::string bytes;
  PublicKey signer;
  std::string signed_payload;
  std::string signature;
};

// Signs `object` (a JSON object without "signer" and "signature") with
// `key`: adds "signer" = key's public text form, computes the signature over
// the canonical encoding, adds "signature", and returns the canonical bytes
// to store. Errors: kInvalidArgument when `object` is not an object, already
// has "signer" or "signature", holds what Canonicalize refuses, or encodes
// to more than kMaxDocumentBytes; kInternal when OpenSSL fails.
StatusOr<std::string> SignObject(nlohmann::json object, const PrivateKey& key);

// Parses stored bytes of a signed document of format `format` ("what" names
// it in messages, e.g. "the invitation control/invitations/web-1.json").
// Checks, in order: size (kOversized), JSON and canonical form (kMalformed,
// kNotCanonical), an object with a string "format" equal to `format`
// (kUnknownFormat), "signer" the text of a valid public key — a small-order
// or non-canonical key is refused with the KeyDefect named (keys.h) — and
// "signature" canonical base64 of 64 bytes (kMalformed). Does NOT verify the
// signature.
StatusOr<SignedObject> ParseSignedObject(std::string_view bytes, std::string_view format,
                                         std::string_view what);

// Parses stored bytes of an unsigned document (the guard's files): size,
// canonical JSON object, format tag, as ParseSignedObject without the
// signature members (which, if present, are unknown members and ignored).
// Returns the object; `digest` gets Sha256Digest(bytes).
StatusOr<nlohmann::json> ParseUnsignedObject(std::string_view bytes, std::string_view format,
                                             std::string_view what, std::string* digest);

// Verifies a parsed signed document's signature against `expected` (the key
// the reader trusts for this document). Errors: kWrongKey when the document's
// "signer" is another key (the message names both public keys);
// kBadSignature when the signature does not verify under `expected`, the
// SignatureDefect named in the message (keys.h: a non-canonical S and a
// small-order R are refused).
Status VerifySignature(const std::optional<PublicKey>& signer, std::string_view signed_payload,
                       std::string_view signature, const PublicKey& expected,
                       std::string_view what);

// The same for a Parsed<T>.
template <typename T>
Status VerifySignature(const Parsed<T>& parsed, const PublicKey& expected, std::string_view what) {
  return VerifySignature(parsed.signer, parsed.signed_payload, parsed.signature, expected, what);
}

}  // namespace carlos::identity
