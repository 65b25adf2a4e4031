// Root's writes to the guard directory on the box (DESIGN.md, "The guard"):
// <data_dir>/hostguard made ready for root's files, a lock so that
// concurrent `carlos system join` processes take turns, and the clean-up of a
// killed writer's temporaries. Reading the guard is protocol/local_guard.h's,
// whose trust rules (protocol::WhyUntrusted) this directory must meet.
//
// Thread-safety: plain functions; the directory lock (LockGuardDir) makes
// concurrent processes take turns.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/status.h"

namespace carlos::guard {

// Makes sure <data_dir>/hostguard exists as a directory owned by
// `owner_uid`, mode 0755: creates it when absent (the data dir must exist).
// Errors: kNotFound when the data dir does not exist; kPreconditionFailed
// when hostguard is a symbolic link, not a directory, owned by another user
// or writable by group or others (the message says to remove it, since a
// directory root did not make cannot be trusted to hold root's files);
// others as base/files.h ErrnoStatus.
Status PrepareGuardDir(const std::string& data_dir, uid_t owner_uid);

// An exclusive flock(2) on the guard directory, released when the object is
// destroyed (or the process dies). Move-only.
class GuardDirLock {
 public:
  GuardDirLock() = default;
  explicit GuardDirLock(int fd) : fd_(fd) {}
  GuardDirLock(GuardDirLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  GuardDirLock& operator=(GuardDirLock&& o) noexcept;
  GuardDirLock(const GuardDirLock&) = delete;
  GuardDirLock& operator=(const GuardDirLock&) = delete;
  ~GuardDirLock();

 private:
  int fd_ = -1;
};

// Locks <data_dir>/hostguard (which PrepareGuardDir made), waiting for a
// concurrent holder. Errors as base/files.h ErrnoStatus.
StatusOr<GuardDirLock> LockGuardDir(const std::string& data_dir);

// Removes temporary files (".tmp-*", base/files.h WriteFileAtomic's) that a
// process killed in the middle of a write left in the guard directory. Call
// it only while holding the lock. Errors as ErrnoStatus.
Status RemoveStaleTemporaries(const std::string& data_dir);

}  // namespace carlos::guard
