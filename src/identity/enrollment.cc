#include "identity/enrollment.h"
namespace carlos::identity {
StatusOr<std::string> SignEnrollment(const Enrollment&, const PrivateKey&) {
  return Internal("not implemented");
}
StatusOr<Parsed<Enrollment>> ParseEnrollment(std::string_view) {
  return Internal("not implemented");
}
Status VerifyEnrollment(const Parsed<Enrollment>&, const PublicKey&, const EnrollmentBinding&) {
  return Internal("not implemented");
}
}  // namespace carlos::identity
