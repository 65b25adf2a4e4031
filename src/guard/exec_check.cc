#include "guard/exec_check.h"

#include <fmt/format.h>

#include "guard/local_guard.h"
#include "host/version.h"
#include "identity/enrollment.h"
#include "identity/keys.h"
#include "identity/refusal.h"
#include "identity/retirement.h"
#include "identity/store_keys.h"

namespace carlos::guard {

StatusOr<ExecVerdict> CheckGuardForExec(const ExecCheckDeps& deps) {
  const std::string data_dir = DataDir(deps.getenv);
  CARLOS_ASSIGN_OR_RETURN(LocalGuard local, ReadLocalGuard(data_dir, deps.owner_uid));
  ExecVerdict verdict;
  if (!local.armed_now()) {
    verdict.why =
        fmt::format("the guard is not armed ({}): the agent can only join", local.why_not_armed());
    return verdict;
  }
  const identity::GuardFile& guard = local.guard->doc;
  verdict.armed = true;
  verdict.box = guard.box;

  if (guard.policy.floor_release.has_value() &&
      CompareReleases(deps.release, *guard.policy.floor_release) < 0) {
    return PreconditionFailed(fmt::format(
        "the guard of {} is armed with floor release {}, and this is release {}: upgrade the "
        "carlos package",
        guard.box, *guard.policy.floor_release, deps.release));
  }
  std::string key_text = EnvOr(deps.getenv, "CARLOS_ENROLLMENT_PUBKEY", "");
  auto enrollment_key = identity::PublicKey::Parse(key_text);
  if (!enrollment_key.ok()) {
    return InvalidArgument(fmt::format(
        "the guard is armed, and CARLOS_ENROLLMENT_PUBKEY ({}) cannot check its enrollment: {}; "
        "set it in /etc/carlos/host.env",
        key_text.empty() ? "not set" : "malformed", enrollment_key.status().message()));
  }
  auto store = deps.open_store();
  if (!store.ok()) {
    return store.status().Annotate("the guard is armed and the deployment store cannot be opened");
  }
  auto read = [&](const std::string& key) -> StatusOr<std::optional<std::string>> {
    auto obj = (*store)->Get(key);
    if (obj.ok()) return std::optional<std::string>(std::move(obj->data));
    if (obj.status().code() == Code::kNotFound) return std::optional<std::string>();
    return Status(obj.status().code(),
                  fmt::format("the guard is armed and the deployment store ({}) could not be "
                              "read: {}: {}",
                              (*store)->Describe(), key, obj.status().message()));
  };

  const std::string retired_key = identity::RetiredKey(guard.box);
  CARLOS_ASSIGN_OR_RETURN(auto retired_bytes, read(retired_key));
  if (retired_bytes.has_value()) {
    auto retirement = identity::ParseRetirement(*retired_bytes);
    Status st = retirement.ok() ? identity::VerifyRetirement(*retirement, *enrollment_key,
                                                             guard.box, guard.record_digest)
                                : retirement.status();
    if (st.ok()) {
      return identity::Refuse(
          identity::Refusal::kMismatch, guard.box + " (" + retired_key + ")",
          fmt::format("the box is retired ({}): it hosts nothing again", retirement->doc.reason));
    }
    if (identity::RefusalOf(st) != identity::Refusal::kBoundToAnotherDigest) {
      return Status(st.code(), st.message() +
                                   "; a retirement that cannot be verified is not ignored: fix "
                                   "the store");
    }
  }

  const std::string enrollment_key_path = identity::EnrollmentKey(guard.box);
  CARLOS_ASSIGN_OR_RETURN(auto enrollment_bytes, read(enrollment_key_path));
  if (!enrollment_bytes.has_value()) {
    // Armed but not enrolled is the guard-ready stage (DESIGN.md, "Mode
    // selection"): the agent must run to publish the guard-ready report the
    // enroller waits for, and a withdrawn enrollment "comes back joining"
    // (DESIGN.md, "Hosting"). Refusing here would leave a box that restarted
    // in that window stuck for good. The agent's own mode selection never
    // hosts without a matching enrollment, so starting it is safe.
    verdict.enrolled = false;
    verdict.why = fmt::format(
        "the guard of {} is armed ({}) but the box has no enrollment ({}) yet, or it was "
        "withdrawn: the agent can only join",
        guard.box, local.guard->digest, enrollment_key_path);
    return verdict;
  }
  auto enrollment = identity::ParseEnrollment(*enrollment_bytes);
  Status st = enrollment.ok()
                  ? identity::VerifyEnrollment(
                        *enrollment, *enrollment_key,
                        identity::EnrollmentBinding{guard.box, guard.record_digest,
                                                    guard.invitation_digest, local.guard->digest})
                  : enrollment.status();
  if (!st.ok()) {
    return Status(st.code(),
                  fmt::format("the guard of {} is armed ({}) and its enrollment does not match "
                              "it: {}; enroll the box again for this guard (carlos boxes enroll "
                              "{}), or, to make it join again, remove {} as root",
                              guard.box, local.guard->digest, st.message(), guard.box,
                              identity::ArmedFilePath(data_dir)));
  }
  verdict.enrolled = true;
  verdict.why = fmt::format("the guard is armed for {} and its enrollment {} matches it", guard.box,
                            enrollment->digest);
  return verdict;
}

bool RefusalIsFinal(const Status& refusal) {
  switch (refusal.code()) {
    case Code::kCorrupt:
    case Code::kPreconditionFailed:
    case Code::kInvalidArgument:
      return true;
    default:
      return false;
  }
}

}  // namespace carlos::guard
