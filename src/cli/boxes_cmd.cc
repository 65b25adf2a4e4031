// `carlos boxes auto-enroll|invite|enroll|retire|list`: the
// enroller from the shell (src/enroll/enroller.h; docs/enroll.md).
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/duration.h"
#include "base/env.h"
#include "base/log.h"
#include "base/log_layout.h"
#include "base/signals.h"
#include "base/strings.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/store_options.h"
#include "enroll/enroll_metrics.h"
#include "enroll/enroller.h"
#include "enroll/remove.h"
#include "enroll/settings.h"
#include "metrics/measured_store.h"
#include "metrics/server.h"
#include "store/store.h"

namespace carlos::cli {

namespace {

constexpr const char* kFooter =
    "Exit codes: 0 ok, 1 error, 2 usage, 3 refused (a check failed; the message names it), "
    "4 no identity record.\n"
    "Environment: the deployment store (CARLOS_DEPLOYMENT_DIR, or CARLOS_DEPLOYMENT_BUCKET with "
    "CARLOS_S3_ENDPOINT and AWS_*), CARLOS_ENROLLMENT_KEY (or CARLOS_ENROLLMENT_PUBKEY for "
    "list), CARLOS_AWS_IID_CERT, CARLOS_ALLOW_UNATTESTED, CARLOS_REGION, CARLOS_FLOOR_RELEASE, "
    "CARLOS_JOIN_EVERY, CARLOS_REPORT_FRESHNESS, CARLOS_REPORT_CLOCK_SKEW, "
    "CARLOS_INVITATION_LIFETIME, CARLOS_ENROLL_WORKERS; each flag overrides its variable. "
    "See /usr/share/doc/carlos/enroll.md.";

// CLI11's check of a --region: a region label, as CARLOS_REGION
// (enroll/settings.h).
CLI::Validator RegionLabel() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return IsLabel(s) ? "" : s + " is not a region label ([a-z0-9-]{1,63}), e.g. us-west-2";
      },
      "REGION");
}

// The flags every enroller command shares; each overrides one variable.
struct Common {
  std::string enrollment_key;
  std::string aws_iid_cert;
  bool allow_unattested = false;
  std::string region;
  std::string every;
  std::string check_every;
  std::string workers;
  std::string timeout;

  void Add(CLI::App* cmd, bool with_region, bool with_every) {
    cmd->add_option("--enrollment-key", enrollment_key,
                    "The enrollment key's private key file (CARLOS_ENROLLMENT_KEY)");
    cmd->add_option("--aws-iid-cert", aws_iid_cert,
                    "AWS's RSA-2048 instance identity certificate, a PEM file or a directory of "
                    "<region>.pem (CARLOS_AWS_IID_CERT)");
    cmd->add_flag("--allow-unattested", allow_unattested,
                  "Admit boxes without a verifiable instance identity document "
                  "(CARLOS_ALLOW_UNATTESTED; off by default)");
    if (with_region) {
      cmd->add_option("--region", region,
                      "Invite and enroll only boxes of this region (CARLOS_REGION)")
          ->check(RegionLabel());
    }
    if (with_every) {
      cmd->add_option("--every", every,
                      "With --watch: a pass at least this often, a Go duration "
                      "(CARLOS_JOIN_EVERY; 15s)")
          ->type_name("DURATION");
      cmd->add_option("--check-every", check_every,
                      "With --watch on S3: look for new records and reports this often, one "
                      "listing each, and pass at once on one (CARLOS_ENROLL_CHECK_EVERY; 1s); "
                      "a directory store is watched with inotify instead")
          ->type_name("DURATION");
    }
    cmd->add_option("--workers", workers,
                    "Store requests in flight at most, 1-64 (CARLOS_ENROLL_WORKERS; 8)")
        ->type_name("INT");
    AddTimeoutFlag(cmd, &timeout);
    cmd->footer(kFooter);
  }

  // The process environment with the flags given laid over it.
  Getenv Env() const {
    std::map<std::string, std::string, std::less<>> over;
    if (!enrollment_key.empty()) over["CARLOS_ENROLLMENT_KEY"] = enrollment_key;
    if (!aws_iid_cert.empty()) over["CARLOS_AWS_IID_CERT"] = aws_iid_cert;
    if (allow_unattested) over["CARLOS_ALLOW_UNATTESTED"] = "1";
    if (!region.empty()) over["CARLOS_REGION"] = region;
    if (!every.empty()) over["CARLOS_JOIN_EVERY"] = every;
    if (!check_every.empty()) over["CARLOS_ENROLL_CHECK_EVERY"] = check_every;
    if (!workers.empty()) over["CARLOS_ENROLL_WORKERS"] = workers;
    Getenv process = ProcessGetenv();
    return [over, process](std::string_view name) -> std::string {
      auto it = over.find(name);
      return it != over.end() ? it->second : process(name);
    };
  }
};

