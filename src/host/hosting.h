// Hosting mode, the claim agent's part this project owns (DESIGN.md,
// "Hosting (the claim agent)"): the box answers the health check 200,
// publishes its edges file and its status report, and re-checks its
// enrollment and guard; when it may no longer host it stops taking traffic,
// drains and ends, so that systemd starts it again, joining.
#pragma once

#include <functional>
#include <string>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "lbhealth/health.h"
#include "protocol/mode.h"

namespace carlos::host {

// One hosting run's steps; production's come from the agent command.
struct Hosting {
  std::string box;
  // Re-selects the mode (SelectMode); empty when a switch is off (no
  // joining mode exists, so nothing is re-checked).
  std::function<StatusOr<protocol::ModeDecision>()> select;
  // Publishes the edges file (control/edges/<box>.json, signed with the box
  // key). Only hosting ever writes it. Empty: nothing is published.
  std::function<Status()> publish_edges;
  // Publishes the status report (hosting, with the guard's facts). Empty:
  // nothing is published.
  std::function<Status()> publish_report;
  // How often the mode is re-checked (joinEvery), the edges file and the
  // report re-published (hosting report, 30 s), and how long the box
  // answers 503 before it ends (drain).
  Milliseconds check_every{15'000};
  Milliseconds report_every{30'000};
  Milliseconds drain{10'000};
  Clock* clock = nullptr;
  Logf logf;
  // Failure lines at warning priority (base/log_layout.h); unset: logf.
  Logf warnf;
  lbhealth::Health* health = nullptr;
  // Told when a drain begins, stopped or no longer allowed to host (the
  // agent's mode gauge); may be empty.
  std::function<void()> draining;
};

// Hosts until `stop` is requested or the box may no longer host:
//  - health 200 at once; "agent: <box> is hosting";
//  - publishes the edges file and the report at once and every
//    report_every; a failure is logged once per distinct error ("agent:
//    hosting: the edges file was not published: <err>", "agent: hosting:
//    the status report was not published: <err>"), and its end once ("agent:
//    hosting: the edges file is published again after 2m13s", "... the
//    status report is published again after ...", "... the mode is known
//    again after ..."; base/failure_log.h);
//  - every check_every selects the mode: still hosting -> nothing; an error
//    -> "agent: hosting: <err>; checking again" once per distinct error,
//    and the box keeps hosting (a store that does not answer is not a
//    reason to drop the fleet's traffic); a joining stage (retired,
//    unenrolled, disarmed) -> "agent: hosting: <box> may no longer host:
//    <stage> <why>; draining for <drain>", health 503 "draining", waits
//    `drain`, "agent: hosting: drained; exiting to join again", and returns
//    kPreconditionFailed (the process exits non-zero; systemd restarts it);
//  - `stop` -> "agent: hosting: stopping; draining for <drain>", health 503
//    "draining", waits `drain` (a second signal does not cut it short),
//    "agent: hosting: drained", and returns kCancelled (exit 0).
// Blocks the calling thread.
Status RunHosting(const Hosting& h, const Stop& stop);

}  // namespace carlos::host
