// The box label of a box that is not group-referenced (DESIGN.md,
// "Switches and settings": CARLOS_BOX_LABEL, default the host name). A
// group-referenced box's label comes from imds/group_reference.h instead.
#pragma once

#include <functional>
#include <string>

#include "base/env.h"
#include "base/status.h"

namespace carlos {

// Returns the host name (gethostname(2)).
using Hostname = std::function<StatusOr<std::string>()>;

// The system's host name.
Hostname SystemHostname();

// CARLOS_BOX_LABEL when set (it must then be a label as it stands), else
// the host name's first component ("web-1" of "web-1.eu.example.com"),
// lower-cased. Errors: kInvalidArgument when the result is not a DNS label
// ([a-z0-9-]{1,63}), naming the value and saying to set CARLOS_BOX_LABEL;
// the host name's own error.
StatusOr<std::string> BoxLabel(const Getenv& getenv, const Hostname& hostname);

}  // namespace carlos
