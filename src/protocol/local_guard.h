// The box's local guard (DESIGN.md, "The guard"): root's files under
// <data_dir>/hostguard/ — guard.json (installed: it binds box, instance,
// record digest and invitation digest, and the policy) and armed.json
// (armed: it names guard.json's digest). This is the one type for what they
// say and the one reader of them: the agent's mode selection, the status
// report's guard facts, root's `carlos system join`, guard-exec and
// `carlos system guard-status` all read the guard here, with the same trust
// checks and the same refusals, so the agent never counts as armed a file
// guard-exec would refuse.
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
// Root's writes to the directory are guard/guard_dir.h's.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

#include "base/status.h"
#include "identity/document.h"
#include "identity/guard_files.h"
#include "identity/status_report.h"

namespace carlos::protocol {

// The longest why_not_armed a status report carries, in bytes.
inline constexpr size_t kMaxWhyNotArmedBytes = 1024;

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

  // guard.json is present, trusted and valid.
  bool installed() const { return guard.has_value(); }
  // Installed, and armed.json names guard.json's digest
  // (identity::CheckArmedFor).
  bool armed_now() const;
  // When not armed, why, as a phrase for log lines and the status report:
  // "the guard is not installed", "guard.json is refused: <why>",
  // "armed.json is absent", "armed.json is refused: <why>", "armed.json
  // names another guard (sha256:...)"; "" when armed.
  std::string why_not_armed() const;
  // The guard's facts for the status report (the seed's claimReport):
  // installed, armed, the guard's three digests when installed, and
  // why_not_armed (at most kMaxWhyNotArmedBytes) when not armed.
  identity::GuardFacts Facts() const;
};

// Why a guard file or directory with stat `st` cannot be trusted as written
// by `owner_uid` — "it is owned by uid 1000, not uid 0", "group or others may
// write it (mode 0666)" — or "" when it can.
std::string WhyUntrusted(const struct stat& st, uid_t owner_uid);

// Reads the guard directory under `data_dir`. Absent directory or files are
// "not installed" / "not armed"; present but refused ones (a symbolic link,
// not a regular file or directory, another owner than `owner_uid`, writable
// by group or others, oversized, not a valid guard file) are reported in
// guard_refused / armed_refused. Errors: only a file that exists and cannot
// be read (kDenied for permissions, kUnavailable otherwise, naming the path):
// the guard's state is then unknown, never a guess.
StatusOr<LocalGuard> ReadLocalGuard(const std::string& data_dir, uid_t owner_uid);

}  // namespace carlos::protocol
