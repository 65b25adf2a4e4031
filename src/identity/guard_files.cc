#include "identity/guard_files.h"
namespace carlos::identity {
StatusOr<std::string> EncodeGuardFile(const GuardFile&) { return Internal("not implemented"); }
StatusOr<Parsed<GuardFile>> ParseGuardFile(std::string_view) { return Internal("not implemented"); }
Status CheckGuardBinding(const GuardFile&, const GuardBinding&) {
  return Internal("not implemented");
}
StatusOr<std::string> EncodeArmedFile(const ArmedFile&) { return Internal("not implemented"); }
StatusOr<Parsed<ArmedFile>> ParseArmedFile(std::string_view) { return Internal("not implemented"); }
Status CheckArmedFor(const ArmedFile&, std::string_view) { return Internal("not implemented"); }
}  // namespace carlos::identity
