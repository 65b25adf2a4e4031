// The IMDSv2 client against the emulator (real sockets) and against
// scripted servers for the answers the emulator does not give.
#include "imds/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fixture.h"
#include "net/http_server.h"

namespace carlos::imds {
namespace {

using namespace std::chrono_literals;
using carlos::testing::ClientOptions;
using carlos::testing::StartEmulator;
using carlos::testing::TestBox;
using carlos::testing::TestT0;

bool Has(const Status& s, const std::string& text) {
  return s.message().find(text) != std::string::npos;
}

TEST(ImdsOptions, FromEnvironment) {
  EXPECT_EQ(ImdsOptionsFromEnv(MapGetenv({})).endpoint, "http://169.254.169.254");
  EXPECT_EQ(
      ImdsOptionsFromEnv(MapGetenv({{"CARLOS_IMDS_ENDPOINT", "http://127.0.0.1:9/"}})).endpoint,
      "http://127.0.0.1:9");
  EXPECT_EQ(ImdsOptionsFromEnv(MapGetenv({{"CARLOS_IMDS_ENDPOINT", " off "}})).endpoint, "");
}

TEST(ImdsClient, TokenFlowAndReads) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock);
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  EXPECT_FALSE(c.off());
  auto id = c.InstanceId();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, "i-0de000000000000000");
  EXPECT_EQ(emu->requests(0), 2);  // PUT token, GET.
  auto region = c.Region();
  ASSERT_TRUE(region.ok());
  EXPECT_EQ(*region, "eu-west-1");
  EXPECT_EQ(emu->requests(0), 3);  // The token is reused.
  auto doc = c.IdentityDocument();
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(*doc, emu->document(0));
  EXPECT_NE(doc->find("\"instanceId\" : \"i-0de000000000000000\""), std::string::npos);
  auto sig = c.IdentityRsa2048();
  ASSERT_TRUE(sig.ok());
  EXPECT_GT(sig->size(), 1000u);
  EXPECT_EQ(sig->find("BEGIN"), std::string::npos);
}

TEST(ImdsClient, RenewsTheTokenBeforeItExpires) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock);
  ASSERT_NE(emu, nullptr);
  auto o = ClientOptions(emu->endpoint(0));
  o.token_ttl = 600s;
  ImdsClient c(o, &clock);
  ASSERT_TRUE(c.InstanceId().ok());
  EXPECT_EQ(emu->requests(0), 2);
  clock.Advance(600s - 61s);  // Still more than token_renew_before left.
  ASSERT_TRUE(c.InstanceId().ok());
  EXPECT_EQ(emu->requests(0), 3);
  clock.Advance(2s);  // Now inside the renewal window: a new token first.
  ASSERT_TRUE(c.InstanceId().ok());
  EXPECT_EQ(emu->requests(0), 5);
}

TEST(ImdsClient, RefetchesTheTokenAfterA401) {
  FakeClock client_clock(TestT0());
  FakeClock imds_clock(TestT0());
  auto emu = StartEmulator(&imds_clock);
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &client_clock);
  ASSERT_TRUE(c.InstanceId().ok());
  // IMDS's view of time moves past the token's TTL (the client's does not):
  // the next GET gets 401, the client fetches a new token and retries.
  imds_clock.Advance(7h);
  auto id = c.InstanceId();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(emu->requests(0), 5);  // PUT, GET; GET 401, PUT, GET.
}

TEST(ImdsClient, A401AfterAFreshTokenIsDenied) {
  std::atomic<int> puts{0};
  auto srv = net::HttpServer::Start({.address = "127.0.0.1:0"}, [&](const net::HttpRequest& r) {
    net::HttpResponse res;
    if (r.method == "PUT") {
      puts++;
      res.body = "tok" + std::to_string(puts.load());
    } else {
      res.status = 401;
    }
    return res;
  });
  ASSERT_TRUE(srv.ok());
  FakeClock clock(TestT0());
  ImdsClient c(ClientOptions("http://127.0.0.1:" + std::to_string((*srv)->port())), &clock);
  auto id = c.InstanceId();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Code::kDenied);
  EXPECT_TRUE(Has(id.status(), "401")) << id.status().message();
  EXPECT_TRUE(Has(id.status(), "freshly fetched session token")) << id.status().message();
  EXPECT_EQ(puts.load(), 2);
}

