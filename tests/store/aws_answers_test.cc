// The S3 backend against answers as AWS documents them (s3_store.h), on the
// AWS-like server (tests/harness/aws-s3-server): If-Match on a missing key
// (404 NoSuchKey), AWS's error bodies, a 409 ConditionalRequestConflict,
// and listings that never end (store.h, ListAll), each ended in bounded
// time with an error that says why. Also `carlos store` on the same
// answers.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/s3_xml.h"
#include "test_util.h"

namespace carlos::testing {
namespace {

using ::testing::HasSubstr;

class AwsAnswers : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    server_ = AwsLikeServerEnv(&error);
    ASSERT_TRUE(error.empty()) << error;
    bucket_ = UniqueBucket();
    auto s3 = S3Store::Open(TestS3Options(server_, bucket_));
    ASSERT_TRUE(s3.ok()) << s3.status().message();
    ASSERT_TRUE((*s3)->CreateBucket().ok());
    store_ = std::move(*s3);
    env_ = server_;
    env_["CARLOS_DEPLOYMENT_BUCKET"] = bucket_;
  }

  std::map<std::string, std::string> server_;
  std::map<std::string, std::string> env_;
  std::string bucket_;
  std::unique_ptr<S3Store> store_;
};

TEST_F(AwsAnswers, IfMatchOnAMissingKeyIsPreconditionFailedAsOnTheDirectory) {
  auto v = store_->Put("control/edges/a.json", "v1", {});
  ASSERT_TRUE(v.ok()) << v.status().message();
  // What the server itself answers: AWS's 404 NoSuchKey, with its body.
  RawAnswer raw =
      RawS3(server_, "PUT", "/" + bucket_ + "/control/edges/none.json", {"If-Match: " + *v}, "x");
  EXPECT_EQ(raw.http, 404);
  auto err = ParseS3Error(raw.body);
  ASSERT_TRUE(err.has_value()) << raw.body;
  EXPECT_EQ(err->code, "NoSuchKey");
  EXPECT_EQ(err->message, "The specified key does not exist.");
  EXPECT_THAT(raw.body, HasSubstr("<Key>control/edges/none.json</Key>"));
  EXPECT_THAT(raw.body, HasSubstr("<RequestId>"));

  // What the store makes of it: the directory backend's answer.
  auto missing = store_->Put("control/edges/none.json", "x", {PutCondition::kIfMatch, *v});
  EXPECT_EQ(missing.status().code(), Code::kPreconditionFailed) << missing.status().message();
  EXPECT_THAT(missing.status().message(), HasSubstr("the key is missing"));
  EXPECT_EQ(store_->Get("control/edges/none.json").status().code(), Code::kNotFound);

  // And `carlos store put --if-match`: exit 3 (precondition failed), not 4.
  ChildResult r =
      RunCarlos({"store", "put", "--if-match", *v, "control/edges/none.json"}, env_, "x");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  ChildResult ok =
      RunCarlos({"store", "put", "--if-match", *v, "control/edges/a.json"}, env_, "v2");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(store_->Get("control/edges/a.json")->data, "v2");
}

TEST_F(AwsAnswers, PreconditionFailedBodiesNameTheCondition) {
  auto v = store_->Put("k/one", "1", {});
  ASSERT_TRUE(v.ok());
  RawAnswer exists = RawS3(server_, "PUT", "/" + bucket_ + "/k/one", {"If-None-Match: *"}, "2");
  EXPECT_EQ(exists.http, 412);
  EXPECT_EQ(ParseS3Error(exists.body)->code, "PreconditionFailed");
  EXPECT_THAT(exists.body, HasSubstr("<Condition>If-None-Match</Condition>"));
  RawAnswer stale = RawS3(server_, "PUT", "/" + bucket_ + "/k/one",
                          {"If-Match: \"00000000000000000000000000000000\""}, "2");
  EXPECT_EQ(stale.http, 412);
  EXPECT_THAT(stale.body, HasSubstr("<Condition>If-Match</Condition>"));
  EXPECT_EQ(store_->Put("k/one", "2", {PutCondition::kCreateOnly, ""}).status().code(),
            Code::kPreconditionFailed);
  EXPECT_EQ(store_->Get("k/one")->data, "1");
}

