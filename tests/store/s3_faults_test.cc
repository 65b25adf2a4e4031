// The S3 backend against faults: a fault-injecting proxy in front of the
// real Ceph RGW loses answers, refuses, answers garbage or hangs; a dead
// endpoint refuses connections. Each case ends in one clear error or in the
// right answer, and nothing half-written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "base/env.h"
#include "fault_proxy.h"
#include "store/dir_store.h"
#include "test_util.h"

namespace carlos::testing {
namespace {

using ::testing::HasSubstr;

class S3FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    server_ = S3ServerEnv(&error);
    if (!error.empty()) GTEST_SKIP() << error;
    std::string endpoint = server_["CARLOS_S3_ENDPOINT"];
    upstream_port_ = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
    bucket_ = UniqueBucket();
    auto direct = S3Store::Open(TestS3Options(server_, bucket_));
    ASSERT_TRUE(direct.ok()) << direct.status().message();
    direct_ = std::move(direct).value();
    ASSERT_TRUE(direct_->CreateBucket().ok());
  }

  // A store that talks to the server through a proxy following `plan`.
  std::unique_ptr<S3Store> Through(FaultProxy& proxy, Milliseconds deadline = Milliseconds(5000)) {
    auto o = TestS3Options(server_, bucket_);
    o.endpoint = "http://127.0.0.1:" + std::to_string(proxy.port());
    o.deadline = deadline;
    return std::move(S3Store::Open(o)).value();
  }

  std::map<std::string, std::string> server_;
  int upstream_port_ = 0;
  std::string bucket_;
  std::unique_ptr<S3Store> direct_;
};

bool IsPut(const std::string& line) { return line.starts_with("PUT "); }

TEST_F(S3FaultTest, CreateOnlyWhoseAnswerIsLostButLandedSucceeds) {
  for (Fault f : {Fault::kForwardThen500, Fault::kForwardThenReset}) {
    std::string key = "lost/" + std::to_string(static_cast<int>(f));
    FaultProxy proxy(upstream_port_,
                     [f](int i, const std::string&) { return i == 0 ? f : Fault::kNone; });
    auto s3 = Through(proxy);
    auto v = s3->Put(key, "mine", {PutCondition::kCreateOnly, ""});
    ASSERT_TRUE(v.ok()) << v.status().message();
    auto got = direct_->Get(key);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->data, "mine");
    EXPECT_EQ(got->version, *v);
    auto lines = proxy.requests();
    ASSERT_EQ(lines.size(), 2u) << "the lost PUT, then one read-back";
    EXPECT_TRUE(IsPut(lines[0]));
    EXPECT_TRUE(lines[1].starts_with("GET ")) << lines[1];
  }
}

TEST_F(S3FaultTest, CreateOnlyWhoseAnswerIsLostAndAnotherHoldsTheKeyFails) {
  ASSERT_TRUE(direct_->Put("taken", "theirs", {}).ok());
  FaultProxy proxy(upstream_port_, [](int i, const std::string&) {
    return i == 0 ? Fault::kForwardThen500 : Fault::kNone;
  });
  auto v = Through(proxy)->Put("taken", "mine", {PutCondition::kCreateOnly, ""});
  EXPECT_EQ(v.status().code(), Code::kPreconditionFailed) << v.status().message();
  EXPECT_THAT(v.status().message(), HasSubstr("reading back"));
  EXPECT_EQ(direct_->Get("taken")->data, "theirs");
}

TEST_F(S3FaultTest, CompareAndSwapWhoseAnswerIsLostButLandedSucceeds) {
  auto v1 = direct_->Put("cas", "1", {});
  ASSERT_TRUE(v1.ok());
  FaultProxy proxy(upstream_port_, [](int i, const std::string&) {
    return i == 0 ? Fault::kForwardThenReset : Fault::kNone;
  });
  auto v2 = Through(proxy)->Put("cas", "2", {PutCondition::kIfMatch, *v1});
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ(direct_->Get("cas")->data, "2");
  EXPECT_EQ(direct_->Get("cas")->version, *v2);
}

TEST_F(S3FaultTest, CompareAndSwapWhoseAnswerIsLostAndDidNotLandIsRetried) {
  auto v1 = direct_->Put("cas2", "1", {});
  ASSERT_TRUE(v1.ok());
  // The first PUT is refused with a 500 without reaching the server: the
  // read-back finds the old version, still matching, so Put tries again.
  FaultProxy proxy(upstream_port_,
                   [](int i, const std::string&) { return i == 0 ? Fault::k500 : Fault::kNone; });
  auto v2 = Through(proxy)->Put("cas2", "2", {PutCondition::kIfMatch, *v1});
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ(direct_->Get("cas2")->data, "2");
  auto lines = proxy.requests();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(IsPut(lines[0]) && lines[1].starts_with("GET ") && IsPut(lines[2]));
}

