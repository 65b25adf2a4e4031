#include "identity/store_keys.h"

#include "base/strings.h"

namespace carlos::identity {

namespace {

constexpr std::string_view kJson = ".json";

std::string Join(std::string_view prefix, std::string_view box) {
  std::string out(prefix);
  out += box;
  out += kJson;
  return out;
}

}  // namespace

std::string RecordKey(std::string_view box) { return Join(kRecordsPrefix, box); }
std::string InvitationKey(std::string_view box) { return Join(kInvitationsPrefix, box); }
std::string EnrollmentKey(std::string_view box) { return Join(kEnrollmentsPrefix, box); }
std::string RetiredKey(std::string_view box) { return Join(kRetiredPrefix, box); }
std::string EdgesKey(std::string_view box) { return Join(kEdgesPrefix, box); }
std::string StatusKey(std::string_view box) { return Join(kStatusPrefix, box); }

std::optional<std::string> BoxOfKey(std::string_view prefix, std::string_view key) {
  if (key.size() <= prefix.size() + kJson.size()) return std::nullopt;
  if (key.substr(0, prefix.size()) != prefix) return std::nullopt;
  if (key.substr(key.size() - kJson.size()) != kJson) return std::nullopt;
  std::string_view box = key.substr(prefix.size(), key.size() - prefix.size() - kJson.size());
  if (!IsLabel(box)) return std::nullopt;
  return std::string(box);
}

std::string GuardDir(const std::string& data_dir) { return data_dir + "/hostguard"; }
std::string GuardFilePath(const std::string& data_dir) {
  return GuardDir(data_dir) + "/guard.json";
}
std::string ArmedFilePath(const std::string& data_dir) {
  return GuardDir(data_dir) + "/armed.json";
}

}  // namespace carlos::identity
