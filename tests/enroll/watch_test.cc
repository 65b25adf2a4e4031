// The watch loop (a pass every joinEvery until stopped, each refusal logged
// once per (box, reason)) and the settings from the environment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>

#include "enroll/settings.h"
#include "fixtures.h"
#include "identity/store_keys.h"
#include "world.h"

namespace carlos::enroll::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(WatchTest, PassesEveryJoinEveryUntilStoppedLoggingEachReasonOnce) {
  TempDir tmp;
  std::map<std::string, std::string> env;
  auto store = MakeStore("dir", tmp.path(), &env);
  ASSERT_TRUE(store.ok());
  World w(store->get());
  LogSink log;
  TestBox web1 = w.AddBox("web-1");
  TestBox web2 = w.AddBox("web-2");
  w.PutEdges(web1, {"web-2"});
  // Change checks as seldom as passes: every wake-up is a pass here
  // (wakeup_test.cc has the checks in between).
  auto e = w.MakeEnroller(&log, [](EnrollerSettings& s) { s.check_every = s.every; });
  Stop stop;
  SystemTime start = w.clock().Now();
  std::vector<std::string> at_sleep;
  w.clock().OnSleep([&](SystemTime now) {
    int n = w.clock().sleeps();
    if (n == 2) w.PutReport(web2, {.armed = false, .why_not_armed = "root is arming it"});
    if (n == 4) w.PutReport(web2);
    if (n == 6) stop.Request();
    at_sleep.push_back(FormatRfc3339(now));
  });
  ASSERT_TRUE(e->Watch(stop).ok());
  EXPECT_EQ(w.clock().sleeps(), 6);
  EXPECT_EQ(w.clock().Now() - start, Seconds(6 * 15));
  std::string inv = w.Invitation("web-2")->digest;
  EXPECT_THAT(
      log.lines(),
      ElementsAre(
          "enroll: watching " + (*store)->Describe() +
              " every 15s, and on a change seen by a check every 15s",
          "enroll: web-1: refused: referenced: its edges file control/edges/web-1.json is "
          "published (it has hosted under this label); if it should join, invite it by hand with "
          "carlos boxes invite --force web-1",
          "enroll: web-2: invited (invitation " + inv + ", expires 2026-11-30T18:00:00Z)",
          "enroll: pass over 2 boxes: 1 invited, 0 enrolled, 1 refused, 0 waiting, 0 errors",
          "enroll: web-2: not enrolled: no report: it is invited until 2026-11-30T18:00:00Z; it "
          "has not published its guard-ready report (status/boxes/web-2.json) yet",
          "enroll: web-2: not enrolled: guard not armed: its guard is installed, not armed: root "
          "is arming it",
          "enroll: web-2: enrolled (record " + web2.record_digest + ", invitation " + inv +
              ", guard sha256:" + std::string(64, 'a') + ")",
          "enroll: pass over 2 boxes: 0 invited, 1 enrolled, 1 refused, 0 waiting, 0 errors",
          "enroll: stopped"));
}

// A store that is down: every request fails as a dead S3 endpoint would.
class DeadStore : public Store {
 public:
  StatusOr<Object> Get(std::string_view) override { return Down(); }
  StatusOr<std::string> Put(std::string_view, std::string_view, const PutOptions&) override {
    return Down();
  }
  StatusOr<ListPage> List(std::string_view, std::string_view, int) override { return Down(); }
  Status Delete(std::string_view) override { return Down(); }
  std::string Describe() const override { return "dead"; }

 private:
  static Status Down() { return Unavailable("connect to 127.0.0.1:1: connection refused"); }
};

TEST(WatchTest, APassThatCannotListIsLoggedOnceAndRetried) {
  DeadStore dead;
  World w(&dead);
  LogSink log;
  auto e = w.MakeEnroller(&log);
  Stop stop;
  w.clock().OnSleep([&](SystemTime) {
    if (w.clock().sleeps() == 3) stop.Request();
  });
  ASSERT_TRUE(e->Watch(stop).ok());
  EXPECT_EQ(w.clock().sleeps(), 3);
  EXPECT_THAT(log.lines(),
              ElementsAre("enroll: watching dead every 15s, and on a change seen by a check every "
                          "1s",
                          "enroll: connect to 127.0.0.1:1: connection refused; trying again in 15s",
                          "enroll: stopped"));
}

// A store that is down until `up` is set, then the store it wraps.
class OutageStore : public Store {
 public:
  explicit OutageStore(Store* real) : real_(real) {}
  StatusOr<Object> Get(std::string_view k) override {
    if (!up) return Down();
    return real_->Get(k);
  }
  StatusOr<std::string> Put(std::string_view k, std::string_view d, const PutOptions& o) override {
    if (!up) return Down();
    return real_->Put(k, d, o);
  }
  StatusOr<ListPage> List(std::string_view p, std::string_view t, int n) override {
    if (!up) return Down();
    return real_->List(p, t, n);
  }
  Status Delete(std::string_view k) override {
    if (!up) return Down();
    return real_->Delete(k);
  }
  std::string Describe() const override { return "outage"; }
  std::atomic<bool> up{false};

