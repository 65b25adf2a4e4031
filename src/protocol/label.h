// The box's label (DESIGN.md, "Switches and settings"): the name every key of
// the box in the deployment store is under. The agent, root's `carlos system
// join` and guard-exec must all arrive at the same label, so this is the one
// function that makes it:
//
//   CARLOS_BOX_REFERENCE=group  the label derived from the group reference
//                               and the instance id (imds/group_reference.h
//                               GroupBoxLabel), which the caller resolves;
//   CARLOS_BOX_LABEL            otherwise, when set (trimmed): used as it
//                               stands, never rewritten;
//   the host name               otherwise: its first DNS component,
//                               lower-cased ("Web-1.example.com" -> "web-1").
//
// Labels are DNS labels, [a-z0-9-]{1,63} (DESIGN.md).
//
// Thread-safety: plain functions; safe from any thread when the injected
// functions are.
#pragma once

#include <functional>
#include <string>

#include "base/env.h"
#include "base/status.h"

namespace carlos::protocol {

// The group-derived label (imds ResolveGroupReference's label), or why it
// cannot be read. Called only for a group-referenced box.
using GroupLabel = std::function<StatusOr<std::string>()>;
// The host name: gethostname(2) in production (SystemHostName).
using HostName = std::function<StatusOr<std::string>()>;

// True when CARLOS_BOX_REFERENCE is "group" (trimmed): the box was launched
// by its region's group (DESIGN.md, "Switches and settings").
bool GroupReferenced(const Getenv& getenv);

// The label, by the rule above. Errors: the group reference's own error,
// annotated "the group reference (CARLOS_BOX_REFERENCE=group)"; the host
// name's own error, annotated "the host name"; kInvalidArgument when the
// result is not a label, naming the value, where it came from, and saying to
// set CARLOS_BOX_LABEL in /etc/carlos/host.env.
StatusOr<std::string> BoxLabel(const Getenv& getenv, const GroupLabel& group_label,
                               const HostName& host_name);

// gethostname(2). Errors: kUnavailable with the errno's text.
StatusOr<std::string> SystemHostName();

}  // namespace carlos::protocol