int Fail(const char* cmd, const Status& s) {
  std::fprintf(stderr, "carlos boxes %s: %s\n", cmd, s.message().c_str());
  return ExitStatusOf(s);
}

// Opens the store and the settings, and runs `fn(store, settings)`; with
// `metrics`, the store's requests are counted into it.
template <typename Fn>
int WithStore(const char* cmd, const Common& common, enroll::KeyNeed need, Fn fn,
              enroll::EnrollMetrics* metrics = nullptr) {
  Getenv env = common.Env();
  // A malformed account list cannot fix itself: a usage error (exit 2).
  if (auto accounts = enroll::ParseAwsAccounts(env("CARLOS_AWS_ACCOUNTS")); !accounts.ok()) {
    Fail(cmd, accounts.status());
    return kExitUsage;
  }
  StatusOr<enroll::EnrollerSettings> settings = enroll::SettingsFromEnv(env, need);
  if (!settings.ok()) return Fail(cmd, settings.status());
  if (std::string_view(cmd) == "auto-enroll") {
    LogLine("enroll: " + enroll::AwsAccountsClause(*settings));
  }
  StatusOr<std::unique_ptr<Store>> opened =
      OpenStore(env, CommandStoreOptions(fmt::format("carlos boxes {}", cmd), common.timeout));
  if (!opened.ok()) return Fail(cmd, opened.status());
  std::shared_ptr<Store> store = std::move(*opened);
  if (metrics)
    store = std::make_shared<metrics::MeasuredStore>(store, metrics->store(), RealClock());
  return fn(*store, std::move(*settings));
}

// WithStore, running `fn` with an Enroller over the store.
template <typename Fn>
int WithEnroller(const char* cmd, const Common& common, enroll::KeyNeed need, Fn fn,
                 enroll::EnrollMetrics* metrics = nullptr) {
  return WithStore(
      cmd, common, need,
      [&](Store& store, enroll::EnrollerSettings settings) {
        enroll::Enroller enroller(&store, RealClock(), StderrLogf(), std::move(settings));
        enroller.set_warnf(PriorityLogf(Priority::kWarning));
        return fn(enroller);
      },
      metrics);
}

// Prints `line` and a newline on stdout; false when stdout failed.
bool PrintLine(const std::string& line) {
  std::string out = line + "\n";
  return std::fwrite(out.data(), 1, out.size(), stdout) == out.size();
}

void AddAutoEnroll(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "auto-enroll",
      "Verify every identity record; refuse referenced, retired, conflicting, unattested and "
      "other-region boxes (saying why, once); invite recorded boxes; enroll invited boxes whose "
      "guard-ready report is fresh, armed and bound. One pass, or --watch");
  auto common = std::make_shared<Common>();
  auto watch = std::make_shared<bool>(false);
  common->Add(cmd, /*with_region=*/true, /*with_every=*/true);
  cmd->add_flag("--watch", *watch, "Pass again every --every until SIGTERM or SIGINT");
  auto metrics_address = std::make_shared<std::string>();
  cmd->add_option(
      "--metrics", *metrics_address,
      "With --watch: address of the Prometheus metrics listener (GET /metrics), "
      "e.g. 127.0.0.1:9465; off unless given (/usr/share/doc/carlos/operator.md, \"Metrics\")");
  cmd->callback([action, common, watch, metrics_address] {
    *action = [common, watch, metrics_address] {
      std::shared_ptr<Stop> stop;
      if (*watch) {
        // Before any thread starts, so that every thread inherits the mask.
        stop = std::make_shared<Stop>();
        StopOnSignals(stop);
      }
      std::unique_ptr<enroll::EnrollMetrics> metrics;
      std::unique_ptr<net::HttpServer> metrics_server;
      if (!metrics_address->empty()) {
        if (!*watch) {
          return Fail("auto-enroll", InvalidArgument("--metrics needs --watch: a single pass "
                                                     "ends before Prometheus could scrape it"));
        }
        metrics = std::make_unique<enroll::EnrollMetrics>(RealClock());
        auto srv = metrics::Serve(*metrics_address, &metrics->registry());
        if (!srv.ok()) {
          return Fail(
              "auto-enroll",
              InvalidArgument("the metrics listener could not start on " + *metrics_address + ": " +
                              srv.status().ToString() + "; fix --metrics or leave it off"));
        }
        metrics_server = std::move(*srv);
      }
      return WithEnroller(
          "auto-enroll", *common, enroll::KeyNeed::kPrivate,
          [&](enroll::Enroller& e) {
            if (*watch) {
              enroll::Enroller::PassObserver observed;
              if (metrics) {
                observed = [m = metrics.get()](const StatusOr<enroll::PassSummary>& pass,
                                               double seconds) { m->Passed(pass, seconds); };
              }
              // A directory store is watched with inotify (wakeup.h); S3 by
              // the change check.
              std::unique_ptr<enroll::DirWatcher> watcher;
              Getenv env = common->Env();
              std::string dir = TrimSpace(env("CARLOS_DEPLOYMENT_DIR"));
              if (!dir.empty() && TrimSpace(env("CARLOS_DEPLOYMENT_BUCKET")).empty()) {
                StatusOr<std::unique_ptr<enroll::DirWatcher>> w = enroll::WatchDirStore(dir);
                if (w.ok()) {
                  watcher = std::move(*w);
                } else {
                  LogLine("enroll: " + w.status().message());
                }
              }
              Status st = e.Watch(*stop, observed, watcher.get());
              return st.ok() ? kExitOk : Fail("auto-enroll", st);
            }
            StatusOr<enroll::PassSummary> pass = e.Pass();
            if (!pass.ok()) return Fail("auto-enroll", pass.status());
            LogLine(
                fmt::format("enroll: pass over {} boxes: {} invited, {} enrolled, {} "
                            "refused, {} waiting, {} errors",
                            pass->boxes, pass->invited, pass->enrolled, pass->refused,
                            pass->waiting, pass->errors));
            return pass->errors > 0 ? kExitError : kExitOk;
          },
          metrics.get());
    };
  });
}