TEST_F(AwsAnswers, WrongSecretIsDeniedWithSignatureDoesNotMatch) {
  auto bad = server_;
  bad["AWS_SECRET_ACCESS_KEY"] = "WRONGSECRET";
  RawAnswer raw = RawS3(bad, "GET", "/" + bucket_ + "/k/any", {}, "");
  EXPECT_EQ(raw.http, 403);
  EXPECT_EQ(ParseS3Error(raw.body)->code, "SignatureDoesNotMatch");
  auto store = S3Store::Open(TestS3Options(bad, bucket_));
  ASSERT_TRUE(store.ok());
  auto got = (*store)->Get("k/any");
  EXPECT_EQ(got.status().code(), Code::kDenied);
  // The secret is named; not s3:ListBucket, which explains only a plain
  // 403 AccessDenied to a GET (a missing key without that permission).
  EXPECT_THAT(got.status().message(), HasSubstr("check AWS_SECRET_ACCESS_KEY"));
  EXPECT_THAT(got.status().message(), ::testing::Not(HasSubstr("s3:ListBucket")));
}

TEST_F(AwsAnswers, ConditionalRequestConflictIsRetried) {
  ASSERT_TRUE(ScriptAwsLike(bucket_, "put-conflict-once").ok());
  auto v = store_->Put("k/created", "c", {PutCondition::kCreateOnly, ""});
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(store_->Get("k/created")->data, "c");
}

// Issue case: every page says IsTruncated with a fresh token and the same
// keys. Before, `carlos store ls` never ended and grew in memory.
TEST_F(AwsAnswers, EndlessPagesOfTheSameKeysEnd) {
  for (std::string k : {"p/a", "p/b", "p/c"}) ASSERT_TRUE(store_->Put(k, k, {}).ok());
  ASSERT_TRUE(ScriptAwsLike(bucket_, "list-endless-same-keys").ok());
  auto keys = ListAll(*store_, "p/");
  EXPECT_EQ(keys.status().code(), Code::kCorrupt);
  EXPECT_THAT(keys.status().message(), HasSubstr("page 2 holds \"p/a\" after \"p/c\""));
  ChildResult r = RunCarlos({"store", "ls", "p/"}, env_, "");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("keys repeat or go back"));
  EXPECT_EQ(r.out, "");
}

TEST_F(AwsAnswers, ATokenAskedForComingBackEnds) {
  ASSERT_TRUE(store_->Put("p/a", "a", {}).ok());
  ASSERT_TRUE(ScriptAwsLike(bucket_, "list-repeat-token").ok());
  auto keys = ListAll(*store_, "p/");
  EXPECT_EQ(keys.status().code(), Code::kCorrupt);
  EXPECT_THAT(keys.status().message(), HasSubstr("continues with the token it was asked for"));
  auto page = store_->List("p/", "the-only-token", 10);
  EXPECT_EQ(page.status().code(), Code::kCorrupt);
  EXPECT_THAT(page.status().message(), HasSubstr("continues with the token it was asked for"));
}

TEST_F(AwsAnswers, CyclingTokensEnd) {
  ASSERT_TRUE(ScriptAwsLike(bucket_, "list-empty-cycle").ok());
  auto keys = ListAll(*store_, "");
  EXPECT_EQ(keys.status().code(), Code::kCorrupt);
  EXPECT_THAT(keys.status().message(), HasSubstr("page 3 continues with a token that came before"));
}

TEST_F(AwsAnswers, EmptyPagesWithoutEndEnd) {
  ASSERT_TRUE(ScriptAwsLike(bucket_, "list-empty-forever").ok());
  auto keys = ListAll(*store_, "");
  EXPECT_EQ(keys.status().code(), Code::kCorrupt);
  EXPECT_THAT(keys.status().message(),
              HasSubstr(fmt::format("{} pages for 0 keys", kListPageAllowance + 1)));
}

TEST_F(AwsAnswers, APageWithMoreKeysThanAskedForIsRefused) {
  ASSERT_TRUE(ScriptAwsLike(bucket_, "list-too-many-keys").ok());
  auto page = store_->List("p/", "", 10);
  EXPECT_EQ(page.status().code(), Code::kCorrupt);
  EXPECT_THAT(page.status().message(), HasSubstr("11 keys, more than the 10 asked for"));
}

TEST_F(AwsAnswers, HonestListingAcrossPages) {
  std::vector<std::string> want;
  for (int i = 0; i < 2100; ++i) want.push_back(fmt::format("q/{:05d}", i));
  for (const auto& k : want) ASSERT_TRUE(store_->Put(k, "", {}).ok());
  auto keys = ListAll(*store_, "q/");
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  EXPECT_EQ(*keys, want);
}

}  // namespace
}  // namespace carlos::testing
