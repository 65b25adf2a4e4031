// CARLOS_AWS_IID_CERT as operators write it: one PEM file holding several
// regions' certificates (iid.h, CheckCertificateBundle): every certificate
// is read and tried, and a file that holds something else is refused with
// the line that is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fixtures.h"
#include "identity/identity_record.h"
#include "identity/iid.h"
#include "identity/refusal.h"

namespace carlos::identity {
namespace {

using ::testing::HasSubstr;
using testing::Must;
using testing::SampleIidDocument;

// Two stand-ins for two regions' AWS certificates (A and B), made once.
const EmulatorCertificate& CertA() {
  static const EmulatorCertificate* c =
      new EmulatorCertificate(Must(MakeEmulatorCertificate("stand-in for AWS region A")));
  return *c;
}
const EmulatorCertificate& CertB() {
  static const EmulatorCertificate* c =
      new EmulatorCertificate(Must(MakeEmulatorCertificate("stand-in for AWS region B")));
  return *c;
}

TEST(CertificateBundle, DocumentSignedByTheSecondCertificateVerifies) {
  std::string doc = SampleIidDocument();
  std::string sig =
      Must(SignInstanceIdentityDocumentAsEmulator(doc, CertB().cert_pem, CertB().key_pem));
  std::string a_then_b = CertA().cert_pem + CertB().cert_pem;
  EXPECT_EQ(Must(CheckCertificateBundle(a_then_b)), 2u);
  Status st = VerifyInstanceIdentitySignature(doc, sig, a_then_b);
  EXPECT_TRUE(st.ok()) << st.ToString();
  // B then A, and with blank lines and CRLF line ends between them.
  std::string b_then_a = CertB().cert_pem + "\r\n\n" + CertA().cert_pem;
  EXPECT_TRUE(VerifyInstanceIdentitySignature(doc, sig, b_then_a).ok());
  // A alone does not verify it, and says so.
  Status a_only = VerifyInstanceIdentitySignature(doc, sig, CertA().cert_pem);
  EXPECT_EQ(a_only.code(), Code::kCorrupt);
  EXPECT_THAT(a_only.message(), HasSubstr("does not verify with the given certificate"));
  // Neither of two others does: the message counts them.
  Status neither = VerifyInstanceIdentitySignature(
      doc, sig, CertA().cert_pem + testing::AwsCertForTest().cert_pem);
  EXPECT_EQ(neither.code(), Code::kCorrupt);
  EXPECT_THAT(neither.message(), HasSubstr("any of the 2 given certificates"));
  // A document the signature does not sign is refused under the bundle.
  EXPECT_EQ(VerifyInstanceIdentitySignature(SampleIidDocument("i-0fffffffffffffff0"), sig, a_then_b)
                .code(),
            Code::kCorrupt);
}

TEST(CertificateBundle, RecordAttestationUsesEveryCertificate) {
  IdentityRecord r = testing::SampleRecord(/*attested=*/true);
  r.attestation->rsa2048 = Must(SignInstanceIdentityDocumentAsEmulator(
      r.attestation->document, CertB().cert_pem, CertB().key_pem));
  EXPECT_TRUE(VerifyRecordAttestation(r, CertA().cert_pem + CertB().cert_pem).ok());
  Status st = VerifyRecordAttestation(r, CertA().cert_pem);
  EXPECT_EQ(RefusalOf(st), Refusal::kUnattested);
}

TEST(CertificateBundle, FilesThatHoldSomethingElseAreRefused) {
  std::string a = CertA().cert_pem;
  struct Case {
    std::string pem;
    std::string says;
  };
  std::string damaged = a;
  damaged[damaged.size() / 2] = '!';
  std::string cut = a.substr(0, a.size() / 2);
  std::vector<Case> cases = {
      {"", "holds no PEM certificate"},
      {"\n  \n", "holds no PEM certificate"},
      {"this is not a certificate\n", "line 1 is neither part of a certificate nor blank"},
      {a + "trailing words\n", "is neither part of a certificate nor blank"},
      {CertA().key_pem, "not a certificate"},
      {a + CertB().key_pem, "not a certificate"},
      {damaged, "does not decode as an X.509 certificate"},
      {cut, "has no \"-----END CERTIFICATE-----\""},
      {cut + "\n" + a, "is cut off by line"},
  };
  for (const auto& c : cases) {
    auto n = CheckCertificateBundle(c.pem);
    EXPECT_EQ(n.status().code(), Code::kInvalidArgument) << c.pem;
    EXPECT_THAT(n.status().message(), HasSubstr(c.says)) << c.pem;
    // Verification refuses the same bundle the same way, never silently
    // using the certificates it could read.
    EXPECT_EQ(VerifyInstanceIdentitySignature("{}", "AAAA", c.pem).code(), Code::kInvalidArgument);
  }
}

TEST(CertificateBundle, ReadCertificateBundleFileRefusesAtOnce) {
  std::string dir =
      (std::filesystem::temp_directory_path() / ("carlos-bundle-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  std::string both = write("aws.pem", CertA().cert_pem + CertB().cert_pem);
  EXPECT_EQ(Must(ReadCertificateBundleFile(both)), CertA().cert_pem + CertB().cert_pem);
  auto key = ReadCertificateBundleFile(write("key.pem", CertA().key_pem));
  EXPECT_EQ(key.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(key.status().message(), HasSubstr(dir + "/key.pem is refused"));
  auto none = ReadCertificateBundleFile(write("empty.pem", ""));
  EXPECT_THAT(none.status().message(), HasSubstr("holds no PEM certificate"));
  EXPECT_EQ(ReadCertificateBundleFile(dir + "/missing.pem").status().code(), Code::kNotFound);
  auto big = ReadCertificateBundleFile(
      write("big.pem", std::string(kMaxCertificateBundleBytes + 1, '\n')));
  EXPECT_EQ(big.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(big.status().message(), HasSubstr("larger than"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace carlos::identity
