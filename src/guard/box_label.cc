#include "guard/box_label.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>

#include "base/strings.h"
#include "host/entry.h"

namespace carlos::guard {

StatusOr<std::string> BoxLabel(const Getenv& getenv, const GroupLabel& group_label,
                               const HostName& host_name) {
  if (host::GroupReferenced(getenv)) {
    auto label = group_label();
    if (!label.ok()) {
      return label.status().Annotate("the group reference (CARLOS_BOX_REFERENCE=group)");
    }
    if (!IsLabel(*label)) {
      return InvalidArgument(
          fmt::format("the group-derived label {:?} is not a box label", *label));
    }
    return *label;
  }
  std::string label = EnvOr(getenv, "CARLOS_BOX_LABEL", "");
  if (!label.empty()) {
    if (!IsLabel(label)) {
      return InvalidArgument(
          fmt::format("CARLOS_BOX_LABEL={:?} is not a box label ([a-z0-9-]{{1,63}}); fix it in "
                      "/etc/carlos/host.env",
                      label));
    }
    return label;
  }
  std::string host = TrimSpace(host_name());
  std::string first = host.substr(0, host.find('.'));
  for (char& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!IsLabel(first)) {
    return InvalidArgument(fmt::format(
        "the host name {:?} does not give a box label ([a-z0-9-]{{1,63}}); set CARLOS_BOX_LABEL "
        "in /etc/carlos/host.env",
        host));
  }
  return first;
}

std::string SystemHostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace carlos::guard
