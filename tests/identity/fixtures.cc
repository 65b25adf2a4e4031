#include "fixtures.h"

#include "identity/encoding.h"

namespace carlos::identity::testing {

PrivateKey FixedKey(char b) { return Must(PrivateKey::FromSeed(std::string(32, b))); }
PrivateKey BoxKey() { return FixedKey('\x01'); }
PrivateKey EnrollmentKeyForTest() { return FixedKey('\x02'); }

SystemTime T0() {
  SystemTime t;
  ParseRfc3339("2026-11-29T18:00:00Z", &t);
  return t;
}

std::string SampleIidDocument(const std::string& instance_id, const std::string& region) {
  return "{\n"
         "  \"accountId\" : \"123456789012\",\n"
         "  \"architecture\" : \"x86_64\",\n"
         "  \"availabilityZone\" : \"" +
         region +
         "a\",\n"
         "  \"billingProducts\" : null,\n"
         "  \"devpayProductCodes\" : null,\n"
         "  \"marketplaceProductCodes\" : null,\n"
         "  \"imageId\" : \"ami-0123456789abcdef0\",\n"
         "  \"instanceId\" : \"" +
         instance_id +
         "\",\n"
         "  \"instanceType\" : \"t3.micro\",\n"
         "  \"kernelId\" : null,\n"
         "  \"pendingTime\" : \"2026-11-29T17:58:03Z\",\n"
         "  \"privateIp\" : \"10.0.1.23\",\n"
         "  \"ramdiskId\" : null,\n"
         "  \"region\" : \"" +
         region +
         "\",\n"
         "  \"version\" : \"2017-09-30\"\n"
         "}";
}

const EmulatorCertificate& AwsCertForTest() {
  static const EmulatorCertificate* cert =
      new EmulatorCertificate(Must(MakeEmulatorCertificate("Amazon Web Services LLC (test)")));
  return *cert;
}

IdentityRecord SampleRecord(bool attested) {
  IdentityRecord r;
  r.box = "web-1";
  r.region = "us-west-2";
  r.machine_id = "4c4c4544003957108052b4c04f384833";
  r.instance_id = "i-0123456789abcdef0";
  r.group_reference = "web-asg";
  r.release = "0.1.0";
  r.platform = "linux-amd64";
  r.public_key = BoxKey().public_key();
  r.created_at = T0();
  if (attested) {
    std::string doc = SampleIidDocument();
    r.attestation =
        InstanceAttestation{doc, Must(SignInstanceIdentityDocumentAsEmulator(
                                     doc, AwsCertForTest().cert_pem, AwsCertForTest().key_pem))};
  }
  return r;
}

Invitation SampleInvitation(const std::string& record_digest) {
  return NewInvitation("web-1", record_digest, "us-west-2", T0(), false, "0.1.0");
}

Enrollment SampleEnrollment(const std::string& record_digest) {
  Enrollment e;
  e.box = "web-1";
  e.record_digest = record_digest;
  e.invitation_digest = DigestOf("invitation");
  e.guard_digest = DigestOf("guard");
  e.enrolled_at = T0() + Seconds(90);
  return e;
}

Retirement SampleRetirement(const std::string& record_digest) {
  Retirement r;
  r.box = "web-1";
  r.record_digest = record_digest;
  r.retired_at = T0() + Seconds(3600);
  r.reason = "replaced by web-7";
  return r;
}

EdgesFile SampleEdges() {
  EdgesFile e;
  e.box = "web-1";
  e.updated_at = T0() + Milliseconds(1500);
  e.edges = {"web-2", "web-3"};
  return e;
}

StatusReport SampleReport(bool with_guard) {
  StatusReport r;
  r.box = "web-1";
  r.region = "us-west-2";
  r.machine_id = "4c4c4544003957108052b4c04f384833";
  r.instance_id = "i-0123456789abcdef0";
  r.release = "0.1.0";
  r.platform = "linux-amd64";
  r.system_channel = "stable";
  r.reported_at = T0() + Seconds(60);
  r.hosting = false;
  r.stage = "guard-ready";
  if (with_guard) {
    GuardFacts g;
    g.installed = true;
    g.armed = true;
    g.guard_digest = DigestOf("guard");
    g.record_digest = DigestOf("record");
    g.invitation_digest = DigestOf("invitation");
    r.guard = g;
  }
  return r;
}

GuardFile SampleGuard() {
  GuardFile g;
  g.box = "web-1";
  g.instance_id = "i-0123456789abcdef0";
  g.region = "us-west-2";
  g.record_digest = DigestOf("record");
  g.invitation_digest = DigestOf("invitation");
  g.policy.floor_release = "0.1.0";
  g.installed_at = T0() + Seconds(30);
  return g;
}

std::string DigestOf(const std::string& s) { return Sha256Digest(s); }

}  // namespace carlos::identity::testing
