#include "host/label.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/strings.h"

namespace carlos {

Hostname SystemHostname() {
  return []() -> StatusOr<std::string> {
    char buf[256] = {};
    if (gethostname(buf, sizeof(buf) - 1) != 0) {
      return Unavailable(std::string("gethostname: ") + std::strerror(errno));
    }
    return std::string(buf);
  };
}

StatusOr<std::string> BoxLabel(const Getenv& getenv, const Hostname& hostname) {
  std::string label = TrimSpace(getenv("CARLOS_BOX_LABEL"));
  if (!label.empty()) {
    if (!IsLabel(label)) {
      return InvalidArgument("CARLOS_BOX_LABEL \"" + label +
                             "\" is not a box label: it must be 1-63 of a-z, 0-9 and '-'");
    }
    return label;
  }
  CARLOS_ASSIGN_OR_RETURN(std::string host, hostname());
  std::string first = host.substr(0, host.find('.'));
  for (char& c : first) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (!IsLabel(first)) {
    return InvalidArgument("the host name \"" + host +
                           "\" does not give a box label (1-63 of a-z, 0-9 and '-'): set "
                           "CARLOS_BOX_LABEL");
  }
  return first;
}

}  // namespace carlos
