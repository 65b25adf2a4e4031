// The joining -> hosting hand-over (docs/agent.md, "The hand-over"). The
// seed's joining agent ends once its box is enrolled and armed, and systemd
// (Restart=always) starts it again as the claim agent through root's
// `carlos system guard-exec`, which checks the enrollment against the armed
// guard. The wait for that restart (RestartSec=, the local region's restart
// delay) is not needed: a joining agent that guard-exec started replaces
// itself with guard-exec again, with its own command line, in the same
// process. systemd and `carlos dev region` see no exit and restart nothing,
// and root's check runs exactly as on a restart.
#pragma once

#include "base/env.h"
#include "base/status.h"

namespace carlos::host {

// The variable guard-exec sets to "1" in the command it starts, so that the
// agent knows it can hand over through it.
inline constexpr char kStartedByGuardExec[] = "CARLOS_STARTED_BY_GUARD_EXEC";

// Whether `getenv` says guard-exec started this process.
bool StartedByGuardExec(const Getenv& getenv);

// Replaces this process (execv(2) of /proc/self/exe) with
// `carlos system guard-exec -- <this process's command line>` (read from
// /proc/self/cmdline), every descriptor but 0-2 closed on exec. Call it
// with no other thread doing anything that matters (they end with the
// exec). Returns only when it could not: kUnavailable naming what failed;
// the caller then ends as the seed does (exit 0, and systemd restarts it).
Status ExecThroughGuardExec();

}  // namespace carlos::host
