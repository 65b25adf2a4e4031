#include "protocol/label.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "base/strings.h"

namespace carlos::protocol {

bool GroupReferenced(const Getenv& getenv) {
  return TrimSpace(getenv("CARLOS_BOX_REFERENCE")) == "group";
}

StatusOr<std::string> BoxLabel(const Getenv& getenv, const GroupLabel& group_label,
                               const HostName& host_name) {
  if (GroupReferenced(getenv)) {
    StatusOr<std::string> label = group_label();
    if (!label.ok()) {
      return label.status().Annotate("the group reference (CARLOS_BOX_REFERENCE=group)");
    }
    if (!IsLabel(*label)) {
      return InvalidArgument(fmt::format(
          "the group-derived label {:?} is not a box label ([a-z0-9-]{{1,63}})", *label));
    }
    return *label;
  }
  std::string label = TrimSpace(getenv("CARLOS_BOX_LABEL"));
  if (!label.empty()) {
    if (!IsLabel(label)) {
      return InvalidArgument(
          fmt::format("CARLOS_BOX_LABEL {:?} is not a box label: it must be 1-63 of a-z, 0-9 and "
                      "'-'; fix it in /etc/carlos/host.env",
                      label));
    }
    return label;
  }
  StatusOr<std::string> host = host_name();
  if (!host.ok()) {
    return host.status().Annotate("the host name (the box label when CARLOS_BOX_LABEL is not set)");
  }
  std::string trimmed = TrimSpace(*host);
  std::string first = trimmed.substr(0, trimmed.find('.'));
  for (char& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!IsLabel(first)) {
    return InvalidArgument(
        fmt::format("the host name {:?} does not give a box label (1-63 of a-z, 0-9 and '-'): set "
                    "CARLOS_BOX_LABEL in /etc/carlos/host.env",
                    trimmed));
  }
  return first;
}

StatusOr<std::string> SystemHostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) {
    return Unavailable(fmt::format("gethostname: {}", std::strerror(errno)));
  }
  return std::string(buf);
}

}  // namespace carlos::protocol