void AddInvite(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "invite", "Invite a box by hand, with the checks of auto-enroll (--force: even referenced)");
  auto common = std::make_shared<Common>();
  auto box = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  cmd->add_option("BOX", *box, "The box's label")->required();
  cmd->add_flag("--force", *force,
                "Invite it even though an edges file names it (the invitation says forced)");
  common->Add(cmd, true, false);
  cmd->callback([action, common, box, force] {
    *action = [common, box, force] {
      return WithEnroller("invite", *common, enroll::KeyNeed::kPrivate, [&](enroll::Enroller& e) {
        Status st = e.Invite(*box, *force);
        return st.ok() ? kExitOk : Fail("invite", st);
      });
    };
  });
}

void AddEnroll(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "enroll", "Enroll a box by hand, with the checks of auto-enroll, each failure named");
  auto common = std::make_shared<Common>();
  auto box = std::make_shared<std::string>();
  cmd->add_option("BOX", *box, "The box's label")->required();
  common->Add(cmd, true, false);
  cmd->callback([action, common, box] {
    *action = [common, box] {
      return WithEnroller("enroll", *common, enroll::KeyNeed::kPrivate, [&](enroll::Enroller& e) {
        Status st = e.Enroll(*box);
        return st.ok() ? kExitOk : Fail("enroll", st);
      });
    };
  });
}

void AddRetire(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "retire",
      "Retire a box: it stops hosting at its next check and never hosts again under its "
      "identity record");
  auto common = std::make_shared<Common>();
  auto box = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  cmd->add_option("BOX", *box, "The box's label")->required();
  cmd->add_option("--reason", *reason, "Why, in the operator's words (kept in the retirement)");
  common->Add(cmd, false, false);
  cmd->callback([action, common, box, reason] {
    *action = [common, box, reason] {
      // Retiring checks no attestation, so no certificate is required.
      Common c = *common;
      c.allow_unattested = true;
      return WithEnroller("retire", c, enroll::KeyNeed::kPrivate, [&](enroll::Enroller& e) {
        Status st = e.Retire(*box, *reason);
        if (!st.ok()) return Fail("retire", st);
        // What happens next (DESIGN.md, "Retirement"; docs/operator.md,
        // "Decommission").
        bool printed = PrintLine(fmt::format(
            "{0} is retired: it stops hosting at its next check (every {1}), drains and exits; "
            "guard-exec then keeps it from starting again (exit 3), and it never hosts again "
            "under this identity record. Once its machine is gone: carlos boxes rm {0}",
            *box, FormatDuration(e.settings().every)));
        return printed && std::fflush(stdout) == 0 ? kExitOk : kExitError;
      });
    };
  });
}

