#include "guard/join.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>

#include "base/files.h"
#include "guard/crash_point.h"
#include "guard/guard_dir.h"
#include "identity/guard_files.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/keys.h"
#include "identity/refusal.h"
#include "identity/retirement.h"
#include "identity/store_keys.h"
#include "protocol/documents.h"
#include "protocol/label.h"
#include "protocol/local_guard.h"
#include "protocol/settings.h"
#include "protocol/version.h"

namespace carlos::guard {

namespace {

using identity::Refusal;

// `st` with "; <todo>" appended: every failure says what to do.
Status With(const Status& st, std::string_view todo) {
  return st.WithMessage(fmt::format("{}; {}", st.message(), todo));
}

// Reads one of the box's documents (protocol::ReadDoc). A store that could
// not say is an error that names the store and what to check; a refusal is
// left in the DocState for the caller.
template <typename T, typename ParseFn>
StatusOr<protocol::DocState<T>> Read(Store& store, const std::string& key, ParseFn parse) {
  protocol::DocState<T> d = protocol::ReadDoc<T>(
      [&store](const std::string& k) { return store.GetIfExists(k); }, key, parse);
  if (!d.store_error()) return d;
  return With(
      d.status.WithMessage(fmt::format("the deployment store ({}) could not be read: {}: {}",
                                       store.Describe(), key, d.status.message())),
      "check CARLOS_DEPLOYMENT_BUCKET/CARLOS_DEPLOYMENT_DIR, the credentials and the "
      "network, then run again");
}

std::string InvitationTodo(const Status& st, std::string_view box) {
  auto why = identity::RefusalOf(st);
  if (why == Refusal::kExpired) {
    return fmt::format("ask the enroller for a new invitation (carlos boxes invite {})", box);
  }
  if (why == Refusal::kBadSignature || why == Refusal::kWrongKey) {
    return "it is not signed by the key in CARLOS_ENROLLMENT_PUBKEY: check that "
           "/etc/carlos/host.env holds the deployment's enrollment public key, and have the "
           "enroller invite the box again";
  }
  if (why == Refusal::kBoundToAnotherDigest) {
    return fmt::format(
        "the invitation is for another identity record of {}: have the enroller invite this "
        "record (carlos boxes invite {})",
        box, box);
  }
  return fmt::format("have the enroller invite the box again (carlos boxes invite {})", box);
}

// The guard's instance id and region, once the record and IMDS agree.
struct Placement {
  std::string instance_id;
  std::string region;
};

StatusOr<Placement> CheckPlacement(const JoinDeps& deps, const ImdsView& imds,
                                   const identity::IdentityRecord& record,
                                   const std::string& record_key) {
  const std::string what = "the identity record " + record_key;
  if (imds.off) {
    if (record.attestation.has_value()) {
      return With(identity::Refuse(Refusal::kMismatch, what,
                                   fmt::format("it is attested for instance {}, but IMDS is off "
                                               "(CARLOS_IMDS_ENDPOINT=off)",
                                               record.instance_id)),
                  "on EC2, remove CARLOS_IMDS_ENDPOINT=off from /etc/carlos/host.env");
    }
    std::string env_region = EnvOr(deps.getenv, "CARLOS_REGION", "");
    if (!env_region.empty() && env_region != record.region) {
      return With(identity::Refuse(Refusal::kMismatch, what,
                                   fmt::format("it names region {}, CARLOS_REGION is {}",
                                               record.region, env_region)),
                  "fix CARLOS_REGION in /etc/carlos/host.env, or retire this record");
    }
    return Placement{record.instance_id, record.region};
  }
  if (record.instance_id != imds.instance_id) {
    return With(identity::Refuse(Refusal::kMismatch, what,
                                 fmt::format("instance mismatch: it names instance {:?}, IMDS "
                                             "says this is {}",
                                             record.instance_id, imds.instance_id)),
                "this data dir was made on another instance (a copied volume?): retire that "
                "record (carlos boxes retire) and start this box with a fresh data dir");
  }
  if (record.region != imds.region) {
    return With(identity::Refuse(Refusal::kMismatch, what,
                                 fmt::format("region mismatch: it names region {}, IMDS says "
                                             "this instance runs in {}",
                                             record.region, imds.region)),
                "fix CARLOS_REGION in /etc/carlos/host.env to the instance's region, and retire "
                "the wrong record");
  }
  return Placement{imds.instance_id, imds.region};
}

// Removes armed.json (disarming) when it names `guard_digest`.
Status Disarm(const JoinDeps& deps, const std::string& data_dir, const protocol::LocalGuard& local,
              const std::string& guard_digest) {
  if (!local.armed.has_value() || local.armed->doc.guard_digest != guard_digest) {
    return OkStatus();
  }
  CrashPoint(deps.getenv, "before-disarm");
  std::string path = identity::ArmedFilePath(data_dir);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus(errno, "remove", path);
  return SyncDir(identity::GuardDir(data_dir));
}

}  // namespace

StatusOr<JoinOutcome> Join(const JoinDeps& deps) {
  const std::string data_dir = DataDir(deps.getenv);
  const SystemTime now = deps.clock->Now();

  // 1. The deployment's key, the box's key, the label, IMDS.
  CARLOS_ASSIGN_OR_RETURN(identity::PublicKey enrollment_key,
                          protocol::EnrollmentPublicKeyFromEnv(deps.getenv));
  auto box_key = identity::LoadPrivateKeyFile(identity::BoxKeyPath(data_dir));
  if (!box_key.ok()) {
    if (box_key.status().code() == Code::kNotFound) {
      return With(box_key.status().Annotate("no box key"),
                  "the agent creates it on its first start: start carlos-edge.service (and check "
                  "CARLOS_DATA_DIR)");
    }
    return With(box_key.status().Annotate("the box key cannot be used"),
                "an operator must look at it; it is never replaced automatically");
  }
  auto box = protocol::BoxLabel(deps.getenv, deps.group_label, deps.host_name);
  if (!box.ok()) return box.status().Annotate("the box label cannot be made");
  auto imds = deps.imds();
  if (!imds.ok()) {
    return With(imds.status(),
                "on EC2 check the instance's metadata options (IMDSv2 enabled, hop limit); off "
                "EC2 set CARLOS_IMDS_ENDPOINT=off in /etc/carlos/host.env; then run again");
  }

  // 2. The identity record.
  const std::string record_key = identity::RecordKey(*box);
  CARLOS_ASSIGN_OR_RETURN(auto record, Read<identity::IdentityRecord>(
                                           *deps.store, record_key, identity::ParseIdentityRecord));
  if (!record.present) {
    return NotFound(fmt::format(
        "{} has no identity record yet ({} in {}); the agent writes it once it runs: check "
        "carlos-edge.service (journalctl -u carlos-edge) and run again",
        *box, record_key, deps.store->Describe()));
  }
  protocol::CheckRecord(&record, *box);
  if (!record.valid()) return With(record.status, "an operator must retire or remove that record");
  if (!(record.parsed->doc.public_key == box_key->public_key())) {
    return With(identity::Refuse(
                    Refusal::kWrongKey, "the identity record " + record_key,
                    fmt::format("key mismatch: it holds {}, this box's key ({}) is {}",
                                record.parsed->doc.public_key.ToString(),
                                identity::BoxKeyPath(data_dir), box_key->public_key().ToString())),
                "another box holds this label (a conflict): give this box another "
                "CARLOS_BOX_LABEL, or retire the other record");
  }
  const identity::Parsed<identity::IdentityRecord>& rec = *record.parsed;
  CARLOS_ASSIGN_OR_RETURN(Placement placement, CheckPlacement(deps, *imds, rec.doc, record_key));

  // 3. A retired box is never armed again under this record (the
  // retirement rule, protocol/documents.h).
  CARLOS_ASSIGN_OR_RETURN(auto retirement,
                          Read<identity::Retirement>(*deps.store, identity::RetiredKey(*box),
                                                     identity::ParseRetirement));
  protocol::CheckRetirement(&retirement, enrollment_key, *box, rec.digest);
  switch (protocol::RetirementEffectOf(retirement, /*record_parsed=*/true)) {
    case protocol::RetirementEffect::kNone:
    case protocol::RetirementEffect::kOfAnotherRecord:
      break;
    case protocol::RetirementEffect::kRetired:
      return identity::Refuse(
          Refusal::kMismatch, fmt::format("{} ({})", *box, identity::RetiredKey(*box)),
          fmt::format("the box is retired ({}); it is never armed again under this record: start "
                      "it with a fresh data dir to join as a new box",
                      retirement.parsed->doc.reason));
    case protocol::RetirementEffect::kUnknown:
      return With(retirement.status,
                  "a retirement that cannot be verified is not ignored: fix the store");
  }

  // 4. The invitation.
  const std::string invitation_key = identity::InvitationKey(*box);
  CARLOS_ASSIGN_OR_RETURN(auto invitation, Read<identity::Invitation>(*deps.store, invitation_key,
                                                                      identity::ParseInvitation));
  if (!invitation.present) {
    return NotFound(fmt::format(
        "{} is not invited ({} is absent in {}); the guard is armed only for an invitation: "
        "invite it (carlos boxes invite {}) or let auto-enroll do it, then run again",
        *box, invitation_key, deps.store->Describe(), *box));
  }
  protocol::CheckInvitation(&invitation, enrollment_key, *box, rec.digest, now);
  if (!invitation.valid()) return With(invitation.status, InvitationTodo(invitation.status, *box));
  const identity::Parsed<identity::Invitation>& inv = *invitation.parsed;
  if (inv.doc.region != rec.doc.region) {
    return With(identity::Refuse(Refusal::kMismatch, "the invitation " + invitation_key,
                                 fmt::format("it invites the box into region {}, its record "
                                             "names region {}",
                                             inv.doc.region, rec.doc.region)),
                InvitationTodo(Status(), *box));
  }

  // 5. Install.
  if (Status st = PrepareGuardDir(data_dir, deps.owner_uid); !st.ok()) {
    return st.code() == Code::kPreconditionFailed
               ? st
               : With(st.Annotate("the guard directory"), "fix the data dir and run again");
  }
  CARLOS_ASSIGN_OR_RETURN(GuardDirLock lock, LockGuardDir(data_dir));
  if (Status st = RemoveStaleTemporaries(data_dir); !st.ok()) {
    return With(st, "fix the guard directory and run again");
  }
  CARLOS_ASSIGN_OR_RETURN(protocol::LocalGuard local,
                          protocol::ReadLocalGuard(data_dir, deps.owner_uid));

  identity::GuardFile want;
  want.box = *box;
  want.instance_id = placement.instance_id;
  want.region = placement.region;
  want.record_digest = rec.digest;
  want.invitation_digest = inv.digest;
  want.policy.floor_release = inv.doc.floor_release;
  want.installed_at = now;
  if (local.guard.has_value()) {
    // The same binding keeps its installed_at, so that a second run
    // writes nothing and the guard's digest (which the enrollment binds)
    // does not change.
    identity::GuardFile same = want;
    same.installed_at = local.guard->doc.installed_at;
    auto same_bytes = identity::EncodeGuardFile(same);
    if (same_bytes.ok() && *same_bytes == local.guard->bytes) want = same;
  }
  auto guard_bytes = identity::EncodeGuardFile(want);
  if (!guard_bytes.ok()) {
    return With(guard_bytes.status().Annotate("the guard cannot be written"),
                "the store's documents hold values the guard refuses: report this");
  }
  JoinOutcome out;
  out.box = *box;
  out.invitation_digest = inv.digest;
  auto parsed_guard = identity::ParseGuardFile(*guard_bytes);
  if (!parsed_guard.ok()) return parsed_guard.status().Annotate("the guard just encoded");
  out.guard_digest = parsed_guard->digest;
  const std::string guard_path = identity::GuardFilePath(data_dir);
  if (!local.guard.has_value() || local.guard->bytes != *guard_bytes) {
    CrashPoint(deps.getenv, "before-install");
    if (Status st = WriteFileAtomic(guard_path, *guard_bytes, 0644); !st.ok()) {
      return With(st.Annotate("the guard was not installed"),
                  "the guard is as it was; free space or fix the data dir, then run again");
    }
    out.installed_now = true;
    CrashPoint(deps.getenv, "after-install");
  }

  // 6. Arm, once the policy holds.
  if (want.policy.floor_release.has_value() &&
      protocol::CompareReleases(deps.release, *want.policy.floor_release) < 0) {
    if (Status st = Disarm(deps, data_dir, local, out.guard_digest); !st.ok()) {
      return With(st.Annotate("the guard could not be disarmed"), "fix the data dir and run again");
    }
    return PreconditionFailed(
        fmt::format("{}: the guard is installed but not armed: this box runs release {}, below the "
                    "invitation's floor release {}; upgrade the carlos package and run again",
                    *box, deps.release, *want.policy.floor_release));
  }
  if (local.armed.has_value() && local.armed->doc.guard_digest == out.guard_digest) {
    return out;
  }
  identity::ArmedFile armed{out.guard_digest, now};
  auto armed_bytes = identity::EncodeArmedFile(armed);
  if (!armed_bytes.ok()) return armed_bytes.status().Annotate("the armed mark cannot be encoded");
  CrashPoint(deps.getenv, "before-arm");
  if (Status st = WriteFileAtomic(identity::ArmedFilePath(data_dir), *armed_bytes, 0644);
      !st.ok()) {
    return With(st.Annotate(out.installed_now ? "the guard was installed but not armed"
                                              : "the guard was not armed"),
                "free space or fix the data dir, then run again");
  }
  out.armed_now = true;
  CrashPoint(deps.getenv, "after-arm");
  return out;
}

int RunJoin(const JoinDeps& deps) {
  auto out = Join(deps);
  if (!out.ok()) {
    deps.logf("carlos system join: " + out.status().message());
    return 1;
  }
  if (!out->installed_now && !out->armed_now) {
    deps.logf(fmt::format(
        "carlos system join: {}: the guard is already installed and armed (guard {}, invitation "
        "{}); nothing changed",
        out->box, out->guard_digest, out->invitation_digest));
  } else {
    deps.logf(fmt::format("carlos system join: {}: the guard is {} (guard {}, invitation {})",
                          out->box, out->installed_now ? "installed and armed" : "armed",
                          out->guard_digest, out->invitation_digest));
  }
  return 0;
}

}  // namespace carlos::guard
