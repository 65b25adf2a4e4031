#include "identity/status_report.h"

#include <fmt/format.h>

#include "identity/fields.h"
#include "identity/refusal.h"

namespace carlos::identity {

namespace {

using internal::Fields;
using internal::Problems;

constexpr std::string_view kWhat = "a status report";

void Check(const StatusReport& r, Problems* p) {
  p->Time("reported_at", r.reported_at);
  p->Label("box", r.box);
  p->Label("region", r.region);
  p->Text("machine_id", r.machine_id, 1, 128);
  p->Text("instance_id", r.instance_id, 0, 128);
  p->Text("release", r.release, 1, 128);
  p->Text("platform", r.platform, 1, 128);
  p->Text("system_channel", r.system_channel, 0, 128);
  p->Label("stage", r.stage);
  if (!r.guard) return;
  const GuardFacts& g = *r.guard;
  if (g.guard_digest) p->Digest("guard.guard_digest", *g.guard_digest);
  if (g.record_digest) p->Digest("guard.record_digest", *g.record_digest);
  if (g.invitation_digest) p->Digest("guard.invitation_digest", *g.invitation_digest);
  if (g.why_not_armed) p->Text("guard.why_not_armed", *g.why_not_armed, 1, 1024);
  if (g.armed && !g.installed) p->Add("the guard is armed but not installed");
  if (g.installed && (!g.guard_digest || !g.record_digest || !g.invitation_digest)) {
    p->Add("an installed guard must give its guard, record and invitation digests");
  }
}

nlohmann::json GuardJson(const GuardFacts& g) {
  nlohmann::json o = {{"installed", g.installed}, {"armed", g.armed}};
  if (g.guard_digest) o["guard_digest"] = *g.guard_digest;
  if (g.record_digest) o["record_digest"] = *g.record_digest;
  if (g.invitation_digest) o["invitation_digest"] = *g.invitation_digest;
  if (g.why_not_armed) o["why_not_armed"] = *g.why_not_armed;
  return o;
}

}  // namespace

StatusOr<std::string> SignStatusReport(const StatusReport& r, const PrivateKey& box_key) {
  Problems p;
  Check(r, &p);
  if (!p.ok()) {
    return InvalidArgument(
        fmt::format("the status report of {} is not valid: {}", r.box, p.first()));
  }
  nlohmann::json o = {
      {"format", kStatusReportFormat},
      {"box", r.box},
      {"region", r.region},
      {"machine_id", r.machine_id},
      {"instance_id", r.instance_id},
      {"release", r.release},
      {"platform", r.platform},
      {"system_channel", r.system_channel},
      {"reported_at", internal::TimeText(r.reported_at)},
      {"hosting", r.hosting},
      {"stage", r.stage},
  };
  if (r.guard) o["guard"] = GuardJson(*r.guard);
  return SignObject(std::move(o), box_key);
}

StatusOr<Parsed<StatusReport>> ParseStatusReport(std::string_view bytes) {
  CARLOS_ASSIGN_OR_RETURN(SignedObject so, ParseSignedObject(bytes, kStatusReportFormat, kWhat));
  Problems p;
  Fields f(so.object, &p);
  StatusReport r;
  r.box = f.String("box");
  r.region = f.String("region");
  r.machine_id = f.String("machine_id");
  r.instance_id = f.String("instance_id");
  r.release = f.String("release");
  r.platform = f.String("platform");
  r.system_channel = f.String("system_channel");
  r.reported_at = f.Time("reported_at");
  r.hosting = f.Bool("hosting");
  r.stage = f.String("stage");
  if (const nlohmann::json* g = f.OptObject("guard")) {
    Fields gf(*g, &p);
    GuardFacts facts;
    facts.installed = gf.Bool("installed");
    facts.armed = gf.Bool("armed");
    facts.guard_digest = gf.OptString("guard_digest");
    facts.record_digest = gf.OptString("record_digest");
    facts.invitation_digest = gf.OptString("invitation_digest");
    facts.why_not_armed = gf.OptString("why_not_armed");
    r.guard = std::move(facts);
  }
  if (p.ok()) Check(r, &p);
  if (!p.ok()) return Refuse(Refusal::kMalformed, kWhat, p.first());
  return internal::FromSigned(std::move(r), std::move(so));
}

Status VerifyStatusReport(const Parsed<StatusReport>& parsed, const PublicKey& box_key,
                          std::string_view box) {
  std::string what = fmt::format("the status report of {}", box);
  CARLOS_RETURN_IF_ERROR(VerifySignature(parsed, box_key, what));
  if (parsed.doc.box != box) {
    return Refuse(Refusal::kMismatch, what, fmt::format("it reports on {}", parsed.doc.box));
  }
  return OkStatus();
}

}  // namespace carlos::identity