TEST(ImdsClient, TimeoutSaysNotAnswering) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.hang_first = 100;
  box.hang_delay = 5s;
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  auto o = ClientOptions(emu->endpoint(0));
  o.request_timeout = 300ms;
  ImdsClient c(o, &clock);
  auto t0 = std::chrono::steady_clock::now();
  auto id = c.InstanceId();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Code::kDeadlineExceeded);
  EXPECT_TRUE(Has(id.status(), "did not answer within 300ms")) << id.status().message();
  EXPECT_TRUE(Has(id.status(), "not on EC2")) << id.status().message();
  EXPECT_FALSE(c.Reachable().ok());
}

TEST(ImdsClient, RefusedConnectionIsUnavailable) {
  int port;
  {
    auto srv = net::HttpServer::Start({.address = "127.0.0.1:0"},
                                      [](const net::HttpRequest&) { return net::HttpResponse{}; });
    ASSERT_TRUE(srv.ok());
    port = (*srv)->port();
  }  // Closed: nothing listens there now.
  FakeClock clock(TestT0());
  ImdsClient c(ClientOptions("http://127.0.0.1:" + std::to_string(port)), &clock);
  auto id = c.InstanceId();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Code::kUnavailable);
  EXPECT_TRUE(Has(id.status(), "is not answering")) << id.status().message();
}

TEST(ImdsClient, OffSendsNothing) {
  FakeClock clock(TestT0());
  ImdsClient c(ImdsOptionsFromEnv(MapGetenv({{"CARLOS_IMDS_ENDPOINT", "off"}})), &clock);
  EXPECT_TRUE(c.off());
  auto id = c.InstanceId();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Code::kUnavailable);
  EXPECT_TRUE(Has(id.status(), "CARLOS_IMDS_ENDPOINT=off")) << id.status().message();
}

TEST(ImdsClient, NotFoundAndServerErrors) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.fail_first = 2;
  box.not_found = {"/latest/meta-data/placement/region"};
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  auto first = c.InstanceId();  // The token PUT answers 500.
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), Code::kUnavailable);
  EXPECT_TRUE(Has(first.status(), "IMDS answered 500 to PUT /latest/api/token"))
      << first.status().message();
  auto second = c.InstanceId();  // Token PUT again: 500 again.
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(Has(second.status(), "500"));
  ASSERT_TRUE(c.InstanceId().ok());
  auto region = c.Region();
  ASSERT_FALSE(region.ok());
  EXPECT_EQ(region.status().code(), Code::kNotFound);
  EXPECT_TRUE(Has(region.status(), "IMDS answered 404 to GET /latest/meta-data/placement/region"))
      << region.status().message();
}

TEST(ImdsClient, TagsMissingTagAndTagsNotEnabled) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.tags["my key"] = "spaced";
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  auto keys = c.TagKeys();
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"Name", "carlos:group", "my key"}));
  auto g = c.Tag("carlos:group");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, "Web EU");
  auto spaced = c.Tag("my key");
  ASSERT_TRUE(spaced.ok()) << spaced.status().ToString();
  EXPECT_EQ(*spaced, "spaced");
  auto missing = c.Tag("aws:autoscaling:groupName");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "the instance has no tag aws:autoscaling:groupName (its tags in metadata: Name, "
            "carlos:group, my key)");

  emu->Update(0, [](dev::EmulatedBox& b) { b.tags_enabled = false; });
  auto off = c.Tag("carlos:group");
  ASSERT_FALSE(off.ok());
  EXPECT_EQ(off.status().code(), Code::kPreconditionFailed);
  EXPECT_TRUE(Has(off.status(), "instance tags are not enabled")) << off.status().message();
  EXPECT_TRUE(Has(off.status(), "enable \"instance metadata tags\"")) << off.status().message();
  EXPECT_EQ(c.TagKeys().status().code(), Code::kPreconditionFailed);
}

