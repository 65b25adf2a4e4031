// The edges file, control/edges/<box>.json (DESIGN.md, "The deployment
// store"; docs/protocol.md, "Edges file"). Written only by hosting agents
// (unconditionally, every 30 s while hosting), signed with the box's own key.
// A box an edges file names is **referenced**: automatic enrollment refuses
// it, and mode selection reports it as `referenced`.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "identity/document.h"
#include "identity/keys.h"

namespace carlos::identity {

inline constexpr std::string_view kEdgesFileFormat = "carlos.edges/v1";

// The most entries an edges file may list (the 64 KiB document limit bounds
// it anyway; this keeps the check cheap and the message clear).
inline constexpr size_t kMaxEdges = 1024;

struct EdgesFile {
  std::string box;  // Label: the writer.
  SystemTime updated_at;
  // The names this box lists, in the writer's order; may be empty. Each is
  // 1-255 bytes without control characters; the protocol compares them with
  // box labels (a box whose label is listed is referenced).
  std::vector<std::string> edges;
};

// Signs `edges` with the writer's box key; returns the bytes to store.
// Errors: kInvalidArgument when a field breaks its limits (an empty or
// over-long edge, more than kMaxEdges); kInternal when OpenSSL fails.
StatusOr<std::string> SignEdgesFile(const EdgesFile& edges, const PrivateKey& box_key);

// Parses stored bytes. Errors (Refuse): kOversized, kMalformed, kNotCanonical,
// kUnknownFormat. Does not verify the signature.
StatusOr<Parsed<EdgesFile>> ParseEdgesFile(std::string_view bytes);

// Verifies an edges file stored under `box`'s key against that box's key
// (the public key of its verified identity record). Errors (Refuse):
// kWrongKey, kBadSignature; kMismatch when it names another writer box.
Status VerifyEdgesFile(const Parsed<EdgesFile>& edges, const PublicKey& box_key,
                       std::string_view box);

// True when `edges` lists `box` (exact comparison): `box` is referenced.
bool NamesBox(const EdgesFile& edges, std::string_view box);

}  // namespace carlos::identity
