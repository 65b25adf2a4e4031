#include "identity/keys.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "base/files.h"
#include "fixtures.h"

namespace carlos::identity {
namespace {

using testing::Must;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "carlos-keys-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadAll(const std::string& path) { return Must(ReadFileLimited(path, 1 << 20)); }

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return st.st_mode & 07777;
}

TEST(Keys, SignAndVerify) {
  PrivateKey key = Must(PrivateKey::Generate());
  std::string sig = Must(key.Sign("hello"));
  EXPECT_EQ(sig.size(), kEd25519SignatureBytes);
  EXPECT_TRUE(key.public_key().Verify("hello", sig).ok());
  EXPECT_EQ(key.public_key().Verify("hellp", sig).code(), Code::kCorrupt);
  std::string bent = sig;
  bent[10] ^= 1;
  EXPECT_EQ(key.public_key().Verify("hello", bent).code(), Code::kCorrupt);
  EXPECT_EQ(key.public_key().Verify("hello", sig.substr(1)).code(), Code::kCorrupt);
  PrivateKey other = Must(PrivateKey::Generate());
  EXPECT_EQ(other.public_key().Verify("hello", sig).code(), Code::kCorrupt);
  EXPECT_FALSE(key.public_key() == other.public_key());
}

// RFC 8032 §7.1 TEST 1: the seed, public key and signature of the empty message.
TEST(Keys, MatchesRfc8032TestVector) {
  auto unhex = [](const std::string& h) {
    std::string out;
    for (size_t i = 0; i < h.size(); i += 2)
      out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
    return out;
  };
  PrivateKey key = Must(PrivateKey::FromSeed(
      unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")));
  EXPECT_EQ(key.public_key().raw(),
            unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"));
  EXPECT_EQ(key.public_key().ToString(), "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=");
  EXPECT_EQ(Must(key.Sign("")),
            unhex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                  "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"));
}

TEST(Keys, PublicKeyTextForm) {
  PrivateKey key = testing::BoxKey();
  std::string text = key.public_key().ToString();
  EXPECT_EQ(text.rfind("ed25519:", 0), 0u);
  EXPECT_EQ(text.size(), 8u + 44u);
  EXPECT_TRUE(Must(PublicKey::Parse(text)) == key.public_key());
  EXPECT_TRUE(Must(PublicKey::Parse("  " + text + "\n")) == key.public_key());
  EXPECT_EQ(PublicKey::Parse(text.substr(8)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(PublicKey::Parse("ed448:" + text.substr(8)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(PublicKey::Parse("ed25519:Zm9v").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(PublicKey::Parse("ed25519:" + std::string(43, 'A') + "=").status().code(),
            Code::kInvalidArgument);  // All zero: the empty key.
  // The last base64 character carries 4 bits of key and 2 unused bits,
  // which must be zero: the same key with an unused bit set is refused.
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string loose = text;
  size_t last = loose.size() - 2;
  size_t sextet = kAlphabet.find(loose[last]);
  ASSERT_EQ(sextet % 4, 0u);
  loose[last] = kAlphabet[sextet + 1];
  EXPECT_EQ(PublicKey::Parse(loose).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(PublicKey().empty());
  EXPECT_EQ(PublicKey().Verify("x", std::string(64, '\0')).code(), Code::kCorrupt);
}

TEST(Keys, PemRoundTripAndRefusals) {
  PrivateKey key = Must(PrivateKey::Generate());
  std::string pem = Must(key.ToPem());
  EXPECT_EQ(pem.rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u);
  EXPECT_TRUE(Must(PrivateKey::FromPem(pem)).public_key() == key.public_key());
  EXPECT_EQ(PrivateKey::FromPem("").status().code(), Code::kCorrupt);
  EXPECT_EQ(PrivateKey::FromPem(pem.substr(0, pem.size() / 2)).status().code(), Code::kCorrupt);
  EXPECT_EQ(PrivateKey::FromPem("not a key").status().code(), Code::kCorrupt);
  // An RSA key is a key, but not an Ed25519 one.
  const auto& rsa = testing::AwsCertForTest();
  Status st = PrivateKey::FromPem(rsa.key_pem).status();
  EXPECT_EQ(st.code(), Code::kCorrupt);
  EXPECT_NE(st.message().find("not an Ed25519 key"), std::string::npos) << st.ToString();
}

TEST(BoxKey, CreatedOnceWithMode0600AndLoadedAfter) {
  TempDir dir;
  PrivateKey first = Must(LoadOrCreateBoxKey(dir.path()));
  std::string path = dir.path() + "/box.key";
  EXPECT_EQ(ModeOf(path), 0600u);
  std::string bytes = ReadAll(path);
  PrivateKey again = Must(LoadOrCreateBoxKey(dir.path()));
  EXPECT_TRUE(again.public_key() == first.public_key());
  EXPECT_EQ(ReadAll(path), bytes);
  // No temporary file is left beside it.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(BoxKey, RacingCreatorsEndWithOneKey) {
  TempDir dir;
  std::vector<std::string> keys(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < keys.size(); ++i) {
    threads.emplace_back(
        [&, i] { keys[i] = Must(LoadOrCreateBoxKey(dir.path())).public_key().ToString(); });
  }
  for (auto& t : threads) t.join();
  for (const auto& k : keys) EXPECT_EQ(k, keys[0]);
  EXPECT_EQ(Must(LoadOrCreateBoxKey(dir.path())).public_key().ToString(), keys[0]);
}

// A refused key file is an error and stays exactly as it was: the box must
// never silently become another box.
void ExpectRefusedAndKept(const std::string& dir, Code code, const std::string& words) {
  std::string path = dir + "/box.key";
  std::string before = ReadAll(path);
  mode_t mode_before = ModeOf(path);
  StatusOr<PrivateKey> key = LoadOrCreateBoxKey(dir);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), code) << key.status().ToString();
  EXPECT_NE(key.status().message().find(words), std::string::npos) << key.status().ToString();
  EXPECT_NE(key.status().message().find("left as it is"), std::string::npos);
  EXPECT_EQ(ReadAll(path), before);
  EXPECT_EQ(ModeOf(path), mode_before);
}

TEST(BoxKey, GroupOrWorldReadableIsRefusedNotReplaced) {
  TempDir dir;
  Must(LoadOrCreateBoxKey(dir.path()));
  std::string path = dir.path() + "/box.key";
  for (mode_t mode : {0640, 0604, 0660, 0601}) {
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    ExpectRefusedAndKept(dir.path(), Code::kDenied, "chmod 600");
  }
}

TEST(BoxKey, TruncatedEmptyOrGarbageIsRefusedNotReplaced) {
  TempDir dir;
  PrivateKey key = Must(PrivateKey::Generate());
  std::string pem = Must(key.ToPem());
  std::string path = dir.path() + "/box.key";
  for (std::string content : {pem.substr(0, pem.size() - 20), std::string(), std::string("hello\n"),
                              std::string(5000, 'A')}) {
    ASSERT_TRUE(WriteFileAtomic(path, content, 0600).ok());
    ExpectRefusedAndKept(dir.path(), Code::kCorrupt, "box.key");
  }
}

TEST(BoxKey, SymlinkIsRefused) {
  TempDir dir;
  std::string real = dir.path() + "/real.key";
  ASSERT_TRUE(WriteNewPrivateKeyFile(real, Must(PrivateKey::Generate())).ok());
  ASSERT_EQ(::symlink(real.c_str(), (dir.path() + "/box.key").c_str()), 0);
  StatusOr<PrivateKey> key = LoadOrCreateBoxKey(dir.path());
  EXPECT_EQ(key.status().code(), Code::kDenied) << key.status().ToString();
}

TEST(BoxKey, MissingDataDirIsNotFound) {
  TempDir dir;
  StatusOr<PrivateKey> key = LoadOrCreateBoxKey(dir.path() + "/nope");
  EXPECT_EQ(key.status().code(), Code::kNotFound) << key.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/nope"));
}

TEST(KeyFiles, WriteNewNeverOverwrites) {
  TempDir dir;
  std::string path = dir.path() + "/enroll.key";
  PrivateKey a = Must(PrivateKey::Generate());
  ASSERT_TRUE(WriteNewPrivateKeyFile(path, a).ok());
  EXPECT_EQ(ModeOf(path), 0600u);
  std::string before = ReadAll(path);
  Status st = WriteNewPrivateKeyFile(path, Must(PrivateKey::Generate()));
  EXPECT_EQ(st.code(), Code::kPreconditionFailed);
  EXPECT_EQ(ReadAll(path), before);
  EXPECT_TRUE(Must(LoadPrivateKeyFile(path)).public_key() == a.public_key());
  EXPECT_EQ(LoadPrivateKeyFile(dir.path() + "/missing").status().code(), Code::kNotFound);
}

TEST(KeyFiles, MessagesNeverHoldKeyMaterial) {
  TempDir dir;
  PrivateKey key = Must(PrivateKey::Generate());
  std::string pem = Must(key.ToPem());
  std::string path = dir.path() + "/k";
  ASSERT_TRUE(WriteFileAtomic(path, pem.substr(0, pem.size() - 30), 0600).ok());
  Status st = LoadPrivateKeyFile(path).status();
  std::string body = pem.substr(28, 20);  // Part of the base64 body.
  EXPECT_EQ(st.message().find(body), std::string::npos);
  EXPECT_EQ(st.message().find("BEGIN"), std::string::npos);
}

}  // namespace
}  // namespace carlos::identity
