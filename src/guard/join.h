// `carlos system join`: root installs and arms this box's guard (DESIGN.md,
// "The guard"). The agent never writes the guard; it only asks, by
// touching $CARLOS_DATA_DIR/system-join-requested, which
// carlos-system-join.path turns into a run of carlos-system-join.service.
//
// What a run does, in order (each step's failure ends the run with one
// Status whose message names the cause and what to do, and the guard's
// files as they were):
//   1. Reads CARLOS_ENROLLMENT_PUBKEY, the box key under the data dir, the
//      box label (guard/box_label.h, as the agent computes it) and IMDS
//      (instance id, region; guard/imds_view.h).
//   2. Reads the box's identity record control/boxes/<box>.json and checks
//      it: valid, signed by itself, naming this box, holding this box's
//      public key, and agreeing with IMDS on the instance id and region.
//      Off EC2 (CARLOS_IMDS_ENDPOINT=off) the record must be unattested;
//      the guard's instance id is then the record's (often ""), and its
//      region the record's, which CARLOS_REGION, when set, must equal.
//   3. Refuses a retired box (control/retired/<box>.json, valid for this
//      record).
//   4. Reads the invitation control/invitations/<box>.json and checks it:
//      signed with the enrollment key, for this box, bound to the record's
//      digest, not expired, and for the record's region.
//   5. INSTALLS the guard: <data_dir>/hostguard/guard.json (root-owned,
//      0644, in a root-owned 0755 directory) binding box, instance, region,
//      record digest, invitation digest and the policy (the invitation's
//      floor release). When guard.json already binds exactly that, it is
//      left byte for byte as it is (installed_at included); otherwise it is
//      replaced with installed_at = now.
//   6. ARMS it once the policy holds (the running release is at least the
//      floor release, protocol/version.h CompareReleases): armed.json naming
//      guard.json's digest, unless it already does. When the policy does not
//      hold, an armed.json naming this guard is removed (the box must not
//      host below its floor) and the run fails saying why.
// Every write is atomic (base/files.h WriteFileAtomic), so a crash or a full
// disk leaves each file whole, old or new; a re-run completes what a failed
// or killed run left. Runs are serialized by a flock on the guard directory.
//
// Thread-safety: Join may run on any thread; two processes take turns.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"
#include "base/status.h"
#include "guard/imds_view.h"
#include "protocol/label.h"
#include "store/store.h"

namespace carlos::guard {

// The join's effects, injected.
struct JoinDeps {
  Getenv getenv;           // CARLOS_DATA_DIR, CARLOS_ENROLLMENT_PUBKEY, CARLOS_REGION,
                           // CARLOS_BOX_LABEL, CARLOS_BOX_REFERENCE, CARLOS_TEST_CRASH_AT.
  Clock* clock = nullptr;  // Invitation expiry; installed_at and armed_at.
  ReadImds imds;           // IMDS's instance id and region (or off).
  protocol::GroupLabel group_label;  // Only called when CARLOS_BOX_REFERENCE=group.
  protocol::HostName host_name;      // The box label's fallback.
  Store* store = nullptr;            // The deployment store; must outlive the call.
  Logf logf;                         // RunJoin's one line.
  uid_t owner_uid = 0;               // Who owns the guard's files: root (0) in production.
  std::string release;               // The running release (protocol/version.h Release()).
};

// What a successful run did.
struct JoinOutcome {
  std::string box;
  std::string guard_digest;       // guard.json's digest, now installed and armed.
  std::string invitation_digest;  // The invitation the guard binds.
  bool installed_now = false;     // This run wrote guard.json.
  bool armed_now = false;         // This run wrote armed.json.
};

// Runs the join as the file comment says. Errors (the message is one line,
// "<cause>; <what to do>"):
//   kInvalidArgument   CARLOS_ENROLLMENT_PUBKEY missing or malformed; the
//                      box label cannot be made; no store configured.
//   kNotFound          no box key yet, no identity record yet, no
//                      invitation.
//   kUnavailable, kDeadlineExceeded   IMDS or the store did not answer; a
//                      full disk ("disk full").
//   kCorrupt           a document refused (identity/refusal.h: forged,
//                      expired, bound to another record, another box or
//                      region, a retired box, a record with another key, an
//                      instance or region that IMDS contradicts).
//   kPreconditionFailed  the guard directory cannot be trusted; the policy
//                      does not hold (the guard is installed, not armed).
//   kDenied            a file cannot be written or read for permissions.
StatusOr<JoinOutcome> Join(const JoinDeps& deps);

// Runs Join and logs exactly one line through deps.logf: on success
// "carlos system join: <box>: the guard is installed and armed (...)" or
// "... already installed and armed; nothing changed", on failure
// "carlos system join: <message>". Returns the exit status: 0 or 1.
int RunJoin(const JoinDeps& deps);

}  // namespace carlos::guard
