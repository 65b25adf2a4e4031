#include "identity/document.h"
namespace carlos::identity {
StatusOr<std::string> SignObject(nlohmann::json, const PrivateKey&) {
  return Internal("not implemented");
}
StatusOr<SignedObject> ParseSignedObject(std::string_view, std::string_view, std::string_view) {
  return Internal("not implemented");
}
StatusOr<nlohmann::json> ParseUnsignedObject(std::string_view, std::string_view, std::string_view,
                                             std::string*) {
  return Internal("not implemented");
}
Status VerifySignature(const std::optional<PublicKey>&, std::string_view, std::string_view,
                       const PublicKey&, std::string_view) {
  return Internal("not implemented");
}
}  // namespace carlos::identity
