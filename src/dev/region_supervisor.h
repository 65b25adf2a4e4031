// The region's stand-in for systemd: a set of units, each a child
// process, started, reaped and restarted by a loop that calls Tick. A unit
// is either a service restarted whenever it ends (the agent's
// carlos-edge.service has Restart=always; the enroller runs the same way),
// after a delay (RestartSec=), or a oneshot (carlos-system-join.service)
// that runs when asked and, asked while it runs, runs once more after it
// ends, so that a request is never lost (the seed's nudge relies on every
// touch of the marker being acted on).
//
// Time is injected: Tick and Start take `now`, so restart delays are tested
// with a fake clock; processes are real (SpawnProcess).
//
// Thread-safety: not thread-safe; one thread (the region's loop) owns it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "dev/region_process.h"

namespace carlos::dev {

enum class Restart {
  kNo,      // A oneshot: runs when Start is called.
  kAlways,  // Started by Start, then again after restart_delay whenever it ends.
};

struct UnitSpec {
  // For log lines: "box-1 agent", "box-1 join", "enroller".
  std::string name;
  ProcessSpec process;
  Restart restart = Restart::kAlways;
  // How long after a kAlways unit ends (or fails to start) it is started
  // again (systemd's RestartSec=).
  Milliseconds restart_delay{500};
  // When set, a kAlways unit that ended cleanly (exit 0) is started again
  // after this instead: the agent's hand-over from joining to hosting, which
  // costs no restart delay (host/handover.h: on a box guard-exec replaces
  // the agent in place and systemd sees no exit at all).
  std::optional<Milliseconds> clean_exit_delay;
  // When not empty, the running process's pid is written here (one line)
  // on each start and the file is removed when it ends, so that tests and
  // operators can find it (e.g. to SIGTERM one agent).
  std::string pid_file;
};

struct UnitStatus {
  pid_t pid = 0;       // The running process; 0 when none runs.
  SystemTime since{};  // When it started (running) or ended (not).
  int starts = 0;      // Processes started so far.
  std::optional<ExitInfo> last_exit;
  bool rerun = false;                    // A oneshot asked to start while it ran.
  std::optional<SystemTime> restart_at;  // A kAlways unit waiting to start again.
};

class Supervisor {
 public:
  // `logf` gets one line per start, exit and failed start, prefixed
  // "region: <unit name>".
  explicit Supervisor(Logf logf);
  // Stops every running unit (StopAll with a 5 s grace) if the owner did
  // not.
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Adds a unit, not started; returns its index.
  int Add(UnitSpec spec);

  // Starts unit `unit` at `now` unless it runs; a oneshot that runs is
  // marked to run once more when it ends. A spawn failure is logged; a
  // kAlways unit is then tried again after its restart delay.
  void Start(int unit, SystemTime now);

  // Reaps every unit that ended (logging how, and how long it ran), starts
  // again the kAlways units whose delay has passed at `now`, and reruns the
  // oneshots marked to. Never blocks.
  void Tick(SystemTime now);

  // Stops every running unit (StopProcesses: SIGTERM, up to `grace` of
  // real time, SIGKILL) and marks all stopped: no unit is started again
  // until Start. `now` is when the stop begins (for the log lines' run
  // times). Blocks up to about `grace`.
  void StopAll(Milliseconds grace, SystemTime now);

  // Stops one unit the same way and leaves it stopped until Start.
  void Stop(int unit, Milliseconds grace, SystemTime now);

  size_t size() const { return units_.size(); }
  const UnitSpec& spec(int unit) const { return units_[static_cast<size_t>(unit)].spec; }
  const UnitStatus& status(int unit) const { return units_[static_cast<size_t>(unit)].status; }

 private:
  struct Unit {
    UnitSpec spec;
    UnitStatus status;
  };
  void Spawn(Unit& u, SystemTime now);
  void Ended(Unit& u, const ExitInfo& e, SystemTime now, bool stopping);

  Logf logf_;
  std::vector<Unit> units_;
};

}  // namespace carlos::dev
