// `carlos system guard-exec`'s decision (DESIGN.md, "The guard"):
// whether the agent unit may start its command now.
//
//   guard not armed (absent, installed only, armed for another guard, or
//   refused as untrusted): start — the agent can then only join, since its
//   own mode selection hosts only an enrolled box with an armed guard; with
//   CARLOS_HOST_CLAIM or CARLOS_REGION_HA blank it hosts as before region HA
//   instead, and the verdict's why says so (protocol::RegionHAApplies);
//   guard armed: start only when
//     - the running release is at least the guard's floor release,
//     - the box is not retired (control/retired/<box>.json valid for the
//       guard's record; one that cannot be verified also refuses: a box
//       must not guess whether it is retired),
//     - its enrollment control/enrollments/<box>.json, when there is one,
//       verifies under CARLOS_ENROLLMENT_PUBKEY and is bound to the guard's
//       record, invitation and guard digests;
//   otherwise refuse, with the reason. An armed box with no enrollment (not
//   enrolled yet, or withdrawn) starts: it is at the guard-ready stage and
//   must run to publish the report the enroller waits for, and it can only
//   join. The store is read only when armed. An armed guard is enforced
//   whatever the switches say (protocol::RegionHAApplies): the why then
//   notes that a switch is blank.
//
// Thread-safety: plain function; safe from any thread when the injected
// functions are.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>

#include "base/env.h"
#include "base/status.h"
#include "store/store.h"

namespace carlos::guard {

struct ExecCheckDeps {
  Getenv getenv;  // CARLOS_DATA_DIR, CARLOS_ENROLLMENT_PUBKEY.
  // Opens the deployment store (OpenStore in production); called only when
  // the guard is armed.
  std::function<StatusOr<std::unique_ptr<Store>>()> open_store;
  uid_t owner_uid = 0;  // Who must own the guard's files: root (0) in production.
  std::string release;  // The running release (protocol/version.h Release()).
};

struct ExecVerdict {
  bool armed = false;
  std::string box;        // The guard's box, when armed.
  bool enrolled = false;  // Armed and a matching enrollment exists.
  // One sentence for the log: why the command may start ("the guard is not
  // armed (armed.json is absent): the agent can only join" / "the guard is
  // armed for web-1 and its enrollment sha256:... matches").
  std::string why;
};

// The decision. Returns the verdict when the command may start. Errors (the
// command must NOT start; the message says why and what to do):
//   kCorrupt            the enrollment or a retirement refused, or the box
//                       is retired (identity/refusal.h reasons);
//   kPreconditionFailed the running release is below the floor;
//   kInvalidArgument    CARLOS_ENROLLMENT_PUBKEY or the store's settings;
//   kUnavailable, ...   the guard's files or the store could not be read.
StatusOr<ExecVerdict> CheckGuardForExec(const ExecCheckDeps& deps);

// `carlos system guard-exec`'s exit status for a refusal that holds until an
// operator acts: the box is retired, its enrollment is forged or bound to
// another guard, the release is below the floor, or host.env's settings are
// malformed. carlos-edge.service names it in RestartPreventExitStatus=
// (systemd.service(5)), so systemd stops restarting a box that may not run
// and the unit shows failed (docs/operator.md, "guard-exec's lines").
inline constexpr int kExecRefusedForGoodExit = 3;

// Whether a refusal from CheckGuardForExec holds until an operator acts
// (kCorrupt, kPreconditionFailed, kInvalidArgument: the verdict cannot
// change by itself) rather than being transient (the store or the guard's
// files could not be read: kUnavailable, kDenied, ...; checked again later).
// A transient failure is never treated as final (the brief: "a transient
// failure is never recorded as a permanent fact"). Plain function.
bool RefusalIsFinal(const Status& refusal);

}  // namespace carlos::guard
