// The agent's settings that cannot fix themselves: checked at start, exit 2
// with one line naming the setting (host/agent.h CheckStaticSettings).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/files.h"
#include "host/agent.h"
#include "identity/keys.h"

namespace carlos::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class StaticSettingsTest : public ::testing::Test {
 protected:
  StaticSettingsTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("carlos-static-settings-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    auto key = identity::PrivateKey::Generate();
    EXPECT_TRUE(key.ok());
    pubkey_ = key->public_key().ToString();
  }
  ~StaticSettingsTest() override { std::filesystem::remove_all(dir_); }

  // A region-HA box whose every static setting is right; tests change one.
  std::map<std::string, std::string> Env() {
    return {{"CARLOS_HOST_CLAIM", "1"},
            {"CARLOS_REGION_HA", "1"},
            {"CARLOS_DATA_DIR", dir_.string()},
            {"CARLOS_ENROLLMENT_PUBKEY", pubkey_}};
  }
  Status Check(const std::string& http, std::map<std::string, std::string> env) {
    AgentFlags flags;
    flags.http = http;
    return CheckStaticSettings(flags, MapGetenv(std::move(env)));
  }

  std::filesystem::path dir_;
  std::string pubkey_;
};

TEST_F(StaticSettingsTest, RightSettingsPass) {
  EXPECT_TRUE(Check(":80", Env()).ok());
  EXPECT_TRUE(Check("127.0.0.1:0", Env()).ok());
  EXPECT_TRUE(Check("[::1]:8080", Env()).ok());
}

TEST_F(StaticSettingsTest, HttpWithoutPortOrOutOfRangeNamesTheFlag) {
  Status st = Check("nonsense", Env());
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), StartsWith("-http: listen address \"nonsense\": no port"));
  st = Check("127.0.0.1:99999", Env());
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), StartsWith("-http: "));
  EXPECT_THAT(st.message(), HasSubstr("\"99999\" is not a number from 0 to 65535"));
}

TEST_F(StaticSettingsTest, MissingOrFileDataDirNamesTheVariable) {
  auto env = Env();
  env["CARLOS_DATA_DIR"] = (dir_ / "absent").string();
  Status st = Check(":80", env);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), StartsWith("CARLOS_DATA_DIR: "));
  EXPECT_THAT(st.message(), HasSubstr((dir_ / "absent").string()));

  ASSERT_TRUE(WriteFileAtomic((dir_ / "file").string(), "x", 0644).ok());
  env["CARLOS_DATA_DIR"] = (dir_ / "file").string();
  st = Check(":80", env);
  EXPECT_EQ(st.message(), "CARLOS_DATA_DIR: " + (dir_ / "file").string() + " is not a directory");
}

TEST_F(StaticSettingsTest, EnrollmentKeyIsCheckedOnlyWhenTheBoxJoins) {
  auto env = Env();
  env["CARLOS_ENROLLMENT_PUBKEY"] = "";
  Status st = Check(":80", env);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), StartsWith("CARLOS_ENROLLMENT_PUBKEY is not set"));
  env["CARLOS_ENROLLMENT_PUBKEY"] = "ed25519:not-base64!";
  st = Check(":80", env);
  EXPECT_THAT(st.message(), StartsWith("CARLOS_ENROLLMENT_PUBKEY cannot be used: "));
  // A switch off: the agent hosts as before region HA, without the key.
  env["CARLOS_REGION_HA"] = "";
  EXPECT_TRUE(Check(":80", env).ok());
}

TEST_F(StaticSettingsTest, RunAgentExitsTwoWithOneLineBeforeOpeningAnything) {
  std::vector<std::string> lines;
  AgentEnv env;
  auto vars = Env();
  vars["CARLOS_ENROLLMENT_PUBKEY"] = " ";
  // A store that cannot be opened: the check comes first, so it is never
  // reached.
  vars["CARLOS_DEPLOYMENT_BUCKET"] = "";
  env.getenv = MapGetenv(vars);
  env.logf = [&](const std::string& l) { lines.push_back(l); };
  env.stop = std::make_shared<Stop>();
  AgentFlags flags;
  flags.http = "127.0.0.1:0";
  EXPECT_EQ(RunAgent(flags, env), 2);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], StartsWith("agent: CARLOS_ENROLLMENT_PUBKEY is not set"));

  lines.clear();
  flags.http = "nonsense";
  vars["CARLOS_ENROLLMENT_PUBKEY"] = pubkey_;
  env.getenv = MapGetenv(vars);
  EXPECT_EQ(RunAgent(flags, env), 2);
  EXPECT_THAT(lines, ElementsAre(StartsWith("agent: -http: listen address \"nonsense\"")));
}

}  // namespace
}  // namespace carlos::host
