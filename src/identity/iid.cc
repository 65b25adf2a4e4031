#include "identity/iid.h"
namespace carlos::identity {
StatusOr<InstanceIdentityDocument> ParseInstanceIdentityDocument(std::string_view) {
  return Internal("not implemented");
}
Status VerifyInstanceIdentitySignature(std::string_view, std::string_view, std::string_view) {
  return Internal("not implemented");
}
StatusOr<std::string> SignInstanceIdentityDocumentForTest(std::string_view, std::string_view,
                                                          std::string_view) {
  return Internal("not implemented");
}
StatusOr<TestCertificate> MakeSelfSignedRsa2048ForTest(std::string_view) {
  return Internal("not implemented");
}
}  // namespace carlos::identity
