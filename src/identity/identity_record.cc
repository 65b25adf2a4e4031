#include "identity/identity_record.h"
namespace carlos::identity {
StatusOr<std::string> SignIdentityRecord(const IdentityRecord&, const PrivateKey&) {
  return Internal("not implemented");
}
StatusOr<Parsed<IdentityRecord>> ParseIdentityRecord(std::string_view) {
  return Internal("not implemented");
}
Status VerifyIdentityRecord(const Parsed<IdentityRecord>&, std::string_view) {
  return Internal("not implemented");
}
Status VerifyRecordAttestation(const IdentityRecord&, std::string_view) {
  return Internal("not implemented");
}
}  // namespace carlos::identity
