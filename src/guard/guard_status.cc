#include "guard/guard_status.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "identity/store_keys.h"
#include "protocol/settings.h"

namespace carlos::guard {

nlohmann::json GuardStatusJson(const std::string& data_dir, const protocol::LocalGuard& local) {
  nlohmann::json j = nlohmann::json::object();
  j["data_dir"] = data_dir;
  j["guard_dir"] = identity::GuardDir(data_dir);
  j["installed"] = local.installed();
  j["armed"] = local.armed_now();
  if (local.guard.has_value()) {
    const identity::GuardFile& g = local.guard->doc;
    j["guard_digest"] = local.guard->digest;
    j["box"] = g.box;
    j["instance_id"] = g.instance_id;
    j["region"] = g.region;
    j["record_digest"] = g.record_digest;
    j["invitation_digest"] = g.invitation_digest;
    if (g.policy.floor_release.has_value()) j["floor_release"] = *g.policy.floor_release;
    j["installed_at"] = FormatRfc3339(g.installed_at);
  }
  if (local.armed.has_value()) {
    j["armed_for"] = local.armed->doc.guard_digest;
    j["armed_at"] = FormatRfc3339(local.armed->doc.armed_at);
  }
  if (!local.armed_now()) j["why_not_armed"] = local.why_not_armed();
  if (!local.guard_refused.empty()) j["guard_refused"] = local.guard_refused;
  if (!local.armed_refused.empty()) j["armed_refused"] = local.armed_refused;
  struct stat st {};
  if (::stat(protocol::JoinMarkerPath(data_dir).c_str(), &st) == 0) {
    auto t = std::chrono::system_clock::time_point(std::chrono::seconds(st.st_mtim.tv_sec));
    j["join_requested_at"] = FormatRfc3339(t);
  }
  return j;
}

std::string GuardStatusText(const nlohmann::json& facts) {
  static const char* kOrder[] = {"box",
                                 "installed",
                                 "armed",
                                 "why_not_armed",
                                 "guard_digest",
                                 "instance_id",
                                 "region",
                                 "record_digest",
                                 "invitation_digest",
                                 "floor_release",
                                 "installed_at",
                                 "armed_at",
                                 "armed_for",
                                 "guard_refused",
                                 "armed_refused",
                                 "join_requested_at",
                                 "guard_dir",
                                 "data_dir"};
  std::string out;
  for (const char* name : kOrder) {
    if (!facts.contains(name)) continue;
    const auto& v = facts[name];
    std::string text = v.is_boolean() ? (v.get<bool>() ? "yes" : "no") : v.get<std::string>();
    out += fmt::format("{}: {}\n", name, text);
  }
  return out;
}

}  // namespace carlos::guard
