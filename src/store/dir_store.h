// The directory backend of the deployment store (DESIGN.md, "The deployment
// store"): CARLOS_DEPLOYMENT_DIR, the embedded default. Each object is the
// file <root>/<key>; its version tag is the lower-case hex SHA-256 of its
// bytes.
//
// Durability: every write goes through base/files.h (a temporary file,
// fsync, rename or link(2) into place, fsync of the directory), so a crash at
// any point leaves the old document or the new one, never a torn one.
//
// Conditions: every mutation of a key (Put of any kind, Delete) holds an
// exclusive flock(2) on <root>/.locks/<hex SHA-256 of the key> while it
// compares and renames, so create-only and compare-and-swap hold across
// threads and processes on one machine (flock is released by the kernel when
// a process dies, so a crash never leaves a key locked). Readers take no
// lock: rename(2) makes them see one whole version or the other.
//
// Layout limits of a file system that S3 does not have: a key cannot be both
// an object and the parent of another ("a" and "a/b"); Put reports
// kPreconditionFailed naming the clash. Key segments starting with ".tmp-"
// (base/files.h's temporary files) and the top-level ".locks" are reserved:
// Put refuses them with kInvalidArgument, List never shows them. Lock files
// and emptied directories are left in place after Delete.
//
// Thread-safety: safe for concurrent use from many threads and processes.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "base/mutex.h"
#include "store/store.h"

namespace carlos {

class DirStore : public Store {
 public:
  // Opens the store rooted at `root`, which must be an existing directory
  // (it is not created, so that a mistyped CARLOS_DEPLOYMENT_DIR is an
  // error rather than a new, empty deployment). Errors: kInvalidArgument
  // when `root` is empty, missing or not a directory.
  static StatusOr<std::unique_ptr<DirStore>> Open(const std::string& root);

  StatusOr<Object> Get(std::string_view key) override;
  StatusOr<std::string> Put(std::string_view key, std::string_view data,
                            const PutOptions& options) override;
  StatusOr<ListPage> List(std::string_view prefix, std::string_view token, int max_keys) override;
  // List with each key's SHA-256 tag. A tag is computed by reading the file
  // once per file version, then kept while the file's identity (device,
  // inode, size, mtime, ctime) is unchanged: every write of this store
  // renames a new file into place, so a new version is a new inode. A file
  // changed less than a moment before it was hashed is not kept (its
  // timestamps may not yet tell two writes in one clock tick apart, as Git's
  // "racily clean" index entries), so it is read again at the next listing;
  // "less than a second" is 50 ms on a file system with sub-second
  // timestamps, 2 s on one whose timestamps are whole seconds.
  StatusOr<ListPage> ListVersions(std::string_view prefix, std::string_view token,
                                  int max_keys) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override;

  // The root directory, without a trailing '/'.
  const std::string& root() const { return root_; }

 private:
  explicit DirStore(std::string root) : root_(std::move(root)) {}

  // Turns a failed write's Status into the store's message: a read-only or
  // unwritable directory becomes kDenied saying so.
  Status WriteError(const Status& st, std::string_view key) const;

  // OK while the root is a directory; kUnavailable when it has vanished, so
  // that a missing key under a missing store is not read as "absent".
  Status CheckRootPresent() const;

  std::string root_;

  // A file version's identity: what changes when a write replaces or
  // changes the file.
  struct FileId {
    uint64_t dev = 0, ino = 0;
    int64_t size = 0, mtime_s = 0, mtime_ns = 0, ctime_s = 0, ctime_ns = 0;
    bool operator==(const FileId&) const = default;
  };
  // ListVersions' tags: key -> the file version hashed and its tag.
  struct HashedFile {
    FileId id;
    std::string tag;
  };
  static FileId IdOf(const struct stat& st);

  Mutex mu_;
  std::unordered_map<std::string, HashedFile> tags_ CARLOS_GUARDED_BY(mu_);
};

// The lower-case hex SHA-256 of `data` (OpenSSL EVP): the directory
// backend's version tag.
std::string Sha256Hex(std::string_view data);

}  // namespace carlos
