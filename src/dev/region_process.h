// Child processes for `carlos dev region`: what systemd does for
// the units of a real box, on one machine. Each child runs in its own
// process group, so that a signal to the group reaches whatever it started
// (guard-exec's agent, a shell's children) and nothing is left behind, and
// so that a Ctrl-C on the terminal reaches only the region, which then stops
// its children in order (SIGTERM, a bounded wait, SIGKILL), as systemd stops
// a unit (systemd.kill(5): KillMode=control-group, TimeoutStopSec=).
//
// Thread-safety: the functions are safe from any thread; a pid must be
// reaped by one caller only (the region's supervisor).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace carlos::dev {

// What to run.
struct ProcessSpec {
  // argv[0] is the file executed, as given (no PATH search): an absolute
  // path such as the region's own binary (/proc/self/exe resolved) or
  // /bin/sh. Must not be empty.
  std::vector<std::string> argv;
  // The whole environment, "NAME=value" each; nothing is inherited that is
  // not here.
  std::vector<std::string> env;
  // stdout and stderr are appended to this file (created 0644 when
  // missing); stdin is /dev/null. Empty: both go to /dev/null.
  std::string log_path;
};

// How a child ended, as waitpid(2) reports it.
struct ExitInfo {
  bool signaled = false;
  int code = 0;    // The exit status when !signaled.
  int signal = 0;  // The signal number when signaled.

  // "exit 0", "exit 3", "signal 15 (Terminated)".
  std::string Describe() const;
  bool success() const { return !signaled && code == 0; }
};

// Starts `spec` with posix_spawn(3) as the leader of a new process group
// (pgid = pid), with every signal unblocked and SIGTERM, SIGINT, SIGPIPE
// and SIGCHLD at their default actions (the caller may block them to
// sigwait for them; its children must not inherit that). Returns the pid.
// Errors: kInvalidArgument for an empty argv; the open(2) error of the log
// file (as base/files.h ErrnoStatus); kUnavailable naming argv[0] when
// posix_spawn fails (ENOENT, EACCES, EAGAIN...).
StatusOr<pid_t> SpawnProcess(const ProcessSpec& spec);

// Reaps `pid` if it has ended (waitpid WNOHANG); nullopt while it runs.
// A pid that is not our child (already reaped, never ours) is reported as
// ended with signal 0, so a caller never waits for it forever.
std::optional<ExitInfo> TryReap(pid_t pid);

// Sends `sig` to the process group `pgid` (kill(-pgid, sig)); a group that
// no longer exists is not an error (false is returned).
bool SignalGroup(pid_t pgid, int sig);

// Stops every process of `pids` (each a group leader SpawnProcess
// started): SIGTERM to each group, then waits (polling every 20 ms of real
// time) up to `grace` for all leaders to end, then SIGKILLs the groups
// still there and reaps them; finally SIGKILLs every group once more, so
// that a grandchild that outlived its leader does not outlive the region.
// Returns each pid's exit, in the order given. Blocks for at most about
// `grace` plus the time the kernel takes to deliver SIGKILL.
std::vector<ExitInfo> StopProcesses(const std::vector<pid_t>& pids, Milliseconds grace);

// The running binary's own path (readlink /proc/self/exe), for starting
// the same `carlos` as children. Errors: as ErrnoStatus.
StatusOr<std::string> SelfExecutable();

}  // namespace carlos::dev
