#include "dev/region_supervisor.h"

#include <signal.h>
#include <unistd.h>

#include "base/files.h"

namespace carlos::dev {

namespace {

Milliseconds Between(SystemTime from, SystemTime to) {
  return std::chrono::duration_cast<Milliseconds>(to - from);
}

}  // namespace

Supervisor::Supervisor(Logf logf) : logf_(std::move(logf)) {}

Supervisor::~Supervisor() { StopAll(Milliseconds(5000), std::chrono::system_clock::now()); }

int Supervisor::Add(UnitSpec spec) {
  units_.push_back(Unit{std::move(spec), UnitStatus{}});
  return static_cast<int>(units_.size() - 1);
}

void Supervisor::Start(int unit, SystemTime now) {
  Unit& u = units_[static_cast<size_t>(unit)];
  if (u.status.pid != 0) {
    if (u.spec.restart == Restart::kNo) u.status.rerun = true;
    return;
  }
  Spawn(u, now);
}

void Supervisor::Spawn(Unit& u, SystemTime now) {
  u.status.restart_at.reset();
  u.status.rerun = false;
  auto pid = SpawnProcess(u.spec.process);
  if (!pid.ok()) {
    if (u.spec.restart == Restart::kAlways) {
      u.status.restart_at = now + u.spec.restart_delay;
      logf_("region: " + u.spec.name + " did not start: " + pid.status().ToString() +
            "; trying again in " + FormatDuration(u.spec.restart_delay));
    } else {
      logf_("region: " + u.spec.name + " did not start: " + pid.status().ToString());
    }
    return;
  }
  u.status.pid = *pid;
  u.status.since = now;
  u.status.starts++;
  if (!u.spec.pid_file.empty()) {
    Status st = WriteFileAtomic(u.spec.pid_file, std::to_string(*pid) + "\n", 0644);
    if (!st.ok()) logf_("region: " + u.spec.name + ": pid file not written: " + st.ToString());
  }
  logf_("region: " + u.spec.name + " started (pid " + std::to_string(*pid) + ")");
}

void Supervisor::Ended(Unit& u, const ExitInfo& e, SystemTime now, bool stopping) {
  Milliseconds ran = Between(u.status.since, now);
  u.status.pid = 0;
  u.status.since = now;
  u.status.last_exit = e;
  if (!u.spec.pid_file.empty()) unlink(u.spec.pid_file.c_str());
  std::string line =
      "region: " + u.spec.name + " ended (" + e.Describe() + ") after " + FormatDuration(ran);
  if (stopping) {
    u.status.rerun = false;
    u.status.restart_at.reset();
  } else if (u.spec.restart == Restart::kAlways) {
    const Milliseconds delay =
        e.success() && u.spec.clean_exit_delay ? *u.spec.clean_exit_delay : u.spec.restart_delay;
    u.status.restart_at = now + delay;
    line += "; starting it again in " + FormatDuration(delay);
  } else if (u.status.rerun) {
    line += "; running it again: it was asked to while it ran";
  }
  logf_(line);
}

void Supervisor::Tick(SystemTime now) {
  for (Unit& u : units_) {
    if (u.status.pid != 0) {
      if (auto e = TryReap(u.status.pid)) {
        // A leader that ended may leave members of its group behind.
        SignalGroup(u.status.pid, SIGKILL);
        Ended(u, *e, now, false);
      }
    }
    if (u.status.pid != 0) continue;
    if (u.status.restart_at && now >= *u.status.restart_at) {
      Spawn(u, now);
    } else if (u.spec.restart == Restart::kNo && u.status.rerun) {
      Spawn(u, now);
    }
  }
}

void Supervisor::StopAll(Milliseconds grace, SystemTime now) {
  std::vector<pid_t> pids;
  std::vector<Unit*> running;
  for (Unit& u : units_) {
    u.status.restart_at.reset();
    u.status.rerun = false;
    if (u.status.pid != 0) {
      pids.push_back(u.status.pid);
      running.push_back(&u);
    }
  }
  if (pids.empty()) return;
  std::vector<ExitInfo> exits = StopProcesses(pids, grace);
  for (size_t i = 0; i < running.size(); ++i) Ended(*running[i], exits[i], now, true);
}

void Supervisor::Stop(int unit, Milliseconds grace, SystemTime now) {
  Unit& u = units_[static_cast<size_t>(unit)];
  u.status.restart_at.reset();
  u.status.rerun = false;
  if (u.status.pid == 0) return;
  std::vector<ExitInfo> exits = StopProcesses({u.status.pid}, grace);
  Ended(u, exits[0], now, true);
}

}  // namespace carlos::dev
