#include "identity/invitation.h"
namespace carlos::identity {
Invitation NewInvitation(std::string box, std::string record_digest, std::string region,
                         SystemTime now, bool forced, std::optional<std::string> floor_release) {
  return Invitation{
      std::move(box), std::move(record_digest), std::move(region), now, now + kInvitationLifetime,
      forced,         std::move(floor_release)};
}
StatusOr<std::string> SignInvitation(const Invitation&, const PrivateKey&) {
  return Internal("not implemented");
}
StatusOr<Parsed<Invitation>> ParseInvitation(std::string_view) {
  return Internal("not implemented");
}
Status VerifyInvitation(const Parsed<Invitation>&, const PublicKey&, std::string_view,
                        std::string_view, SystemTime) {
  return Internal("not implemented");
}
}  // namespace carlos::identity
