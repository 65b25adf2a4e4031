// The group reference of a box its region's group launched
// (CARLOS_BOX_REFERENCE=group, DESIGN.md): the group named by the
// instance's tags, and the box label derived from it and the instance id
// (DESIGN.md: "its label derives from that reference and its instance
// id"). The rule is written down in docs/imds.md.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "imds/client.h"

namespace carlos::imds {

// The tag an operator sets to name the group explicitly; it wins.
inline constexpr std::string_view kGroupTag = "carlos:group";
// The tag EC2 Auto Scaling puts on the instances it launches.
inline constexpr std::string_view kAutoscalingGroupTag = "aws:autoscaling:groupName";

struct GroupReference {
  std::string group;        // The tag's value, trimmed: "web-eu".
  std::string tag;          // Which tag named it: kGroupTag or kAutoscalingGroupTag.
  std::string instance_id;  // "i-0123456789abcdef0".
  std::string label;        // GroupBoxLabel(group, instance_id).
};

// The box label for `group` and `instance_id`: deterministic, always a DNS
// label [a-z0-9-]{1,63} not starting or ending with '-'. The group is
// lower-cased, every run of characters outside [a-z0-9] becomes one '-',
// '-' is trimmed from both ends; the suffix is the instance id without its
// "i-" prefix, treated the same way (at most 40 characters). The label is
// "<group>-<suffix>", the group part cut (and re-trimmed) so the whole fits
// in 63; "box-<suffix>" when nothing of the group remains, "<group>" (cut
// to 63) when the suffix is empty, "box" when both are.
// Example: ("Web EU/Prod", "i-0abc123") -> "web-eu-prod-0abc123".
std::string GroupBoxLabel(std::string_view group, std::string_view instance_id);

// Resolves the group reference through IMDS: the tag carlos:group, else
// aws:autoscaling:groupName, and the instance id. Each failure has its own
// cause: kPreconditionFailed when instance tags are not enabled in the
// instance's metadata options (saying how to enable them); kNotFound when
// neither tag is set (naming both and the tags present); kInvalidArgument
// when the tag is set but blank; and the client's errors for a timeout
// (kDeadlineExceeded), 404 (kNotFound), 5xx or off (kUnavailable), 401
// twice (kDenied). Thread-safe as ImdsClient.
StatusOr<GroupReference> ResolveGroupReference(ImdsClient& client);

}  // namespace carlos::imds
