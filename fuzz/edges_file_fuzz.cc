// Fuzzes the edges file's parser and verifier.
#include "identity/edges_file.h"
#include "signed_document.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzSignedDocument(
      fuzz::Bytes(data, size), ParseEdgesFile,
      [](const EdgesFile& d) { return SignEdgesFile(d, fuzz::BoxKey()); },
      [](const Parsed<EdgesFile>& p) {
        (void)NamesBox(p.doc, p.doc.box);
        return VerifyEdgesFile(p, fuzz::BoxKey().public_key(), p.doc.box);
      },
      [](EdgesFile*) {});
  return 0;
}
