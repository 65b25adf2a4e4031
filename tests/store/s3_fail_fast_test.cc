// The S3 backend fails at once where no retry can help (told by libcurl's
// CURLcode and S3's error Code), and tells its observer of every retry it
// does make: docs/store.md, "Failing fast".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>

#include "base/env.h"
#include "test_util.h"

namespace carlos::testing {
namespace {

using ::testing::HasSubstr;

class S3FailFastTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    server_ = S3ServerEnv(&error);
    if (!error.empty()) GTEST_SKIP() << error;
    bucket_ = UniqueBucket();
    auto direct = S3Store::Open(TestS3Options(server_, bucket_));
    ASSERT_TRUE(direct.ok()) << direct.status().message();
    ASSERT_TRUE((*direct)->CreateBucket().ok());
  }

  // Options with a long deadline (a retried failure would take it all), and
  // an observer counting the retries.
  S3StoreOptions Options() {
    S3StoreOptions o = TestS3Options(server_, bucket_);
    o.deadline = Milliseconds(5000);
    o.on_retry = [this](const RetryNote& n) {
      std::lock_guard<std::mutex> lock(mu_);
      notes_.push_back(n);
    };
    return o;
  }

  // Runs a Get through `o`; returns its status and checks it took well
  // under the deadline, with no retry.
  Status GetAtOnce(S3StoreOptions o) {
    auto s3 = S3Store::Open(std::move(o));
    EXPECT_TRUE(s3.ok());
    auto start = std::chrono::steady_clock::now();
    auto got = (*s3)->Get("k");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_TRUE(notes_.empty()) << notes_.size() << " retries; first: " << notes_[0].cause;
    return got.status();
  }

  std::map<std::string, std::string> server_;
  std::string bucket_;
  std::mutex mu_;
  std::vector<RetryNote> notes_;
};

TEST_F(S3FailFastTest, TlsToAPlainHttpPortFailsAtOnce) {
  S3StoreOptions o = Options();
  o.endpoint = "https://" + o.endpoint.substr(o.endpoint.find("://") + 3);
  Status st = GetAtOnce(o);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.message();
  EXPECT_THAT(st.message(), HasSubstr("the server does not speak TLS on that port: an https:// "
                                      "CARLOS_S3_ENDPOINT on a plain-HTTP port? use http://"));
}

TEST_F(S3FailFastTest, AHostThatDoesNotResolveFailsAtOnce) {
  S3StoreOptions o = Options();
  // RFC 6761: .invalid never resolves.
  o.endpoint = "http://carlos-test.invalid:7480";
  Status st = GetAtOnce(o);
  EXPECT_EQ(st.code(), Code::kUnavailable) << st.message();
  EXPECT_THAT(st.message(), HasSubstr("the host name does not resolve: check CARLOS_S3_ENDPOINT"));
}

TEST_F(S3FailFastTest, AnUnknownAccessKeyFailsAtOnce) {
  S3StoreOptions o = Options();
  o.credentials = EnvCredentials(
      MapGetenv({{"AWS_ACCESS_KEY_ID", "NOSUCHKEY"}, {"AWS_SECRET_ACCESS_KEY", "whatever"}}));
  Status st = GetAtOnce(o);
  EXPECT_EQ(st.code(), Code::kDenied) << st.message();
  EXPECT_THAT(st.message(), HasSubstr("InvalidAccessKeyId"));
  EXPECT_THAT(st.message(),
              HasSubstr("(the server knows no such access key: check AWS_ACCESS_KEY_ID)"));
}

TEST_F(S3FailFastTest, AWrongSecretFailsAtOnce) {
  S3StoreOptions o = Options();
  auto env = server_;
  env["AWS_SECRET_ACCESS_KEY"] = "wrong-secret";
  o.credentials = EnvCredentials(MapGetenv(env));
  Status st = GetAtOnce(o);
  EXPECT_EQ(st.code(), Code::kDenied) << st.message();
  EXPECT_THAT(st.message(), HasSubstr("SignatureDoesNotMatch"));
  EXPECT_THAT(st.message(), HasSubstr("check AWS_SECRET_ACCESS_KEY"));
}

TEST_F(S3FailFastTest, MissingCredentialsFailAtOnce) {
  S3StoreOptions o = Options();
  o.credentials = EnvCredentials(MapGetenv({}));
  Status st = GetAtOnce(o);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.message();
}

// A refused connection is worth retrying: each retry is told (what, which
// attempt, the cause, the wait), then the end of the call, once.
TEST_F(S3FailFastTest, EachRetryIsToldAndTheEnd) {
  S3StoreOptions o = Options();
  o.endpoint = "http://127.0.0.1:" + std::to_string(UnusedPort());
  o.deadline = Milliseconds(400);
  auto s3 = std::move(S3Store::Open(o)).value();
  auto got = s3->Get("control/boxes/web-1.json");
  EXPECT_EQ(got.status().code(), Code::kUnavailable);
  std::lock_guard<std::mutex> lock(mu_);
  ASSERT_GE(notes_.size(), 3u);
  for (size_t i = 0; i + 1 < notes_.size(); ++i) {
    EXPECT_FALSE(notes_[i].ended);
    EXPECT_EQ(notes_[i].attempt, static_cast<int>(i) + 1);
    EXPECT_EQ(notes_[i].what, s3->Describe() + ": GET control/boxes/web-1.json");
    EXPECT_THAT(notes_[i].cause, HasSubstr("onnect"));
    EXPECT_LE(notes_[i].next_in, Milliseconds(100));  // backoff_max.
  }
  EXPECT_TRUE(notes_.back().ended);
  EXPECT_EQ(notes_.back().what, s3->Describe() + ": GET control/boxes/web-1.json");
}

}  // namespace
}  // namespace carlos::testing
