#include "imds/instance_identity.h"

#include <fmt/format.h>

#include "identity/iid.h"
#include "imds/ec2_platform.h"

namespace carlos::imds {

StatusOr<InstanceIdentity> ReadInstanceIdentity(ImdsClient& client) {
  InstanceIdentity id;
  if (client.off()) {
    id.unattested = Unattested::kOffBySetting;
    id.unattested_reason =
        "not on EC2: CARLOS_IMDS_ENDPOINT=off, so this box has no instance identity document";
    return id;
  }
  const Ec2PlatformFacts platform = DetectEc2Platform(client.options().sysfs_root);
  const bool not_ec2 = platform.platform == Ec2Platform::kNotEc2;
  if (not_ec2 && client.options().endpoint == kDefaultEndpoint) {
    id.unattested = Unattested::kNotOnEc2;
    id.unattested_reason = fmt::format("not on EC2: {}, so there is no IMDS at {}",
                                       platform.evidence, client.options().endpoint);
    return id;
  }
  Status reach = client.Reachable();
  if (!reach.ok()) {
    if (reach.code() != Code::kDeadlineExceeded && reach.code() != Code::kUnavailable) {
      return reach;
    }
    // On EC2, cannot tell, or an endpoint the operator named (an emulator
    // that may start in a moment): IMDS may answer in a moment (an instance
    // still booting, a hop limit being fixed). Never a fact for good.
    return Status(reach.code(),
                  fmt::format("{}; {} ({}), so it is not recorded as unattested: asking again",
                              reach.message(),
                              platform.platform == Ec2Platform::kEc2 ? "this box is on EC2"
                              : not_ec2 ? "CARLOS_IMDS_ENDPOINT names an IMDS for this box"
                                        : "whether this box is on EC2 cannot be told",
                              platform.evidence));
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
