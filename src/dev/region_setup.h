// What `carlos dev region` makes before it starts anything, each
// step reusing what an earlier run left: the region directory and its lock,
// the deployment (directory, or the S3 bucket), the enrollment key, and
// region.env for commands run by hand.
//
// Thread-safety: plain functions; RegionLock is owned by one thread.
#pragma once

#include <map>
#include <string>

#include "base/env.h"
#include "base/status.h"
#include "dev/region_layout.h"

namespace carlos::dev {

// Makes DIR and its subdirectories (boxes, logs, run, imds, and the
// deployment directory when `dir_store`). Errors: as base/files.h MakeDirs.
Status MakeRegionDirs(const RegionLayout& layout, bool dir_store);

// An exclusive flock(2) on DIR/run/region.lock, held while the object
// lives: two regions on one directory would start two agents per box.
class RegionLock {
 public:
  // Errors: kPreconditionFailed when another process holds it (naming the
  // directory); others as ErrnoStatus.
  static StatusOr<RegionLock> Acquire(const std::string& path);
  RegionLock(RegionLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RegionLock& operator=(RegionLock&&) = delete;
  ~RegionLock();

 private:
  explicit RegionLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Makes the S3 bucket `bucket` at the environment's CARLOS_S3_ENDPOINT with
// its AWS_* credentials and region, unless it exists and is ours. Errors:
// kInvalidArgument for a bad bucket name or endpoint; kPreconditionFailed
// when another account owns it; the store's errors otherwise.
Status EnsureBucket(const std::string& bucket, const Getenv& getenv);

// The enrollment key's public key ("ed25519:..."): loads DIR/enrollment.key
// when it exists, otherwise generates one and writes it (0600, never over an
// existing file); writes DIR/enrollment.pub either way. `created` says
// which. Errors: as identity/keys.h LoadPrivateKeyFile (a key file with a
// bad mode or content is an error, never replaced) and the writes'.
StatusOr<std::string> EnsureEnrollmentKey(const RegionLayout& layout, bool* created);

// Makes box `box`'s data dir (0700) and, unless it exists, its machine-id
// file: 32 random lower-case hex digits and a newline, as
// machine-id(5). Errors: as base/files.h.
Status EnsureBoxDir(const RegionLayout& layout, const std::string& box);

// Writes DIR/region.env: a comment saying how to use it, then one
// NAME=value line per setting (values are paths, labels and keys: no
// quoting needed, and a value with a space or quote is refused with
// kInvalidArgument). Replaces the file atomically.
Status WriteRegionEnv(const RegionLayout& layout,
                      const std::map<std::string, std::string>& settings);

}  // namespace carlos::dev
