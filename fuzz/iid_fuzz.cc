// Fuzzes the instance identity document parser and the PKCS #7 signature
// check. The first byte chooses the mode: 0 parses the rest as a document;
// 1 verifies the fixed sample document against the rest as IMDS's rsa2048
// text (no crash); 2 the same with the rest as raw DER (base64-encoded here, so the
// fuzzer explores PKCS #7 structures directly); 3 verifies the rest as a
// document against the fixed sample's real signature.
#include "identity/encoding.h"
#include "identity/iid.h"
#include "support.h"

using namespace carlos::identity;  // NOLINT

namespace {

const std::string& SampleSignature() {
  static const std::string* sig = [] {
    auto s = SignInstanceIdentityDocumentAsEmulator(fuzz::SampleIid(), fuzz::kAwsCertPem,
                                                    fuzz::kAwsKeyPem);
    if (!s.ok()) fuzz::Fail("signing the sample IID: " + s.status().ToString());
    return new std::string(*s);
  }();
  return *sig;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest = fuzz::Bytes(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      auto doc = ParseInstanceIdentityDocument(rest);
      if (doc.ok() && (doc->raw != rest || doc->instance_id.empty() || doc->region.empty())) {
        fuzz::Fail("an accepted IID lost its bytes or required fields");
      }
      break;
    }
    case 1:
    case 2: {
      std::string sig = data[0] % 4 == 1 ? std::string(rest) : Base64Encode(rest);
      // Another PKCS #7 encoding of the same RSA signature may verify too;
      // what matters (checked by the library) is that the signed content
      // is the document, so only a crash counts here.
      (void)VerifyInstanceIdentitySignature(fuzz::SampleIid(), sig, fuzz::kAwsCertPem);
      break;
    }
    case 3: {
      carlos::Status st =
          VerifyInstanceIdentitySignature(rest, SampleSignature(), fuzz::kAwsCertPem);
      if (st.ok() && rest != fuzz::SampleIid()) fuzz::Fail("another document verified");
      break;
    }
  }
  return 0;
}
