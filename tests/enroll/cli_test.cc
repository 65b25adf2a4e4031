// `carlos boxes ...` as an operator runs it: the built command, a real
// process, a directory store.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "identity/store_keys.h"
#include "world.h"

namespace carlos::enroll::testing {
namespace {

using ::testing::HasSubstr;

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

struct CliRun {
  int code = -1;
  std::string out;  // stdout and stderr, in that order.
};

// Runs the built carlos with `args` and only `env`, capturing its output.
CliRun Carlos(const std::string& args, const std::map<std::string, std::string>& env,
              const std::string& dir) {
  const char* bin_env = std::getenv("CARLOS_BIN");
  std::string bin = bin_env && *bin_env ? bin_env : CARLOS_BIN_DEFAULT;
  std::string cmd = "env -i";
  for (const auto& [k, v] : env) cmd += " " + k + "='" + v + "'";
  cmd += " " + bin + " " + args + " >" + dir + "/out 2>" + dir + "/err";
  CliRun r;
  int status = std::system(cmd.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (const char* f : {"/out", "/err"}) {
    std::ifstream in(dir + f);
    r.out += std::string(std::istreambuf_iterator<char>(in), {});
  }
  return r;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = MakeStore("dir", tmp_.path(), &env_);
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    world_ = std::make_unique<World>(store_.get());
    std::string key = tmp_.path() + "/enrollment.key";
    ASSERT_TRUE(identity::WriteNewPrivateKeyFile(key, world_->enrollment_key()).ok());
    std::ofstream(tmp_.path() + "/aws.pem") << world_->Settings().iid_certificates.any_region_pem;
    env_["CARLOS_ENROLLMENT_KEY"] = key;
    env_["CARLOS_AWS_IID_CERT"] = tmp_.path() + "/aws.pem";
  }

  // The commands run on the real clock: the world's is brought to it, so
  // that a report the world writes is fresh to them.
  void ToRealTime() {
    world_->clock().Advance(
        std::chrono::duration_cast<Milliseconds>(RealClock()->Now() - world_->clock().Now()));
  }

  TempDir tmp_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<World> world_;
};

TEST_F(CliTest, EveryCommandHasHelp) {
  for (const char* cmd : {"auto-enroll", "invite", "enroll", "retire", "list", "rm", "prune"}) {
    CliRun r = Carlos(std::string("boxes ") + cmd + " -h", {}, tmp_.path());
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("Exit codes: 0 ok")) << cmd;
  }
}

TEST_F(CliTest, InviteListRetireFromTheShell) {
  TestBox web1 = world_->AddBox("web-1");
  world_->AddBox("web-2");
  world_->PutEdges(web1, {"web-2"});

  CliRun r = Carlos("boxes invite web-1", env_, tmp_.path());
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.out, HasSubstr("carlos boxes invite: web-1 is refused: referenced: its edges "
                               "file control/edges/web-1.json is published"));
  r = Carlos("boxes invite -force web-1", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("enroll: web-1: invited although it is referenced"));

