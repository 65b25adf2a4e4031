// `carlos system guard-status [--json]`: the guard's facts on this box, as
// root (and guard-exec) read them (protocol/local_guard.h), for an operator.
// Reads only the box's own disk, never the store.
//
// Thread-safety: plain functions over values.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "protocol/local_guard.h"

namespace carlos::guard {

// The facts as a JSON object:
//   {"data_dir", "guard_dir", "installed": bool, "armed": bool,
//    "guard_digest"?, "box"?, "instance_id"?, "region"?, "record_digest"?,
//    "invitation_digest"?, "floor_release"?, "installed_at"?, "armed_at"?,
//    "armed_for"? (the digest armed.json names), "why_not_armed"?,
//    "guard_refused"?, "armed_refused"?, "join_requested_at"? (the marker's
//    modification time)}
// Absent facts are left out. Times are RFC 3339 UTC.
nlohmann::json GuardStatusJson(const std::string& data_dir, const protocol::LocalGuard& local);

// The same facts, one "name: value" per line, for a person.
std::string GuardStatusText(const nlohmann::json& facts);

}  // namespace carlos::guard
