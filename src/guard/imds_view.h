// What `carlos system join` reads from IMDS (DESIGN.md, "The guard": "It
// reads IMDS (instance id, region)"), behind a function so that the join is
// tested without a metadata service.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "imds/client.h"

namespace carlos::guard {

struct ImdsView {
  // CARLOS_IMDS_ENDPOINT=off: the box is not on EC2 by the operator's
  // setting; the fields below are empty and nothing was asked.
  bool off = false;
  std::string endpoint;     // For messages: "http://169.254.169.254".
  std::string instance_id;  // "i-0123456789abcdef0".
  std::string region;       // "eu-west-1".
};

// Reads the view, or why not.
using ReadImds = std::function<StatusOr<ImdsView>()>;

// Reads instance-id and placement/region through `client`; off at once when
// the client is off. Errors: kUnavailable or kDeadlineExceeded when IMDS does
// not answer ("IMDS at <endpoint> did not answer: ..."), and the client's
// errors for a read that fails (IMDS answering 404, 5xx, 401 twice), each
// naming the path. Thread-safety as ImdsClient.
StatusOr<ImdsView> ReadImdsView(imds::ImdsClient& client);

}  // namespace carlos::guard