  r = Carlos("boxes list --json", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  auto json = nlohmann::json::parse(r.out.substr(0, r.out.rfind('}') + 1));
  ASSERT_EQ(json["boxes"].size(), 2u);
  EXPECT_EQ(json["boxes"][0]["box"], "web-1");
  EXPECT_EQ(json["boxes"][0]["stage"], "invited");
  EXPECT_EQ(json["boxes"][0]["referenced"], true);
  EXPECT_EQ(json["boxes"][1]["stage"], "recorded");
  EXPECT_EQ(json["boxes"][1]["next"], "invite");

  r = Carlos("boxes retire web-2 --reason 'replaced by web-3'", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  r = Carlos("boxes list", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\nweb-2  us-west-2  retired "));

  r = Carlos("boxes retire web-9", env_, tmp_.path());
  EXPECT_EQ(r.code, 4);
  EXPECT_THAT(r.out, HasSubstr("carlos boxes retire: web-9 has no identity record"));
}

TEST_F(CliTest, RmAndPruneSayOnStdoutWhatTheyRemoved) {
  ToRealTime();
  TestBox web1 = world_->AddBox("web-1");
  world_->AddBox("web-2");
  CliRun r = Carlos("boxes invite web-1", env_, tmp_.path());
  ASSERT_EQ(r.code, 0) << r.out;
  world_->PutReport(web1, {.age = Milliseconds(0)});
  r = Carlos("boxes enroll web-1", env_, tmp_.path());
  ASSERT_EQ(r.code, 0) << r.out;

  r = Carlos("boxes rm web-1", env_, tmp_.path());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_THAT(r.out, HasSubstr("carlos boxes rm: web-1 was not removed: it is enrolled"));
  r = Carlos("boxes rm web-1 --force", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out,
            "removed web-1: status/boxes/web-1.json, control/enrollments/web-1.json, "
            "control/invitations/web-1.json, control/boxes/web-1.json\n");
  r = Carlos("boxes rm web-1", env_, tmp_.path());
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_THAT(r.out, HasSubstr("carlos boxes rm: web-1 has no documents in the deployment store"));
  r = Carlos("boxes rm", env_, tmp_.path());
  EXPECT_EQ(r.code, 2) << r.out;

  r = Carlos("boxes retire web-2", env_, tmp_.path());
  ASSERT_EQ(r.code, 0) << r.out;
  r = Carlos("boxes prune --retired --older-than 1h", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "no box was retired 1h0m0s ago or more\n");
  r = Carlos("boxes prune --retired --older-than 0s", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "removed web-2: control/boxes/web-2.json, control/retired/web-2.json\n");
  r = Carlos("boxes prune --older-than 1h", env_, tmp_.path());
  EXPECT_EQ(r.code, 2) << r.out;
  r = Carlos("boxes prune --retired --older-than 3d", env_, tmp_.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--older-than"));

  // A store that does not answer: 1, within --timeout.
  auto dead = env_;
  dead.erase("CARLOS_DEPLOYMENT_DIR");
  dead["CARLOS_DEPLOYMENT_BUCKET"] = "carlos-test";
  dead["CARLOS_S3_ENDPOINT"] = "http://127.0.0.1:1";
  dead["AWS_ACCESS_KEY_ID"] = "K";
  dead["AWS_SECRET_ACCESS_KEY"] = "S";
  dead["CARLOS_IMDS_ENDPOINT"] = "off";
  for (const char* cmd : {"boxes rm web-2 --timeout 200ms",
                          "boxes prune --retired --older-than 1h --timeout 200ms"}) {
    auto start = std::chrono::steady_clock::now();
    r = Carlos(cmd, dead, tmp_.path());
    EXPECT_EQ(r.code, 1) << cmd << ": " << r.out;
    EXPECT_THAT(r.out, HasSubstr("still failing at the deadline 200ms")) << cmd;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3)) << cmd;
  }
  r = Carlos("boxes rm web-2 --timeout 0s", dead, tmp_.path());
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST_F(CliTest, ListSaysNoBoxesRejectsABadRegionAndHidesAHostingBoxsOwnEdges) {
  CliRun r = Carlos("boxes list", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "no boxes\n");
  r = Carlos("boxes list --region us-west-2", env_, tmp_.path());
  EXPECT_EQ(r.out, "no boxes in region us-west-2\n");
  r = Carlos("boxes list --region US_WEST", env_, tmp_.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("US_WEST is not a region label"));
  r = Carlos("boxes auto-enroll --region 'us west'", env_, tmp_.path());
  EXPECT_EQ(r.code, 2) << r.out;

  // A hosting box publishes its own edges file: it is not referenced.
  ToRealTime();
  TestBox web1 = world_->AddBox("web-1");
  ASSERT_EQ(Carlos("boxes invite web-1", env_, tmp_.path()).code, 0);
  world_->PutReport(web1, {.age = Milliseconds(0)});
  ASSERT_EQ(Carlos("boxes enroll web-1", env_, tmp_.path()).code, 0);
  world_->PutEdges(web1, {});
  r = Carlos("boxes list --json", env_, tmp_.path());
  ASSERT_EQ(r.code, 0) << r.out;
  auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["boxes"].size(), 1u);
  EXPECT_EQ(json["boxes"][0]["stage"], "hosting");
  EXPECT_EQ(json["boxes"][0]["referenced"], false);
  EXPECT_EQ(json["boxes"][0]["referenced_by"], nullptr);
  r = Carlos("boxes list", env_, tmp_.path());
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\nweb-1 .* hosting .* yes +no +-\n"));
}

TEST_F(CliTest, RetireSaysOnStdoutWhatHappensNext) {
  world_->AddBox("web-1");
  auto env = env_;
  env["CARLOS_JOIN_EVERY"] = "20s";
  CliRun r = Carlos("boxes retire web-1", env, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  std::ifstream out(tmp_.path() + "/out");
  std::string stdout_text(std::istreambuf_iterator<char>(out), {});
  EXPECT_EQ(stdout_text,
            "web-1 is retired: it stops hosting at its next check (every 20s), drains and exits; "
            "guard-exec then keeps it from starting again (exit 3), and it never hosts again "
            "under this identity record. Once its machine is gone: carlos boxes rm web-1\n");
}

TEST_F(CliTest, AutoEnrollWithoutTheKeyExplainsWhichVariable) {
  auto env = env_;
  env.erase("CARLOS_ENROLLMENT_KEY");
  CliRun r = Carlos("boxes auto-enroll", env, tmp_.path());
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("carlos boxes auto-enroll: CARLOS_ENROLLMENT_KEY is not set"));
}

TEST_F(CliTest, AwsAccountsMalformedIsAUsageErrorAndSaidAtStart) {
  auto env = env_;
  env["CARLOS_AWS_ACCOUNTS"] = "12345,111111111111";
  CliRun r = Carlos("boxes auto-enroll", env, tmp_.path());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("carlos boxes auto-enroll: CARLOS_AWS_ACCOUNTS: \"12345\" is not "
                               "an AWS account id (12 digits)"));

  world_->AddBox("web-1", {.account_id = "999999999999"});
  r = Carlos("boxes auto-enroll", env_, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("enroll: any AWS account's instances are accepted "
                               "(CARLOS_AWS_ACCOUNTS is not set)"));
  EXPECT_EQ(Count(r.out, "CARLOS_AWS_ACCOUNTS is not set"), 1u);
  EXPECT_THAT(r.out, HasSubstr("enroll: web-1: invited"));

  world_->AddBox("web-2", {.account_id = "999999999999"});
  env["CARLOS_AWS_ACCOUNTS"] = "123456789012";
  r = Carlos("boxes auto-enroll", env, tmp_.path());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("enroll: only instances of AWS accounts 123456789012 are accepted"));
  EXPECT_THAT(r.out, HasSubstr("enroll: web-2: refused: foreign account: "));
}

