// The box's label as the agent computes it (DESIGN.md, "Switches and
// settings"): root's `carlos system join` must look up the same keys in the
// store as the agent that wrote them.
//
//   CARLOS_BOX_REFERENCE=group  the label derived from the group reference
//                               and the instance id (imds/group_reference.h
//                               GroupBoxLabel), read from IMDS;
//   CARLOS_BOX_LABEL            otherwise, when set (trimmed);
//   the host name               otherwise: its first DNS component,
//                               lower-cased ("Web-1.example.com" -> "web-1").
//
// Thread-safety: plain functions; safe from any thread when the injected
// functions are.
#pragma once

#include <functional>
#include <string>

#include "base/env.h"
#include "base/status.h"

namespace carlos::guard {

// Resolves the group-derived label through IMDS (ResolveGroupReference's
// label), or why not.
using GroupLabel = std::function<StatusOr<std::string>()>;
// The host name (gethostname(2) in production).
using HostName = std::function<std::string()>;

// The label, by the rule above. Errors: the group reference's own error
// (annotated "the group reference (CARLOS_BOX_REFERENCE=group)") when it
// cannot be read; kInvalidArgument when the result is not a label
// ([a-z0-9-]{1,63}), naming where it came from and saying to set
// CARLOS_BOX_LABEL.
StatusOr<std::string> BoxLabel(const Getenv& getenv, const GroupLabel& group_label,
                               const HostName& host_name);

// gethostname(2); "" when it fails.
std::string SystemHostName();

}  // namespace carlos::guard
