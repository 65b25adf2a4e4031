// The group reference and the instance identity (attested or why not),
// through the client, against the emulator.
#include "imds/group_reference.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>

#include <random>
#include <regex>

#include "fixture.h"
#include "identity/iid.h"
#include "imds/instance_identity.h"

namespace carlos::imds {
namespace {

using namespace std::chrono_literals;
using carlos::testing::ClientOptions;
using carlos::testing::StartEmulator;
using carlos::testing::TestBox;
using carlos::testing::TestSigner;
using carlos::testing::TestT0;

bool IsDnsLabel(const std::string& s) {
  static const std::regex re("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$");
  return std::regex_match(s, re);
}

TEST(GroupBoxLabel, Examples) {
  EXPECT_EQ(GroupBoxLabel("Web EU/Prod", "i-0abc123"), "web-eu-prod-0abc123");
  EXPECT_EQ(GroupBoxLabel("web", "i-0123456789abcdef0"), "web-0123456789abcdef0");
  EXPECT_EQ(GroupBoxLabel("--Déjà vu__", "i-1"), "d-j-vu-1");
  EXPECT_EQ(GroupBoxLabel("", "i-0abc"), "box-0abc");
  EXPECT_EQ(GroupBoxLabel("!!!", "i-0abc"), "box-0abc");
  EXPECT_EQ(GroupBoxLabel("grp", ""), "grp");
  EXPECT_EQ(GroupBoxLabel("", ""), "box");
  std::string longg(100, 'a');
  std::string l = GroupBoxLabel(longg, "i-0123456789abcdef0");
  EXPECT_EQ(l.size(), 63u);
  EXPECT_EQ(l, std::string(45, 'a') + "-0123456789abcdef0");
  // A cut that would end in '-' is trimmed.
  std::string dashy = std::string(44, 'a') + "-bbbb";
  EXPECT_EQ(GroupBoxLabel(dashy, "i-0123456789abcdef0"),
            std::string(44, 'a') + "-0123456789abcdef0");
}

TEST(GroupBoxLabel, AlwaysAValidDeterministicLabel) {
  std::mt19937 rng(7);
  const std::string alphabet = "abcXYZ019-_ :/.@é\t";
  for (int i = 0; i < 5000; i++) {
    std::string g, id;
    for (int n = rng() % 90; n > 0; n--) g += alphabet[rng() % alphabet.size()];
    for (int n = rng() % 70; n > 0; n--) id += alphabet[rng() % alphabet.size()];
    std::string l = GroupBoxLabel(g, id);
    ASSERT_TRUE(IsDnsLabel(l)) << "group=\"" << g << "\" id=\"" << id << "\" -> \"" << l << "\"";
    ASSERT_EQ(l, GroupBoxLabel(g, id));
  }
}

TEST(ResolveGroupReference, CarlosGroupTagWins) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.tags["aws:autoscaling:groupName"] = "asg-web";
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  auto ref = ResolveGroupReference(c);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(ref->group, "Web EU");
  EXPECT_EQ(ref->tag, "carlos:group");
  EXPECT_EQ(ref->instance_id, "i-0de000000000000000");
  EXPECT_EQ(ref->label, "web-eu-0de000000000000000");
}

TEST(ResolveGroupReference, AutoscalingGroupNameIsTheFallback) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.tags = {{"aws:autoscaling:groupName", "asg-web"}};
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  auto ref = ResolveGroupReference(c);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(ref->group, "asg-web");
  EXPECT_EQ(ref->tag, "aws:autoscaling:groupName");
  EXPECT_EQ(ref->label, "asg-web-0de000000000000000");
}

TEST(ResolveGroupReference, EachFailureHasItsOwnCause) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.tags = {{"Name", "x"}};
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);

  auto missing = ResolveGroupReference(c);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "the instance has neither tag carlos:group nor aws:autoscaling:groupName (its tags "
            "in metadata: Name); launch it from its region's group, or tag it carlos:group");

  emu->Update(0, [](dev::EmulatedBox& b) { b.tags = {{"carlos:group", "  "}}; });
  auto blank = ResolveGroupReference(c);
  EXPECT_EQ(blank.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(blank.status().message(), "the instance's tag carlos:group is set but blank");

  emu->Update(0, [](dev::EmulatedBox& b) {
    b.tags = {{"carlos:group", "g"}};
    b.tags_enabled = false;
  });
  auto disabled = ResolveGroupReference(c);
  EXPECT_EQ(disabled.status().code(), Code::kPreconditionFailed);
  EXPECT_NE(disabled.status().message().find("instance metadata tags"), std::string::npos);

  emu->Update(0, [](dev::EmulatedBox& b) {
    b.tags_enabled = true;
    b.not_found = {"/latest/meta-data/instance-id"};
  });
  auto no_id = ResolveGroupReference(c);
  EXPECT_EQ(no_id.status().code(), Code::kNotFound);
  EXPECT_NE(no_id.status().message().find("404 to GET /latest/meta-data/instance-id"),
            std::string::npos);

  emu->Update(0, [](dev::EmulatedBox& b) {
    b.not_found.clear();
    b.fail_first = 1;
  });
  auto five = ResolveGroupReference(c);
  EXPECT_EQ(five.status().code(), Code::kUnavailable);
  EXPECT_NE(five.status().message().find("IMDS answered 500"), std::string::npos);

  emu->Update(0, [](dev::EmulatedBox& b) {
    b.fail_first = 0;
    b.hang_first = 1;
    b.hang_delay = 3s;
  });
  auto o = ClientOptions(emu->endpoint(0));
  o.request_timeout = 200ms;
  ImdsClient impatient(o, &clock);
  auto slow = ResolveGroupReference(impatient);
  EXPECT_EQ(slow.status().code(), Code::kDeadlineExceeded);
  EXPECT_NE(slow.status().message().find("did not answer"), std::string::npos);

  ASSERT_TRUE(ResolveGroupReference(c).ok());
}

