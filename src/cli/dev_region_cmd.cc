// `carlos dev region`: a region of real boxes on one machine
// (dev/region.h).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "base/log.h"
#include "base/signals.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "dev/region.h"
#include "dev/region_env.h"
#include "dev/region_process.h"

namespace carlos::cli {

namespace {

constexpr const char* kFooter = R"(
What it does:
  Makes (or reuses) the deployment, an enrollment key and an IMDS emulator
  with one EC2 identity per box; starts N real `carlos agent` processes
  (box-1..box-N), each with its own data dir and its own 127.0.0.1 port
  (through `carlos system guard-exec`, see --guard-exec); runs the enroller
  (`carlos boxes auto-enroll --watch`); and stands in for systemd: runs
  `carlos system join` for a box whenever its marker
  (<data dir>/system-join-requested) changes, and starts an agent again
  at once after it exits 0 (the hand-over to hosting) and 500ms after it
  fails. A box takes traffic (its health check answers 200) only once it
  is enrolled and its guard armed.

Shown: on a terminal, a table (box, health code, stage, for how long,
  the agent's pid) redrawn 4 times a second; otherwise one line per change.
  Each box's health URL is printed at the start.

Ports: box i answers GET /_carlos/lb on 127.0.0.1:<base-port + i>; its
  emulated IMDS is 127.0.0.1:<base-port + 100 + i>.

Files (all under --dir):
  deployment/            the store (unless --s3)
  enrollment.key|.pub    the enrollment key
  imds/signer.crt|.key   the emulated "AWS" certificate
  boxes/<box>/           each box's data dir
  logs/<box>.agent.log   each agent's output; logs/<box>.join.log each join;
  logs/enroller.log, logs/region.log (the region's own lines)
  run/<box>.agent.pid    each running agent's pid
  region.env             settings for commands by hand, e.g. retiring a box:
                         set -a; . carlos-region/region.env; set +a
                         carlos boxes retire box-2

Root: `carlos system join` must run as root (it writes the root-owned guard),
  so run the region as root (sudo) for boxes to be armed and to host; as
  another user the boxes stop at "invited" and logs/<box>.join.log says why.

Timings: the boxes get CARLOS_JOIN_EVERY=200ms, CARLOS_JOIN_NUDGE_EVERY=1s,
  CARLOS_HOSTING_REPORT_EVERY=2s, CARLOS_DRAIN=1s unless set in your
  environment (which wins).

Ctrl-C (SIGINT) or SIGTERM stops every process the region started (SIGTERM,
  then SIGKILL after the drain plus 5s) and leaves the deployment as it is;
  running again with the same --dir picks it up: same key, same boxes.
)";

}  // namespace

void AddDevRegionCommand(CLI::App& dev, Action* action) {
  CLI::App* cmd = dev.add_subcommand(
      "region", "Run a region of N real boxes on this machine, as a load balancer sees them");
  auto o = std::make_shared<dev::RegionOptions>();
  auto table = std::make_shared<std::string>("auto");
  auto no_enroller = std::make_shared<bool>(false);
  auto guard_exec = std::make_shared<std::string>("auto");
  cmd->add_option("--boxes", o->boxes, "How many boxes (1-99)")->capture_default_str();
  cmd->add_option("--dir", o->dir,
                  "The region directory: deployment (unless --s3), keys, boxes' data, logs")
      ->capture_default_str();
  cmd->add_option("--s3", o->s3_bucket,
                  "Keep the deployment in this S3 bucket (made if missing) at "
                  "CARLOS_S3_ENDPOINT, with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION "
                  "from the environment");
  cmd->add_option("--base-port", o->base_port,
                  "Box i answers on 127.0.0.1:<base-port+i>, its IMDS on <base-port+100+i>")
      ->capture_default_str();
  cmd->add_flag("--metrics", o->metrics,
                "Serve each agent's metrics on 127.0.0.1:<base-port+200+i> and the enroller's "
                "on <base-port+200> (GET /metrics)");
  cmd->add_option("--region", o->region, "The emulated AWS region, and CARLOS_REGION")
      ->capture_default_str();
  cmd->add_option("--table", *table,
                  "auto: a live table when stdout is a terminal; on; off: one line per change")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->add_flag("--no-enroller", *no_enroller,
                "Do not run the enroller: invite and enroll boxes by hand (carlos boxes ...)");
  cmd->add_option("--enroller-every", o->enroller_every,
                  "The enroller's --every (a Go duration); unset: CARLOS_JOIN_EVERY, as the "
                  "enroller's own default (bench/admission.sh uses it to time the boxes' side "
                  "alone)");
  cmd->add_option("--guard-exec", *guard_exec,
                  "Start each agent through `carlos system guard-exec --` (on) or directly "
                  "(off); auto: off when run as root (guard-exec would drop to the carlos "
                  "user), on otherwise")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->footer(kFooter);
  cmd->callback([action, o, table, no_enroller, guard_exec] {
    *action = [o, table, no_enroller, guard_exec] {
      auto self = dev::SelfExecutable();
      if (!self.ok()) {
        std::fprintf(stderr, "carlos dev region: %s\n", self.status().ToString().c_str());
        return kExitError;
      }
      o->carlos_bin = *self;
      o->auto_enroll = !*no_enroller;
      o->guard_exec = *guard_exec == "on" || (*guard_exec == "auto" && geteuid() != 0);
      o->live_table = *table == "on" || (*table == "auto" && isatty(STDOUT_FILENO));
      auto stop = std::make_shared<Stop>();
      StopOnSignals(stop);
      Status st =
          dev::RunRegion(*o, dev::ProcessEnviron(), *stop, *RealClock(), StderrLogf(), stdout);
      if (!st.ok()) {
        std::fprintf(stderr, "carlos dev region: %s\n", st.ToString().c_str());
        // Bad options (--boxes 0) are usage, as CLI11's own errors.
        return st.code() == Code::kInvalidArgument ? kExitUsage : kExitError;
      }
      return kExitOk;
    };
  });
}

}  // namespace carlos::cli