TEST_F(CliTest, WatchEndsCleanlyOnSigterm) {
  world_->AddBox("web-1");
  auto env = env_;
  env["CARLOS_JOIN_EVERY"] = "100ms";
  std::string bin = std::getenv("CARLOS_BIN") ? std::getenv("CARLOS_BIN") : CARLOS_BIN_DEFAULT;
  std::string cmd = "env -i";
  for (const auto& [k, v] : env) cmd += " " + k + "='" + v + "'";
  // The shell starts the watcher, waits until it has invited web-1 (the
  // invitation file appears), then sends SIGTERM and reports its exit code.
  std::string inv = env["CARLOS_DEPLOYMENT_DIR"] + "/" + identity::InvitationKey("web-1");
  std::string script = cmd + " " + bin + " boxes auto-enroll --watch 2>" + tmp_.path() +
                       "/err & pid=$!; for i in $(seq 100); do [ -f " + inv +
                       " ] && break; sleep 0.1; done; kill -TERM $pid; wait $pid; echo $?";
  FILE* p = popen(script.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::array<char, 64> buf{};
  std::string out;
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  pclose(p);
  EXPECT_EQ(out, "0\n");
  std::ifstream in(tmp_.path() + "/err");
  std::string err(std::istreambuf_iterator<char>(in), {});
  EXPECT_THAT(err, HasSubstr("enroll: web-1: invited"));
  EXPECT_THAT(err, HasSubstr("enroll: stopped"));
}

}  // namespace
}  // namespace carlos::enroll::testing
