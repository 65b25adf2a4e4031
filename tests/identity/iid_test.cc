#include "identity/iid.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>

#include "fixtures.h"
#include "identity/encoding.h"

namespace carlos::identity {
namespace {

using testing::AwsCertForTest;
using testing::Must;
using testing::SampleIidDocument;

TEST(InstanceIdentityDocument, ParsesImdsDocument) {
  std::string raw = SampleIidDocument();
  InstanceIdentityDocument doc = Must(ParseInstanceIdentityDocument(raw));
  EXPECT_EQ(doc.raw, raw);
  EXPECT_EQ(doc.instance_id, "i-0123456789abcdef0");
  EXPECT_EQ(doc.region, "us-west-2");
  EXPECT_EQ(doc.account_id, "123456789012");
  EXPECT_EQ(doc.image_id, "ami-0123456789abcdef0");
  EXPECT_EQ(doc.instance_type, "t3.micro");
  EXPECT_EQ(doc.availability_zone, "us-west-2a");
  EXPECT_EQ(doc.private_ip, "10.0.1.23");
  EXPECT_EQ(doc.architecture, "x86_64");
  ASSERT_TRUE(doc.pending_time.has_value());
  EXPECT_EQ(FormatRfc3339(*doc.pending_time), "2026-11-29T17:58:03Z");
}

TEST(InstanceIdentityDocument, RefusesMissingOrIllTypedFields) {
  for (std::string raw :
       {std::string("not json"), std::string("[]"),
        std::string(R"({"region":"us-west-2","accountId":"1"})"),
        std::string(R"({"instanceId":"i-1","region":"","accountId":"1"})"),
        std::string(R"({"instanceId":7,"region":"r","accountId":"1"})"),
        std::string(
            R"({"instanceId":"i-1","region":"r","accountId":"1","pendingTime":"yesterday"})"),
        std::string(R"({"instanceId":"i-1","region":"r","accountId":"1","privateIp":[]})"),
        std::string(kMaxInstanceIdentityBytes + 1, ' ')}) {
    EXPECT_EQ(ParseInstanceIdentityDocument(raw).status().code(), Code::kCorrupt) << raw;
  }
}

TEST(InstanceIdentitySignature, VerifiesWhatAwsStyleSigningProduces) {
  std::string doc = SampleIidDocument();
  const auto& aws = AwsCertForTest();
  std::string sig = Must(SignInstanceIdentityDocumentAsEmulator(doc, aws.cert_pem, aws.key_pem));
  // Wrapped at 64 columns like IMDS serves it.
  EXPECT_NE(sig.find('\n'), std::string::npos);
  EXPECT_EQ(sig.find('\n'), 64u);
  Status st = VerifyInstanceIdentitySignature(doc, sig, aws.cert_pem);
  EXPECT_TRUE(st.ok()) << st.ToString();
  // With the PEM armour AWS's instructions add, it still verifies.
  std::string armoured = "-----BEGIN PKCS7-----\n" + sig + "\n-----END PKCS7-----\n";
  EXPECT_TRUE(VerifyInstanceIdentitySignature(doc, armoured, aws.cert_pem).ok());
}

TEST(InstanceIdentitySignature, RefusesADocumentAlteredAfterSigning) {
  std::string doc = SampleIidDocument();
  const auto& aws = AwsCertForTest();
  std::string sig = Must(SignInstanceIdentityDocumentAsEmulator(doc, aws.cert_pem, aws.key_pem));
  std::string altered = SampleIidDocument("i-0fffffffffffffff0");
  Status st = VerifyInstanceIdentitySignature(altered, sig, aws.cert_pem);
  EXPECT_EQ(st.code(), Code::kCorrupt);
  EXPECT_NE(st.message().find("another document"), std::string::npos) << st.ToString();
  // One changed byte anywhere in the document.
  for (size_t i = 0; i < doc.size(); i += 7) {
    std::string d = doc;
    d[i] ^= 0x01;
    EXPECT_FALSE(VerifyInstanceIdentitySignature(d, sig, aws.cert_pem).ok()) << i;
  }
}

TEST(InstanceIdentitySignature, RefusesASignatureByAnotherCertificate) {
  std::string doc = SampleIidDocument();
  const auto& aws = AwsCertForTest();
  EmulatorCertificate other = Must(MakeEmulatorCertificate("Not AWS"));
  std::string sig =
      Must(SignInstanceIdentityDocumentAsEmulator(doc, other.cert_pem, other.key_pem));
  EXPECT_TRUE(VerifyInstanceIdentitySignature(doc, sig, other.cert_pem).ok());
  Status st = VerifyInstanceIdentitySignature(doc, sig, aws.cert_pem);
  EXPECT_EQ(st.code(), Code::kCorrupt) << st.ToString();
}

// `openssl smime -verify -noverify` would accept a PKCS #7 that carries its
// own signer certificate; the verification here must not.
TEST(InstanceIdentitySignature, IgnoresACertificateCarriedInsideThePkcs7) {
  std::string doc = SampleIidDocument();
  const auto& aws = AwsCertForTest();
  EmulatorCertificate other = Must(MakeEmulatorCertificate("Amazon Web Services LLC (test)"));
  BIO* cbio = BIO_new_mem_buf(other.cert_pem.data(), static_cast<int>(other.cert_pem.size()));
  BIO* kbio = BIO_new_mem_buf(other.key_pem.data(), static_cast<int>(other.key_pem.size()));
  X509* cert = PEM_read_bio_X509(cbio, nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(kbio, nullptr, nullptr, nullptr);
  BIO* content = BIO_new_mem_buf(doc.data(), static_cast<int>(doc.size()));
  PKCS7* p7 = PKCS7_sign(cert, key, nullptr, content, PKCS7_BINARY);  // Certificate included.
  ASSERT_NE(p7, nullptr);
  unsigned char* der = nullptr;
  int len = i2d_PKCS7(p7, &der);
  std::string sig =
      Base64Encode(std::string(reinterpret_cast<char*>(der), static_cast<size_t>(len)));
  OPENSSL_free(der);
  PKCS7_free(p7);
  BIO_free(content);
  EVP_PKEY_free(key);
  X509_free(cert);
  BIO_free(kbio);
  BIO_free(cbio);
  EXPECT_EQ(VerifyInstanceIdentitySignature(doc, sig, aws.cert_pem).code(), Code::kCorrupt);
}

TEST(InstanceIdentitySignature, RefusesGarbage) {
  std::string doc = SampleIidDocument();
  const auto& aws = AwsCertForTest();
  EXPECT_EQ(VerifyInstanceIdentitySignature(doc, "", aws.cert_pem).code(), Code::kCorrupt);
  EXPECT_EQ(VerifyInstanceIdentitySignature(doc, "!!!!", aws.cert_pem).code(), Code::kCorrupt);
  EXPECT_EQ(VerifyInstanceIdentitySignature(doc, Base64Encode("not der"), aws.cert_pem).code(),
            Code::kCorrupt);
  std::string sig = Must(SignInstanceIdentityDocumentAsEmulator(doc, aws.cert_pem, aws.key_pem));
  EXPECT_EQ(VerifyInstanceIdentitySignature(doc, sig, "not a cert").code(), Code::kInvalidArgument);
  EXPECT_EQ(SignInstanceIdentityDocumentAsEmulator(doc, aws.cert_pem, "nope").status().code(),
            Code::kInvalidArgument);
  EmulatorCertificate other = Must(MakeEmulatorCertificate("x"));
  EXPECT_EQ(
      SignInstanceIdentityDocumentAsEmulator(doc, aws.cert_pem, other.key_pem).status().code(),
      Code::kInvalidArgument);
}

}  // namespace
}  // namespace carlos::identity
