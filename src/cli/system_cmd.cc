// `carlos system join|guard-exec|guard-status`: root's commands on
// a box. The logic lives in src/guard/; this file wires the real
// environment, clock, IMDS, store and log into it.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"
#include "cli/commands.h"
#include "cli/store_options.h"
#include "guard/exec_check.h"
#include "guard/guard_status.h"
#include "guard/imds_view.h"
#include "guard/join.h"
#include "guard/privileges.h"
#include "host/handover.h"
#include "imds/client.h"
#include "imds/group_reference.h"
#include "protocol/label.h"
#include "protocol/local_guard.h"
#include "protocol/timings.h"
#include "protocol/version.h"
#include "store/store.h"

namespace carlos::cli {

namespace {

constexpr const char* kJoinFooter =
    "Exit codes: 0 the guard is installed and armed (or already was), 1 it is not (one line on "
    "stderr names the cause and what to do; the guard's files are as they were or, after a "
    "crash, whole), 2 usage.\n"
    "Reads CARLOS_DATA_DIR (default /data), CARLOS_ENROLLMENT_PUBKEY, CARLOS_BOX_LABEL, "
    "CARLOS_BOX_REFERENCE, CARLOS_REGION, CARLOS_IMDS_ENDPOINT and the store's settings "
    "(CARLOS_DEPLOYMENT_DIR or CARLOS_DEPLOYMENT_BUCKET, CARLOS_S3_ENDPOINT, AWS_*). Must run as "
    "root; carlos-system-join.service runs it when the agent touches "
    "$CARLOS_DATA_DIR/system-join-requested.";

constexpr const char* kExecFooter =
    "With the guard armed, COMMAND starts only when the box's enrollment in the store still "
    "matches the guard (and the box is not retired), whatever CARLOS_HOST_CLAIM and "
    "CARLOS_REGION_HA say; unarmed, it starts (the agent can then only join, or, with either "
    "switch blank, hosts as before region HA). Started as root, it drops to CARLOS_SERVICE_USER "
    "(default carlos) first. "
    "Exit codes: COMMAND's own once started; 3 refused until an operator acts (retired, enrollment "
    "forged or for another guard, release below the floor, malformed settings); 1 the check could "
    "not be made (store or guard unreadable), after waiting CARLOS_JOIN_EVERY (15s); 127 COMMAND "
    "could not be started; 2 usage. One line on stderr says why.";

int RunJoinCommand(const std::string& timeout) {
  Logf logf = StderrLogf();
  if (::geteuid() != 0) {
    logf(
        "carlos system join: must run as root: it writes the root-owned guard under "
        "$CARLOS_DATA_DIR/hostguard; run it with sudo, or let carlos-system-join.service run it");
    return 1;
  }
  Getenv getenv = ProcessGetenv();
  auto store = OpenStore(getenv, CommandStoreOptions("carlos system join", timeout));
  if (!store.ok()) {
    logf("carlos system join: the deployment store cannot be opened: " + store.status().message() +
         "; fix /etc/carlos/host.env and run again");
    return 1;
  }
  imds::ImdsClient client(imds::ImdsOptionsFromEnv(getenv), RealClock());
  guard::JoinDeps deps;
  deps.getenv = getenv;
  deps.clock = RealClock();
  deps.imds = [&client] { return guard::ReadImdsView(client); };
  deps.group_label = [&client]() -> StatusOr<std::string> {
    auto ref = imds::ResolveGroupReference(client);
    if (!ref.ok()) return ref.status();
    return ref->label;
  };
  deps.host_name = protocol::SystemHostName;
  deps.store = store->get();
  deps.logf = logf;
  deps.owner_uid = 0;
  deps.release = protocol::Release();
  return guard::RunJoin(deps);
}

int RunGuardExec(const std::vector<std::string>& command) {
  Logf logf = StderrLogf();
  std::string shown = command.empty() ? "" : command.front();
  Getenv getenv = ProcessGetenv();
  guard::ExecCheckDeps deps;
  deps.getenv = getenv;
  deps.open_store = [getenv] { return OpenStore(getenv); };
  deps.owner_uid = 0;
  deps.release = protocol::Release();
  auto verdict = guard::CheckGuardForExec(deps);
  if (!verdict.ok()) {
    if (guard::RefusalIsFinal(verdict.status())) {
      logf(fmt::format(
          "carlos system guard-exec: refusing to start {}: {}; this holds until an operator acts "
          "(exit {}: carlos-edge.service does not restart it; after the fix, systemctl restart "
          "carlos-edge.service)",
          shown, verdict.status().message(), guard::kExecRefusedForGoodExit));
      return guard::kExecRefusedForGoodExit;
    }
    // Transient (the store or the guard's files could not be read): wait
    // joinEvery (DESIGN.md, "Timings") before exiting 1, so that the unit's
    // short RestartSec (meant for the joining -> hosting hand-over and
    // crashes) does not turn an outage into a check every half second.
    auto timings = protocol::TimingsFromEnv(getenv);
    Milliseconds wait = timings.ok() ? timings->join_every : protocol::Timings{}.join_every;
    logf(
        fmt::format("carlos system guard-exec: refusing to start {} for now: {}; checking again "
                    "in {} ms (exit 1 then; systemd starts it again)",
                    shown, verdict.status().message(), wait.count()));
    Stop never;
    RealClock()->Sleep(wait, never);
    return 1;
  }
  std::string as = "its own user";
  if (::geteuid() == 0) {
    std::string user = EnvOr(getenv, "CARLOS_SERVICE_USER", guard::kDefaultServiceUser);
    if (Status st = guard::DropToUser(user); !st.ok()) {
      logf(fmt::format("carlos system guard-exec: refusing to start {}: {}", shown, st.message()));
      return 1;
    }
    as = user;
  }
  logf(fmt::format("carlos system guard-exec: {}; starting {} as {}", verdict->why, shown, as));
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  // The agent hands over to the claim agent through guard-exec again, in
  // place, instead of waiting for a restart (host/handover.h).
  ::setenv(host::kStartedByGuardExec, "1", 1);
  ::execvp(argv[0], argv.data());
  logf(fmt::format("carlos system guard-exec: cannot start {}: {}", shown, std::strerror(errno)));
  return 127;
}

int RunGuardStatus(bool json) {
  std::string data_dir = DataDir(ProcessGetenv());
  auto local = protocol::ReadLocalGuard(data_dir, 0);
  if (!local.ok()) {
    std::fprintf(stderr, "carlos system guard-status: %s\n", local.status().message().c_str());
    return 1;
  }
  nlohmann::json facts = guard::GuardStatusJson(data_dir, *local);
  std::string out = json ? facts.dump(2) + "\n" : guard::GuardStatusText(facts);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void AddSystemCommands(CLI::App& system, Action* action) {
  CLI::App* join = system.add_subcommand(
      "join",
      "As root: check this box's identity record and invitation, install and arm its guard");
  join->footer(kJoinFooter);
  auto timeout = std::make_shared<std::string>();
  AddTimeoutFlag(join, timeout.get());
  join->callback([action, timeout] { *action = [timeout] { return RunJoinCommand(*timeout); }; });

  auto command = std::make_shared<std::vector<std::string>>();
  CLI::App* exec = system.add_subcommand(
      "guard-exec", "The agent unit's entry point: check the guard, then exec COMMAND");
  exec->footer(kExecFooter);
  exec->add_option("command", *command, "The command to start, after --: -- /usr/bin/carlos agent")
      ->required();
  exec->callback([action, command] { *action = [command] { return RunGuardExec(*command); }; });

  auto json = std::make_shared<bool>(false);
  CLI::App* status = system.add_subcommand("guard-status", "Print the guard's facts on this box");
  status->add_flag("--json", *json, "Print them as a JSON object");
  status->footer(
      "Reads only $CARLOS_DATA_DIR/hostguard (default /data/hostguard). Exit 0, or 1 "
      "when the guard's files cannot be read.");
  status->callback([action, json] { *action = [json] { return RunGuardStatus(*json); }; });
}

}  // namespace carlos::cli
