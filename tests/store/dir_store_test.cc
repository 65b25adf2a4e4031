// What only the directory backend has: files on disk, a read-only file
// system, crashes in the middle of a write, and the layout limits of a
// file system.
#include "store/dir_store.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "base/files.h"
#include "base/strings.h"
#include "test_util.h"

namespace carlos::testing {
namespace {

using ::testing::HasSubstr;

class DirStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.path() + "/store";
    ASSERT_TRUE(MakeDirs(root_, 0755).ok());
    store_ = std::move(DirStore::Open(root_)).value();
  }
  TempDir tmp_;
  std::string root_;
  std::unique_ptr<DirStore> store_;
};

TEST_F(DirStoreTest, ObjectsAreFilesAndVersionsAreSha256) {
  auto v = store_->Put("control/boxes/web-1.json", "hello\n", {});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  EXPECT_EQ(ReadFileLimited(root_ + "/control/boxes/web-1.json", 100).value(), "hello\n");
  struct stat st {};
  ASSERT_EQ(::stat((root_ + "/control/boxes/web-1.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

// The age a Get tells is the file's mtime against this machine's clock;
// ListVersions' tags follow every write, including one that replaces a file
// with another of the same size, and one made behind the store's back.
TEST_F(DirStoreTest, AgeIsTheMtimesAndListedTagsFollowEveryWrite) {
  ASSERT_TRUE(store_->Put("a/k", "one", {}).ok());
  std::string path = root_ + "/a/k";
  struct timespec hour_ago[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), hour_ago, 0), 0);
  auto got = store_->Get("a/k");
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->age.has_value());
  EXPECT_GE(*got->age, Milliseconds(3'600'000));
  EXPECT_LT(*got->age, Milliseconds(3'610'000));

  auto tags = [&] {
    auto l = ListAllVersions(*store_, "a/");
    EXPECT_TRUE(l.ok());
    return l.ok() && l->size() == 1 ? (*l)[0].version : std::string();
  };
  EXPECT_EQ(tags(), Sha256Hex("one"));
  EXPECT_EQ(tags(), Sha256Hex("one"));              // Again (read again or kept: the same).
  ASSERT_TRUE(store_->Put("a/k", "two", {}).ok());  // Same size, new file.
  EXPECT_EQ(tags(), Sha256Hex("two"));
  // Rewritten in place, within the same second, by hand.
  std::ofstream(path, std::ios::trunc) << "six";
  EXPECT_EQ(tags(), Sha256Hex("six"));
}

TEST_F(DirStoreTest, OpenNeedsAnExistingDirectory) {
  auto missing = DirStore::Open(tmp_.path() + "/nope");
  EXPECT_EQ(missing.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("create it first"));
  ASSERT_TRUE(WriteFileAtomic(tmp_.path() + "/file", "x", 0644).ok());
  EXPECT_EQ(DirStore::Open(tmp_.path() + "/file").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(DirStore::Open("").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(std::move(DirStore::Open(root_ + "//")).value()->root(), root_);
}

TEST_F(DirStoreTest, VanishedStoreIsUnavailableNotAbsent) {
  ASSERT_TRUE(store_->Put("control/boxes/web-1.json", "x", {}).ok());
  EXPECT_EQ(std::system(("rm -rf " + root_).c_str()), 0);
  auto got = store_->Get("control/boxes/web-1.json");
  EXPECT_EQ(got.status().code(), Code::kUnavailable);
  EXPECT_THAT(got.status().message(), HasSubstr("is gone"));
  EXPECT_EQ(store_->List("control/", "", 10).status().code(), Code::kUnavailable);
  // Back in place: a missing key is absent again.
  ASSERT_TRUE(MakeDirs(root_, 0755).ok());
  EXPECT_EQ(store_->Get("control/boxes/web-1.json").status().code(), Code::kNotFound);
}

TEST_F(DirStoreTest, TempAndLockFilesAreInvisible) {
  ASSERT_TRUE(store_->Put("a/b", "new", {PutCondition::kCreateOnly, ""}).ok());
  // What a crash between writing a temporary file and renaming it leaves.
  ASSERT_TRUE(WriteFileAtomic(root_ + "/a/.tmp-999-00ff", "half", 0644).ok());
  ASSERT_TRUE(WriteFileAtomic(root_ + "/.tmp-1-2", "half", 0644).ok());
  EXPECT_EQ(ListAll(*store_, "").value(), std::vector<std::string>{"a/b"});
  EXPECT_EQ(store_->Get("a/b")->data, "new");
  EXPECT_EQ(store_->Get(".locks/x").status().code(), Code::kNotFound);
  EXPECT_EQ(store_->Put("a/.tmp-1", "x", {}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store_->Put(".locks/x", "x", {}).status().code(), Code::kInvalidArgument);
}

TEST_F(DirStoreTest, ObjectAndKeysUnderItCannotCoexist) {
  ASSERT_TRUE(store_->Put("a", "file", {}).ok());
  auto under = store_->Put("a/b", "x", {});
  EXPECT_EQ(under.status().code(), Code::kPreconditionFailed) << under.status().message();
  EXPECT_THAT(under.status().message(), HasSubstr("is an object"));
  ASSERT_TRUE(store_->Put("x/y", "file", {}).ok());
  auto over = store_->Put("x", "x", {PutCondition::kCreateOnly, ""});
  EXPECT_EQ(over.status().code(), Code::kPreconditionFailed) << over.status().message();
  EXPECT_EQ(store_->Get("x").status().code(), Code::kNotFound);
  EXPECT_TRUE(store_->Delete("x").ok());
  EXPECT_EQ(store_->Get("x/y")->data, "file");
}

TEST_F(DirStoreTest, LongSegmentIsInvalid) {
  auto v = store_->Put("a/" + std::string(256, 's'), "x", {});
  EXPECT_EQ(v.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(v.status().message(), HasSubstr("255"));
}

TEST_F(DirStoreTest, OversizedFileIsCorrupt) {
  ASSERT_TRUE(MakeDirs(root_ + "/big", 0755).ok());
  ASSERT_TRUE(WriteFileAtomic(root_ + "/big/x", std::string(kMaxObjectBytes + 1, 'b'), 0644).ok());
  auto got = store_->Get("big/x");
  EXPECT_EQ(got.status().code(), Code::kCorrupt) << got.status().message();
}

// The child's view of a read-only store: the same directory bind-mounted
// read-only in a private mount namespace (root ignores permission bits, so
// a chmod would prove nothing). Returns what a Put reported, or why the
// namespace could not be made.
struct ReadOnlyResult {
  bool possible = false;
  int code = 0;
  std::string message;
  std::string get_data;
};

ReadOnlyResult PutOnReadOnly(const std::string& root) {
  int p[2];
  if (::pipe(p) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    std::string out;
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount(root.c_str(), root.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
        ::mount(nullptr, root.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
      out = "no\n" + std::string(std::strerror(errno));
    } else {
      auto s = std::move(DirStore::Open(root)).value();
      auto v = s->Put("control/boxes/new.json", "x", {PutCondition::kCreateOnly, ""});
      auto r = s->Put("control/boxes/old.json", "y", {});
      auto d = s->Delete("control/boxes/old.json");
      auto g = s->Get("control/boxes/old.json");
      bool same = r.status().code() == v.status().code() && d.code() == v.status().code();
      out = "yes\n" + std::to_string(same ? static_cast<int>(v.status().code()) : -1) + "\n" +
            (g.ok() ? g->data : "?") + "\n" + v.status().message();
    }
    ssize_t n = ::write(p[1], out.data(), out.size());
    ::_exit(n == static_cast<ssize_t>(out.size()) ? 0 : 1);
  }
  ::close(p[1]);
  std::string buf;
  char tmp[4096];
  ssize_t n;
  while ((n = ::read(p[0], tmp, sizeof tmp)) > 0) buf.append(tmp, static_cast<size_t>(n));
  ::close(p[0]);
  ::waitpid(pid, nullptr, 0);
  ReadOnlyResult r;
  auto lines = Split(buf, '\n');
  if (lines.size() < 2) return r;
  if (lines[0] != "yes") {
    r.message = lines[1];
    return r;
  }
  r.possible = true;
  r.code = std::stoi(lines[1]);
  r.get_data = lines[2];
  r.message = lines.size() > 3 ? lines[3] : "";
  return r;
}

TEST_F(DirStoreTest, ReadOnlyDirectoryIsDenied) {
  ASSERT_TRUE(store_->Put("control/boxes/old.json", "old", {}).ok());
  ReadOnlyResult r = PutOnReadOnly(root_);
  if (!r.possible) {
    GTEST_SKIP() << "cannot make a read-only bind mount here (needs CAP_SYS_ADMIN for a mount "
                    "namespace): "
                 << r.message;
  }
  EXPECT_EQ(r.code, static_cast<int>(Code::kDenied))
      << "put, put, delete all denied: " << r.message;
  EXPECT_THAT(r.message, HasSubstr("not writable"));
  EXPECT_THAT(r.message, HasSubstr("Read-only file system"));
  EXPECT_EQ(r.get_data, "old") << "reads still work";
  // Nothing changed on disk.
  EXPECT_EQ(ListAll(*store_, "").value(), std::vector<std::string>{"control/boxes/old.json"});
  EXPECT_EQ(store_->Get("control/boxes/old.json")->data, "old");
}

// A writer killed at random points while replacing a document: the
// document is always one whole version, never a mix or a truncation.
TEST_F(DirStoreTest, KilledWriterLeavesOldOrNewNeverTorn) {
  const std::string a(256 * 1024, 'A'), b(256 * 1024, 'B');
  ASSERT_TRUE(store_->Put("doc", a, {}).ok());
  std::mt19937 rng(42);
  for (int round = 0; round < 8; ++round) {
    pid_t pid = ::fork();
    if (pid == 0) {
      auto s = std::move(DirStore::Open(root_)).value();
      for (int i = 0;; ++i) {
        if (!s->Put("doc", i % 2 ? a : b, {}).ok()) ::_exit(1);
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(2000 + rng() % 20000));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer failed on its own";
    auto got = store_->Get("doc");
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(got->data == a || got->data == b)
        << "torn document, " << got->data.size() << " bytes";
    EXPECT_EQ(ListAll(*store_, "").value(), std::vector<std::string>{"doc"});
  }
}

}  // namespace
}  // namespace carlos::testing
