// The box's instance identity as the identity record embeds it (DESIGN.md,
// "Identity": "on EC2, embeds the IMDS instance identity document with
// AWS's signature so the enroller can check it"), or the reason the box is
// unattested when it is not on EC2.
#pragma once

#include <string>

#include "base/status.h"
#include "imds/client.h"

namespace carlos::imds {

// Why a box has no instance identity document. Both are facts for good: an
// IMDS that is slow, refuses connections or fails is never one of them.
enum class Unattested {
  kNo = 0,        // Attested: the document and signature are here.
  kOffBySetting,  // CARLOS_IMDS_ENDPOINT=off: not on EC2 by the operator's setting.
  kNotOnEc2,      // The machine's own marks say it is not on EC2
                  // (imds/ec2_platform.h), and IMDS did not answer.
};

struct InstanceIdentity {
  Unattested unattested = Unattested::kNo;
  // For an unattested box, one sentence saying which case and why, for the
  // identity record and the log: "not on EC2: CARLOS_IMDS_ENDPOINT=off ..."
  // or "not on EC2: DMI sys_vendor is \"QEMU\" and no EC2 mark is present
  // (...); IMDS at ... did not answer ...".
  std::string unattested_reason;
  // For an attested box: the document verbatim, its rsa2048 signature as
  // IMDS serves it (base64 PKCS #7), and the document's instanceId and
  // region.
  std::string document;
  std::string rsa2048;
  std::string instance_id;
  std::string region;

  bool attested() const { return unattested == Unattested::kNo; }
};

// Reads the document and its signature, or finds out for certain that the
// box is not on EC2:
//   - off by setting: unattested (kOffBySetting) at once, nothing sent;
//   - the machine's marks say not EC2 (DetectEc2Platform on
//     client.options().sysfs_root gives kNotEc2): with AWS's own endpoint
//     nothing is sent and the box is unattested (kNotOnEc2) at once; with
//     another endpoint (an emulator the operator named) IMDS is asked, as
//     below;
//   - otherwise (on EC2, cannot tell, or a named endpoint) IMDS not
//     answering (a timeout, a refused connection) is an error, kUnavailable
//     or kDeadlineExceeded,
//     whose message names the endpoint, the cause and what the marks said;
//     the caller retries with backoff and records nothing.
// IMDS answering but failing (404, 5xx, 401 twice, a document that
// identity::ParseInstanceIdentityDocument refuses: kCorrupt) is an error,
// never "unattested". Nothing is cached here: each call asks again.
// Thread-safe as ImdsClient.
StatusOr<InstanceIdentity> ReadInstanceIdentity(ImdsClient& client);

}  // namespace carlos::imds
