// The private status report every box publishes, status/boxes/<box>.json
// (DESIGN.md, "The deployment store"; the seed's status.CollectBox and
// status.WriteBox). With the guard's facts (the seed's claimReport) it is
// the guard-ready report the enroller enrolls on. Signed with the box key,
// written unconditionally: the latest report wins.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/env.h"
#include "base/status.h"
#include "identity/keys.h"
#include "identity/status_report.h"
#include "store/store.h"

namespace carlos::status {

// The box's facts every report carries (the seed's status.Probes).
struct Probes {
  std::string box;             // The box label (the group label when group-referenced).
  std::string region;          // CARLOS_REGION (or the instance's region).
  std::string machine_id;      // /etc/machine-id.
  std::string instance_id;     // The IMDS instance id, "" when unattested.
  std::string release;         // protocol/version.h Release().
  std::string platform;        // protocol/version.h Platform().
  std::string system_channel;  // CARLOS_SYSTEM_CHANNEL, "" when unset.
};

// The report of `probes` at `now`: hosting or not, the stage ("hosting",
// "guard-ready", "guard-installed", ...), and the guard's facts when given
// (a guard-ready report). Pure.
identity::StatusReport BuildReport(const Probes& probes, SystemTime now, bool hosting,
                                   std::string_view stage,
                                   std::optional<identity::GuardFacts> guard);

// Signs `report` with `box_key` and writes it to status/boxes/<box>.json,
// replacing any earlier one. Errors: kInvalidArgument when a field breaks
// the document's limits (the identity library says which); the store's
// errors, annotated "publish status/boxes/<box>.json".
Status PublishReport(Store& store, const identity::PrivateKey& box_key,
                     const identity::StatusReport& report);

// The machine id: the first line of `path` (/etc/machine-id), trimmed.
// Errors: kNotFound / kDenied / kUnavailable as the file's read; kCorrupt
// when it is empty or longer than 128 bytes.
StatusOr<std::string> ReadMachineId(const std::string& path);

// The default machine id path, /etc/machine-id, or CARLOS_MACHINE_ID_FILE
// when set (tests and the local region run several boxes on one machine).
std::string MachineIdPath(const Getenv& getenv);

}  // namespace carlos::status
