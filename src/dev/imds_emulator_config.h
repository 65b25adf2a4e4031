// The IMDS emulator's --config file: per-box settings as JSON, so that N
// agents on one machine can each be given a different identity, tags,
// credentials and faults.
//
//   {"boxes": [
//     {"instance_id": "i-0abc", "region": "eu-west-1",
//      "availability_zone": "eu-west-1a", "account_id": "123456789012",
//      "image_id": "ami-1", "instance_type": "t3.micro",
//      "private_ip": "10.0.0.5", "architecture": "x86_64",
//      "tags": {"carlos:group": "web"}, "tags_enabled": true,
//      "role": "carlos-box", "access_key_id": "AKIA...",
//      "secret_access_key": "...", "session_token": "...",
//      "credentials_lifetime_seconds": 21600,
//      "fail_first": 0, "hang_first": 0, "hang_delay_ms": 10000,
//      "not_found": ["/latest/meta-data/instance-id"],
//      "allow_imdsv1": false},
//     ...]}
//
// Every field is optional; a missing one keeps the default the command's
// flags give box i. Unknown fields are refused (a typo must not be
// silently ignored).
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "dev/imds_emulator.h"

namespace carlos::dev {

// Parses `json` (the file's text). `defaults(i)` gives box i's settings
// before the file's fields apply. Errors: kInvalidArgument naming the box
// index and field for malformed JSON, a missing or empty "boxes" array, an
// unknown field, a field of the wrong type, or a negative count.
StatusOr<std::vector<EmulatedBox>> ParseEmulatorConfig(
    std::string_view json, const std::function<EmulatedBox(size_t)>& defaults);

}  // namespace carlos::dev
