#include "identity/retirement.h"
namespace carlos::identity {
StatusOr<std::string> SignRetirement(const Retirement&, const PrivateKey&) {
  return Internal("not implemented");
}
StatusOr<Parsed<Retirement>> ParseRetirement(std::string_view) {
  return Internal("not implemented");
}
Status VerifyRetirement(const Parsed<Retirement>&, const PublicKey&, std::string_view,
                        std::optional<std::string_view>) {
  return Internal("not implemented");
}
}  // namespace carlos::identity
