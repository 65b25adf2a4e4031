#include "identity/keys.h"
namespace carlos::identity {
struct PrivateKey::Handle {};
StatusOr<PublicKey> PublicKey::FromRaw(std::string_view) { return Internal("not implemented"); }
StatusOr<PublicKey> PublicKey::Parse(std::string_view) { return Internal("not implemented"); }
std::string PublicKey::ToString() const { return ""; }
bool PublicKey::empty() const {
  for (auto b : raw_)
    if (b) return false;
  return true;
}
Status PublicKey::Verify(std::string_view, std::string_view) const {
  return Internal("not implemented");
}
StatusOr<PrivateKey> PrivateKey::Generate() { return Internal("not implemented"); }
StatusOr<PrivateKey> PrivateKey::FromPem(std::string_view) { return Internal("not implemented"); }
StatusOr<PrivateKey> PrivateKey::FromSeed(std::string_view) { return Internal("not implemented"); }
StatusOr<std::string> PrivateKey::ToPem() const { return Internal("not implemented"); }
StatusOr<std::string> PrivateKey::Sign(std::string_view) const {
  return Internal("not implemented");
}
StatusOr<PrivateKey> LoadPrivateKeyFile(const std::string&) { return Internal("not implemented"); }
Status WriteNewPrivateKeyFile(const std::string&, const PrivateKey&) {
  return Internal("not implemented");
}
StatusOr<PrivateKey> LoadOrCreateBoxKey(const std::string&) { return Internal("not implemented"); }
std::string BoxKeyPath(const std::string& d) { return d + "/box.key"; }
}  // namespace carlos::identity
