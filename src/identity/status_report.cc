#include "identity/status_report.h"
namespace carlos::identity {
StatusOr<std::string> SignStatusReport(const StatusReport&, const PrivateKey&) {
  return Internal("not implemented");
}
StatusOr<Parsed<StatusReport>> ParseStatusReport(std::string_view) {
  return Internal("not implemented");
}
Status VerifyStatusReport(const Parsed<StatusReport>&, const PublicKey&, std::string_view) {
  return Internal("not implemented");
}
Status CheckGuardReady(const StatusReport&, std::string_view, std::string_view, SystemTime,
                       Seconds) {
  return Internal("not implemented");
}
}  // namespace carlos::identity
