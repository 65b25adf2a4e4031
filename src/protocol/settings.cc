#include "protocol/settings.h"

#include <fmt/format.h>

#include "base/strings.h"

namespace carlos::protocol {

namespace {

constexpr std::string_view kEnrollmentPubkeyAdvice =
    "set it in /etc/carlos/host.env to the deployment's enrollment public key (ed25519:...), as "
    "carlos boxes keygen printed it";

}  // namespace

bool RegionHAJoining(const Getenv& getenv) {
  return SwitchOn(getenv, "CARLOS_HOST_CLAIM") && SwitchOn(getenv, "CARLOS_REGION_HA");
}

bool RegionHAApplies(const Getenv& getenv, bool guard_armed) {
  return guard_armed || RegionHAJoining(getenv);
}

std::string SwitchesOffWarning(const Getenv& getenv) {
  const bool claim = SwitchOn(getenv, "CARLOS_HOST_CLAIM");
  const bool ha = SwitchOn(getenv, "CARLOS_REGION_HA");
  const bool key = !TrimSpace(getenv(std::string(kEnrollmentPubkeyVar))).empty();
  if ((claim && ha) || !(claim || ha || key)) return "";
  const char* off = !claim && !ha ? "CARLOS_HOST_CLAIM and CARLOS_REGION_HA are"
                    : !claim      ? "CARLOS_HOST_CLAIM is"
                                  : "CARLOS_REGION_HA is";
  return fmt::format(
      "region HA is off: {} blank, while {} set; unless its guard is armed, this box hosts as "
      "before region HA (no joining, no enrollment): set both switches in /etc/carlos/host.env "
      "to join",
      off, key ? std::string(kEnrollmentPubkeyVar) + " is" : "the other switch is");
}

StatusOr<identity::PublicKey> EnrollmentPublicKeyFromEnv(const Getenv& getenv) {
  std::string text = TrimSpace(getenv(std::string(kEnrollmentPubkeyVar)));
  if (text.empty()) {
    return InvalidArgument(
        fmt::format("{} is not set; {}", kEnrollmentPubkeyVar, kEnrollmentPubkeyAdvice));
  }
  StatusOr<identity::PublicKey> key = identity::PublicKey::Parse(text);
  if (!key.ok()) {
    return InvalidArgument(fmt::format("{} cannot be used: {}; {}", kEnrollmentPubkeyVar,
                                       key.status().message(), kEnrollmentPubkeyAdvice));
  }
  return *key;
}

std::string JoinMarkerPath(const std::string& data_dir) {
  return fmt::format("{}/{}", data_dir, kJoinRequestMarker);
}

}  // namespace carlos::protocol
