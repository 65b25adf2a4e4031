// Fuzzes the invitation's parser and verifier.
#include "identity/invitation.h"
#include "signed_document.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzSignedDocument(
      fuzz::Bytes(data, size), ParseInvitation,
      [](const Invitation& d) { return SignInvitation(d, fuzz::EnrollmentKey()); },
      [](const Parsed<Invitation>& p) {
        return VerifyInvitation(p, fuzz::EnrollmentKey().public_key(), p.doc.box,
                                p.doc.record_digest, p.doc.issued_at);
      },
      [](Invitation*) {});
  return 0;
}
