#include "host/joining.h"

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "base/check.h"
#include "base/failure_log.h"

namespace carlos::host {

namespace {

// Requests `stop` and joins `threads` when the run ends, however it ends.
class StopAndJoin {
 public:
  StopAndJoin(Stop* stop, std::thread* a, std::thread* b) : stop_(stop), a_(a), b_(b) {}
  ~StopAndJoin() {
    stop_->Request();
    if (a_->joinable()) a_->join();
    if (b_->joinable()) b_->join();
  }

 private:
  Stop* stop_;
  std::thread* a_;
  std::thread* b_;
};

}  // namespace

JoinOutcome RunJoining(const Joining& j, const Stop& stop) {
  CARLOS_CHECK(
      j.select && j.serve && j.record && j.report && j.request_arm && j.clock && j.logf && j.health,
      "RunJoining requires every Joining field set (host/joining.h)");
  j.health->SetHosting(false);
  j.health->SetStage("joining");
  // The helpers run until this run ends (`done`), which is at the latest
  // when `stop` is requested: the loop below returns then.
  Stop done;
  std::atomic<bool> recorded{false};  // The record is newly in place.
  std::thread serve([&] {
    Status st = j.serve(done);
    if (!st.ok()) {
      (j.warnf ? j.warnf : j.logf)(
          "agent: joining: the load balancer health check is not answered: " + st.ToString());
    }
  });
  std::thread record([&] {
    j.record(done);
    if (done.requested()) return;
    recorded = true;
    if (j.wake.notify) j.wake.notify();
  });
  StopAndJoin cleanup(&done, &serve, &record);

  protocol::ModeDecision last;
  // Each repeating failure once per distinct cause, and once when it ends.
  FailureLog failures(j.logf, j.clock, j.warnf), arm_log(j.logf, j.clock, j.warnf),
      report_log(j.logf, j.clock, j.warnf);
  std::optional<SystemTime> nudged;  // Never nudged: a nudge is due.
  // When the box last did what another party answers (host/wake.h).
  std::optional<SystemTime> expecting_since;
  for (;;) {
    StatusOr<protocol::ModeDecision> d = j.select();
    SystemTime now = j.clock->Now();
    if (recorded.exchange(false)) expecting_since = now;
    if (!d.ok()) {
      failures.Failed(d.status().ToString(),
                      "agent: joining: " + d.status().ToString() + "; checking again");
    } else if (d->mode == protocol::Mode::kHosting) {
      j.logf("agent: joining: " + d->box +
             " is enrolled and its guard is armed; restarting as the claim agent");
      return {*d, OkStatus()};
    } else {
      failures.Succeeded("agent: joining: the mode is known");
      if (d->stage != last.stage || d->why != last.why) {
        j.logf("agent: joining: " + d->box + ": " + std::string(protocol::StageName(d->stage)) +
               " " + d->why);
        j.health->SetStage("joining: " + std::string(protocol::StageName(d->stage)));
        nudged.reset();
      }
      last = *d;
      if (!nudged || now - *nudged >= j.nudge_every) {
        // The first nudge of a stage starts the fast poll; a repeated one
        // (the same stage a joinNudgeEvery later) does not, so a box whose
        // answer does not come falls back to joinEvery (host/wake.h).
        const bool first = !nudged;
        auto ask_root = [&]() -> bool {
          if (Status st = j.request_arm(); !st.ok()) {
            arm_log.Failed(st.ToString(),
                           "agent: joining: could not ask root to arm the guard: " + st.ToString());
            return false;
          }
          arm_log.Succeeded("agent: joining: root is asked to arm the guard");
          return true;
        };
        switch (d->stage) {
          case protocol::Stage::kInvited:
            if (ask_root() && first) expecting_since = now;
            break;
          case protocol::Stage::kGuardInstalled:
          case protocol::Stage::kGuardReady:
            if (Status st = j.report(); !st.ok()) {
              report_log.Failed(
                  st.ToString(),
                  "agent: joining: the guard-ready report was not published: " + st.ToString());
            } else {
              report_log.Succeeded("agent: joining: the guard-ready report is published");
              if (first) expecting_since = now;
            }
            // Installed but still not armed a whole nudge interval later:
            // root's join was killed or failed between installing and
            // arming, and nothing else would run it again (docs/agent.md,
            // "Nudges": a departure from the seed). Not at the stage's
            // first nudge: root may still be arming.
            if (d->stage == protocol::Stage::kGuardInstalled && nudged) ask_root();
            break;
          default:
            break;
        }
        nudged = now;
      }
    }
    const Milliseconds next = NextCheckIn(now, expecting_since, j.every, j.fast);
    const Woke woke = j.wake.wait ? j.wake.wait(next, stop)
                                  : (j.clock->Sleep(next, stop) ? Woke::kTimeout : Woke::kStopped);
    if (woke == Woke::kStopped) return {last, Cancelled("joining stopped")};
  }
}

}  // namespace carlos::host
