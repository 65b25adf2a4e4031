// `carlos dev region`: a whole region on one machine — the
// deployment (a directory or an S3 bucket), its enrollment key, an IMDS
// emulator with one EC2 identity per box, N real `carlos agent` processes
// each with its own data dir and 127.0.0.1 port, the enroller
// (`carlos boxes auto-enroll --watch`), and, standing in for systemd,
// `carlos system join` run whenever a box's marker changes
// (carlos-system-join.path) and each agent started again when it exits
// (carlos-edge.service's Restart=always). It shows what a load balancer
// would: each box's health check, until SIGINT/SIGTERM, then stops every
// process it started and leaves the deployment as it is, for the next run
// to pick up (region_layout.h says where everything is).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"
#include "base/status.h"
#include "dev/region_layout.h"

namespace carlos::dev {

struct RegionOptions {
  int boxes = 3;                      // 1..kMaxBoxes.
  std::string dir = "carlos-region";  // The region directory (region_layout.h).
  // Empty: the deployment is DIR/deployment. Otherwise this S3 bucket (made
  // when missing), at CARLOS_S3_ENDPOINT with the AWS_* credentials of the
  // region's environment.
  std::string s3_bucket;
  int base_port = kDefaultBasePort;  // Box i's health port is base_port+i.
  // The AWS region of the emulated instances, and CARLOS_REGION.
  std::string region = "us-east-1";
  // Run the enroller (auto-enroll --watch). Off: boxes wait to be invited
  // and enrolled by hand (`carlos boxes invite|enroll` with region.env).
  bool auto_enroll = true;
  // The enroller's --every (a Go duration); empty: its default
  // (CARLOS_JOIN_EVERY).
  std::string enroller_every;
  // Start each agent through `carlos system guard-exec --` as the agent's
  // unit does on a box; off: `carlos agent` directly.
  bool guard_exec = true;
  // Give each agent and the enroller a metrics listener (-metrics) on
  // 127.0.0.1 (region_layout.h: BoxMetricsPort, EnrollerMetricsPort).
  bool metrics = false;
  // How long an agent waits after it exits before it is started again
  // (RestartSec=).
  Milliseconds restart_delay{500};
  // How long the enroller waits before it is started again.
  Milliseconds enroller_restart_delay{1000};
  // How long the stop waits after SIGTERM before SIGKILL, on top of the
  // boxes' drain (CARLOS_DRAIN).
  Milliseconds stop_grace{5000};
  // The `carlos` binary the children run (the region's own: /proc/self/exe).
  std::string carlos_bin;
  // Redraw a table in place (a terminal) rather than print one line per
  // change.
  bool live_table = false;
};

// Runs the region until `stop` is requested. Writes the start summary
// (where the logs are, each box's health URL) and then the table or the
// change lines to `out`; the region's own log lines (starts, exits, joins)
// go to DIR/logs/region.log, and also to `logf` when not live_table.
// `getenv`/`environ` is the region's environment (the children's base,
// region_env.h). Returns OK after a clean stop. Errors, before anything is
// started: kInvalidArgument for bad options; kPreconditionFailed when
// another region runs on DIR; the error of making DIR, the key, the IMDS
// signer, the bucket or the IMDS listeners (a port in use names the port).
Status RunRegion(const RegionOptions& options, const std::vector<std::string>& environ,
                 const Stop& stop, Clock& clock, const Logf& logf, std::FILE* out);

}  // namespace carlos::dev
