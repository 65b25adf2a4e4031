// Fuzzes the identity record's parser, verifier and attestation check.
#include "identity/identity_record.h"
#include "signed_document.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzSignedDocument(
      fuzz::Bytes(data, size), ParseIdentityRecord,
      [](const IdentityRecord& r) { return SignIdentityRecord(r, fuzz::BoxKey()); },
      [](const Parsed<IdentityRecord>& p) {
        carlos::Status st = VerifyIdentityRecord(p, p.doc.box);
        if (!st.ok()) return st;
        if (!p.doc.attestation) return st;
        st = VerifyRecordAttestation(p.doc, fuzz::kAwsCertPem);
        // A record whose embedded IID does not parse is malformed; its
        // signature may be garbage (unattested); both are refusals.
        return st;
      },
      [](IdentityRecord* r) { r->public_key = fuzz::BoxKey().public_key(); });
  return 0;
}
