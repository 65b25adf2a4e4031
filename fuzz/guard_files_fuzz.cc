// Fuzzes the guard's unsigned files: guard.json and armed.json. The first
// byte chooses which; the rest is the file. Whatever the reader accepts the
// writer must encode, and the encoding of the parsed fields parses back to
// the same fields.
#include "identity/encoding.h"
#include "identity/guard_files.h"
#include "identity/refusal.h"
#include "support.h"

using namespace carlos::identity;  // NOLINT

namespace {

template <typename ParseFn, typename EncodeFn, typename CheckFn>
void Fuzz(std::string_view bytes, ParseFn parse, EncodeFn encode, CheckFn check) {
  auto parsed = parse(bytes);
  if (!parsed.ok()) {
    if (!RefusalOf(parsed.status())) fuzz::Fail("parse failed without a refusal reason");
    return;
  }
  if (parsed->digest != Sha256Digest(bytes)) fuzz::Fail("the digest is not the bytes' SHA-256");
  check(parsed->doc);
  auto again = encode(parsed->doc);
  if (!again.ok())
    fuzz::Fail("the writer refuses what the reader accepted: " + again.status().ToString());
  auto reparsed = parse(*again);
  if (!reparsed.ok()) fuzz::Fail("an encoded file does not parse");
  auto twice = encode(reparsed->doc);
  if (!twice.ok() || *twice != *again) fuzz::Fail("encoding is not a fixed point");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view bytes = fuzz::Bytes(data + 1, size - 1);
  if (data[0] & 1) {
    Fuzz(bytes, ParseArmedFile, EncodeArmedFile,
         [](const ArmedFile& a) { (void)CheckArmedFor(a, a.guard_digest); });
  } else {
    Fuzz(bytes, ParseGuardFile, EncodeGuardFile, [](const GuardFile& g) {
      carlos::Status st = CheckGuardBinding(
          g, {g.box, g.instance_id, g.region, g.record_digest, g.invitation_digest});
      if (!st.ok()) fuzz::Fail("a guard does not match its own binding");
    });
  }
  return 0;
}
