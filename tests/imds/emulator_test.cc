// The IMDS emulator's own rules, seen over HTTP as any client sees them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "dev/imds_emulator.h"
#include "fixture.h"
#include "test_http.h"

namespace carlos::dev {
namespace {

using namespace std::chrono_literals;
using carlos::testing::StartEmulator;
using carlos::testing::TestBox;
using carlos::testing::TestHttp;
using carlos::testing::TestT0;

const char kTtl[] = "X-aws-ec2-metadata-token-ttl-seconds: ";
const char kTok[] = "X-aws-ec2-metadata-token: ";

TEST(ImdsEmulator, TokenRules) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock);
  ASSERT_NE(emu, nullptr);
  std::string ep = emu->endpoint(0);
  EXPECT_EQ(TestHttp("PUT", ep + "/latest/api/token").status, 400);  // No TTL header.
  EXPECT_EQ(TestHttp("PUT", ep + "/latest/api/token", {std::string(kTtl) + "0"}).status, 400);
  EXPECT_EQ(TestHttp("PUT", ep + "/latest/api/token", {std::string(kTtl) + "21601"}).status, 400);
  EXPECT_EQ(TestHttp("PUT", ep + "/latest/api/token", {std::string(kTtl) + "abc"}).status, 400);
  EXPECT_EQ(TestHttp("PUT", ep + "/latest/api/token",
                     {std::string(kTtl) + "60", "X-Forwarded-For: 1.2.3.4"})
                .status,
            403);
  EXPECT_EQ(TestHttp("GET", ep + "/latest/api/token").status, 405);
  auto max = TestHttp("PUT", ep + "/latest/api/token", {std::string(kTtl) + "21600"});
  EXPECT_EQ(max.status, 200);
  auto tok = TestHttp("PUT", ep + "/latest/api/token", {std::string(kTtl) + "60"});
  ASSERT_EQ(tok.status, 200);
  EXPECT_NE(tok.headers.find("X-aws-ec2-metadata-token-ttl-seconds: 60"), std::string::npos);
  EXPECT_NE(tok.body, max.body);

  std::string id = ep + "/latest/meta-data/instance-id";
  EXPECT_EQ(TestHttp("GET", id).status, 401);                                  // No token.
  EXPECT_EQ(TestHttp("GET", id, {std::string(kTok) + "forged"}).status, 401);  // Unknown.
  auto ok = TestHttp("GET", id, {kTok + tok.body});
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "i-0de000000000000000");
  clock.Advance(60s);  // The TTL has passed.
  EXPECT_EQ(TestHttp("GET", id, {kTok + tok.body}).status, 401);
  EXPECT_EQ(TestHttp("GET", id, {kTok + max.body}).status, 200);
  EXPECT_EQ(TestHttp("GET", ep + "/latest/meta-data/nothing", {kTok + max.body}).status, 404);
  EXPECT_EQ(TestHttp("POST", id, {kTok + max.body}).status, 405);
}

TEST(ImdsEmulator, ImdsV1OptionalServesWithoutTokenButNotWithABadOne) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.allow_imdsv1 = true;
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  std::string id = emu->endpoint(0) + "/latest/meta-data/instance-id";
  EXPECT_EQ(TestHttp("GET", id).status, 200);
  EXPECT_EQ(TestHttp("GET", id, {std::string(kTok) + "forged"}).status, 401);
}

TEST(ImdsEmulator, EachBoxOnItsOwnPortWithItsOwnIdentity) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock, {TestBox(1), TestBox(2), TestBox(3)});
  ASSERT_NE(emu, nullptr);
  ASSERT_EQ(emu->boxes(), 3u);
  for (size_t i = 0; i < 3; i++) {
    std::string ep = emu->endpoint(i);
    auto tok = TestHttp("PUT", ep + "/latest/api/token", {std::string(kTtl) + "60"});
    auto doc =
        TestHttp("GET", ep + "/latest/dynamic/instance-identity/document", {kTok + tok.body});
    ASSERT_EQ(doc.status, 200);
    auto j = nlohmann::json::parse(doc.body);
    EXPECT_EQ(j["instanceId"], "i-0de00000000000000" + std::to_string(i + 1));
    EXPECT_EQ(j["region"], "eu-west-1");
    EXPECT_EQ(j["pendingTime"], FormatRfc3339(TestT0()));
    EXPECT_TRUE(j["kernelId"].is_null());
    // A token from one box is not valid on another.
    std::string other = emu->endpoint((i + 1) % 3);
    EXPECT_EQ(TestHttp("GET", other + "/latest/meta-data/instance-id", {kTok + tok.body}).status,
              401);
  }
}

