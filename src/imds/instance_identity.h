// The box's instance identity as the identity record embeds it (DESIGN.md,
// "Identity": "on EC2, embeds the IMDS instance identity document with
// AWS's signature so the enroller can check it"), or the reason the box is
// unattested when it is not on EC2.
#pragma once

#include <string>

#include "base/status.h"
#include "imds/client.h"

namespace carlos::imds {

// Why a box has no instance identity document.
enum class Unattested {
  kNo = 0,            // Attested: the document and signature are here.
  kOffBySetting,      // CARLOS_IMDS_ENDPOINT=off: not on EC2 by the operator's setting.
  kImdsNotAnswering,  // IMDS did not answer (timeout or refused): not on EC2.
};

struct InstanceIdentity {
  Unattested unattested = Unattested::kNo;
  // For an unattested box, one sentence saying which case and why, for the
  // identity record and the log: "not on EC2: CARLOS_IMDS_ENDPOINT=off" or
  // "not on EC2: IMDS at http://169.254.169.254 did not answer ...".
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

// Reads the document and its signature, or finds out the box is not on
// EC2. Off by setting: unattested at once, nothing sent. IMDS not
// answering (ImdsClient::Reachable fails: a timeout within the client's
// short timeouts, or a refused connection): unattested, saying so. IMDS
// answering but failing (404, 5xx, 401 twice, a document that
// identity::ParseInstanceIdentityDocument refuses: kCorrupt) is an error, never
// "unattested": a box on EC2 must not be recorded as unattested because
// IMDS hiccupped; the caller retries. Thread-safe as ImdsClient.
StatusOr<InstanceIdentity> ReadInstanceIdentity(ImdsClient& client);

}  // namespace carlos::imds
