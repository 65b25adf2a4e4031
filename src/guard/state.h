// The local guard as the agent reads it (DESIGN.md, "The guard"): root's
// files under $CARLOS_DATA_DIR/hostguard/ — guard.json (installed) and
// armed.json (armed: it names guard.json's digest). The agent only reads
// them; root's `carlos system join` writes them.
//
// The files are not signed: their trust is their ownership (root's files in
// root's directory, which the agent's user cannot write). The agent reads
// them through root's own reader (guard/local_guard.h), with the same
// ownership checks guard-exec makes.
#pragma once

#include <optional>
#include <string>

#include "base/status.h"
#include "identity/guard_files.h"
#include "identity/status_report.h"

namespace carlos::guard {

// What the guard's two files say. A value; copy freely.
struct GuardState {
  // guard.json, parsed, when it is present and a valid guard file.
  std::optional<identity::Parsed<identity::GuardFile>> guard;
  // Why guard.json is present but refused (a corrupt, oversized, truncated
  // or foreign file: the identity library's refusal message), or "".
  std::string guard_refused;
  // armed.json, parsed, when it is present and a valid armed file.
  std::optional<identity::Parsed<identity::ArmedFile>> armed;
  // Why armed.json is present but refused, or "".
  std::string armed_refused;

  // guard.json is present and valid.
  bool installed() const { return guard.has_value(); }
  // Installed, and armed.json names the installed guard.json's digest.
  bool armed_now() const;
  // When installed but not armed: why, in a phrase for logs and the status
  // report ("armed.json is absent", "armed.json names another guard
  // (sha256:..)", or armed.json's refusal); "" otherwise.
  std::string why_not_armed() const;
  // The guard's facts for the status report (the seed's claimReport).
  identity::GuardFacts Facts() const;
};

// Reads <data_dir>/hostguard/guard.json and armed.json with ReadLocalGuard's
// checks (owner root). A file that is absent is not installed / not armed; a
// file that is present but refused (a symbolic link, not root's, writable by
// group or others, corrupt, oversized, unknown format) is reported
// in guard_refused / armed_refused, not as an error, so that the box keeps
// joining and asks root to write it again. Errors: only a file that exists
// and cannot be read (kDenied for permissions, kUnavailable otherwise,
// naming the path) — the mode is then unknown, never a guess.
StatusOr<GuardState> ReadGuardState(const std::string& data_dir);

}  // namespace carlos::guard