// Verifies a base64 rsa2048 signature as `openssl smime -verify -noverify
// -inform PEM -certfile cert` does, returning the signed content.
std::string VerifiedContent(const std::string& rsa2048, const std::string& cert_pem) {
  std::string pem = "-----BEGIN PKCS7-----\n" + rsa2048 + "\n-----END PKCS7-----\n";
  BIO* pb = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  PKCS7* p7 = PEM_read_bio_PKCS7(pb, nullptr, nullptr, nullptr);
  BIO* cb = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
  STACK_OF(X509)* certs = sk_X509_new_null();
  sk_X509_push(certs, cert);
  BIO* out = BIO_new(BIO_s_mem());
  std::string content = "<did not verify>";
  if (p7 && PKCS7_verify(p7, certs, nullptr, nullptr, out,
                         PKCS7_NOVERIFY | PKCS7_NOINTERN | PKCS7_BINARY) == 1) {
    char* d = nullptr;
    long n = BIO_get_mem_data(out, &d);
    content.assign(d, static_cast<size_t>(n));
  }
  BIO_free(out);
  sk_X509_pop_free(certs, X509_free);
  BIO_free(cb);
  PKCS7_free(p7);
  BIO_free(pb);
  return content;
}

TEST(ReadInstanceIdentity, AttestedOnEc2) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock);
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  auto id = ReadInstanceIdentity(c);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_TRUE(id->attested());
  EXPECT_EQ(id->instance_id, "i-0de000000000000000");
  EXPECT_EQ(id->region, "eu-west-1");
  EXPECT_EQ(id->document, emu->document(0));
  EXPECT_EQ(VerifiedContent(id->rsa2048, TestSigner().cert_pem), id->document);
  // Another certificate does not verify it.
  auto other = identity::MakeEmulatorCertificate("other");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(VerifiedContent(id->rsa2048, other->cert_pem), "<did not verify>");
  // And the enroller's own check (identity) accepts it with the emulator's
  // certificate and refuses it with another.
  EXPECT_TRUE(
      identity::VerifyInstanceIdentitySignature(id->document, id->rsa2048, TestSigner().cert_pem)
          .ok());
  EXPECT_FALSE(
      identity::VerifyInstanceIdentitySignature(id->document, id->rsa2048, other->cert_pem).ok());
}

TEST(ReadInstanceIdentity, OffBySettingIsUnattested) {
  FakeClock clock(TestT0());
  ImdsClient c(ImdsOptionsFromEnv(MapGetenv({{"CARLOS_IMDS_ENDPOINT", "off"}})), &clock);
  auto id = ReadInstanceIdentity(c);
  ASSERT_TRUE(id.ok());
  EXPECT_FALSE(id->attested());
  EXPECT_EQ(id->unattested, Unattested::kOffBySetting);
  EXPECT_NE(id->unattested_reason.find("CARLOS_IMDS_ENDPOINT=off"), std::string::npos);
  EXPECT_TRUE(id->document.empty());
}

TEST(ReadInstanceIdentity, ImdsAnsweringWithErrorsIsAnErrorNotUnattested) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.not_found = {"/latest/dynamic/instance-identity/rsa2048"};
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  auto id = ReadInstanceIdentity(c);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Code::kNotFound);
  emu->Update(0, [](dev::EmulatedBox& b) {
    b.not_found.clear();
    b.fail_first = 2;  // The reachability probe's token PUT, then the read's.
  });
  ImdsClient fresh(ClientOptions(emu->endpoint(0)), &clock);
  auto five = ReadInstanceIdentity(fresh);
  ASSERT_FALSE(five.ok());
  EXPECT_EQ(five.status().code(), Code::kUnavailable);
  EXPECT_NE(five.status().message().find("500"), std::string::npos);
}

}  // namespace
}  // namespace carlos::imds
