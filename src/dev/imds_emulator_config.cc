#include "dev/imds_emulator_config.h"

#include <nlohmann/json.hpp>

namespace carlos::dev {

StatusOr<std::vector<EmulatedBox>> ParseEmulatorConfig(
    std::string_view json, const std::function<EmulatedBox(size_t)>& defaults) {
  auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("IMDS emulator config: not valid JSON");
  if (!j.is_object() || !j.contains("boxes") || !j["boxes"].is_array() || j["boxes"].empty()) {
    return InvalidArgument("IMDS emulator config: want an object with a non-empty \"boxes\" array");
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "boxes") {
      return InvalidArgument("IMDS emulator config: unknown field \"" + it.key() + "\"");
    }
  }
  std::vector<EmulatedBox> out;
  const auto& arr = j["boxes"];
  for (size_t i = 0; i < arr.size(); i++) {
    const auto& o = arr[i];
    std::string where = "IMDS emulator config: boxes[" + std::to_string(i) + "]";
    if (!o.is_object()) return InvalidArgument(where + " is not an object");
    EmulatedBox b = defaults(i);
    for (auto it = o.begin(); it != o.end(); ++it) {
      const std::string& k = it.key();
      const auto& v = it.value();
      auto bad = [&](const char* want) {
        return InvalidArgument(where + "." + k + " must be " + want);
      };
      auto str = [&](std::string* dst) -> Status {
        if (!v.is_string()) return bad("a string");
        *dst = v.get<std::string>();
        return OkStatus();
      };
      auto count = [&](int* dst) -> Status {
        if (!v.is_number_integer() || v.get<long long>() < 0 ||
            v.get<long long>() > 1'000'000'000) {
          return bad("a non-negative integer");
        }
        *dst = v.get<int>();
        return OkStatus();
      };
      auto flag = [&](bool* dst) -> Status {
        if (!v.is_boolean()) return bad("true or false");
        *dst = v.get<bool>();
        return OkStatus();
      };
      Status st;
      if (k == "instance_id")
        st = str(&b.instance_id);
      else if (k == "region")
        st = str(&b.region);
      else if (k == "availability_zone")
        st = str(&b.availability_zone);
      else if (k == "account_id")
        st = str(&b.account_id);
      else if (k == "image_id")
        st = str(&b.image_id);
      else if (k == "instance_type")
        st = str(&b.instance_type);
      else if (k == "private_ip")
        st = str(&b.private_ip);
      else if (k == "architecture")
        st = str(&b.architecture);
      else if (k == "role")
        st = str(&b.role);
      else if (k == "access_key_id")
        st = str(&b.access_key_id);
      else if (k == "secret_access_key")
        st = str(&b.secret_access_key);
      else if (k == "session_token")
        st = str(&b.session_token);
      else if (k == "tags_enabled")
        st = flag(&b.tags_enabled);
      else if (k == "allow_imdsv1")
        st = flag(&b.allow_imdsv1);
      else if (k == "fail_first")
        st = count(&b.fail_first);
      else if (k == "hang_first")
        st = count(&b.hang_first);
      else if (k == "hang_delay_ms" || k == "credentials_lifetime_seconds") {
        int n = 0;
        st = count(&n);
        if (k == "hang_delay_ms")
          b.hang_delay = Milliseconds(n);
        else
          b.credentials_lifetime = Seconds(n);
      } else if (k == "tags") {
        if (!v.is_object()) return bad("an object of strings");
        b.tags.clear();
        for (auto t = v.begin(); t != v.end(); ++t) {
          if (!t.value().is_string()) return bad("an object of strings");
          b.tags[t.key()] = t.value().get<std::string>();
        }
      } else if (k == "not_found") {
        if (!v.is_array()) return bad("an array of paths");
        b.not_found.clear();
        for (const auto& p : v) {
          if (!p.is_string()) return bad("an array of paths");
          b.not_found.insert(p.get<std::string>());
        }
      } else {
        return InvalidArgument(where + ": unknown field \"" + k + "\"");
      }
      CARLOS_RETURN_IF_ERROR(st);
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace carlos::dev
