// The instance role's credentials as the S3 backend's default fallback.
#include "imds/role_credentials.h"

#include <gtest/gtest.h>

#include "fixture.h"

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
  EXPECT_EQ(none.status().code(), Code::kNotFound);
  EXPECT_NE(none.status().message().find("the instance role's credentials from IMDS: "),
            std::string::npos);
  SetDefaultCredentialsFallback({});
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
