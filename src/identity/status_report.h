// The status report, status/boxes/<box>.json (DESIGN.md, "The deployment
// store"; docs/protocol.md, "Status report"). Written by the agent
// (unconditionally: the latest report wins) every 30 s while hosting and at
// most once per joinNudgeEvery while joining; signed with the box's own key.
// With the guard's facts it is the **guard-ready report** the enroller
// enrolls on.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "identity/document.h"
#include "identity/keys.h"

namespace carlos::identity {

inline constexpr std::string_view kStatusReportFormat = "carlos.status-report/v1";

// The guard's facts as the box reads them from its hostguard/ files.
struct GuardFacts {
  bool installed = false;                        // guard.json is present and valid.
  bool armed = false;                            // armed.json names guard.json's digest.
  std::optional<std::string> guard_digest;       // guard.json's digest, when installed.
  std::optional<std::string> record_digest;      // The record digest the guard binds.
  std::optional<std::string> invitation_digest;  // The invitation digest the guard binds.
  std::optional<std::string> why_not_armed;      // When not armed: why (1-1024 bytes).
};

struct StatusReport {
  std::string box;             // Label.
  std::string region;          // Label.
  std::string machine_id;      // 1-128 bytes.
  std::string instance_id;     // 0-128 bytes.
  std::string release;         // 1-128 bytes.
  std::string platform;        // 1-128 bytes.
  std::string system_channel;  // CARLOS_SYSTEM_CHANNEL; 0-128 bytes.
  SystemTime reported_at;
  bool hosting = false;             // The box hosts (the claim agent).
  std::string stage;                // Label: "hosting" or a joining stage ("guard-ready", ...).
  std::optional<GuardFacts> guard;  // Present: this is a guard-ready report.
};

// Signs `report` with the box key; returns the bytes to store. Errors:
// kInvalidArgument when a field breaks its limits (a guard digest that is not
// "sha256:<hex>" included); kInternal when OpenSSL fails.
StatusOr<std::string> SignStatusReport(const StatusReport& report, const PrivateKey& box_key);

// Parses stored bytes. Errors (Refuse): kOversized, kMalformed, kNotCanonical,
// kUnknownFormat. Does not verify the signature.
StatusOr<Parsed<StatusReport>> ParseStatusReport(std::string_view bytes);

// Verifies a report stored under `box`'s key against that box's key (from its
// verified identity record). Errors (Refuse): kWrongKey, kBadSignature;
// kMismatch when it names another box.
Status VerifyStatusReport(const Parsed<StatusReport>& report, const PublicKey& box_key,
                          std::string_view box);

}  // namespace carlos::identity