TEST_F(S3FaultTest, FailuresThenRecovery) {
  // Three 500s (whatever the request), then the server again.
  FaultProxy proxy(upstream_port_,
                   [](int i, const std::string&) { return i < 3 ? Fault::k500 : Fault::kNone; });
  auto s3 = Through(proxy);
  auto v = s3->Put("recover", "body", {PutCondition::kCreateOnly, ""});
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(direct_->Get("recover")->data, "body");
  EXPECT_GE(proxy.requests().size(), 5u);
}

TEST_F(S3FaultTest, SlowDownAndConflictAreRetried) {
  ASSERT_TRUE(direct_->Put("slow", "data", {}).ok());
  FaultProxy proxy(upstream_port_, [](int i, const std::string&) {
    if (i < 2) return Fault::kSlowDown;
    if (i == 3) return Fault::kConflict409;
    return Fault::kNone;
  });
  auto s3 = Through(proxy);
  auto got = s3->Get("slow");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->data, "data");
  // A 409 ConditionalRequestConflict changed nothing: the write is simply
  // sent again (no read-back in between).
  auto v = s3->Put("slow", "new", {PutCondition::kIfMatch, got->version});
  ASSERT_TRUE(v.ok()) << v.status().message();
  auto lines = proxy.requests();
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_TRUE(IsPut(lines[3]) && IsPut(lines[4]));
  EXPECT_EQ(direct_->Get("slow")->data, "new");
}

