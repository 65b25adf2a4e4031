// Fuzzes the instance identity document parser and the PKCS #7 signature
// check. The first byte chooses the mode: 0 parses the rest as a document;
// 1 verifies the fixed sample document against the rest as IMDS's rsa2048
// text (no crash); 2 the same with the rest as raw DER (base64-encoded here, so the
// fuzzer explores PKCS #7 structures directly); 3 verifies the rest as a
// document against the fixed sample's real signature; 4 checks the rest as a
// certificate bundle (CARLOS_AWS_IID_CERT's file): an accepted bundle holds at
// least one certificate, and the fixed certificate stays accepted when the
// rest is put before it only if the rest itself is accepted or blank.
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
  switch (data[0] % 5) {
    case 0: {
      auto doc = ParseInstanceIdentityDocument(rest);
      if (doc.ok() && (doc->raw != rest || doc->instance_id.empty() || doc->region.empty())) {
        fuzz::Fail("an accepted IID lost its bytes or required fields");
      }
      break;
    }
    case 1:
    case 2: {
      std::string sig = data[0] % 5 == 1 ? std::string(rest) : Base64Encode(rest);
      // Another PKCS #7 encoding of the same RSA signature may verify too;
      // what matters (checked by the library) is that the signed content
      // is the document, so only a crash counts here.
      (void)VerifyInstanceIdentitySignature(fuzz::SampleIid(), sig, fuzz::kAwsCertPem);
      break;
    }
    case 4: {
      auto n = CheckCertificateBundle(rest);
      if (n.ok() && *n == 0) fuzz::Fail("an accepted bundle holds no certificate");
      auto with = CheckCertificateBundle(std::string(fuzz::kAwsCertPem) + "\n" + std::string(rest));
      if (with.ok() != (n.ok() || rest.find_first_not_of(" \t\r\n") == std::string_view::npos)) {
        fuzz::Fail("a bundle's verdict changed when a good certificate was put before it");
      }
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
