// Unit tests with no server: key rules, the XML reader, credentials,
// UriEncode and OpenStore's choice of backend.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "base/files.h"
#include "store/aws_credentials.h"
#include "store/s3_store.h"
#include "store/s3_xml.h"
#include "store/store.h"
#include "test_util.h"

namespace carlos::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A store that answers List with the pages it is given, one per call.
class ScriptedPages : public Store {
 public:
  explicit ScriptedPages(std::vector<ListPage> pages) : pages_(std::move(pages)) {}
  StatusOr<Object> Get(std::string_view) override { return NotFound("none"); }
  StatusOr<std::string> Put(std::string_view, std::string_view, const PutOptions&) override {
    return Denied("read-only");
  }
  StatusOr<ListPage> List(std::string_view, std::string_view, int) override {
    ++calls;
    if (next_ >= pages_.size()) return ListPage{};
    return pages_[next_++];
  }
  Status Delete(std::string_view) override { return Denied("read-only"); }
  std::string Describe() const override { return "scripted"; }
  int calls = 0;

 private:
  std::vector<ListPage> pages_;
  size_t next_ = 0;
};

TEST(ListAllBounds, ShortAndEmptyPagesWithinTheAllowanceAreAccepted) {
  // S3 may answer fewer keys than asked, even none, with more to come.
  std::vector<ListPage> pages;
  for (size_t i = 0; i < kListPageAllowance; ++i) pages.push_back({{}, fmt::format("t{}", i)});
  pages.push_back({{"p/a", "p/b"}, "t-last"});
  pages.push_back({{"p/c"}, ""});
  ScriptedPages store(pages);
  auto keys = ListAll(store, "p/");
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  EXPECT_THAT(*keys, ElementsAre("p/a", "p/b", "p/c"));
  EXPECT_EQ(store.calls, static_cast<int>(kListPageAllowance) + 2);
}

TEST(ListAllBounds, KeysOutsideThePrefixOrOutOfOrderAreRefused) {
  ScriptedPages outside({{{"p/a", "q/b"}, ""}});
  auto a = ListAll(outside, "p/");
  EXPECT_EQ(a.status().code(), Code::kCorrupt);
  EXPECT_THAT(a.status().message(), HasSubstr("page 1 holds \"q/b\", outside the prefix"));
  ScriptedPages backwards({{{"p/b"}, "t1"}, {{"p/a"}, ""}});
  auto b = ListAll(backwards, "p/");
  EXPECT_EQ(b.status().code(), Code::kCorrupt);
  EXPECT_THAT(b.status().message(), HasSubstr("keys repeat or go back"));
  ScriptedPages too_many({{std::vector<std::string>(1001, "p/x"), ""}});
  EXPECT_THAT(ListAll(too_many, "p/").status().message(),
              HasSubstr("1001 keys, more than the 1000"));
}

TEST(KeyTest, ValidKeys) {
  for (std::string k :
       std::vector<std::string>{"a", "control/boxes/web-1.json", "a/b/c", ".hidden/x", "a/...",
                                "x!~", std::string(kMaxKeyBytes, 'k')}) {
    EXPECT_TRUE(ValidateKey(k).ok()) << k << ": " << ValidateKey(k).message();
  }
}

TEST(KeyTest, InvalidKeysSayWhy) {
  struct Case {
    std::string key;
    std::string why;
  };
  for (const auto& c : std::vector<Case>{{"", "empty"},
                                         {"/a", "starts with '/'"},
                                         {"a/", "ends with '/'"},
                                         {"a//b", "empty segment"},
                                         {"a/./b", "\".\" segment"},
                                         {"../a", "\"..\" segment"},
                                         {"a b", "byte 0x20 at offset 1"},
                                         {"a\x7f", "byte 0x7f"},
                                         {"\xc3\xa9", "byte 0xc3"},
                                         {std::string(kMaxKeyBytes + 1, 'k'), "1025 bytes"}}) {
    Status s = ValidateKey(c.key);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.key;
    EXPECT_THAT(s.message(), HasSubstr(c.why)) << c.key;
  }
}

TEST(KeyTest, Prefixes) {
  for (std::string p : {"", "control/", "control/bo", "a/b/"})
    EXPECT_TRUE(ValidatePrefix(p).ok()) << p;
  for (std::string p : {"/", "/a", "a//", "a/../", "./", "a b"}) {
    EXPECT_EQ(ValidatePrefix(p).code(), Code::kInvalidArgument) << p;
  }
}

