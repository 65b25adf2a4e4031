// Fuzzes the enrollment's parser and verifier.
#include "identity/enrollment.h"
#include "signed_document.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzSignedDocument(
      fuzz::Bytes(data, size), ParseEnrollment,
      [](const Enrollment& d) { return SignEnrollment(d, fuzz::EnrollmentKey()); },
      [](const Parsed<Enrollment>& p) {
        return VerifyEnrollment(
            p, fuzz::EnrollmentKey().public_key(),
            {p.doc.box, p.doc.record_digest, p.doc.invitation_digest, p.doc.guard_digest});
      },
      [](Enrollment*) {});
  return 0;
}
