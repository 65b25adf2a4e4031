#include "host/hosting.h"

#include <algorithm>

#include "base/check.h"

namespace carlos::host {

namespace {

// Logs `line` when `err` differs from the last one logged under `*last`;
// forgets it on success.
void Note(const Logf& logf, const Status& st, const std::string& prefix, std::string* last) {
  if (st.ok()) {
    last->clear();
    return;
  }
  if (st.ToString() != *last) logf(prefix + st.ToString());
  *last = st.ToString();
}

void Drain(const Hosting& h) {
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
  std::string edges_err, report_err, check_err;
  SystemTime next_report = h.clock->Now();
  SystemTime next_check = h.clock->Now() + h.check_every;
  for (;;) {
    SystemTime now = h.clock->Now();
    if (now >= next_report) {
      if (h.publish_edges) {
        Note(h.logf, h.publish_edges(),
             "agent: hosting: the edges file was not published: ", &edges_err);
      }
      if (h.publish_report) {
        Note(h.logf, h.publish_report(),
             "agent: hosting: the status report was not published: ", &report_err);
      }
      next_report = now + h.report_every;
    }
    if (h.select && now >= next_check) {
      StatusOr<protocol::ModeDecision> d = h.select();
      if (!d.ok()) {
        if (d.status().ToString() != check_err) {
          h.logf("agent: hosting: " + d.status().ToString() + "; checking again");
        }
        check_err = d.status().ToString();
      } else if (d->mode != protocol::Mode::kHosting) {
        h.logf("agent: hosting: " + h.box +
               " may no longer host: " + std::string(protocol::StageName(d->stage)) + " " + d->why +
               "; draining for " + FormatDuration(h.drain));
        Drain(h);
        h.logf("agent: hosting: drained; exiting to join again");
        return PreconditionFailed(
            h.box + " may no longer host: " + std::string(protocol::StageName(d->stage)));
      } else {
        check_err.clear();
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
