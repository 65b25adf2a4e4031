// `carlos agent`: the box agent (DESIGN.md, "Actors"; the seed's RunAgent).
#include <memory>

#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"
#include "base/log_layout.h"
#include "base/open_files.h"
#include "base/signals.h"
#include "cli/commands.h"
#include "host/agent.h"

namespace carlos::cli {

namespace {

constexpr const char* kEnvironment = R"(Environment (as in /etc/carlos/host.env):
  CARLOS_HOST_CLAIM, CARLOS_REGION_HA
                      claim mode and region HA: on when not blank, whatever the
                      value ("0" and "false" included). With either off there is
                      no joining mode: the agent hosts directly (and warns at
                      every start when CARLOS_ENROLLMENT_PUBKEY is set), unless
                      the box's guard is armed: it is enforced whatever they say.
  CARLOS_BOX_REFERENCE=group
                      the box was launched by its region's group: it resolves its
                      group reference from IMDS first; its label derives from it.
  CARLOS_BOX_LABEL    the box label otherwise (default: the host name's first
                      component); [a-z0-9-]{1,63}.
  CARLOS_REGION, CARLOS_SYSTEM_CHANNEL, CARLOS_DATA_DIR (default /data)
  CARLOS_DEPLOYMENT_BUCKET (+ CARLOS_S3_ENDPOINT, AWS_*) or CARLOS_DEPLOYMENT_DIR
                      the deployment store.
  CARLOS_ENROLLMENT_PUBKEY
                      the deployment's enrollment public key ("ed25519:...").
  CARLOS_IMDS_ENDPOINT
                      IMDS (default http://169.254.169.254); "off" when not on EC2.
  CARLOS_MACHINE_ID_FILE
                      the machine id (default /etc/machine-id).
  Timings, Go durations ("200ms", "1m30s"):
  CARLOS_JOIN_EVERY (15s), CARLOS_JOIN_NUDGE_EVERY (1m),
  CARLOS_HOSTING_REPORT_EVERY (30s), CARLOS_DRAIN (10s),
  CARLOS_HEALTH_HEADER_TIMEOUT (10s), CARLOS_REPORT_FRESHNESS (5m),
  CARLOS_INVITATION_LIFETIME (24h).

Exit status: 0 on SIGTERM/SIGINT (hosting: after the drain) or when a joining
box is enrolled and armed (systemd restarts it as the claim agent); 1 when a
hosting box may no longer host (retired, unenrolled, disarmed), after the
drain; 2 for a setting that cannot fix itself, checked at start, on one line
naming it: -http (host:port, port 0..65535), CARLOS_DATA_DIR (an existing
directory), CARLOS_ENROLLMENT_PUBKEY (set and valid when region HA applies), a
timing. Only the store, IMDS and the documents are retried.)";

}  // namespace

void AddAgentCommand(CLI::App& agent, Action* action) {
  auto flags = std::make_shared<host::AgentFlags>();
  agent.description(
      "Run the box agent: while the box is not enrolled and armed it joins (health check "
      "503, identity record, nudges to root and the enroller); then it hosts (health check "
      "200, edges file, status report) until it may no longer.");
  agent.footer(kEnvironment);
  agent
      .add_option("--http", flags->http,
                  "Address of the HTTP listener and the health check (GET/HEAD /_carlos/lb)")
      ->default_val(":80");
  agent.add_option("--metrics", flags->metrics,
                   "Address of the Prometheus metrics listener (GET /metrics), e.g. "
                   "127.0.0.1:9464 or a private address; off unless given. Not the health "
                   "check's address: see /usr/share/doc/carlos/operator.md, \"Metrics\"");
  agent.add_option("--https", flags->https,
                   "Address of the HTTPS listener (the edge's; accepted and not used here)");
  agent.add_option("--registry", flags->registry,
                   "The registry (the edge's; accepted and not used here)");
  agent.add_option("--acme-cache", flags->acme_cache,
                   "The ACME certificate cache (the edge's; accepted and not used here)");
  agent.add_option("--fallback", flags->fallback,
                   "The fallback upstream (the edge's; accepted and not used here)");
  agent.add_flag("--dev", flags->dev, "Development mode (the edge's; accepted and not used here)");
  agent.callback([flags, action] {
    *action = [flags] {
      auto stop = std::make_shared<Stop>();
      StopOnSignals(stop);
      host::AgentEnv env;
      env.getenv = ProcessGetenv();
      env.clock = RealClock();
      env.logf = StderrLogf();
      env.warnf = PriorityLogf(Priority::kWarning);
      env.errf = PriorityLogf(Priority::kErr);
      env.stop = stop;
      // Thousands of health check connections need descriptors: as the
      // seed's Go runtime did, use the hard limit (systemd's is 524288).
      if (StatusOr<uint64_t> limit = RaiseOpenFileLimit(); !limit.ok()) {
        env.logf("agent: the open-file limit stays as it is (" + limit.status().message() +
                 "); the health check holds that many connections at most");
      }
      return host::RunAgent(*flags, env);
    };
  });
}

}  // namespace carlos::cli
