#include "imds/group_reference.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"

namespace carlos::imds {

namespace {

// Lower-cases, turns each run of characters outside [a-z0-9] into one '-',
// and trims '-' from both ends.
std::string Sanitize(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    char l = static_cast<char>(std::tolower(c));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      out += l;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string TrimDashes(std::string s) {
  while (!s.empty() && s.back() == '-') s.pop_back();
  size_t b = s.find_first_not_of('-');
  return b == std::string::npos ? std::string() : s.substr(b);
}

}  // namespace

std::string GroupBoxLabel(std::string_view group, std::string_view instance_id) {
  constexpr size_t kMax = 63;
  std::string_view id = instance_id;
  if (id.size() >= 2 && (id.substr(0, 2) == "i-" || id.substr(0, 2) == "I-")) id.remove_prefix(2);
  std::string suffix = TrimDashes(Sanitize(id).substr(0, 40));
  std::string g = Sanitize(group);
  if (suffix.empty()) {
    g = TrimDashes(g.substr(0, kMax));
    return g.empty() ? "box" : g;
  }
  size_t room = kMax - 1 - suffix.size();
  g = TrimDashes(g.substr(0, room));
  if (g.empty()) g = "box";
  return g + "-" + suffix;
}

StatusOr<GroupReference> ResolveGroupReference(ImdsClient& client) {
  CARLOS_ASSIGN_OR_RETURN(auto keys, client.TagKeys());
  GroupReference ref;
  for (std::string_view want : {kGroupTag, kAutoscalingGroupTag}) {
    if (std::find(keys.begin(), keys.end(), want) != keys.end()) {
      ref.tag = std::string(want);
      break;
    }
  }
  if (ref.tag.empty()) {
    std::string have;
    for (const auto& k : keys) have += (have.empty() ? "" : ", ") + k;
    return NotFound("the instance has neither tag " + std::string(kGroupTag) + " nor " +
                    std::string(kAutoscalingGroupTag) +
                    " (its tags in metadata: " + (have.empty() ? "none" : have) +
                    "); launch it from its region's group, or tag it " + std::string(kGroupTag));
  }
  CARLOS_ASSIGN_OR_RETURN(std::string value, client.Tag(ref.tag));
  ref.group = TrimSpace(value);
  if (ref.group.empty()) {
    return InvalidArgument("the instance's tag " + ref.tag + " is set but blank");
  }
  CARLOS_ASSIGN_OR_RETURN(ref.instance_id, client.InstanceId());
  ref.label = GroupBoxLabel(ref.group, ref.instance_id);
  return ref;
}

}  // namespace carlos::imds
