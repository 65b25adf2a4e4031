// Writes the fuzz targets' seed corpus: small valid inputs for each target,
// signed with the fixed keys of support.h. Usage:
//   build-fuzz/fuzz/carlos_fuzz_make_corpus fuzz/corpus
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/files.h"
#include "identity/edges_file.h"
#include "identity/encoding.h"
#include "identity/enrollment.h"
#include "identity/guard_files.h"
#include "identity/identity_record.h"
#include "identity/iid.h"
#include "identity/invitation.h"
#include "identity/retirement.h"
#include "identity/status_report.h"
#include "support.h"

using namespace carlos;            // NOLINT
using namespace carlos::identity;  // NOLINT

namespace {

template <typename T>
T Must(StatusOr<T> v) {
  if (!v.ok()) fuzz::Fail(v.status().ToString());
  return std::move(v).value();
}

SystemTime T0() {
  SystemTime t;
  ParseRfc3339("2026-11-29T18:00:00Z", &t);
  return t;
}

std::string D(const std::string& s) { return Sha256Digest(s); }

void Write(const std::string& root, const std::string& target,
           const std::vector<std::string>& seeds) {
  std::string dir = root + "/" + target;
  Status st = MakeDirs(dir, 0755);
  if (!st.ok()) fuzz::Fail(st.ToString());
  for (size_t i = 0; i < seeds.size(); ++i) {
    st = WriteFileAtomic(dir + "/seed-" + std::to_string(i), seeds[i], 0644);
    if (!st.ok()) fuzz::Fail(st.ToString());
  }
  std::printf("%s: %zu seeds\n", target.c_str(), seeds.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  std::string root = argv[1];
  std::string iid = fuzz::SampleIid();
  std::string rsa =
      Must(SignInstanceIdentityDocumentAsEmulator(iid, fuzz::kAwsCertPem, fuzz::kAwsKeyPem));

  IdentityRecord r;
  r.box = "web-1";
  r.region = "us-west-2";
  r.machine_id = "4c4c4544003957108052b4c04f384833";
  r.instance_id = "i-0123456789abcdef0";
  r.release = "0.1.0";
  r.platform = "linux-amd64";
  r.public_key = fuzz::BoxKey().public_key();
  r.created_at = T0();
  std::string unattested = Must(SignIdentityRecord(r, fuzz::BoxKey()));
  r.group_reference = "web-asg";
  r.attestation = InstanceAttestation{iid, rsa};
  std::string attested = Must(SignIdentityRecord(r, fuzz::BoxKey()));
  Write(root, "identity_record_fuzz", {unattested, attested});

  std::string rd = D(unattested);
  Invitation inv = NewInvitation("web-1", rd, "us-west-2", T0(), false, "0.1.0");
  Invitation forced = NewInvitation("web-2", rd, "us-west-2", T0(), true, std::nullopt);
  std::string inv_bytes = Must(SignInvitation(inv, fuzz::EnrollmentKey()));
  Write(root, "invitation_fuzz", {inv_bytes, Must(SignInvitation(forced, fuzz::EnrollmentKey()))});

  Enrollment e{"web-1", rd, D(inv_bytes), D("guard"), T0() + Seconds(90)};
  Write(root, "enrollment_fuzz", {Must(SignEnrollment(e, fuzz::EnrollmentKey()))});

  Retirement ret{"web-1", rd, T0() + Seconds(3600), "replaced by web-7"};
  Write(root, "retirement_fuzz", {Must(SignRetirement(ret, fuzz::EnrollmentKey()))});

  EdgesFile edges{"web-1", T0() + Milliseconds(1500), {"web-2", "web-3"}};
  EdgesFile none{"web-2", T0(), {}};
  Write(root, "edges_file_fuzz",
        {Must(SignEdgesFile(edges, fuzz::BoxKey())), Must(SignEdgesFile(none, fuzz::BoxKey()))});

  StatusReport rep;
  rep.box = "web-1";
  rep.region = "us-west-2";
  rep.machine_id = r.machine_id;
  rep.instance_id = r.instance_id;
  rep.release = "0.1.0";
  rep.platform = "linux-amd64";
  rep.system_channel = "stable";
  rep.reported_at = T0() + Seconds(60);
  rep.stage = "recorded";
  std::string plain = Must(SignStatusReport(rep, fuzz::BoxKey()));
  rep.stage = "guard-installed";
  rep.guard = GuardFacts{true, false, D("guard"), rd, D(inv_bytes), "release below the floor"};
  std::string installed = Must(SignStatusReport(rep, fuzz::BoxKey()));
  rep.stage = "guard-ready";
  rep.guard = GuardFacts{true, true, D("guard"), rd, D(inv_bytes), std::nullopt};
  std::string ready = Must(SignStatusReport(rep, fuzz::BoxKey()));
  Write(root, "status_report_fuzz", {plain, installed, ready});

  GuardFile g{"web-1",   "i-0123456789abcdef0", "us-west-2", rd, D(inv_bytes),
              {"0.1.0"}, T0() + Seconds(30)};
  std::string guard = Must(EncodeGuardFile(g));
  std::string armed = Must(EncodeArmedFile({D(guard), T0() + Seconds(31)}));
  Write(root, "guard_files_fuzz", {std::string(1, '\0') + guard, std::string(1, '\1') + armed});

  std::string der = Must(Base64DecodeWrapped(rsa));
  Write(root, "iid_fuzz",
        {std::string(1, '\0') + iid, std::string(1, '\1') + rsa, std::string(1, '\2') + der,
         std::string(1, '\3') + iid});

  std::string pem = Must(fuzz::BoxKey().ToPem());
  std::string sig = Must(fuzz::BoxKey().Sign("message"));
  Write(root, "keys_fuzz",
        {std::string(1, '\0') + fuzz::BoxKey().public_key().ToString(), std::string(1, '\1') + pem,
         std::string(1, '\2') + Base64Encode("hello, world"), std::string(1, '\3') + rsa,
         std::string(1, '\4') + sig});

  Write(root, "canonical_fuzz",
        {R"({"a":[1,-2,true,false,null],"b":{"c":"\u001f\n\"\\"}})",
         "{\"\\r\":1,\"1\":2,\"\xc2\x80\":3,\"\xf0\x9f\x98\x80\":4,\"\xef\xac\xb3\":5}",
         "[9007199254740991,-9007199254740991,0]", " { \"b\" : 1 , \"a\" : 2 } ", inv_bytes});
  return 0;
}