TEST(XmlTest, ListBucketResult) {
  auto page = ParseListObjectsV2(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>"
      "<IsTruncated>true</IsTruncated>"
      "<Contents><Key>p/a&amp;b&lt;&gt;&quot;&apos;&#65;&#x42;</Key><ETag>&quot;x&quot;</ETag>"
      "<Size>1</Size></Contents>"
      "<Contents><Key><![CDATA[p/<c>]]></Key></Contents>"
      "<NextContinuationToken>tok/+=</NextContinuationToken></ListBucketResult>");
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_THAT(page->keys, ElementsAre("p/a&b<>\"'AB", "p/<c>"));
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_continuation_token, "tok/+=");

  auto last =
      ParseListObjectsV2("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->keys.empty());
  EXPECT_FALSE(last->truncated);
}

TEST(XmlTest, GarbageIsCorrupt) {
  for (std::string body : std::vector<std::string>{
           "", "not xml", "<ListBucketResult>", "<ListBucketResult></Other>",
           "<ListBucketResult><Contents><Key>a</Key></Contents",
           "<ListBucketResult></ListBucketResult>trailing",
           "<ListBucketResult>&bogus;</ListBucketResult>", "<Error><Code>x</Code></Error>",
           "<html><body>502</body></html>",
           "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
           "<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>",
           "<ListBucketResult><Contents></Contents></ListBucketResult>",
           std::string(40, '<') + "a"}) {
    auto page = ParseListObjectsV2(body);
    EXPECT_EQ(page.status().code(), Code::kCorrupt) << body;
  }
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "<a>";
  EXPECT_THAT(ParseXml(deep).status().message(), HasSubstr("nested too deep"));
}

TEST(XmlTest, ErrorBody) {
  auto e = ParseS3Error(
      "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Please reduce</Message>"
      "<RequestId>1</RequestId></Error>");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, "SlowDown");
  EXPECT_EQ(e->message, "Please reduce");
  EXPECT_FALSE(ParseS3Error("").has_value());
  EXPECT_FALSE(ParseS3Error("<html/>").has_value());
  EXPECT_FALSE(ParseS3Error("<Error>").has_value());
}

TEST(UriEncodeTest, AwsRules) {
  EXPECT_EQ(UriEncode("a/b c+~._-", true), "a/b%20c%2B~._-");
  EXPECT_EQ(UriEncode("a/b=", false), "a%2Fb%3D");
  EXPECT_EQ(UriEncode("\xff", false), "%FF");
}

TEST(CredentialsTest, FromEnvironment) {
  auto c = EnvCredentials(MapGetenv({{"AWS_ACCESS_KEY_ID", "AK"},
                                     {"AWS_SECRET_ACCESS_KEY", "SK"},
                                     {"AWS_SESSION_TOKEN", "TOK"}}))();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->access_key_id, "AK");
  EXPECT_EQ(c->secret_access_key, "SK");
  EXPECT_EQ(c->session_token, "TOK");
  auto half = EnvCredentials(MapGetenv({{"AWS_ACCESS_KEY_ID", "AK"}}))();
  EXPECT_EQ(half.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(half.status().message(), HasSubstr("AWS_SECRET_ACCESS_KEY is not"));
  auto none = EnvCredentials(MapGetenv({}))();
  EXPECT_THAT(none.status().message(),
              HasSubstr("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"));
}

