#include "guard/exec_check.h"

#include <fmt/format.h>

#include "identity/enrollment.h"
#include "identity/keys.h"
#include "identity/refusal.h"
#include "identity/retirement.h"
#include "identity/store_keys.h"
#include "protocol/documents.h"
#include "protocol/local_guard.h"
#include "protocol/settings.h"
#include "protocol/version.h"

namespace carlos::guard {

StatusOr<ExecVerdict> CheckGuardForExec(const ExecCheckDeps& deps) {
  const std::string data_dir = DataDir(deps.getenv);
  CARLOS_ASSIGN_OR_RETURN(protocol::LocalGuard local,
                          protocol::ReadLocalGuard(data_dir, deps.owner_uid));
  ExecVerdict verdict;
  const bool switches_on = protocol::RegionHAJoining(deps.getenv);
  if (!local.armed_now()) {
    // What the agent will really do (protocol::RegionHAApplies): with a
    // switch blank and no armed guard it hosts as before region HA.
    verdict.why = switches_on
                      ? fmt::format("the guard is not armed ({}): the agent can only join",
                                    local.why_not_armed())
                      : fmt::format(
                            "the guard is not armed ({}) and region HA is off (CARLOS_HOST_CLAIM "
                            "or CARLOS_REGION_HA is blank): the agent hosts as before region HA",
                            local.why_not_armed());
    return verdict;
  }
  // An armed guard is enforced whatever the switches say.
  const std::string enforced =
      switches_on ? "" : " (the armed guard is enforced though a region HA switch is blank)";
  const identity::GuardFile& guard = local.guard->doc;
  verdict.armed = true;
  verdict.box = guard.box;

  if (guard.policy.floor_release.has_value() &&
      protocol::CompareReleases(deps.release, *guard.policy.floor_release) < 0) {
    return PreconditionFailed(fmt::format(
        "the guard of {} is armed with floor release {}, and this is release {}: upgrade the "
        "carlos package",
        guard.box, *guard.policy.floor_release, deps.release));
  }
  auto enrollment_key = protocol::EnrollmentPublicKeyFromEnv(deps.getenv);
  if (!enrollment_key.ok()) {
    return enrollment_key.status().Annotate(
        "the guard is armed, and its enrollment cannot be checked");
  }
  auto store = deps.open_store();
  if (!store.ok()) {
    return store.status().Annotate("the guard is armed and the deployment store cannot be opened");
  }
  // Reads one of the box's documents; a store that could not say refuses
  // the start (the guard is armed: the agent must not start on a guess).
  protocol::ReadKey read = [&store](const std::string& key) { return (*store)->GetIfExists(key); };
  auto store_error = [&store](const Status& st, const std::string& key) {
    return st.WithMessage(
        fmt::format("the guard is armed and the deployment store ({}) could not be read: {}: {}",
                    (*store)->Describe(), key, st.message()));
  };

  auto retirement = protocol::ReadDoc<identity::Retirement>(read, identity::RetiredKey(guard.box),
                                                            identity::ParseRetirement);
  if (retirement.store_error()) return store_error(retirement.status, retirement.key);
  protocol::CheckRetirement(&retirement, *enrollment_key, guard.box, guard.record_digest);
  switch (protocol::RetirementEffectOf(retirement, /*record_parsed=*/true)) {
    case protocol::RetirementEffect::kNone:
    case protocol::RetirementEffect::kOfAnotherRecord:
      break;
    case protocol::RetirementEffect::kRetired:
      return identity::Refuse(identity::Refusal::kMismatch,
                              fmt::format("{} ({})", guard.box, retirement.key),
                              fmt::format("the box is retired ({}): it hosts nothing again",
                                          retirement.parsed->doc.reason));
    case protocol::RetirementEffect::kUnknown:
      return retirement.status.WithMessage(
          retirement.status.message() +
          "; a retirement that cannot be verified is not ignored: fix the store");
  }

  auto enrollment = protocol::ReadDoc<identity::Enrollment>(
      read, identity::EnrollmentKey(guard.box), identity::ParseEnrollment);
  if (enrollment.store_error()) return store_error(enrollment.status, enrollment.key);
  if (!enrollment.present) {
    // Armed but not enrolled is the guard-ready stage (DESIGN.md, "Mode
    // selection"): the agent must run to publish the guard-ready report the
    // enroller waits for, and a withdrawn enrollment "comes back joining"
    // (DESIGN.md, "Hosting"). Refusing here would leave a box that restarted
    // in that window stuck for good. The agent's own mode selection never
    // hosts without a matching enrollment, so starting it is safe.
    verdict.enrolled = false;
    verdict.why = fmt::format(
        "the guard of {} is armed ({}) but the box has no enrollment ({}) yet, or it was "
        "withdrawn: the agent can only join{}",
        guard.box, local.guard->digest, enrollment.key, enforced);
    return verdict;
  }
  protocol::CheckEnrollment(
      &enrollment, *enrollment_key,
      identity::EnrollmentBinding{guard.box, guard.record_digest, guard.invitation_digest,
                                  local.guard->digest});
  if (!enrollment.valid()) {
    const Status& st = enrollment.status;
    return st.WithMessage(
        fmt::format("the guard of {} is armed ({}) and its enrollment does not match it: {}; "
                    "enroll the box again for this guard (carlos boxes enroll {}), or, to make it "
                    "join again, remove {} as root",
                    guard.box, local.guard->digest, st.message(), guard.box,
                    identity::ArmedFilePath(data_dir)));
  }
  const auto& enrolled = *enrollment.parsed;
  verdict.enrolled = true;
  verdict.why = fmt::format("the guard is armed for {} and its enrollment {} matches it{}",
                            guard.box, enrolled.digest, enforced);
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
