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