void AddList(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "list",
      "One row per box: label, region, stage, instance, report age, guard armed, referenced, "
      "and why auto-enroll refuses or waits");
  auto common = std::make_shared<Common>();
  auto json = std::make_shared<bool>(false);
  auto region = std::make_shared<std::string>();
  cmd->add_flag("--json", *json,
                "Stable JSON for scripts (/usr/share/doc/carlos/enroll.md lists the fields)");
  cmd->add_option("--region", *region, "Only the boxes of this region")->check(RegionLabel());
  common->Add(cmd, false, false);
  cmd->callback([action, common, json, region] {
    *action = [common, json, region] {
      return WithEnroller("list", *common, enroll::KeyNeed::kPublicOnly, [&](enroll::Enroller& e) {
        std::optional<std::string> r;
        if (!region->empty()) r = *region;
        StatusOr<std::vector<enroll::BoxRow>> rows = e.List(r);
        if (!rows.ok()) return Fail("list", rows.status());
        std::string out = *json ? enroll::RowsToJson(*rows, RealClock()->Now()).dump(2) + "\n"
                                : enroll::FormatTable(*rows);
        if (!*json && rows->empty()) {
          out = region->empty() ? "no boxes\n" : fmt::format("no boxes in region {}\n", *region);
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        return std::fflush(stdout) == 0 ? kExitOk : kExitError;
      });
    };
  });
}

void AddRemove(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "rm",
      "Remove a box from the deployment store: its status report, edges file, enrollment, "
      "invitation, identity record and retirement (the retirement last); prints what it "
      "removed. Refuses a box that is enrolled and reporting unless --force");
  auto common = std::make_shared<Common>();
  auto box = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  cmd->add_option("BOX", *box, "The box's label")->required();
  cmd->add_flag("--force", *force,
                "Remove it even though it is enrolled and reporting (it then stops hosting, and "
                "a machine still running it records itself again as a new box)");
  common->Add(cmd, false, false);
  cmd->callback([action, common, box, force] {
    *action = [common, box, force] {
      return WithStore("rm", *common, enroll::KeyNeed::kPublicOnly,
                       [&](Store& store, const enroll::EnrollerSettings& settings) {
                         StatusOr<enroll::Removal> r =
                             enroll::RemoveBox(store, settings, RealClock()->Now(), *box, *force);
                         if (!r.ok()) return Fail("rm", r.status());
                         bool printed =
                             PrintLine(enroll::RemovalLine(*r)) && std::fflush(stdout) == 0;
                         if (!r->status.ok()) return Fail("rm", r->status);
                         return printed ? kExitOk : kExitError;
                       });
    };
  });
}

void AddPrune(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "prune",
      "Remove every retired box whose retirement is --older-than DURATION, as carlos boxes rm "
      "does; prints one line per box removed");
  auto common = std::make_shared<Common>();
  auto retired = std::make_shared<bool>(false);
  auto older_than = std::make_shared<std::string>();
  cmd->add_flag("--retired", *retired, "Prune retired boxes (required: the only kind pruned)")
      ->required();
  cmd->add_option("--older-than", *older_than,
                  "DURATION: only boxes retired at least this long ago, a Go duration (720h)")
      ->required()
      ->type_name("DURATION");
  common->Add(cmd, false, false);
  cmd->callback([action, common, older_than] {
    StatusOr<std::chrono::nanoseconds> d = ParseDuration(*older_than);
    if (!d.ok() || d->count() < 0) {
      throw CLI::ValidationError(
          "--older-than", d.ok() ? "must not be negative" : std::string(d.status().message()));
    }
    auto older = std::chrono::duration_cast<Milliseconds>(*d);
    *action = [common, older] {
      return WithStore("prune", *common, enroll::KeyNeed::kPublicOnly,
                       [&](Store& store, const enroll::EnrollerSettings& settings) {
                         StatusOr<std::vector<enroll::Removal>> pruned =
                             enroll::PruneRetired(store, settings, RealClock()->Now(), older);
                         if (!pruned.ok()) return Fail("prune", pruned.status());
                         bool printed = true;
                         int failed = 0;
                         for (const enroll::Removal& r : *pruned) {
                           printed = PrintLine(enroll::RemovalLine(r)) && printed;
                           failed += !r.status.ok();
                         }
                         if (pruned->empty()) {
                           printed = PrintLine(fmt::format("no box was retired {} ago or more",
                                                           FormatDuration(older))) &&
                                     printed;
                         }
                         printed = std::fflush(stdout) == 0 && printed;
                         if (failed > 0) {
                           return Fail("prune",
                                       Unavailable(fmt::format(
                                           "{} of {} boxes were not removed completely (see above)",
                                           failed, pruned->size())));
                         }
                         return printed ? kExitOk : kExitError;
                       });
    };
  });
}

}  // namespace

void AddBoxesCommands(CLI::App& boxes, Action* action) {
  AddAutoEnroll(boxes, action);
  AddInvite(boxes, action);
  AddEnroll(boxes, action);
  AddRetire(boxes, action);
  AddList(boxes, action);
  AddRemove(boxes, action);
  AddPrune(boxes, action);
}

}  // namespace carlos::cli
