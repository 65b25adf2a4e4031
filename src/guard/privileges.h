// Dropping root before guard-exec starts the agent: the agent runs
// as the service user (`carlos`, CARLOS_SERVICE_USER), never as root.
//
// The packaged carlos-edge.service starts guard-exec as that user already
// (User=carlos with AmbientCapabilities=CAP_NET_BIND_SERVICE for port 80;
// docs/operator.md), so no drop happens there; this is for a unit or an
// operator that starts it as root. Dropping from root clears every
// capability: a command started that way cannot bind a port below 1024.
//
// Thread-safety: changes the whole process's credentials; call it from a
// single-threaded process (guard-exec, right before exec).
#pragma once

#include <string>

#include "base/status.h"

namespace carlos::guard {

// The service user: CARLOS_SERVICE_USER, default "carlos".
inline constexpr std::string_view kDefaultServiceUser = "carlos";

// Sets the process's supplementary groups to `user`'s (initgroups), its
// real, effective and saved gid and uid to `user`'s, and HOME, USER and
// LOGNAME to its; then checks that every id is `user`'s and that neither
// setuid(0) nor setgid(0) succeeds any more. Errors: kNotFound when `user`
// does not exist; kInvalidArgument when it is root (uid 0); kDenied when a
// step fails or root could be regained (the process must then not go on).
Status DropToUser(const std::string& user);

}  // namespace carlos::guard