TEST(ImdsEmulator, BasePortPlacesBoxesOnConsecutivePorts) {
  FakeClock clock(TestT0());
  ImdsEmulatorOptions o;
  o.boxes = {TestBox(1), TestBox(2)};
  o.cert_pem = carlos::testing::TestSigner().cert_pem;
  o.key_pem = carlos::testing::TestSigner().key_pem;
  o.clock = &clock;
  // Two consecutive free ports below the kernel's ephemeral range (32768 and
  // up), where other tests' outgoing connections cannot take them between
  // a probe and the start; a range another process holds is skipped.
  int base = 0;
  StatusOr<std::unique_ptr<ImdsEmulator>> emu = Internal("not started");
  for (int attempt = 0; attempt < 50; ++attempt) {
    base = 20000 + static_cast<int>((::getpid() * 131 + attempt * 997) % 12000);
    o.base_port = base;
    emu = ImdsEmulator::Start(o);
    if (emu.ok() || emu.status().message().find("in use") == std::string::npos) break;
  }
  ASSERT_TRUE(emu.ok()) << emu.status().ToString();
  EXPECT_EQ((*emu)->port(0), base);
  EXPECT_EQ((*emu)->port(1), base + 1);
  // The same ports again: a clear error naming the box.
  auto again = ImdsEmulator::Start(o);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("IMDS emulator box 0 (i-0de000000000000001)"),
            std::string::npos)
      << again.status().message();
  EXPECT_NE(again.status().message().find("in use"), std::string::npos);
}

TEST(ImdsEmulator, FaultsToOrder) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.fail_first = 2;
  box.hang_first = 1;
  box.hang_delay = 300ms;
  box.not_found = {"/latest/meta-data/placement/region"};
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  std::string ep = emu->endpoint(0);
  std::vector<std::string> ttl = {std::string(kTtl) + "60"};
  EXPECT_EQ(TestHttp("PUT", ep + "/latest/api/token", ttl).status, 500);
  EXPECT_EQ(TestHttp("PUT", ep + "/latest/api/token", ttl).status, 500);
  auto t0 = std::chrono::steady_clock::now();
  auto tok = TestHttp("PUT", ep + "/latest/api/token", ttl);
  EXPECT_EQ(tok.status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 300ms);
  EXPECT_EQ(TestHttp("GET", ep + "/latest/meta-data/placement/region", {kTok + tok.body}).status,
            404);
  EXPECT_EQ(
      TestHttp("GET", ep + "/latest/meta-data/placement/availability-zone", {kTok + tok.body}).body,
      "eu-west-1b");
  emu->Update(0, [](EmulatedBox& b) {
    b.tags_enabled = false;
    b.fail_first = 0;  // Update restarts the fault counts.
    b.hang_first = 0;
  });
  EXPECT_EQ(TestHttp("GET", ep + "/latest/meta-data/tags/instance/", {kTok + tok.body}).status,
            404);
  EXPECT_EQ(emu->requests(0), 6);
}

TEST(ImdsEmulator, StartErrors) {
  FakeClock clock(TestT0());
  ImdsEmulatorOptions o;
  o.clock = &clock;
  EXPECT_EQ(ImdsEmulator::Start(o).status().code(), Code::kInvalidArgument);  // No boxes.
  o.boxes = {TestBox()};
  o.cert_pem = "not a cert";
  o.key_pem = carlos::testing::TestSigner().key_pem;
  auto bad = ImdsEmulator::Start(o);
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(
      bad.status().message().find("IMDS emulator: the certificate is not a PEM X.509 certificate"),
      std::string::npos);
}

}  // namespace
}  // namespace carlos::dev
