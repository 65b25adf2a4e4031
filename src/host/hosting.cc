#include "host/hosting.h"

#include <algorithm>

#include "base/check.h"
#include "base/failure_log.h"

namespace carlos::host {

namespace {

// Logs a failure once per distinct cause, and `recovered` again when it ends.
void Note(FailureLog* log, const Status& st, const std::string& prefix,
          const std::string& recovered) {
  if (st.ok()) {
    log->Succeeded(recovered);
  } else {
    log->Failed(st.ToString(), prefix + st.ToString());
  }
}

void Drain(const Hosting& h) {
  if (h.draining) h.draining();
  h.health->SetHosting(false);
  h.health->SetStage("draining");
  Stop never;  // The drain window is served in full.
  h.clock->Sleep(h.drain, never);
}

}  // namespace

Status RunHosting(const Hosting& h, const Stop& stop) {
  CARLOS_CHECK(h.clock && h.logf && h.health,
               "RunHosting requires clock, logf and health (host/hosting.h)");
  h.health->SetHosting(true);
  h.health->SetStage("hosting");
  h.logf("agent: " + h.box + " is hosting");
  FailureLog edges_log(h.logf, h.clock, h.warnf), report_log(h.logf, h.clock, h.warnf),
      check_log(h.logf, h.clock, h.warnf);
  SystemTime next_report = h.clock->Now();
  SystemTime next_check = h.clock->Now() + h.check_every;
  for (;;) {
    SystemTime now = h.clock->Now();
    if (now >= next_report) {
      if (h.publish_edges) {
        Note(&edges_log, h.publish_edges(), "agent: hosting: the edges file was not published: ",
             "agent: hosting: the edges file is published");
      }
      if (h.publish_report) {
        Note(&report_log, h.publish_report(),
             "agent: hosting: the status report was not published: ",
             "agent: hosting: the status report is published");
      }
      next_report = now + h.report_every;
    }
    if (h.select && now >= next_check) {
      StatusOr<protocol::ModeDecision> d = h.select();
      if (!d.ok()) {
        check_log.Failed(d.status().ToString(),
                         "agent: hosting: " + d.status().ToString() + "; checking again");
      } else if (d->mode != protocol::Mode::kHosting) {
        (h.warnf ? h.warnf : h.logf)("agent: hosting: " + h.box + " may no longer host: " +
                                     std::string(protocol::StageName(d->stage)) + " " + d->why +
                                     "; draining for " + FormatDuration(h.drain));
        Drain(h);
        h.logf("agent: hosting: drained; exiting to join again");
        return PreconditionFailed(
            h.box + " may no longer host: " + std::string(protocol::StageName(d->stage)));
      } else {
        check_log.Succeeded("agent: hosting: the mode is known");
      }
      next_check = h.clock->Now() + h.check_every;
    }
    SystemTime wake = h.select ? std::min(next_report, next_check) : next_report;
    auto wait = std::chrono::duration_cast<Milliseconds>(wake - h.clock->Now());
    if (!h.clock->Sleep(std::max(wait, Milliseconds(0)), stop)) {
      h.logf("agent: hosting: stopping; draining for " + FormatDuration(h.drain));
      Drain(h);
      h.logf("agent: hosting: drained");
      return Cancelled("hosting stopped");
    }
  }
}

}  // namespace carlos::host
