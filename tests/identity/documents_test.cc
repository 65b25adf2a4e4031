// The signed documents: round trips, refusals with their exact reasons, and
// the property that no single changed bit of stored bytes is accepted.
#include <gtest/gtest.h>

#include <functional>

#include "fixtures.h"
#include "identity/canonical.h"
#include "identity/encoding.h"
#include "identity/refusal.h"
#include "identity/store_keys.h"

namespace carlos::identity {
namespace {

using namespace testing;  // NOLINT: the fixtures.

// Re-signs `bytes` after `edit` changed its JSON object (without "signer" and
// "signature"), with `key`: a document that is correctly signed but whose
// content a test chose.
std::string Resign(const std::string& bytes, const PrivateKey& key,
                   const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json o = nlohmann::json::parse(bytes);
  o.erase("signer");
  o.erase("signature");
  edit(o);
  return Must(SignObject(o, key));
}

#define EXPECT_REFUSED(status_expr, reason)                  \
  do {                                                       \
    Status _st = (status_expr);                              \
    EXPECT_EQ(RefusalOf(_st), reason) << _st.ToString();     \
    EXPECT_EQ(_st.code(), Code::kCorrupt) << _st.ToString(); \
  } while (0)

std::string RecordBytes(bool attested = false) {
  return Must(SignIdentityRecord(SampleRecord(attested), BoxKey()));
}
std::string RecordDigest() { return Sha256Digest(RecordBytes()); }

TEST(IdentityRecord, RoundTrip) {
  for (bool attested : {false, true}) {
    IdentityRecord r = SampleRecord(attested);
    std::string bytes = Must(SignIdentityRecord(r, BoxKey()));
    EXPECT_EQ(Must(Canonicalize(nlohmann::json::parse(bytes))), bytes);
    Parsed<IdentityRecord> p = Must(ParseIdentityRecord(bytes));
    EXPECT_EQ(p.bytes, bytes);
    EXPECT_EQ(p.digest, Sha256Digest(bytes));
    EXPECT_EQ(p.doc.box, "web-1");
    EXPECT_EQ(p.doc.region, "us-west-2");
    EXPECT_EQ(p.doc.machine_id, r.machine_id);
    EXPECT_EQ(p.doc.instance_id, r.instance_id);
    EXPECT_EQ(p.doc.group_reference, std::optional<std::string>("web-asg"));
    EXPECT_EQ(p.doc.release, "0.1.0");
    EXPECT_EQ(p.doc.platform, "linux-amd64");
    EXPECT_TRUE(p.doc.public_key == BoxKey().public_key());
    EXPECT_EQ(p.doc.created_at, T0());
    EXPECT_EQ(p.doc.attestation.has_value(), attested);
    if (attested) {
      EXPECT_EQ(p.doc.attestation->document, r.attestation->document);
      EXPECT_EQ(p.doc.attestation->rsa2048, r.attestation->rsa2048);
    }
    EXPECT_TRUE(VerifyIdentityRecord(p, "web-1").ok());
    EXPECT_REFUSED(VerifyIdentityRecord(p, "web-2"), Refusal::kMismatch);
  }
}

TEST(IdentityRecord, TheStoredFormIsExactlyThis) {
  IdentityRecord r = SampleRecord(false);
  r.group_reference.reset();
  std::string bytes = Must(SignIdentityRecord(r, BoxKey()));
  std::string pub = BoxKey().public_key().ToString();
  std::string payload =
      "{\"box\":\"web-1\",\"created_at\":\"2026-11-29T18:00:00Z\",\"format\":\"carlos.identity-"
      "record/v1\",\"instance_id\":\"i-0123456789abcdef0\",\"machine_id\":"
      "\"4c4c4544003957108052b4c04f384833\",\"platform\":\"linux-amd64\",\"public_key\":\"" +
      pub + "\",\"region\":\"us-west-2\",\"release\":\"0.1.0\",\"signer\":\"" + pub +
      "\",\"unattested\":true}";
  std::string sig = Base64Encode(Must(BoxKey().Sign(payload)));
  // "signature" sorts between "release" and "signer".
  std::string want = payload;
  want.insert(want.find(",\"signer\""), ",\"signature\":\"" + sig + "\"");
  EXPECT_EQ(bytes, want);
}

TEST(IdentityRecord, RefusesARecordSignedByAnotherKeyThanItNames) {
  IdentityRecord r = SampleRecord(false);
  EXPECT_EQ(SignIdentityRecord(r, FixedKey('\x09')).status().code(), Code::kInvalidArgument);
  // A forger who signs with their own key but names the box's key.
  std::string forged = Resign(RecordBytes(), FixedKey('\x09'), [](nlohmann::json&) {});
  EXPECT_REFUSED(ParseIdentityRecord(forged).status(), Refusal::kMalformed);
  // A forger who names their key in "signer" and "public_key": the record is
  // valid but it is another key's record (the agent sees a conflict).
  std::string other = Resign(RecordBytes(), FixedKey('\x09'), [](nlohmann::json& o) {
    o["public_key"] = FixedKey('\x09').public_key().ToString();
  });
  Parsed<IdentityRecord> p = Must(ParseIdentityRecord(other));
  EXPECT_TRUE(VerifyIdentityRecord(p, "web-1").ok());
  EXPECT_FALSE(p.doc.public_key == BoxKey().public_key());
}

TEST(IdentityRecord, AttestationVerifiesAgainstTheAwsCertificate) {
  IdentityRecord r = SampleRecord(true);
  EXPECT_TRUE(VerifyRecordAttestation(r, AwsCertForTest().cert_pem).ok());
  EmulatorCertificate other = Must(MakeEmulatorCertificate("other"));
  EXPECT_REFUSED(VerifyRecordAttestation(r, other.cert_pem), Refusal::kUnattested);
  EXPECT_REFUSED(VerifyRecordAttestation(SampleRecord(false), AwsCertForTest().cert_pem),
                 Refusal::kUnattested);
  IdentityRecord moved = r;
  moved.instance_id = "i-0fffffffffffffff0";
  EXPECT_REFUSED(VerifyRecordAttestation(moved, AwsCertForTest().cert_pem), Refusal::kMismatch);
  IdentityRecord elsewhere = r;
  elsewhere.region = "eu-west-1";
  EXPECT_REFUSED(VerifyRecordAttestation(elsewhere, AwsCertForTest().cert_pem), Refusal::kMismatch);
  IdentityRecord garbage = r;
  garbage.attestation->document = "not json";
  EXPECT_REFUSED(VerifyRecordAttestation(garbage, AwsCertForTest().cert_pem), Refusal::kMalformed);
}

TEST(IdentityRecord, AttestationAndUnattestedAreExclusive) {
  std::string bytes = RecordBytes(true);
  EXPECT_REFUSED(ParseIdentityRecord(
                     Resign(bytes, BoxKey(), [](nlohmann::json& o) { o["unattested"] = true; }))
                     .status(),
                 Refusal::kMalformed);
  EXPECT_REFUSED(
      ParseIdentityRecord(
          Resign(bytes, BoxKey(), [](nlohmann::json& o) { o.erase("instance_identity_rsa2048"); }))
          .status(),
      Refusal::kMalformed);
  EXPECT_REFUSED(ParseIdentityRecord(Resign(RecordBytes(), BoxKey(),
                                            [](nlohmann::json& o) { o["unattested"] = false; }))
                     .status(),
                 Refusal::kMalformed);
}

TEST(Invitation, RoundTripAndVerify) {
  std::string rd = RecordDigest();
  Invitation inv = SampleInvitation(rd);
  EXPECT_EQ(inv.expires_at - inv.issued_at, kInvitationLifetime);
  std::string bytes = Must(SignInvitation(inv, EnrollmentKeyForTest()));
  Parsed<Invitation> p = Must(ParseInvitation(bytes));
  EXPECT_EQ(p.doc.box, "web-1");
  EXPECT_EQ(p.doc.record_digest, rd);
  EXPECT_EQ(p.doc.region, "us-west-2");
  EXPECT_EQ(p.doc.issued_at, T0());
  EXPECT_EQ(p.doc.expires_at, T0() + kInvitationLifetime);
  EXPECT_FALSE(p.doc.forced);
  EXPECT_EQ(p.doc.floor_release, std::optional<std::string>("0.1.0"));
  EXPECT_EQ(p.digest, Sha256Digest(bytes));
  const PublicKey& ek = EnrollmentKeyForTest().public_key();
  EXPECT_TRUE(VerifyInvitation(p, ek, "web-1", rd, T0() + Seconds(60)).ok());
  // Bound to another record.
  EXPECT_REFUSED(VerifyInvitation(p, ek, "web-1", DigestOf("other record"), T0()),
                 Refusal::kBoundToAnotherDigest);
  // For another box.
  EXPECT_REFUSED(VerifyInvitation(p, ek, "web-2", rd, T0()), Refusal::kMismatch);
  // Signed by another key.
  EXPECT_REFUSED(VerifyInvitation(p, BoxKey().public_key(), "web-1", rd, T0()), Refusal::kWrongKey);
}

TEST(Invitation, ExpiresAtItsExpiry) {
  std::string rd = RecordDigest();
  Parsed<Invitation> p =
      Must(ParseInvitation(Must(SignInvitation(SampleInvitation(rd), EnrollmentKeyForTest()))));
  const PublicKey& ek = EnrollmentKeyForTest().public_key();
  SystemTime expiry = T0() + kInvitationLifetime;
  EXPECT_TRUE(VerifyInvitation(p, ek, "web-1", rd, expiry - Seconds(1)).ok());
  Status st = VerifyInvitation(p, ek, "web-1", rd, expiry);
  EXPECT_REFUSED(st, Refusal::kExpired);
  EXPECT_EQ(st.message(),
            "the invitation for web-1 is refused: expired: it expired at 2026-11-30T18:00:00Z; it "
            "is now 2026-11-30T18:00:00Z");
  EXPECT_REFUSED(VerifyInvitation(p, ek, "web-1", rd, expiry + Seconds(86400)), Refusal::kExpired);
}

TEST(Invitation, ForcedAndWithoutFloor) {
  Invitation inv = NewInvitation("web-1", RecordDigest(), "us-west-2", T0(), true, std::nullopt);
  Parsed<Invitation> p = Must(ParseInvitation(Must(SignInvitation(inv, EnrollmentKeyForTest()))));
  EXPECT_TRUE(p.doc.forced);
  EXPECT_FALSE(p.doc.floor_release.has_value());
  EXPECT_EQ(p.bytes.find("floor_release"), std::string::npos);
}

TEST(Invitation, SigningRefusesBadFields) {
  const PrivateKey ek = EnrollmentKeyForTest();
  Invitation inv = SampleInvitation(RecordDigest());
  inv.box = "Web_1";
  EXPECT_EQ(SignInvitation(inv, ek).status().code(), Code::kInvalidArgument);
  inv = SampleInvitation("sha256:nothex");
  EXPECT_EQ(SignInvitation(inv, ek).status().code(), Code::kInvalidArgument);
  inv = SampleInvitation(RecordDigest());
  inv.expires_at = inv.issued_at;
  EXPECT_EQ(SignInvitation(inv, ek).status().code(), Code::kInvalidArgument);
}

TEST(Enrollment, RoundTripAndBindings) {
  std::string rd = RecordDigest();
  Enrollment e = SampleEnrollment(rd);
  std::string bytes = Must(SignEnrollment(e, EnrollmentKeyForTest()));
  Parsed<Enrollment> p = Must(ParseEnrollment(bytes));
  EXPECT_EQ(p.doc.box, "web-1");
  EXPECT_EQ(p.doc.record_digest, rd);
  EXPECT_EQ(p.doc.invitation_digest, DigestOf("invitation"));
  EXPECT_EQ(p.doc.guard_digest, DigestOf("guard"));
  EXPECT_EQ(p.doc.enrolled_at, T0() + Seconds(90));
  const PublicKey& ek = EnrollmentKeyForTest().public_key();
  EnrollmentBinding b{"web-1", rd, DigestOf("invitation"), DigestOf("guard")};
  EXPECT_TRUE(VerifyEnrollment(p, ek, b).ok());
  EXPECT_TRUE(VerifyEnrollment(p, ek, {"web-1", rd, std::nullopt, std::nullopt}).ok());
  EnrollmentBinding other_guard = b;
  other_guard.guard_digest = DigestOf("another guard");
  Status st = VerifyEnrollment(p, ek, other_guard);
  EXPECT_REFUSED(st, Refusal::kBoundToAnotherDigest);
  EXPECT_NE(st.message().find("guard digest"), std::string::npos);
  EnrollmentBinding other_inv = b;
  other_inv.invitation_digest = DigestOf("another invitation");
  EXPECT_REFUSED(VerifyEnrollment(p, ek, other_inv), Refusal::kBoundToAnotherDigest);
  EnrollmentBinding other_record = b;
  other_record.record_digest = DigestOf("another record");
  EXPECT_REFUSED(VerifyEnrollment(p, ek, other_record), Refusal::kBoundToAnotherDigest);
  EnrollmentBinding other_box = b;
  other_box.box = "web-2";
  EXPECT_REFUSED(VerifyEnrollment(p, ek, other_box), Refusal::kMismatch);
  EXPECT_REFUSED(VerifyEnrollment(p, BoxKey().public_key(), b), Refusal::kWrongKey);
}

TEST(Retirement, RoundTripAndBindings) {
  std::string rd = RecordDigest();
  std::string bytes = Must(SignRetirement(SampleRetirement(rd), EnrollmentKeyForTest()));
  Parsed<Retirement> p = Must(ParseRetirement(bytes));
  EXPECT_EQ(p.doc.box, "web-1");
  EXPECT_EQ(p.doc.record_digest, rd);
  EXPECT_EQ(p.doc.reason, "replaced by web-7");
  EXPECT_EQ(p.doc.retired_at, T0() + Seconds(3600));
  const PublicKey& ek = EnrollmentKeyForTest().public_key();
  EXPECT_TRUE(VerifyRetirement(p, ek, "web-1", rd).ok());
  EXPECT_TRUE(VerifyRetirement(p, ek, "web-1", std::nullopt).ok());
  EXPECT_REFUSED(VerifyRetirement(p, ek, "web-1", DigestOf("x")), Refusal::kBoundToAnotherDigest);
  EXPECT_REFUSED(VerifyRetirement(p, ek, "web-2", rd), Refusal::kMismatch);
  EXPECT_REFUSED(VerifyRetirement(p, BoxKey().public_key(), "web-1", rd), Refusal::kWrongKey);
}

TEST(EdgesFile, RoundTripAndReferences) {
  std::string bytes = Must(SignEdgesFile(SampleEdges(), BoxKey()));
  Parsed<EdgesFile> p = Must(ParseEdgesFile(bytes));
  EXPECT_EQ(p.doc.box, "web-1");
  EXPECT_EQ(p.doc.edges, (std::vector<std::string>{"web-2", "web-3"}));
  EXPECT_EQ(p.doc.updated_at, T0() + Milliseconds(1500));
  EXPECT_NE(bytes.find("\"updated_at\":\"2026-11-29T18:00:01.5Z\""), std::string::npos);
  EXPECT_TRUE(NamesBox(p.doc, "web-2"));
  EXPECT_FALSE(NamesBox(p.doc, "web-1"));
  EXPECT_TRUE(VerifyEdgesFile(p, BoxKey().public_key(), "web-1").ok());
  EXPECT_REFUSED(VerifyEdgesFile(p, BoxKey().public_key(), "web-9"), Refusal::kMismatch);
  EXPECT_REFUSED(VerifyEdgesFile(p, EnrollmentKeyForTest().public_key(), "web-1"),
                 Refusal::kWrongKey);
  EdgesFile empty = SampleEdges();
  empty.edges.clear();
  Parsed<EdgesFile> e = Must(ParseEdgesFile(Must(SignEdgesFile(empty, BoxKey()))));
  EXPECT_TRUE(e.doc.edges.empty());
  EXPECT_NE(e.bytes.find("\"edges\":[]"), std::string::npos);
  EdgesFile bad = SampleEdges();
  bad.edges.push_back("");
  EXPECT_EQ(SignEdgesFile(bad, BoxKey()).status().code(), Code::kInvalidArgument);
}

TEST(StatusReport, RoundTripWithAndWithoutGuard) {
  for (bool with_guard : {false, true}) {
    StatusReport r = SampleReport(with_guard);
    Parsed<StatusReport> p = Must(ParseStatusReport(Must(SignStatusReport(r, BoxKey()))));
    EXPECT_EQ(p.doc.box, "web-1");
    EXPECT_EQ(p.doc.region, "us-west-2");
    EXPECT_EQ(p.doc.machine_id, r.machine_id);
    EXPECT_EQ(p.doc.instance_id, r.instance_id);
    EXPECT_EQ(p.doc.release, "0.1.0");
    EXPECT_EQ(p.doc.platform, "linux-amd64");
    EXPECT_EQ(p.doc.system_channel, "stable");
    EXPECT_EQ(p.doc.reported_at, T0() + Seconds(60));
    EXPECT_FALSE(p.doc.hosting);
    EXPECT_EQ(p.doc.stage, "guard-ready");
    ASSERT_EQ(p.doc.guard.has_value(), with_guard);
    if (with_guard) {
      EXPECT_TRUE(p.doc.guard->installed);
      EXPECT_TRUE(p.doc.guard->armed);
      EXPECT_EQ(p.doc.guard->guard_digest, DigestOf("guard"));
      EXPECT_EQ(p.doc.guard->record_digest, DigestOf("record"));
      EXPECT_EQ(p.doc.guard->invitation_digest, DigestOf("invitation"));
      EXPECT_FALSE(p.doc.guard->why_not_armed.has_value());
    }
    EXPECT_TRUE(VerifyStatusReport(p, BoxKey().public_key(), "web-1").ok());
    EXPECT_REFUSED(VerifyStatusReport(p, BoxKey().public_key(), "web-2"), Refusal::kMismatch);
    EXPECT_REFUSED(VerifyStatusReport(p, FixedKey('\x07').public_key(), "web-1"),
                   Refusal::kWrongKey);
  }
}

TEST(StatusReport, SigningRefusesInconsistentGuardFacts) {
  StatusReport r = SampleReport(true);
  r.guard->installed = false;
  EXPECT_EQ(SignStatusReport(r, BoxKey()).status().code(), Code::kInvalidArgument);
  r = SampleReport(true);
  r.guard->guard_digest.reset();
  EXPECT_EQ(SignStatusReport(r, BoxKey()).status().code(), Code::kInvalidArgument);
  r = SampleReport(false);
  r.stage = "Guard Ready";
  EXPECT_EQ(SignStatusReport(r, BoxKey()).status().code(), Code::kInvalidArgument);
}

// One stored document of each kind, and the check a reader applies to it.
struct Kind {
  std::string name;
  std::string bytes;
  std::function<Status(std::string_view)> accept;
};

std::vector<Kind> AllSignedKinds() {
  std::string rd = RecordDigest();
  const PublicKey ek = EnrollmentKeyForTest().public_key();
  const PublicKey bk = BoxKey().public_key();
  std::vector<Kind> kinds;
  kinds.push_back({"record (attested)", RecordBytes(true), [](std::string_view b) {
                     auto p = ParseIdentityRecord(b);
                     if (!p.ok()) return p.status();
                     CARLOS_RETURN_IF_ERROR(VerifyIdentityRecord(*p, "web-1"));
                     if (!(p->doc.public_key == BoxKey().public_key())) return Internal("conflict");
                     return VerifyRecordAttestation(p->doc, AwsCertForTest().cert_pem);
                   }});
  kinds.push_back({"record (unattested)", RecordBytes(false), [](std::string_view b) {
                     auto p = ParseIdentityRecord(b);
                     if (!p.ok()) return p.status();
                     CARLOS_RETURN_IF_ERROR(VerifyIdentityRecord(*p, "web-1"));
                     if (!(p->doc.public_key == BoxKey().public_key())) return Internal("conflict");
                     return OkStatus();
                   }});
  kinds.push_back({"invitation", Must(SignInvitation(SampleInvitation(rd), EnrollmentKeyForTest())),
                   [=](std::string_view b) {
                     auto p = ParseInvitation(b);
                     if (!p.ok()) return p.status();
                     return VerifyInvitation(*p, ek, "web-1", rd, T0());
                   }});
  kinds.push_back({"enrollment", Must(SignEnrollment(SampleEnrollment(rd), EnrollmentKeyForTest())),
                   [=](std::string_view b) {
                     auto p = ParseEnrollment(b);
                     if (!p.ok()) return p.status();
                     return VerifyEnrollment(*p, ek, {"web-1", rd, std::nullopt, std::nullopt});
                   }});
  kinds.push_back({"retirement", Must(SignRetirement(SampleRetirement(rd), EnrollmentKeyForTest())),
                   [=](std::string_view b) {
                     auto p = ParseRetirement(b);
                     if (!p.ok()) return p.status();
                     return VerifyRetirement(*p, ek, "web-1", std::nullopt);
                   }});
  kinds.push_back(
      {"edges file", Must(SignEdgesFile(SampleEdges(), BoxKey())), [=](std::string_view b) {
         auto p = ParseEdgesFile(b);
         if (!p.ok()) return p.status();
         return VerifyEdgesFile(*p, bk, "web-1");
       }});
  kinds.push_back({"status report", Must(SignStatusReport(SampleReport(true), BoxKey())),
                   [=](std::string_view b) {
                     auto p = ParseStatusReport(b);
                     if (!p.ok()) return p.status();
                     return VerifyStatusReport(*p, bk, "web-1");
                   }});
  return kinds;
}

// Every single-bit change at every byte position of the stored bytes is
// refused, by parse (malformed, not canonical, unknown format) or by verify
// (bad signature, wrong key, mismatch...). Insignificant white space cannot
// slip through because only the canonical bytes are accepted.
TEST(AllSignedDocuments, EverySingleBitFlipIsRefused) {
  for (const Kind& kind : AllSignedKinds()) {
    ASSERT_TRUE(kind.accept(kind.bytes).ok())
        << kind.name << ": " << kind.accept(kind.bytes).ToString();
    int refused = 0;
    for (size_t i = 0; i < kind.bytes.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string m = kind.bytes;
        m[i] = static_cast<char>(m[i] ^ (1 << bit));
        Status st = kind.accept(m);
        ASSERT_FALSE(st.ok()) << kind.name << ": flipping bit " << bit << " of byte " << i
                              << " was accepted";
        ASSERT_EQ(st.code(), Code::kCorrupt) << kind.name << " byte " << i << ": " << st.ToString();
        ++refused;
      }
    }
    EXPECT_EQ(refused, static_cast<int>(kind.bytes.size() * 8)) << kind.name;
  }
}

TEST(AllSignedDocuments, TruncationsAndAppendsAreRefused) {
  for (const Kind& kind : AllSignedKinds()) {
    for (size_t n = 0; n < kind.bytes.size(); n += 13) {
      EXPECT_FALSE(kind.accept(kind.bytes.substr(0, n)).ok()) << kind.name << " cut at " << n;
    }
    EXPECT_FALSE(kind.accept(kind.bytes + "\n").ok()) << kind.name;
    EXPECT_FALSE(kind.accept(kind.bytes + " ").ok()) << kind.name;
  }
}

TEST(AllSignedDocuments, PrettyPrintedIsRefusedAsNotCanonical) {
  for (const Kind& kind : AllSignedKinds()) {
    std::string pretty = nlohmann::json::parse(kind.bytes).dump(2);
    EXPECT_REFUSED(kind.accept(pretty), Refusal::kNotCanonical);
  }
}

TEST(AllSignedDocuments, AValidDocumentSignedByAnotherKeyIsRefused) {
  PrivateKey mallory = FixedKey('\x66');
  for (const Kind& kind : AllSignedKinds()) {
    std::string forged = Resign(kind.bytes, mallory, [](nlohmann::json&) {});
    Status st = kind.accept(forged);
    EXPECT_FALSE(st.ok()) << kind.name;
    if (kind.name.rfind("record", 0) == 0) {
      // The record names the box key but is signed by another.
      EXPECT_REFUSED(st, Refusal::kMalformed);
    } else {
      EXPECT_REFUSED(st, Refusal::kWrongKey);
    }
  }
}

// A forger who writes the trusted key in "signer" but cannot sign with it.
TEST(AllSignedDocuments, AForgedSignerIsABadSignature) {
  PrivateKey mallory = FixedKey('\x66');
  for (const Kind& kind : AllSignedKinds()) {
    nlohmann::json o = nlohmann::json::parse(kind.bytes);
    std::string trusted_signer = o["signer"];
    o.erase("signature");
    o["signer"] = trusted_signer;
    std::string payload = Must(Canonicalize(o));
    o["signature"] = Base64Encode(Must(mallory.Sign(payload)));
    EXPECT_REFUSED(kind.accept(Must(Canonicalize(o))), Refusal::kBadSignature);
  }
}

// docs/protocol.md, "Unknown members": accepted and ignored, but covered by
// the signature and the digest.
TEST(AllSignedDocuments, UnknownMembersAreIgnoredButSigned) {
  std::vector<Kind> kinds = AllSignedKinds();
  for (const Kind& kind : kinds) {
    nlohmann::json o = nlohmann::json::parse(kind.bytes);
    const PrivateKey key =
        o["signer"] == BoxKey().public_key().ToString() ? BoxKey() : EnrollmentKeyForTest();
    std::string extended = Resign(kind.bytes, key, [](nlohmann::json& o) {
      o["zz_future"] = {{"nested", {1, 2, 3}}, {"flag", true}};
      o["aa_note"] = "from a newer writer";
    });
    EXPECT_TRUE(kind.accept(extended).ok())
        << kind.name << ": " << kind.accept(extended).ToString();
    EXPECT_NE(Sha256Digest(extended), Sha256Digest(kind.bytes));
    // The same member added after signing breaks the signature.
    nlohmann::json tampered = nlohmann::json::parse(kind.bytes);
    tampered["zz_future"] = "added later";
    EXPECT_REFUSED(kind.accept(Must(Canonicalize(tampered))), Refusal::kBadSignature);
  }
}

TEST(AllSignedDocuments, FormatTagsAreChecked) {
  std::vector<Kind> kinds = AllSignedKinds();
  for (const Kind& kind : kinds) {
    nlohmann::json o = nlohmann::json::parse(kind.bytes);
    const PrivateKey key =
        o["signer"] == BoxKey().public_key().ToString() ? BoxKey() : EnrollmentKeyForTest();
    std::string v2 = Resign(kind.bytes, key, [](nlohmann::json& o) {
      o["format"] = o["format"].get<std::string>() + "2";
    });
    EXPECT_REFUSED(kind.accept(v2), Refusal::kUnknownFormat);
    std::string none = Resign(kind.bytes, key, [](nlohmann::json& o) { o.erase("format"); });
    EXPECT_REFUSED(kind.accept(none), Refusal::kUnknownFormat);
    for (const Kind& other : kinds) {
      if (other.name.substr(0, 6) == kind.name.substr(0, 6)) continue;
      SCOPED_TRACE(kind.name + " as " + other.name);
      EXPECT_REFUSED(other.accept(kind.bytes), Refusal::kUnknownFormat);
    }
  }
}

TEST(AllSignedDocuments, MissingAndIllTypedFieldsAreMalformed) {
  for (const Kind& kind : AllSignedKinds()) {
    nlohmann::json o = nlohmann::json::parse(kind.bytes);
    const PrivateKey key =
        o["signer"] == BoxKey().public_key().ToString() ? BoxKey() : EnrollmentKeyForTest();
    std::string missing = Resign(kind.bytes, key, [](nlohmann::json& o) { o.erase("box"); });
    Status st = kind.accept(missing);
    EXPECT_REFUSED(st, Refusal::kMalformed);
    EXPECT_NE(st.message().find("\"box\" is missing"), std::string::npos) << st.ToString();
    std::string typed = Resign(kind.bytes, key, [](nlohmann::json& o) { o["box"] = 7; });
    st = kind.accept(typed);
    EXPECT_REFUSED(st, Refusal::kMalformed);
    EXPECT_NE(st.message().find("\"box\" is not a string"), std::string::npos) << st.ToString();
    std::string label = Resign(kind.bytes, key, [](nlohmann::json& o) { o["box"] = "WEB_1"; });
    EXPECT_REFUSED(kind.accept(label), Refusal::kMalformed);
    std::string array = Resign(kind.bytes, key, [](nlohmann::json&) {});
    EXPECT_REFUSED(kind.accept("[" + array + "]"), Refusal::kMalformed);
  }
}

TEST(AllSignedDocuments, TimesOutsideTheProtocolRangeAreMalformed) {
  std::string rd = RecordDigest();
  for (const char* t : {"9999-12-31T23:59:59Z", "1969-12-31T23:59:59Z", "2200-12-31T23:59:60Z",
                        "2026-11-29T18:00:00+01:00", "2026-11-29 18:00:00Z", "yesterday"}) {
    std::string bytes =
        Resign(Must(SignEnrollment(SampleEnrollment(rd), EnrollmentKeyForTest())),
               EnrollmentKeyForTest(), [&](nlohmann::json& o) { o["enrolled_at"] = t; });
    Status st = ParseEnrollment(bytes).status();
    EXPECT_REFUSED(st, Refusal::kMalformed);
    EXPECT_NE(st.message().find("\"enrolled_at\" is not an RFC 3339 UTC time"), std::string::npos)
        << t << ": " << st.ToString();
  }
  for (const char* t :
       {"2200-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00Z", "2026-11-29T18:00:00.000Z"}) {
    std::string bytes =
        Resign(Must(SignEnrollment(SampleEnrollment(rd), EnrollmentKeyForTest())),
               EnrollmentKeyForTest(), [&](nlohmann::json& o) { o["enrolled_at"] = t; });
    EXPECT_TRUE(ParseEnrollment(bytes).ok()) << t;
  }
  Enrollment far = SampleEnrollment(rd);
  far.enrolled_at = T0() + std::chrono::hours(24 * 365 * 200);
  EXPECT_EQ(SignEnrollment(far, EnrollmentKeyForTest()).status().code(), Code::kInvalidArgument);
}

TEST(AllSignedDocuments, OversizedIsRefusedBeforeParsing) {
  for (const Kind& kind : AllSignedKinds()) {
    std::string big = kind.bytes;
    big.insert(big.size() - 1, ",\"zz\":\"" + std::string(kMaxDocumentBytes, 'x') + "\"");
    EXPECT_REFUSED(kind.accept(big), Refusal::kOversized);
  }
  nlohmann::json o = {{"format", "carlos.edges/v1"}, {"pad", std::string(kMaxDocumentBytes, 'x')}};
  EXPECT_EQ(SignObject(o, BoxKey()).status().code(), Code::kInvalidArgument);
}

TEST(GuardFiles, RoundTripBindingAndArmed) {
  GuardFile g = SampleGuard();
  std::string bytes = Must(EncodeGuardFile(g));
  EXPECT_EQ(Must(Canonicalize(nlohmann::json::parse(bytes))), bytes);
  EXPECT_EQ(bytes.find("signature"), std::string::npos);
  Parsed<GuardFile> p = Must(ParseGuardFile(bytes));
  EXPECT_EQ(p.digest, Sha256Digest(bytes));
  EXPECT_FALSE(p.signer.has_value());
  EXPECT_EQ(p.doc.box, "web-1");
  EXPECT_EQ(p.doc.instance_id, "i-0123456789abcdef0");
  EXPECT_EQ(p.doc.region, "us-west-2");
  EXPECT_EQ(p.doc.record_digest, DigestOf("record"));
  EXPECT_EQ(p.doc.invitation_digest, DigestOf("invitation"));
  EXPECT_EQ(p.doc.policy.floor_release, std::optional<std::string>("0.1.0"));
  EXPECT_EQ(p.doc.installed_at, T0() + Seconds(30));
  GuardBinding want{"web-1", "i-0123456789abcdef0", "us-west-2", DigestOf("record"),
                    DigestOf("invitation")};
  EXPECT_TRUE(CheckGuardBinding(p.doc, want).ok());
  GuardBinding other = want;
  other.instance_id = "i-0fff";
  EXPECT_REFUSED(CheckGuardBinding(p.doc, other), Refusal::kMismatch);
  other = want;
  other.invitation_digest = DigestOf("newer invitation");
  EXPECT_REFUSED(CheckGuardBinding(p.doc, other), Refusal::kBoundToAnotherDigest);

  ArmedFile a{p.digest, T0() + Seconds(31)};
  Parsed<ArmedFile> pa = Must(ParseArmedFile(Must(EncodeArmedFile(a))));
  EXPECT_EQ(pa.doc.guard_digest, p.digest);
  EXPECT_EQ(pa.doc.armed_at, T0() + Seconds(31));
  EXPECT_TRUE(CheckArmedFor(pa.doc, p.digest).ok());
  // Reinstalled for a newer invitation: the old armed file no longer arms it.
  GuardFile g2 = g;
  g2.invitation_digest = DigestOf("newer invitation");
  std::string d2 = Must(ParseGuardFile(Must(EncodeGuardFile(g2)))).digest;
  EXPECT_REFUSED(CheckArmedFor(pa.doc, d2), Refusal::kBoundToAnotherDigest);
}

TEST(GuardFiles, RefusalsAndEveryChangeChangesTheDigest) {
  std::string bytes = Must(EncodeGuardFile(SampleGuard()));
  std::string digest = Sha256Digest(bytes);
  EXPECT_REFUSED(ParseGuardFile(nlohmann::json::parse(bytes).dump(1)).status(),
                 Refusal::kNotCanonical);
  EXPECT_REFUSED(ParseArmedFile(bytes).status(), Refusal::kUnknownFormat);
  EXPECT_REFUSED(ParseGuardFile("{\"format\":\"carlos.guard/v1\"}").status(), Refusal::kMalformed);
  EXPECT_REFUSED(ParseGuardFile(std::string(kMaxDocumentBytes + 1, ' ')).status(),
                 Refusal::kOversized);
  // Unsigned: a changed byte may still parse, but then the digest that the
  // armed file and the enrollment bind changes with it.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string m = bytes;
    m[i] ^= 0x01;
    auto p = ParseGuardFile(m);
    if (p.ok()) {
      EXPECT_NE(p->digest, digest);
    }
  }
  EXPECT_EQ(EncodeArmedFile({"sha256:x", T0()}).status().code(), Code::kInvalidArgument);
  GuardFile bad = SampleGuard();
  bad.record_digest = "";
  EXPECT_EQ(EncodeGuardFile(bad).status().code(), Code::kInvalidArgument);
}

