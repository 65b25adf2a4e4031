// Fuzzes the retirement's parser and verifier.
#include "identity/retirement.h"
#include "signed_document.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzSignedDocument(
      fuzz::Bytes(data, size), ParseRetirement,
      [](const Retirement& d) { return SignRetirement(d, fuzz::EnrollmentKey()); },
      [](const Parsed<Retirement>& p) {
        return VerifyRetirement(p, fuzz::EnrollmentKey().public_key(), p.doc.box,
                                std::string_view(p.doc.record_digest));
      },
      [](Retirement*) {});
  return 0;
}
