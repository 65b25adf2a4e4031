#include "identity/edges_file.h"

#include <fmt/format.h>

#include "identity/fields.h"
#include "identity/refusal.h"

namespace carlos::identity {

namespace {

using internal::Fields;
using internal::Problems;

constexpr std::string_view kWhat = "an edges file";

void Check(const EdgesFile& e, Problems* p) {
  p->Time("updated_at", e.updated_at);
  p->Label("box", e.box);
  if (e.edges.size() > kMaxEdges) {
    p->Add(fmt::format("\"edges\" lists {} names, more than {}", e.edges.size(), kMaxEdges));
  }
  for (const auto& edge : e.edges) p->Text("edges", edge, 1, 255);
}

}  // namespace

StatusOr<std::string> SignEdgesFile(const EdgesFile& e, const PrivateKey& box_key) {
  Problems p;
  Check(e, &p);
  if (!p.ok()) {
    return InvalidArgument(fmt::format("the edges file of {} is not valid: {}", e.box, p.first()));
  }
  nlohmann::json o = {
      {"format", kEdgesFileFormat},
      {"box", e.box},
      {"updated_at", internal::TimeText(e.updated_at)},
      {"edges", e.edges},
  };
  return SignObject(std::move(o), box_key);
}

StatusOr<Parsed<EdgesFile>> ParseEdgesFile(std::string_view bytes) {
  CARLOS_ASSIGN_OR_RETURN(SignedObject so, ParseSignedObject(bytes, kEdgesFileFormat, kWhat));
  Problems p;
  Fields f(so.object, &p);
  EdgesFile e;
  e.box = f.String("box");
  e.updated_at = f.Time("updated_at");
  e.edges = f.StringList("edges");
  if (p.ok()) Check(e, &p);
  if (!p.ok()) return Refuse(Refusal::kMalformed, kWhat, p.first());
  return internal::FromSigned(std::move(e), std::move(so));
}

Status VerifyEdgesFile(const Parsed<EdgesFile>& parsed, const PublicKey& box_key,
                       std::string_view box) {
  std::string what = fmt::format("the edges file of {}", box);
  CARLOS_RETURN_IF_ERROR(VerifySignature(parsed, box_key, what));
  if (parsed.doc.box != box) {
    return Refuse(Refusal::kMismatch, what, fmt::format("it is written by {}", parsed.doc.box));
  }
  return OkStatus();
}

bool NamesBox(const EdgesFile& edges, std::string_view box) {
  for (const auto& e : edges.edges) {
    if (e == box) return true;
  }
  return false;
}

}  // namespace carlos::identity