 private:
  static Status Down() { return Unavailable("connect to 127.0.0.1:1: connection refused"); }
  Store* real_;
};

// docs/enroll.md, "Log lines": an outage is one warning line, whatever its
// length, and its end one line saying how long it lasted.
TEST(WatchTest, AnOutageIsOneWarningAndItsEndOneLine) {
  TempDir tmp;
  std::map<std::string, std::string> env;
  auto real = MakeStore("dir", tmp.path(), &env);
  ASSERT_TRUE(real.ok());
  OutageStore store(real->get());
  World w(&store);
  LogSink log, warnings;
  auto e = w.MakeEnroller(&log);
  e->set_warnf(warnings.logf());
  Stop stop;
  const SystemTime start = w.clock().Now();
  w.clock().OnSleep([&](SystemTime now) {
    if (now - start >= std::chrono::seconds(120)) store.up = true;  // 8 passes of 15 s: 2m0s.
    if (now - start >= std::chrono::seconds(150)) stop.Request();
  });
  ASSERT_TRUE(e->Watch(stop).ok());
  // The passes' and the change checks' failures have one cause: one line.
  EXPECT_THAT(
      warnings.lines(),
      ElementsAre("enroll: connect to 127.0.0.1:1: connection refused; trying again in 15s"));
  EXPECT_THAT(log.lines(),
              ElementsAre("enroll: watching outage every 15s, and on a change seen by a check "
                          "every 1s",
                          "enroll: passes run again after 2m0s", "enroll: stopped"));
}

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    key_path_ = tmp_.path() + "/enrollment.key";
    key_ = *identity::PrivateKey::Generate();
    ASSERT_TRUE(identity::WriteNewPrivateKeyFile(key_path_, key_).ok());
    cert_path_ = tmp_.path() + "/aws.pem";
    std::ofstream(cert_path_) << identity::testing::AwsCertForTest().cert_pem;
  }
  StatusOr<EnrollerSettings> From(std::map<std::string, std::string> vars,
                                  KeyNeed need = KeyNeed::kPrivate) {
    return SettingsFromEnv(MapGetenv(std::move(vars)), need);
  }

  TempDir tmp_;
  std::string key_path_, cert_path_;
  identity::PrivateKey key_ = *identity::PrivateKey::Generate();
};

