#include "imds/instance_identity.h"

#include <nlohmann/json.hpp>

namespace carlos::imds {

StatusOr<InstanceIdentity> ReadInstanceIdentity(ImdsClient& client) {
  InstanceIdentity id;
  if (client.off()) {
    id.unattested = Unattested::kOffBySetting;
    id.unattested_reason =
        "not on EC2: CARLOS_IMDS_ENDPOINT=off, so this box has no instance identity document";
    return id;
  }
  Status reach = client.Reachable();
  if (!reach.ok()) {
    if (reach.code() != Code::kDeadlineExceeded && reach.code() != Code::kUnavailable) {
      return reach;
    }
    id.unattested = Unattested::kImdsNotAnswering;
    id.unattested_reason = "not on EC2: " + reach.message();
    return id;
  }
  CARLOS_ASSIGN_OR_RETURN(id.document, client.IdentityDocument());
  CARLOS_ASSIGN_OR_RETURN(id.rsa2048, client.IdentityRsa2048());
  auto j = nlohmann::json::parse(id.document, nullptr, /*allow_exceptions=*/false);
  auto field = [&](const char* k) -> std::string {
    if (!j.is_object()) return "";
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (!j.is_object()) return Corrupt("the instance identity document from IMDS is not JSON");
  id.instance_id = field("instanceId");
  id.region = field("region");
  if (id.instance_id.empty()) {
    return Corrupt("the instance identity document from IMDS has no instanceId");
  }
  if (id.region.empty()) return Corrupt("the instance identity document from IMDS has no region");
  if (id.rsa2048.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Corrupt("IMDS answered an empty rsa2048 signature");
  }
  return id;
}

}  // namespace carlos::imds
