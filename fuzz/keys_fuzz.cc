// Fuzzes key and base64 parsing. The first byte chooses: 0 public key text
// (an accepted key's text form parses back to the same key); 1 private key
// PEM; 2 strict base64 (what decodes encodes back to the same text); 3
// wrapped base64; 4 the rest as a signature of a fixed message under the box
// key (only the real signature verifies).
#include "identity/encoding.h"
#include "identity/keys.h"
#include "support.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest = fuzz::Bytes(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {
      auto key = PublicKey::Parse(rest);
      if (key.ok()) {
        auto back = PublicKey::Parse(key->ToString());
        if (!back.ok() || !(*back == *key)) fuzz::Fail("a public key's text does not round-trip");
      }
      break;
    }
    case 1: {
      auto key = PrivateKey::FromPem(rest);
      if (key.ok()) {
        auto sig = key->Sign("m");
        if (!sig.ok() || !key->public_key().Verify("m", *sig).ok()) {
          fuzz::Fail("a loaded private key does not sign verifiably");
        }
      }
      break;
    }
    case 2: {
      auto raw = Base64Decode(rest);
      if (raw.ok() && Base64Encode(*raw) != rest) fuzz::Fail("base64 is not canonical");
      break;
    }
    case 3:
      (void)Base64DecodeWrapped(rest);
      break;
    case 4: {
      static const std::string* good = new std::string(*fuzz::BoxKey().Sign("message"));
      carlos::Status st = fuzz::BoxKey().public_key().Verify("message", rest);
      if (st.ok() && rest != *good) fuzz::Fail("a signature other than the real one verified");
      break;
    }
  }
  return 0;
}