TEST_F(SettingsTest, AwsAccounts) {
  auto s = From({{"CARLOS_ENROLLMENT_KEY", key_path_}, {"CARLOS_AWS_IID_CERT", cert_path_}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(s->aws_accounts.has_value());
  EXPECT_TRUE(AwsAccountAllowed(*s, "999999999999"));
  EXPECT_EQ(AwsAccountsClause(*s),
            "any AWS account's instances are accepted (CARLOS_AWS_ACCOUNTS is not set)");

  s = From({{"CARLOS_ENROLLMENT_KEY", key_path_},
            {"CARLOS_AWS_IID_CERT", cert_path_},
            {"CARLOS_AWS_ACCOUNTS", " 222222222222, 111111111111 ,222222222222"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->aws_accounts.has_value());
  EXPECT_EQ(*s->aws_accounts, (std::set<std::string, std::less<>>{"111111111111", "222222222222"}));
  EXPECT_TRUE(AwsAccountAllowed(*s, "111111111111"));
  EXPECT_FALSE(AwsAccountAllowed(*s, "999999999999"));
  EXPECT_EQ(AwsAccountsClause(*s),
            "only instances of AWS accounts 111111111111, 222222222222 are accepted "
            "(CARLOS_AWS_ACCOUNTS)");

  for (const char* bad : {"12345678901", "1234567890123", "12345678901a", "111111111111,",
                          "111111111111,,222222222222", "arn:aws:iam::111111111111:root"}) {
    auto r = ParseAwsAccounts(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("CARLOS_AWS_ACCOUNTS: \"")) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("is not an AWS account id (12 digits)")) << bad;
  }
  EXPECT_THAT(ParseAwsAccounts("1234567890123").status().message(),
              ::testing::StartsWith("CARLOS_AWS_ACCOUNTS: \"1234567890123\" is not an AWS account "
                                    "id (12 digits); give the accounts"));
  EXPECT_FALSE(From({{"CARLOS_ENROLLMENT_KEY", key_path_},
                     {"CARLOS_AWS_IID_CERT", cert_path_},
                     {"CARLOS_AWS_ACCOUNTS", "1,2"}})
                   .ok());
  auto blank = ParseAwsAccounts("  ");
  ASSERT_TRUE(blank.ok());
  EXPECT_FALSE(blank->has_value());
}

TEST_F(SettingsTest, DefaultsAndOverrides) {
  auto s = From({{"CARLOS_ENROLLMENT_KEY", key_path_}, {"CARLOS_AWS_IID_CERT", cert_path_}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->enrollment_public_key, key_.public_key());
  EXPECT_FALSE(s->allow_unattested);
  EXPECT_EQ(s->every, Milliseconds(15'000));
  EXPECT_EQ(s->report_freshness, Milliseconds(300'000));
  EXPECT_EQ(s->report_clock_skew, Milliseconds(30'000));
  EXPECT_EQ(s->invitation_lifetime, Milliseconds(24 * 3600'000));
  EXPECT_EQ(s->workers, 8);
  EXPECT_FALSE(s->region.has_value());
  EXPECT_NE(s->iid_certificates.For("us-west-2"), nullptr);

  s = From({{"CARLOS_ENROLLMENT_KEY", key_path_},
            {"CARLOS_ALLOW_UNATTESTED", "0"},  // Not blank: on (DESIGN.md's switches).
            {"CARLOS_JOIN_EVERY", "1m30s"},
            {"CARLOS_REPORT_CLOCK_SKEW", "5s"},
            {"CARLOS_REGION", "eu-west-1"},
            {"CARLOS_ENROLL_WORKERS", "16"},
            {"CARLOS_FLOOR_RELEASE", "0.1.0"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->allow_unattested);
  EXPECT_EQ(s->every, Milliseconds(90'000));
  EXPECT_EQ(s->report_clock_skew, Milliseconds(5'000));
  EXPECT_EQ(s->region, "eu-west-1");
  EXPECT_EQ(s->workers, 16);
  EXPECT_EQ(s->floor_release, "0.1.0");
}

TEST_F(SettingsTest, EachBadSettingIsNamed) {
  EXPECT_THAT(From({}).status().message(), HasSubstr("CARLOS_ENROLLMENT_KEY is not set"));
  EXPECT_THAT(From({{"CARLOS_ENROLLMENT_KEY", key_path_}}).status().message(),
              HasSubstr("CARLOS_AWS_IID_CERT is not set"));
  EXPECT_THAT(
      From({{"CARLOS_ENROLLMENT_KEY", tmp_.path() + "/nope"}, {"CARLOS_ALLOW_UNATTESTED", "1"}})
          .status()
          .message(),
      HasSubstr("CARLOS_ENROLLMENT_KEY"));
  std::map<std::string, std::string> ok = {{"CARLOS_ENROLLMENT_KEY", key_path_},
                                           {"CARLOS_ALLOW_UNATTESTED", "1"}};
  auto with = [&](const char* k, const char* v) {
    auto m = ok;
    m[k] = v;
    return From(m).status();
  };
  EXPECT_THAT(with("CARLOS_JOIN_EVERY", "15").message(), HasSubstr("CARLOS_JOIN_EVERY"));
  EXPECT_THAT(with("CARLOS_REGION", "EU West").message(), HasSubstr("CARLOS_REGION"));
  EXPECT_THAT(with("CARLOS_ENROLL_WORKERS", "0").message(), HasSubstr("CARLOS_ENROLL_WORKERS"));
  EXPECT_THAT(with("CARLOS_AWS_IID_CERT", key_path_.c_str()).message(),
              HasSubstr("that is not a certificate"));
  EXPECT_THAT(
      with("CARLOS_ENROLLMENT_PUBKEY", "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")
          .message(),
      HasSubstr("but the key in CARLOS_ENROLLMENT_KEY is"));
  // `list` needs only the public key.
  auto pub =
      From({{"CARLOS_ENROLLMENT_PUBKEY", key_.public_key().ToString()}}, KeyNeed::kPublicOnly);
  ASSERT_TRUE(pub.ok()) << pub.status().message();
  EXPECT_FALSE(pub->enrollment_key.has_value());
  EXPECT_EQ(pub->enrollment_public_key, key_.public_key());
}

TEST_F(SettingsTest, AMissingSettingFileIsABadSettingNotAMissingDocument) {
  // kNotFound is a missing box document to the commands (exit 4).
  Status st =
      From({{"CARLOS_ENROLLMENT_KEY", tmp_.path() + "/nope"}, {"CARLOS_ALLOW_UNATTESTED", "1"}})
          .status();
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), ::testing::StartsWith("CARLOS_ENROLLMENT_KEY: "));
  st = From({{"CARLOS_ENROLLMENT_KEY", key_path_}, {"CARLOS_AWS_IID_CERT", tmp_.path() + "/nope"}})
           .status();
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), ::testing::StartsWith("CARLOS_AWS_IID_CERT: "));
}

TEST_F(SettingsTest, ADirectoryHoldsOneCertificatePerRegion) {
  std::string dir = tmp_.path() + "/certs";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  std::ofstream(dir + "/eu-west-1.pem") << identity::testing::AwsCertForTest().cert_pem;
  std::ofstream(dir + "/README") << "not a certificate";
  auto certs = LoadIidCertificates(dir);
  ASSERT_TRUE(certs.ok()) << certs.status().message();
  EXPECT_NE(certs->For("eu-west-1"), nullptr);
  EXPECT_EQ(certs->For("us-west-2"), nullptr);
  EXPECT_EQ(LoadIidCertificates(tmp_.path() + "/none").status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace carlos::enroll::testing