TEST(StoreKeys, NamesAndBoxes) {
  EXPECT_EQ(RecordKey("web-1"), "control/boxes/web-1.json");
  EXPECT_EQ(InvitationKey("web-1"), "control/invitations/web-1.json");
  EXPECT_EQ(EnrollmentKey("web-1"), "control/enrollments/web-1.json");
  EXPECT_EQ(RetiredKey("web-1"), "control/retired/web-1.json");
  EXPECT_EQ(EdgesKey("web-1"), "control/edges/web-1.json");
  EXPECT_EQ(StatusKey("web-1"), "status/boxes/web-1.json");
  EXPECT_EQ(BoxOfKey(kRecordsPrefix, "control/boxes/web-1.json"),
            std::optional<std::string>("web-1"));
  EXPECT_EQ(BoxOfKey(kRecordsPrefix, "control/boxes/.json"), std::nullopt);
  EXPECT_EQ(BoxOfKey(kRecordsPrefix, "control/boxes/Web.json"), std::nullopt);
  EXPECT_EQ(BoxOfKey(kRecordsPrefix, "control/boxes/a/b.json"), std::nullopt);
  EXPECT_EQ(BoxOfKey(kRecordsPrefix, "control/edges/web-1.json"), std::nullopt);
  EXPECT_EQ(BoxOfKey(kRecordsPrefix, "control/boxes/web-1.txt"), std::nullopt);
  EXPECT_EQ(GuardFilePath("/data"), "/data/hostguard/guard.json");
  EXPECT_EQ(ArmedFilePath("/data"), "/data/hostguard/armed.json");
}

}  // namespace
}  // namespace carlos::identity
