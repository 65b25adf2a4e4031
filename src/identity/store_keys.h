// Where each protocol document lives in the deployment store (DESIGN.md,
// "The deployment store") and on the box's disk (DESIGN.md, "The guard").
// `box` must be a label (base/strings.h IsLabel); these functions do not
// check it, the documents' Parse/Sign functions do.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace carlos::identity {

// List prefixes, each ending in '/'.
inline constexpr std::string_view kRecordsPrefix = "control/boxes/";
inline constexpr std::string_view kInvitationsPrefix = "control/invitations/";
inline constexpr std::string_view kEnrollmentsPrefix = "control/enrollments/";
inline constexpr std::string_view kRetiredPrefix = "control/retired/";
inline constexpr std::string_view kEdgesPrefix = "control/edges/";
inline constexpr std::string_view kStatusPrefix = "status/boxes/";

// "control/boxes/<box>.json": the box's signed identity record.
std::string RecordKey(std::string_view box);
// "control/invitations/<box>.json".
std::string InvitationKey(std::string_view box);
// "control/enrollments/<box>.json".
std::string EnrollmentKey(std::string_view box);
// "control/retired/<box>.json".
std::string RetiredKey(std::string_view box);
// "control/edges/<box>.json".
std::string EdgesKey(std::string_view box);
// "status/boxes/<box>.json": the status report (the guard-ready report).
std::string StatusKey(std::string_view box);

// The box label of a key listed under `prefix` ("control/boxes/web-1.json"
// under kRecordsPrefix is "web-1"); nullopt when `key` is not
// "<prefix><label>.json" with a valid label (other objects a listing may
// return are skipped by callers).
std::optional<std::string> BoxOfKey(std::string_view prefix, std::string_view key);

// The guard's directory under the data dir: "<data_dir>/hostguard".
std::string GuardDir(const std::string& data_dir);
// "<data_dir>/hostguard/guard.json": the installed guard (guard_files.h).
std::string GuardFilePath(const std::string& data_dir);
// "<data_dir>/hostguard/armed.json": the armed mark (guard_files.h).
std::string ArmedFilePath(const std::string& data_dir);

}  // namespace carlos::identity
