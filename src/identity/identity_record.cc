#include "identity/identity_record.h"

#include <fmt/format.h>

#include "identity/fields.h"
#include "identity/iid.h"
#include "identity/refusal.h"

namespace carlos::identity {

namespace {

using internal::Fields;
using internal::Problems;

constexpr std::string_view kWhat = "an identity record";

void Check(const IdentityRecord& r, Problems* p) {
  p->Time("created_at", r.created_at);
  p->Label("box", r.box);
  p->Label("region", r.region);
  p->Text("machine_id", r.machine_id, 1, 128);
  p->Text("instance_id", r.instance_id, r.attestation ? 1 : 0, 128);
  if (r.group_reference) p->Text("group_reference", *r.group_reference, 1, 256);
  p->Text("release", r.release, 1, 128);
  p->Text("platform", r.platform, 1, 128);
  if (r.public_key.empty()) p->Add("\"public_key\" is empty");
  if (r.attestation) {
    // The IID is pretty-printed JSON, so its text holds newlines: only its
    // size is limited here (the document limit bounds it too).
    if (r.attestation->document.empty() ||
        r.attestation->document.size() > kMaxInstanceIdentityBytes) {
      p->Add("\"instance_identity_document\" is empty or too large");
    }
    if (r.attestation->rsa2048.empty() ||
        r.attestation->rsa2048.size() > kMaxInstanceIdentityBytes) {
      p->Add("\"instance_identity_rsa2048\" is empty or too large");
    }
  }
}

}  // namespace

StatusOr<std::string> SignIdentityRecord(const IdentityRecord& r, const PrivateKey& box_key) {
  Problems p;
  Check(r, &p);
  if (p.ok() && !(box_key.public_key() == r.public_key)) {
    p.Add("it must be signed by the key it names in \"public_key\"");
  }
  if (!p.ok()) {
    return InvalidArgument(
        fmt::format("the identity record of {} is not valid: {}", r.box, p.first()));
  }
  nlohmann::json o = {
      {"format", kIdentityRecordFormat},
      {"box", r.box},
      {"region", r.region},
      {"machine_id", r.machine_id},
      {"instance_id", r.instance_id},
      {"release", r.release},
      {"platform", r.platform},
      {"public_key", r.public_key.ToString()},
      {"created_at", internal::TimeText(r.created_at)},
  };
  if (r.group_reference) o["group_reference"] = *r.group_reference;
  if (r.attestation) {
    o["instance_identity_document"] = r.attestation->document;
    o["instance_identity_rsa2048"] = r.attestation->rsa2048;
  } else {
    o["unattested"] = true;
  }
  return SignObject(std::move(o), box_key);
}

StatusOr<Parsed<IdentityRecord>> ParseIdentityRecord(std::string_view bytes) {
  CARLOS_ASSIGN_OR_RETURN(SignedObject so, ParseSignedObject(bytes, kIdentityRecordFormat, kWhat));
  Problems p;
  Fields f(so.object, &p);
  IdentityRecord r;
  r.box = f.String("box");
  r.region = f.String("region");
  r.machine_id = f.String("machine_id");
  r.instance_id = f.String("instance_id");
  r.group_reference = f.OptString("group_reference");
  r.release = f.String("release");
  r.platform = f.String("platform");
  std::string key_text = f.String("public_key");
  r.created_at = f.Time("created_at");
  std::optional<std::string> iid = f.OptString("instance_identity_document");
  std::optional<std::string> rsa = f.OptString("instance_identity_rsa2048");
  std::optional<bool> unattested = f.OptBool("unattested");
  if (p.ok()) {
    StatusOr<PublicKey> key = PublicKey::Parse(key_text);
    if (!key.ok()) {
      p.Add("\"public_key\" is not a valid public key: " + key.status().message());
    } else if (key->ToString() != key_text) {
      p.Add("\"public_key\" is not a public key written \"ed25519:<base64>\"");
    } else {
      r.public_key = *key;
      if (!(r.public_key == so.signer)) {
        p.Add("\"signer\" is not the record's own \"public_key\"");
      }
    }
  }
  if (p.ok()) {
    if (unattested.has_value()) {
      if (!*unattested) p.Add("\"unattested\" may only be true");
      if (iid || rsa) p.Add("an unattested record carries an instance identity document");
    } else if (!iid || !rsa) {
      p.Add(
          "it has neither the instance identity document and its signature nor \"unattested\": "
          "true");
    } else {
      r.attestation = InstanceAttestation{std::move(*iid), std::move(*rsa)};
    }
  }
  if (p.ok()) Check(r, &p);
  if (!p.ok()) return Refuse(Refusal::kMalformed, kWhat, p.first());
  return internal::FromSigned(std::move(r), std::move(so));
}

Status VerifyIdentityRecord(const Parsed<IdentityRecord>& parsed, std::string_view box) {
  std::string what = fmt::format("the identity record of {}", box);
  CARLOS_RETURN_IF_ERROR(VerifySignature(parsed, parsed.doc.public_key, what));
  if (parsed.doc.box != box) {
    return Refuse(Refusal::kMismatch, what, fmt::format("it names the box {}", parsed.doc.box));
  }
  return OkStatus();
}

Status VerifyRecordAttestation(const IdentityRecord& r, std::string_view aws_certificate_pem) {
  std::string what = fmt::format("the identity record of {}", r.box);
  if (!r.attestation) {
    return Refuse(Refusal::kUnattested, what, "it carries no instance identity document");
  }
  StatusOr<InstanceIdentityDocument> iid = ParseInstanceIdentityDocument(r.attestation->document);
  if (!iid.ok()) {
    return Refuse(Refusal::kMalformed, what,
                  "its instance identity document does not parse: " + iid.status().message());
  }
  Status sig = VerifyInstanceIdentitySignature(r.attestation->document, r.attestation->rsa2048,
                                               aws_certificate_pem);
  if (sig.code() == Code::kInvalidArgument) return sig;
  if (!sig.ok()) {
    return Refuse(Refusal::kUnattested, what,
                  "its instance identity document's signature does not verify: " + sig.message());
  }
  if (iid->instance_id != r.instance_id) {
    return Refuse(
        Refusal::kMismatch, what,
        fmt::format("its instance identity document is for instance {}, the record says {}",
                    iid->instance_id, r.instance_id));
  }
  if (iid->region != r.region) {
    return Refuse(Refusal::kMismatch, what,
                  fmt::format("its instance identity document is for region {}, the record says {}",
                              iid->region, r.region));
  }
  return OkStatus();
}

}  // namespace carlos::identity
