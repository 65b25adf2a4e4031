// Fuzzes the RFC 8785 reader and writer. Properties: ParseCanonical accepts
// only bytes equal to the canonical encoding of what they parse to; any JSON
// that nlohmann reads and Canonicalize encodes is accepted back by
// ParseCanonical, to an equal value, and encoding is idempotent.
#include "identity/canonical.h"
#include "identity/refusal.h"
#include "support.h"

using namespace carlos::identity;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes = fuzz::Bytes(data, size);
  auto strict = ParseCanonical(bytes, "the input");
  if (strict.ok()) {
    auto back = Canonicalize(*strict);
    if (!back.ok() || *back != bytes) fuzz::Fail("accepted bytes that are not canonical");
  } else if (!RefusalOf(strict.status())) {
    fuzz::Fail("ParseCanonical failed without a refusal reason");
  }
  nlohmann::json lenient;
  try {
    lenient = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  auto canon = Canonicalize(lenient);
  if (!canon.ok()) return 0;
  auto reread = ParseCanonical(*canon, "the canonical form");
  if (!reread.ok()) fuzz::Fail("the canonical form is refused: " + reread.status().ToString());
  if (*reread != lenient) fuzz::Fail("the canonical form reads back to another value");
  auto again = Canonicalize(*reread);
  if (!again.ok() || *again != *canon) fuzz::Fail("canonicalization is not idempotent");
  return 0;
}
