// Byte encodings the protocol uses: base64 (RFC 4648 §4, standard alphabet,
// with padding) for keys and signatures, and SHA-256 digests written
// "sha256:<64 lower-case hex>" (docs/protocol.md).
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace carlos::identity {

// Standard base64 with '=' padding, no line breaks.
std::string Base64Encode(std::string_view bytes);

// Decodes standard base64 strictly: padding required, no white space, and the
// encoding must be the canonical one (unused trailing bits zero), so that
// exactly one text stands for each byte string — a changed character in a
// stored signature or key can never decode to the same bytes. Errors:
// kCorrupt naming the first offending position.
StatusOr<std::string> Base64Decode(std::string_view text);

// Like Base64Decode but first drops ASCII line breaks and spaces, as AWS's
// IMDS serves the RSA-2048 PKCS7 signature wrapped at 64 columns. Still
// canonical otherwise. Errors: kCorrupt.
StatusOr<std::string> Base64DecodeWrapped(std::string_view text);

// The raw 32-byte SHA-256 of `bytes`.
std::string Sha256(std::string_view bytes);

// "sha256:" + lower-case hex SHA-256 of `bytes`: how every document's digest
// is written (docs/protocol.md, "Digests").
std::string Sha256Digest(std::string_view bytes);

// True when `s` is exactly "sha256:" followed by 64 lower-case hex digits.
bool IsDigest(std::string_view s);

}  // namespace carlos::identity
