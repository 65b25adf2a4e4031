// `carlos boxes keygen`, run as the operator runs it: the built command.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include "base/files.h"
#include "base/strings.h"
#include "fixtures.h"
#include "identity/keys.h"

namespace carlos::identity {
namespace {

using testing::Must;

struct Ran {
  int exit_code;
  std::string out, err;
};

class KeygenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("CARLOS_BIN");
    ASSERT_NE(bin, nullptr) << "CARLOS_BIN must name the built carlos command";
    bin_ = bin;
    std::string tmpl = (std::filesystem::temp_directory_path() / "carlos-keygen-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Ran Carlos(const std::string& args) {
    std::string out = dir_ + "/stdout", err = dir_ + "/stderr";
    std::string cmd = "'" + bin_ + "' " + args + " >'" + out + "' 2>'" + err + "'";
    int rc = std::system(cmd.c_str());
    Ran r{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, Must(ReadFileLimited(out, 1 << 20)),
          Must(ReadFileLimited(err, 1 << 20))};
    std::filesystem::remove(out);
    std::filesystem::remove(err);
    return r;
  }

  std::string bin_, dir_;
};

TEST_F(KeygenTest, WritesTheKeyAndPrintsThePublicKey) {
  std::string path = dir_ + "/enrollment.key";
  Ran r = Carlos("boxes keygen --out '" + path + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  PrivateKey key = Must(LoadPrivateKeyFile(path));
  // stdout is exactly the public key line, as CARLOS_ENROLLMENT_PUBKEY takes it.
  EXPECT_EQ(r.out, key.public_key().ToString() + "\n");
  EXPECT_TRUE(Must(PublicKey::Parse(r.out)) == key.public_key());
  EXPECT_NE(r.err.find("CARLOS_ENROLLMENT_PUBKEY"), std::string::npos);
  // Nothing of the private key is printed.
  std::string pem = Must(ReadFileLimited(path, 4096));
  EXPECT_EQ(r.out.find("PRIVATE"), std::string::npos);
  EXPECT_EQ(r.err.find(pem.substr(28, 16)), std::string::npos);
}

TEST_F(KeygenTest, GoStyleFlagIsAccepted) {
  std::string path = dir_ + "/k";
  Ran r = Carlos("boxes keygen -out '" + path + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(LoadPrivateKeyFile(path).ok());
}

TEST_F(KeygenTest, RefusesToOverwriteAnExistingFile) {
  std::string path = dir_ + "/enrollment.key";
  ASSERT_EQ(Carlos("boxes keygen --out '" + path + "'").exit_code, 0);
  std::string before = Must(ReadFileLimited(path, 4096));
  Ran r = Carlos("boxes keygen --out '" + path + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
  EXPECT_EQ(Must(ReadFileLimited(path, 4096)), before);
}

TEST_F(KeygenTest, NeedsOutAndHasHelp) {
  Ran r = Carlos("boxes keygen");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  Ran h = Carlos("boxes keygen -h");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--out"), std::string::npos) << h.out;
  Ran missing_dir = Carlos("boxes keygen --out '" + dir_ + "/no/such/dir/k'");
  EXPECT_EQ(missing_dir.exit_code, 1);
  // The path the user gave, not the temporary file beside it.
  EXPECT_EQ(missing_dir.err, "carlos boxes keygen: the enrollment key was not written: create " +
                                 dir_ + "/no/such/dir/k: No such file or directory\n");
  Ran both = Carlos("boxes keygen --out a --public b");
  EXPECT_EQ(both.exit_code, 2) << both.err;
}

TEST_F(KeygenTest, PublicPrintsAnExistingKeysPublicKey) {
  std::string path = dir_ + "/enrollment.key";
  Ran made = Carlos("boxes keygen --out '" + path + "'");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::string before = Must(ReadFileLimited(path, 4096));
  Ran r = Carlos("boxes keygen --public '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, made.out);  // The same "ed25519:..." line keygen printed.
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Must(ReadFileLimited(path, 4096)), before);
  Ran missing = Carlos("boxes keygen --public '" + dir_ + "/nope.key'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("carlos boxes keygen: " + dir_ + "/nope.key: "), std::string::npos)
      << missing.err;
}

}  // namespace
}  // namespace carlos::identity
