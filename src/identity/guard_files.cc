#include "identity/guard_files.h"

#include <fmt/format.h>

#include "identity/canonical.h"
#include "identity/fields.h"
#include "identity/refusal.h"

namespace carlos::identity {

namespace {

using internal::Fields;
using internal::Problems;

constexpr std::string_view kGuardWhat = "the guard file";
constexpr std::string_view kArmedWhat = "the armed file";

void Check(const GuardFile& g, Problems* p) {
  p->Time("installed_at", g.installed_at);
  p->Label("box", g.box);
  p->Text("instance_id", g.instance_id, 0, 128);
  p->Label("region", g.region);
  p->Digest("record_digest", g.record_digest);
  p->Digest("invitation_digest", g.invitation_digest);
  if (g.policy.floor_release) p->Text("policy.floor_release", *g.policy.floor_release, 1, 128);
}

StatusOr<std::string> Encode(const nlohmann::json& o) {
  CARLOS_ASSIGN_OR_RETURN(std::string bytes, Canonicalize(o));
  if (bytes.size() > kMaxDocumentBytes) {
    return InvalidArgument(fmt::format("the document has {} bytes, more than the {} allowed",
                                       bytes.size(), kMaxDocumentBytes));
  }
  return bytes;
}

}  // namespace

StatusOr<std::string> EncodeGuardFile(const GuardFile& g) {
  Problems p;
  Check(g, &p);
  if (!p.ok())
    return InvalidArgument(fmt::format("the guard for {} is not valid: {}", g.box, p.first()));
  nlohmann::json policy = nlohmann::json::object();
  if (g.policy.floor_release) policy["floor_release"] = *g.policy.floor_release;
  nlohmann::json o = {
      {"format", kGuardFileFormat},
      {"box", g.box},
      {"instance_id", g.instance_id},
      {"region", g.region},
      {"record_digest", g.record_digest},
      {"invitation_digest", g.invitation_digest},
      {"policy", policy},
      {"installed_at", internal::TimeText(g.installed_at)},
  };
  return Encode(o);
}

StatusOr<Parsed<GuardFile>> ParseGuardFile(std::string_view bytes) {
  std::string digest;
  CARLOS_ASSIGN_OR_RETURN(nlohmann::json o,
                          ParseUnsignedObject(bytes, kGuardFileFormat, kGuardWhat, &digest));
  Problems p;
  Fields f(o, &p);
  GuardFile g;
  g.box = f.String("box");
  g.instance_id = f.String("instance_id");
  g.region = f.String("region");
  g.record_digest = f.String("record_digest");
  g.invitation_digest = f.String("invitation_digest");
  if (const nlohmann::json* policy = f.Object("policy")) {
    Fields pf(*policy, &p);
    g.policy.floor_release = pf.OptString("floor_release");
  }
  g.installed_at = f.Time("installed_at");
  if (p.ok()) Check(g, &p);
  if (!p.ok()) return Refuse(Refusal::kMalformed, kGuardWhat, p.first());
  Parsed<GuardFile> out;
  out.doc = std::move(g);
  out.digest = std::move(digest);
  out.bytes = std::string(bytes);
  return out;
}

Status CheckGuardBinding(const GuardFile& g, const GuardBinding& want) {
  std::string what = fmt::format("the guard of {}", want.box);
  auto mismatch = [&](std::string_view field, const std::string& got, const std::string& expected) {
    return Refuse(Refusal::kMismatch, what,
                  fmt::format("it names the {} \"{}\", not \"{}\"", field, got, expected));
  };
  if (g.box != want.box) return mismatch("box", g.box, want.box);
  if (g.instance_id != want.instance_id)
    return mismatch("instance", g.instance_id, want.instance_id);
  if (g.region != want.region) return mismatch("region", g.region, want.region);
  if (g.record_digest != want.record_digest) {
    return Refuse(
        Refusal::kBoundToAnotherDigest, what,
        fmt::format("it binds the record {}, not {}", g.record_digest, want.record_digest));
  }
  if (g.invitation_digest != want.invitation_digest) {
    return Refuse(Refusal::kBoundToAnotherDigest, what,
                  fmt::format("it binds the invitation {}, not {}", g.invitation_digest,
                              want.invitation_digest));
  }
  return OkStatus();
}

StatusOr<std::string> EncodeArmedFile(const ArmedFile& a) {
  Problems p;
  p.Digest("guard_digest", a.guard_digest);
  p.Time("armed_at", a.armed_at);
  if (!p.ok()) return InvalidArgument("the armed file is not valid: " + p.first());
  nlohmann::json o = {
      {"format", kArmedFileFormat},
      {"guard_digest", a.guard_digest},
      {"armed_at", internal::TimeText(a.armed_at)},
  };
  return Encode(o);
}

StatusOr<Parsed<ArmedFile>> ParseArmedFile(std::string_view bytes) {
  std::string digest;
  CARLOS_ASSIGN_OR_RETURN(nlohmann::json o,
                          ParseUnsignedObject(bytes, kArmedFileFormat, kArmedWhat, &digest));
  Problems p;
  Fields f(o, &p);
  ArmedFile a;
  a.guard_digest = f.String("guard_digest");
  a.armed_at = f.Time("armed_at");
  if (p.ok()) p.Digest("guard_digest", a.guard_digest);
  if (!p.ok()) return Refuse(Refusal::kMalformed, kArmedWhat, p.first());
  Parsed<ArmedFile> out;
  out.doc = std::move(a);
  out.digest = std::move(digest);
  out.bytes = std::string(bytes);
  return out;
}

Status CheckArmedFor(const ArmedFile& a, std::string_view guard_digest) {
  if (a.guard_digest != guard_digest) {
    return Refuse(Refusal::kBoundToAnotherDigest, kArmedWhat,
                  fmt::format("it arms the guard {}, but the installed guard is {}", a.guard_digest,
                              guard_digest));
  }
  return OkStatus();
}

}  // namespace carlos::identity