TEST(CredentialsTest, FallbackOnlyWhenTheEnvironmentHasNoKeys) {
  int calls = 0;
  SetDefaultCredentialsFallback([&calls]() -> StatusOr<AwsCredentials> {
    ++calls;
    return AwsCredentials{"ROLE", "ROLESECRET", "ROLETOKEN", std::nullopt};
  });
  auto from_role = DefaultCredentials(MapGetenv({}))();
  ASSERT_TRUE(from_role.ok());
  EXPECT_EQ(from_role->access_key_id, "ROLE");
  auto from_env = DefaultCredentials(
      MapGetenv({{"AWS_ACCESS_KEY_ID", "AK"}, {"AWS_SECRET_ACCESS_KEY", "SK"}}))();
  EXPECT_EQ(from_env->access_key_id, "AK");
  // A half-set pair is an error, not a reason to use the role.
  EXPECT_FALSE(DefaultCredentials(MapGetenv({{"AWS_ACCESS_KEY_ID", "AK"}}))().ok());
  EXPECT_EQ(calls, 1);
  SetDefaultCredentialsFallback(nullptr);
  auto none = DefaultCredentials(MapGetenv({}))();
  EXPECT_EQ(none.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(none.status().message(), HasSubstr("instance role"));
}

TEST(OpenStoreTest, ChoosesTheBackendTheEnvironmentNames) {
  TempDir tmp;
  auto neither = OpenStore(MapGetenv({}));
  EXPECT_EQ(neither.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(neither.status().message(), HasSubstr("CARLOS_DEPLOYMENT_DIR"));
  auto both = OpenStore(
      MapGetenv({{"CARLOS_DEPLOYMENT_DIR", tmp.path()}, {"CARLOS_DEPLOYMENT_BUCKET", "bkt"}}));
  EXPECT_EQ(both.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(both.status().message(), HasSubstr("only one"));

  auto dir = OpenStore(MapGetenv({{"CARLOS_DEPLOYMENT_DIR", tmp.path()}}));
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ((*dir)->Describe(), "dir " + tmp.path());
  auto missing = OpenStore(MapGetenv({{"CARLOS_DEPLOYMENT_DIR", tmp.path() + "/no"}}));
  EXPECT_THAT(missing.status().message(), HasSubstr("CARLOS_DEPLOYMENT_DIR"));

  auto aws = OpenStore(
      MapGetenv({{"CARLOS_DEPLOYMENT_BUCKET", "my-deploy"}, {"AWS_DEFAULT_REGION", "eu-west-1"}}));
  ASSERT_TRUE(aws.ok()) << aws.status().message();
  EXPECT_EQ((*aws)->Describe(), "s3://my-deploy (region eu-west-1)");
  auto region = OpenStore(MapGetenv({{"CARLOS_DEPLOYMENT_BUCKET", "my-deploy"},
                                     {"AWS_REGION", "us-west-2"},
                                     {"AWS_DEFAULT_REGION", "eu-west-1"}}));
  EXPECT_EQ((*region)->Describe(), "s3://my-deploy (region us-west-2)");
  auto local = OpenStore(MapGetenv(
      {{"CARLOS_DEPLOYMENT_BUCKET", "my-deploy"}, {"CARLOS_S3_ENDPOINT", "http://127.0.0.1:9/"}}));
  EXPECT_EQ((*local)->Describe(), "s3://my-deploy (endpoint http://127.0.0.1:9)");

  auto bad_bucket = OpenStore(MapGetenv({{"CARLOS_DEPLOYMENT_BUCKET", "Bad_Bucket"}}));
  EXPECT_EQ(bad_bucket.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(bad_bucket.status().message(), HasSubstr("CARLOS_DEPLOYMENT_BUCKET"));
  auto bad_endpoint = OpenStore(MapGetenv(
      {{"CARLOS_DEPLOYMENT_BUCKET", "my-deploy"}, {"CARLOS_S3_ENDPOINT", "127.0.0.1:7480"}}));
  EXPECT_THAT(bad_endpoint.status().message(), HasSubstr("CARLOS_S3_ENDPOINT"));
}

// The command's exit codes and messages, on a directory store.
TEST(StoreCommandTest, GetPutLsRm) {
  ASSERT_FALSE(CarlosBin().empty()) << "CARLOS_BIN is not set";
  TempDir tmp;
  std::map<std::string, std::string> env = {{"CARLOS_DEPLOYMENT_DIR", tmp.path()}};
  auto put = RunCarlos({"store", "put", "--create-only", "a/b.json"}, env, "{\"x\":1}");
  ASSERT_EQ(put.exit_code, 0) << put.err;
  std::string tag = put.out.substr(0, put.out.find('\n'));
  EXPECT_EQ(tag.size(), 64u);
  auto again = RunCarlos({"store", "put", "--create-only", "a/b.json"}, env, "other");
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_THAT(again.err, HasSubstr("already exists"));
  EXPECT_EQ(std::count(again.err.begin(), again.err.end(), '\n'), 1) << "one line";

  auto get = RunCarlos({"store", "get", "a/b.json"}, env, "");
  EXPECT_EQ(get.exit_code, 0);
  EXPECT_EQ(get.out, "{\"x\":1}");
  EXPECT_EQ(get.err, "version " + tag + "\n");
  auto tag_only = RunCarlos({"store", "get", "-tag", "a/b.json"}, env, "");
  EXPECT_EQ(tag_only.out, tag + "\n");

  auto cas = RunCarlos({"store", "put", "--if-match", tag, "a/b.json"}, env, "v2");
  EXPECT_EQ(cas.exit_code, 0) << cas.err;
  auto stale = RunCarlos({"store", "put", "--if-match", tag, "a/b.json"}, env, "v3");
  EXPECT_EQ(stale.exit_code, 3);

  ASSERT_EQ(RunCarlos({"store", "put", "a/c"}, env, "c").exit_code, 0);
  ASSERT_EQ(RunCarlos({"store", "put", "z"}, env, "z").exit_code, 0);
  EXPECT_EQ(RunCarlos({"store", "ls", "a/"}, env, "").out, "a/b.json\na/c\n");
  EXPECT_EQ(RunCarlos({"store", "ls"}, env, "").out, "a/b.json\na/c\nz\n");

  EXPECT_EQ(RunCarlos({"store", "rm", "a/c"}, env, "").exit_code, 0);
  EXPECT_EQ(RunCarlos({"store", "rm", "a/c"}, env, "").exit_code, 0);
  auto gone = RunCarlos({"store", "get", "a/c"}, env, "");
  EXPECT_EQ(gone.exit_code, 4);
  EXPECT_THAT(gone.err, HasSubstr("not found"));

  auto bad = RunCarlos({"store", "get", "a//b"}, env, "");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("empty segment"));
  auto big = RunCarlos({"store", "put", "big"}, env, std::string(kMaxObjectBytes + 10, 'b'));
  EXPECT_EQ(big.exit_code, 1);
  EXPECT_THAT(big.err, HasSubstr("at most 1048576"));
  EXPECT_EQ(RunCarlos({"store", "get", "big"}, env, "").exit_code, 4);
  auto nostore = RunCarlos({"store", "ls"}, {}, "");
  EXPECT_EQ(nostore.exit_code, 1);
  EXPECT_THAT(nostore.err, HasSubstr("CARLOS_DEPLOYMENT_DIR"));
  auto help = RunCarlos({"store", "put", "-h"}, env, "");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("3 precondition failed"));
  EXPECT_THAT(help.out, HasSubstr("4 not found"));
}

// Failing fast from the shell: --timeout bounds a dead endpoint's wait; on a
// terminal one progress line is redrawn while it retries (none otherwise);
// off EC2 with no keys the error says no credentials were found.
TEST(StoreCommand, TimeoutProgressAndNoCredentials) {
  ASSERT_FALSE(CarlosBin().empty()) << "CARLOS_BIN is not set";
  std::string endpoint = "http://127.0.0.1:" + std::to_string(UnusedPort());
  std::map<std::string, std::string> env = {{"CARLOS_DEPLOYMENT_BUCKET", "carlos-test"},
                                            {"CARLOS_S3_ENDPOINT", endpoint},
                                            {"AWS_ACCESS_KEY_ID", "K"},
                                            {"AWS_SECRET_ACCESS_KEY", "S"}};
  auto start = std::chrono::steady_clock::now();
  auto dead = RunCarlos({"store", "ls", "--timeout", "300ms"}, env, "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(dead.exit_code, 1);
  EXPECT_THAT(dead.err, HasSubstr("still failing at the deadline 300ms"));
  EXPECT_THAT(dead.err, ::testing::Not(HasSubstr("attempt")));  // Not a terminal.
  EXPECT_EQ(std::count(dead.err.begin(), dead.err.end(), '\n'), 1) << dead.err;

  // On a terminal (script(1) gives the command one): the progress line.
  std::string cmd = "env -i";
  for (const auto& [k, v] : env) cmd += " " + k + "=" + v;
  cmd += " " + CarlosBin() + " store ls --timeout 1s";
  TempDir tmp;
  std::string typescript = tmp.path() + "/typescript";
  std::string run = "script -qec '" + cmd + "' " + typescript + " >/dev/null 2>&1";
  EXPECT_EQ(std::system(run.c_str()) >> 8, 1);
  std::ifstream in(typescript);
  std::string tty((std::istreambuf_iterator<char>(in)), {});
  EXPECT_THAT(tty, HasSubstr("\r\033[Kcarlos store ls: s3://carlos-test (endpoint " + endpoint +
                             "): LIST \"\": attempt 1 failed: "));
  EXPECT_THAT(tty, HasSubstr("; next try in "));
  // Erased before the error line.
  EXPECT_THAT(tty, HasSubstr("\r\033[Kcarlos store: s3://carlos-test"));

  auto zero = RunCarlos({"store", "ls", "--timeout", "0s"}, env, "");
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_THAT(zero.err, HasSubstr("--timeout"));

  // No AWS_* keys, and no IMDS answering: no credentials, at once.
  env.erase("AWS_ACCESS_KEY_ID");
  env.erase("AWS_SECRET_ACCESS_KEY");
  env["CARLOS_IMDS_ENDPOINT"] = "http://127.0.0.1:" + std::to_string(UnusedPort());
  start = std::chrono::steady_clock::now();
  auto nocreds = RunCarlos({"store", "ls"}, env, "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(nocreds.exit_code, 1);
  EXPECT_THAT(nocreds.err, HasSubstr("no AWS credentials were found: AWS_ACCESS_KEY_ID and "
                                     "AWS_SECRET_ACCESS_KEY are not set, and no instance "
                                     "metadata service answered at"));
  EXPECT_THAT(nocreds.err, ::testing::Not(HasSubstr("enable")));
}

}  // namespace
}  // namespace carlos::testing
