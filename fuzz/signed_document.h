// The properties every signed document's fuzz target checks, whatever the
// bytes: parse either refuses with a Refusal (never another error, never a
// crash) or accepts; an accepted document's digest is the SHA-256 of its
// bytes; verifying it does not crash; and the writer accepts what the reader
// accepted: signing the parsed fields again succeeds, parses again, and
// signing that gives the same bytes (the encoding is a fixed point).
#pragma once

#include <string>

#include "identity/encoding.h"
#include "identity/refusal.h"
#include "support.h"

namespace carlos::identity::fuzz {

template <typename ParseFn, typename SignFn, typename VerifyFn, typename PrepareFn>
void FuzzSignedDocument(std::string_view bytes, ParseFn parse, SignFn sign, VerifyFn verify,
                        PrepareFn prepare) {
  auto parsed = parse(bytes);
  if (!parsed.ok()) {
    if (!RefusalOf(parsed.status()).has_value()) {
      Fail("parse failed without a refusal reason: " + parsed.status().ToString());
    }
    return;
  }
  if (parsed->digest != Sha256Digest(bytes)) Fail("the digest is not the SHA-256 of the bytes");
  if (parsed->bytes != bytes) Fail("the parsed bytes differ from the input");
  Status verified = verify(*parsed);
  if (!verified.ok() && !RefusalOf(verified).has_value()) {
    Fail("verify failed without a refusal reason: " + verified.ToString());
  }
  auto doc = parsed->doc;
  prepare(&doc);
  auto again = sign(doc);
  if (!again.ok())
    Fail("the writer refuses what the reader accepted: " + again.status().ToString());
  auto reparsed = parse(*again);
  if (!reparsed.ok()) Fail("a re-signed document does not parse: " + reparsed.status().ToString());
  auto twice = sign(reparsed->doc);
  if (!twice.ok() || *twice != *again) Fail("signing the re-parsed fields gives other bytes");
}

}  // namespace carlos::identity::fuzz
