// Fuzzes the status report's parser and verifier.
#include "identity/status_report.h"
#include "signed_document.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzSignedDocument(
      fuzz::Bytes(data, size), ParseStatusReport,
      [](const StatusReport& d) { return SignStatusReport(d, fuzz::BoxKey()); },
      [](const Parsed<StatusReport>& p) {
        return VerifyStatusReport(p, fuzz::BoxKey().public_key(), p.doc.box);
      },
      [](StatusReport*) {});
  return 0;
}
