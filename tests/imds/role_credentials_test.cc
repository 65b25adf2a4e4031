// The instance role's credentials as the S3 backend's default fallback.
#include "imds/role_credentials.h"

#include <gtest/gtest.h>

#include "fixture.h"
#include "net/http_server.h"

namespace carlos::imds {
namespace {

using namespace std::chrono_literals;
using carlos::testing::ClientOptions;
using carlos::testing::StartEmulator;
using carlos::testing::TestT0;

TEST(ImdsRoleCredentials, ServeTheStoreThroughTheDefaultChain) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock);
  ASSERT_NE(emu, nullptr);
  auto client = std::make_shared<ImdsClient>(ClientOptions(emu->endpoint(0)), &clock);
  ASSERT_TRUE(InstallImdsRoleCredentialsFallback(client));

  auto chain = DefaultCredentials(MapGetenv({}));
  auto c = chain();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "AKIAEMULATEDIMDS0001");
  EXPECT_EQ(c->secret_access_key, "emulated/secret/access/key/000000000000");
  EXPECT_EQ(c->session_token, "emulated-session-token");
  ASSERT_TRUE(c->expiration.has_value());
  EXPECT_EQ(*c->expiration, TestT0() + 6h);

  // Keys in the environment win over the role.
  auto env = DefaultCredentials(
      MapGetenv({{"AWS_ACCESS_KEY_ID", "AKIAENV"}, {"AWS_SECRET_ACCESS_KEY", "envsecret"}}))();
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->access_key_id, "AKIAENV");

  // No role: the error says so, through the chain.
  emu->Update(0, [](dev::EmulatedBox& b) { b.role = ""; });
  auto fresh = std::make_shared<ImdsClient>(ClientOptions(emu->endpoint(0)), &clock);
  auto none = ImdsRoleCredentials(fresh)();
  ASSERT_FALSE(none.ok());
  // A credentials refusal, not the store's "not found".
  EXPECT_EQ(none.status().code(), Code::kDenied);
  EXPECT_NE(none.status().message().find("the instance role's credentials from IMDS: "),
            std::string::npos);
  SetDefaultCredentialsFallback({});
}

TEST(ImdsRoleCredentials, ImdsDisabledIsDeniedNotAPreconditionFailure) {
  // IMDS disabled for the instance: 403 to the token request.
  auto srv = net::HttpServer::Start({.address = "127.0.0.1:0"}, [](const net::HttpRequest&) {
    net::HttpResponse res;
    res.status = 403;
    return res;
  });
  ASSERT_TRUE(srv.ok());
  FakeClock clock(TestT0());
  ImdsClient client(ClientOptions("http://127.0.0.1:" + std::to_string((*srv)->port())), &clock);
  auto c = ImdsRoleCredentials(client)();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kDenied);
  EXPECT_NE(c.status().message().find("the instance role's credentials from IMDS: instance role: "
                                      "IMDS answered 403 to PUT /latest/api/token"),
            std::string::npos)
      << c.status().message();
  (*srv)->Shutdown();
}

// Off EC2 (no IMDS answers) there is no role to wait for: the error says
// that no credentials were found and where they were looked for, and is
// not one a retry mends.
TEST(ImdsRoleCredentials, NoImdsAtAllIsNoCredentialsFound) {
  auto srv = net::HttpServer::Start({.address = "127.0.0.1:0"},
                                    [](const net::HttpRequest&) { return net::HttpResponse{}; });
  ASSERT_TRUE(srv.ok());
  int port = (*srv)->port();
  (*srv)->Shutdown();
  srv->reset();  // Nothing listens on `port` now: connections are refused.
  FakeClock clock(TestT0());
  std::string endpoint = "http://127.0.0.1:" + std::to_string(port);
  ImdsClient client(ClientOptions(endpoint), &clock);
  auto c = ImdsRoleCredentials(client)();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(c.status().message().rfind(
                "no AWS credentials were found: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are "
                "not set, and no instance metadata service answered at " +
                    endpoint + " for an instance role (",
                0),
            0u)
      << c.status().message();
  EXPECT_NE(c.status().message().find("Off EC2, set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
            std::string::npos);
  EXPECT_EQ(c.status().message().find("enable"), std::string::npos);
}

TEST(ImdsRoleCredentials, OffInstallsNothing) {
  FakeClock clock(TestT0());
  auto off = std::make_shared<ImdsClient>(
      ImdsOptionsFromEnv(MapGetenv({{"CARLOS_IMDS_ENDPOINT", "off"}})), &clock);
  SetDefaultCredentialsFallback({});
  EXPECT_FALSE(InstallImdsRoleCredentialsFallback(off));
  auto c = DefaultCredentials(MapGetenv({}))();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("no AWS credentials"), std::string::npos);
}

}  // namespace
}  // namespace carlos::imds
