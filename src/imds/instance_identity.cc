#include "imds/instance_identity.h"

#include "identity/iid.h"

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
  // identity's parser: the same rules the enroller applies to the record.
  auto doc = identity::ParseInstanceIdentityDocument(id.document);
  if (!doc.ok()) return doc.status().Annotate("the instance identity document from IMDS");
  id.instance_id = doc->instance_id;
  id.region = doc->region;
  if (id.rsa2048.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Corrupt("IMDS answered an empty rsa2048 signature");
  }
  return id;
}

}  // namespace carlos::imds
