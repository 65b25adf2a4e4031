// Fuzzes the status report's parser, verifier and guard-ready check.
#include "identity/status_report.h"
#include "signed_document.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzSignedDocument(
      fuzz::Bytes(data, size), ParseStatusReport,
      [](const StatusReport& d) { return SignStatusReport(d, fuzz::BoxKey()); },
      [](const Parsed<StatusReport>& p) {
        carlos::Status st = VerifyStatusReport(p, fuzz::BoxKey().public_key(), p.doc.box);
        if (!st.ok()) return st;
        std::string rd = p.doc.guard ? p.doc.guard->record_digest.value_or("") : "";
        std::string id = p.doc.guard ? p.doc.guard->invitation_digest.value_or("") : "";
        return CheckGuardReady(p.doc, rd, id, p.doc.reported_at);
      },
      [](StatusReport*) {});
  return 0;
}