TEST_F(S3FaultTest, LostAnswerAndFailedReadBackIsUnknownOutcome) {
  FaultProxy proxy(upstream_port_, [](int i, const std::string&) {
    return i == 0 ? Fault::kForwardThenReset : Fault::k500;
  });
  auto start = std::chrono::steady_clock::now();
  auto v = Through(proxy, Milliseconds(600))->Put("unknown", "x", {PutCondition::kCreateOnly, ""});
  EXPECT_EQ(v.status().code(), Code::kUnknownOutcome) << v.status().message();
  EXPECT_THAT(v.status().message(), HasSubstr("reading the key back failed"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  // And it was indeed unknown: the write had landed.
  EXPECT_EQ(direct_->Get("unknown")->data, "x");
}

TEST_F(S3FaultTest, PersistentFailureIsUnavailableAtTheDeadline) {
  FaultProxy proxy(upstream_port_, [](int, const std::string&) { return Fault::k500; });
  auto start = std::chrono::steady_clock::now();
  auto got = Through(proxy, Milliseconds(500))->Get("any");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(got.status().code(), Code::kUnavailable) << got.status().message();
  EXPECT_THAT(got.status().message(), HasSubstr("HTTP 500 InternalError"));
  EXPECT_GE(proxy.requests().size(), 3u) << "retried";
  EXPECT_LT(took, std::chrono::seconds(2));
  // An unconditional write: retried, then unavailable, and nothing written.
  auto v = Through(proxy, Milliseconds(300))->Put("never", "x", {});
  EXPECT_EQ(v.status().code(), Code::kUnavailable);
  EXPECT_EQ(direct_->Get("never").status().code(), Code::kNotFound);
}

// The default deadline and backoff, on a fake clock: the retries spread
// over the 20 s deadline and stop before it, in milliseconds of real time.
TEST_F(S3FaultTest, DefaultBackoffStaysWithinTheDeadline) {
  FaultProxy proxy(upstream_port_, [](int, const std::string&) { return Fault::k500; });
  FakeClock clock(SystemTime{} + std::chrono::hours(1000));
  S3StoreOptions o = TestS3Options(server_, bucket_);
  S3StoreOptions defaults;
  o.endpoint = "http://127.0.0.1:" + std::to_string(proxy.port());
  o.deadline = defaults.deadline;
  o.backoff_initial = defaults.backoff_initial;
  o.backoff_max = defaults.backoff_max;
  o.clock = &clock;
  ASSERT_EQ(o.deadline, Milliseconds(20000));
  auto start = clock.Now();
  auto real_start = std::chrono::steady_clock::now();
  auto store = std::move(S3Store::Open(o)).value();
  auto got = store->Get("k");
  EXPECT_EQ(got.status().code(), Code::kUnavailable);
  EXPECT_THAT(got.status().message(), HasSubstr("still failing at the deadline 20s: "));
  // The cause, not the attempt count: the same failure gives the same
  // message, so "once per distinct error" logs it once.
  EXPECT_THAT(got.status().message(), ::testing::Not(HasSubstr("attempt")));
  EXPECT_LE(clock.Now() - start, std::chrono::seconds(20));
  EXPECT_GE(clock.Now() - start, std::chrono::seconds(10)) << "backoff uses most of the deadline";
  size_t attempts = proxy.requests().size();
  EXPECT_EQ(attempts, static_cast<size_t>(clock.sleeps()) + 1);
  // Full jitter averages half the cap: ~1.6 s over the first five waits,
  // then ~1 s each, so about 20 attempts; far fewer would mean no backoff
  // growth cap, far more no backoff at all.
  EXPECT_GE(attempts, 10u);
  EXPECT_LE(attempts, 200u);
  EXPECT_LT(std::chrono::steady_clock::now() - real_start, std::chrono::seconds(5));
}

TEST_F(S3FaultTest, GarbageListingIsCorrupt) {
  ASSERT_TRUE(direct_->Put("g/a", "a", {}).ok());
  FaultProxy proxy(upstream_port_, [](int, const std::string&) { return Fault::kGarbage200; });
  auto page = Through(proxy)->List("g/", "", 10);
  EXPECT_EQ(page.status().code(), Code::kCorrupt) << page.status().message();
  EXPECT_THAT(page.status().message(), HasSubstr("malformed XML"));
  EXPECT_EQ(proxy.requests().size(), 1u) << "garbage is not retried";
}

TEST_F(S3FaultTest, HungRequestTimesOutAndIsRetried) {
  ASSERT_TRUE(direct_->Put("hang", "h", {}).ok());
  FaultProxy proxy(upstream_port_,
                   [](int i, const std::string&) { return i == 0 ? Fault::kHang : Fault::kNone; });
  auto o = TestS3Options(server_, bucket_);
  o.endpoint = "http://127.0.0.1:" + std::to_string(proxy.port());
  o.request_timeout = Milliseconds(300);
  auto s3 = std::move(S3Store::Open(o)).value();
  auto got = s3->Get("hang");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->data, "h");
  EXPECT_EQ(proxy.requests().size(), 2u);
}

TEST_F(S3FaultTest, EndpointDownIsUnavailableAfterTheDeadline) {
  auto o = TestS3Options(server_, bucket_);
  o.endpoint = "http://127.0.0.1:" + std::to_string(UnusedPort());
  o.deadline = Milliseconds(300);
  auto s3 = std::move(S3Store::Open(o)).value();
  auto start = std::chrono::steady_clock::now();
  auto got = s3->Get("k");
  EXPECT_EQ(got.status().code(), Code::kUnavailable) << got.status().message();
  EXPECT_THAT(got.status().message(), HasSubstr("onnect"));
  // A refused connection never reached the server, so even a conditional
  // write is simply retried and ends unavailable, not unknown.
  auto v = s3->Put("k", "x", {PutCondition::kCreateOnly, ""});
  EXPECT_EQ(v.status().code(), Code::kUnavailable) << v.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(S3FaultTest, OversizedObjectIsCorrupt) {
  // Written behind the store's back, one byte over the limit.
  auto a =
      RawS3(server_, "PUT", "/" + bucket_ + "/huge", {}, std::string(kMaxObjectBytes + 1, 'h'));
  ASSERT_EQ(a.http, 200) << a.body;
  auto got = direct_->Get("huge");
  EXPECT_EQ(got.status().code(), Code::kCorrupt) << got.status().message();
  EXPECT_THAT(got.status().message(), HasSubstr("larger than 1048576 bytes"));
}

TEST_F(S3FaultTest, WrongCredentialsAreDenied) {
  auto o = TestS3Options(server_, bucket_);
  o.credentials = EnvCredentials(
      MapGetenv({{"AWS_ACCESS_KEY_ID", "TESTKEY"}, {"AWS_SECRET_ACCESS_KEY", "wrong-secret"}}));
  auto s3 = std::move(S3Store::Open(o)).value();
  auto got = s3->Get("k");
  EXPECT_EQ(got.status().code(), Code::kDenied) << got.status().message();
  EXPECT_THAT(got.status().message(), HasSubstr("SignatureDoesNotMatch"));
  o.credentials = EnvCredentials(MapGetenv({}));
  auto none = std::move(S3Store::Open(o)).value()->Get("k");
  EXPECT_EQ(none.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(none.status().message(), HasSubstr("AWS_ACCESS_KEY_ID"));
}

TEST_F(S3FaultTest, UnavailableCredentialsAreRetriedAndSessionTokensSent) {
  // A provider that fails twice (as IMDS may at boot), then hands out keys
  // with a session token, which RGW without STS refuses: proof that the
  // token is sent, as x-amz-security-token.
  auto o = TestS3Options(server_, bucket_);
  int calls = 0;
  o.credentials = [&calls]() -> StatusOr<AwsCredentials> {
    if (++calls <= 2) return Unavailable("IMDS did not answer");
    return AwsCredentials{"TESTKEY", "TESTSECRET", "", std::nullopt};
  };
  auto s3 = std::move(S3Store::Open(o)).value();
  ASSERT_TRUE(direct_->Put("creds", "c", {}).ok());
  auto got = s3->Get("creds");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(calls, 3);
  // The request as sent: the session token, signed; the payload hash; no
  // Expect header (an empty one breaks libcurl's signature).
  FaultProxy proxy(upstream_port_, [](int, const std::string&) { return Fault::kNone; });
  o.endpoint = "http://127.0.0.1:" + std::to_string(proxy.port());
  o.credentials = []() -> StatusOr<AwsCredentials> {
    return AwsCredentials{"TESTKEY", "TESTSECRET", "session-token-1", std::nullopt};
  };
  (void)std::move(S3Store::Open(o)).value()->Put("creds", "c2", {PutCondition::kCreateOnly, ""});
  auto heads = proxy.heads();
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_THAT(heads[0], HasSubstr("\r\nx-amz-security-token: session-token-1\r\n"));
  EXPECT_THAT(heads[0], HasSubstr("x-amz-date;x-amz-security-token, Signature="));  // Signed.
  EXPECT_THAT(heads[0], HasSubstr("\r\nx-amz-content-sha256: " + Sha256Hex("c2") + "\r\n"));
  EXPECT_THAT(heads[0], HasSubstr("\r\nIf-None-Match: *\r\n"));
  EXPECT_THAT(heads[0], ::testing::Not(HasSubstr("Expect:")));
  o.credentials = []() -> StatusOr<AwsCredentials> { return Denied("the role is not allowed"); };
  auto denied = std::move(S3Store::Open(o)).value()->Get("creds");
  EXPECT_EQ(denied.status().code(), Code::kDenied);
  EXPECT_THAT(denied.status().message(), HasSubstr("the role is not allowed"));
}

TEST_F(S3FaultTest, MissingBucketIsAClearError) {
  auto o = TestS3Options(server_, "no-such-bucket-" + bucket_);
  auto s3 = std::move(S3Store::Open(o)).value();
  auto got = s3->Put("k", "x", {});
  EXPECT_EQ(got.status().code(), Code::kInvalidArgument) << got.status().message();
  EXPECT_THAT(got.status().message(), HasSubstr("does not exist"));
}

// What the server itself answers to If-Match forms (docs/store.md): RGW
// refuses a quoted ETag even when it matches, which is why the store sends
// tags unquoted.
TEST_F(S3FaultTest, ServerIfMatchForms) {
  auto put = RawS3(server_, "PUT", "/" + bucket_ + "/forms", {}, "one");
  ASSERT_EQ(put.http, 200);
  std::string quoted = put.etag;
  ASSERT_TRUE(quoted.size() > 2 && quoted.front() == '"') << quoted;
  std::string bare = quoted.substr(1, quoted.size() - 2);
  auto q = RawS3(server_, "PUT", "/" + bucket_ + "/forms", {"If-Match: " + quoted}, "two");
  EXPECT_EQ(q.http, 412) << "RGW 16 refuses a quoted, matching ETag";
  auto b = RawS3(server_, "PUT", "/" + bucket_ + "/forms", {"If-Match: " + bare}, "three");
  EXPECT_EQ(b.http, 200);
  auto n = RawS3(server_, "PUT", "/" + bucket_ + "/forms", {"If-None-Match: *"}, "four");
  EXPECT_EQ(n.http, 412);
  EXPECT_EQ(direct_->Get("forms")->data, "three");
  // RGW 16 compares only a prefix: the current tag plus junk matches. (If
  // this starts failing, RGW fixed it; the store's own guard stays
  // harmless.) The store refuses such a tag without sending it.
  std::string current = direct_->Get("forms")->version;
  auto junk =
      RawS3(server_, "PUT", "/" + bucket_ + "/forms", {"If-Match: " + current + "junk"}, "five");
  EXPECT_EQ(junk.http, 200);
  current = direct_->Get("forms")->version;
  auto refused = direct_->Put("forms", "six", {PutCondition::kIfMatch, current + "junk"});
  EXPECT_EQ(refused.status().code(), Code::kPreconditionFailed);
  EXPECT_EQ(direct_->Get("forms")->data, "five");
}

}  // namespace
}  // namespace carlos::testing