TEST(ImdsClient, RoleCredentialsCachedAndRefreshed) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock);
  ASSERT_NE(emu, nullptr);
  emu->Update(0, [](dev::EmulatedBox& b) { b.credentials_lifetime = 1h; });
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  auto cr = c.RoleCredentialsNow();
  ASSERT_TRUE(cr.ok()) << cr.status().ToString();
  EXPECT_EQ(cr->role, "carlos-box");
  EXPECT_EQ(cr->access_key_id, "AKIAEMULATEDIMDS0001");
  EXPECT_EQ(cr->secret_access_key, "emulated/secret/access/key/000000000000");
  EXPECT_EQ(cr->token, "emulated-session-token");
  EXPECT_EQ(cr->expiration, TestT0() + 1h);
  int after_first = emu->requests(0);
  EXPECT_EQ(after_first, 3);  // PUT, role list, role.
  clock.Advance(50min);
  ASSERT_TRUE(c.RoleCredentialsNow().ok());
  EXPECT_EQ(emu->requests(0), after_first);  // Cached: 10 min left.
  emu->Update(0, [](dev::EmulatedBox& b) { b.access_key_id = "AKIAROTATED000000002"; });
  clock.Advance(6min);  // 4 min left: inside the 5 min refresh window.
  auto fresh = c.RoleCredentialsNow();
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->access_key_id, "AKIAROTATED000000002");
  EXPECT_EQ(fresh->expiration, TestT0() + 56min + 1h);
  // IMDS failing while the keys are still valid: the cached ones.
  emu->Update(0, [](dev::EmulatedBox& b) { b.fail_first = 100; });
  clock.Advance(56min);  // 4 min left again.
  auto cached = c.RoleCredentialsNow();
  ASSERT_TRUE(cached.ok());
  EXPECT_EQ(cached->access_key_id, "AKIAROTATED000000002");
  clock.Advance(5min);  // Expired, and IMDS still failing.
  auto gone = c.RoleCredentialsNow();
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), Code::kUnavailable);
}

TEST(ImdsClient, NoRoleIsNotFound) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.role = "";
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  auto cr = c.RoleCredentialsNow();
  ASSERT_FALSE(cr.ok());
  EXPECT_EQ(cr.status().code(), Code::kNotFound);
  EXPECT_TRUE(Has(cr.status(), "no IAM role")) << cr.status().message();
}

TEST(ImdsClient, MalformedCredentialsAreCorrupt) {
  auto srv = net::HttpServer::Start({.address = "127.0.0.1:0"}, [](const net::HttpRequest& r) {
    net::HttpResponse res;
    if (r.method == "PUT")
      res.body = "t";
    else if (r.path.ends_with("/security-credentials/"))
      res.body = "role\n";
    else
      res.body =
          R"({"Code":"Success","AccessKeyId":"A","SecretAccessKey":"S","Token":"T","Expiration":"soon"})";
    return res;
  });
  ASSERT_TRUE(srv.ok());
  FakeClock clock(TestT0());
  ImdsClient c(ClientOptions("http://127.0.0.1:" + std::to_string((*srv)->port())), &clock);
  auto cr = c.RoleCredentialsNow();
  ASSERT_FALSE(cr.ok());
  EXPECT_EQ(cr.status().code(), Code::kCorrupt);
  EXPECT_TRUE(Has(cr.status(), "Expiration \"soon\"")) << cr.status().message();
}

TEST(ImdsClient, NoImdsV1FallbackUnlessEnabled) {
  std::atomic<int> tokened{0}, bare{0};
  auto srv = net::HttpServer::Start({.address = "127.0.0.1:0"}, [&](const net::HttpRequest& r) {
    net::HttpResponse res;
    if (r.method == "PUT") {
      res.status = 405;  // An IMDSv1-only endpoint.
    } else {
      (r.HasHeader("X-aws-ec2-metadata-token") ? tokened : bare)++;
      res.body = "i-v1";
    }
    return res;
  });
  ASSERT_TRUE(srv.ok());
  FakeClock clock(TestT0());
  std::string ep = "http://127.0.0.1:" + std::to_string((*srv)->port());
  ImdsClient v2(ClientOptions(ep), &clock);
  auto refused = v2.InstanceId();
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(Has(refused.status(), "IMDSv1 is not used unless enabled"))
      << refused.status().message();
  EXPECT_EQ(bare.load(), 0);
  auto o = ClientOptions(ep);
  o.allow_imdsv1 = true;
  ImdsClient v1(o, &clock);
  auto id = v1.InstanceId();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, "i-v1");
  EXPECT_EQ(bare.load(), 1);
  EXPECT_EQ(tokened.load(), 0);
}

TEST(ImdsClient, ConcurrentReadersShareOneToken) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock);
  ASSERT_NE(emu, nullptr);
  ImdsClient c(ClientOptions(emu->endpoint(0)), &clock);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; t++) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; i++) {
        if (c.InstanceId().ok()) ok++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 40);
  EXPECT_EQ(emu->requests(0), 41);  // One token PUT, 40 GETs.
}

TEST(EscapeTagKey, KeepsIMDSKeyCharactersAndEscapesTheRest) {
  EXPECT_EQ(EscapeTagKey("aws:autoscaling:groupName"), "aws:autoscaling:groupName");
  EXPECT_EQ(EscapeTagKey("a b/c"), "a%20b%2Fc");
}

}  // namespace
}  // namespace carlos::imds
