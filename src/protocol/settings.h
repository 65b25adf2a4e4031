// The protocol's settings that more than one actor reads (DESIGN.md,
// "Switches and settings"), each decided here once: whether the box joins at
// all (the two switches), the deployment's enrollment public key, and the
// join marker root watches. The box label is protocol/label.h's; the
// timings are protocol/timings.h's.
//
// Thread-safety: plain functions; safe from any thread when `getenv` is.
#pragma once

#include <string>
#include <string_view>

#include "base/env.h"
#include "base/status.h"
#include "identity/keys.h"

namespace carlos::protocol {

// The environment variable that holds the deployment's enrollment public
// key on boxes ("ed25519:<base64>", what `carlos boxes keygen` prints).
inline constexpr std::string_view kEnrollmentPubkeyVar = "CARLOS_ENROLLMENT_PUBKEY";

// The file carlos-system-join.path watches, under the data dir (the seed's
// joinRequestMarker): each arm request writes a new RFC 3339 (nano)
// timestamp and a newline to it, mode 0644.
inline constexpr std::string_view kJoinRequestMarker = "system-join-requested";

// True when the box has a joining mode at all: CARLOS_HOST_CLAIM and
// CARLOS_REGION_HA are both on (base/env.h SwitchOn: not blank, whatever the
// value). With either off the agent hosts as before region HA (the seed's
// decideAgentMode).
bool RegionHAJoining(const Getenv& getenv);

// True when the box applies region HA's rules (the gate's mode selection,
// hosting only while it may): RegionHAJoining, or `guard_armed` (its local
// guard is armed, protocol/local_guard.h). An armed guard stays enforced
// whatever the switches say: a box admitted under region HA cannot leave its
// guard by blanking a switch (DESIGN.md, "The guard"; guard-exec enforces it
// too, guard/exec_check.h).
bool RegionHAApplies(const Getenv& getenv, bool guard_armed);

// The warning the agent logs at every start when region-HA settings are
// present (CARLOS_ENROLLMENT_PUBKEY, or one of the two switches) and a switch
// is off, naming the blank switch(es) and what happens ("the agent hosts as
// before region HA: set both in /etc/carlos/host.env"); "" otherwise.
std::string SwitchesOffWarning(const Getenv& getenv);

// CARLOS_ENROLLMENT_PUBKEY, parsed (identity::PublicKey::Parse). Errors:
// kInvalidArgument when it is not set ("... is not set; set it in
// /etc/carlos/host.env to the deployment's enrollment public key
// (ed25519:...), as carlos boxes keygen printed it") or cannot be parsed
// (the parser's reason, the same advice).
StatusOr<identity::PublicKey> EnrollmentPublicKeyFromEnv(const Getenv& getenv);

// <data_dir>/system-join-requested.
std::string JoinMarkerPath(const std::string& data_dir);

}  // namespace carlos::protocol
