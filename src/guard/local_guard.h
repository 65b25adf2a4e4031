// Root's side of the guard's files on the box (DESIGN.md, "The guard"):
// <data_dir>/hostguard/guard.json and armed.json, read with the checks their
// trust rests on, and the directory made ready for root to write them.
//
// The files are not signed (identity/guard_files.h): what makes them
// trustworthy is that only root can have written them. The agent's user owns
// the data dir (it writes its key and the join marker there), so it could
// rename hostguard/ away and put a directory of its own in its place; every
// read here therefore refuses a guard directory or file that is a symbolic
// link, is not owned by `owner_uid` (root, 0, in production), or that group
// or others may write. A refused file reads as "not installed" / "not
// armed", with the reason, never as an error, so that the next
// `carlos system join` replaces it.
//
// Root, guard-exec and the agent (through guard/state.h) all read the guard
// with this one reader.
//
// Thread-safety: plain functions; the directory lock (LockGuardDir) makes
// concurrent `carlos system join` processes take turns.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/status.h"
#include "identity/document.h"
#include "identity/guard_files.h"

namespace carlos::guard {

// What the guard directory holds now. A value; copy freely.
struct LocalGuard {
  // guard.json, parsed, when present, trusted and valid.
  std::optional<identity::Parsed<identity::GuardFile>> guard;
  // Why guard.json (or the directory) is present but refused, or "".
  std::string guard_refused;
  // armed.json, parsed, when present, trusted and valid.
  std::optional<identity::Parsed<identity::ArmedFile>> armed;
  // Why armed.json is present but refused, or "".
  std::string armed_refused;

  bool installed() const { return guard.has_value(); }
  // Installed, and armed.json names guard.json's digest.
  bool armed_now() const;
  // When not armed, why, as a phrase for a log line: "the guard is not
  // installed", "armed.json is absent", "armed.json names another guard
  // (sha256:...)", or a refusal; "" when armed.
  std::string why_not_armed() const;
};

// Reads the guard directory under `data_dir`. Absent directory or files are
// "not installed" / "not armed"; present but refused ones (a symbolic link,
// another owner than `owner_uid`, writable by group or others, oversized,
// not a valid guard file) are reported in guard_refused / armed_refused.
// Errors: only a file that exists and cannot be read (kDenied, kUnavailable,
// naming the path): the guard's state is then unknown, never a guess.
StatusOr<LocalGuard> ReadLocalGuard(const std::string& data_dir, uid_t owner_uid);

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
