// An IMDS emulator for development and tests (`carlos dev imds`): the
// instance metadata paths the agent and AWS's own clients read, for one or
// more emulated boxes on one machine. Box i listens on its own port (one
// HttpServer each), so N agents on one machine, each given its own
// CARLOS_IMDS_ENDPOINT, each see their own identity.
//
// It behaves as IMDS does with IMDSv2 required (AWS EC2 User Guide, "Use
// IMDSv2"): `PUT /latest/api/token` needs X-aws-ec2-metadata-token-ttl-
// seconds from 1 to 21600 (else 400), is refused with X-Forwarded-For
// (403), and returns a token that every other request must carry as
// X-aws-ec2-metadata-token until its TTL passes (else 401). The identity
// document is signed as AWS signs it (PKCS #7 signed-data, content
// embedded, base64) but with a local self-signed certificate, which the
// enroller is then given as "the AWS certificate".
//
// Faults to order, per box: the first N requests answer 500, the next M
// hang (answer only after a delay), chosen paths answer 404, and instance
// tags can be disabled in metadata (the tags paths answer 404, as on an
// instance whose metadata options do not include tags).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace carlos::dev {

// One emulated box (EC2 instance).
struct EmulatedBox {
  std::string instance_id = "i-0de000000000000000";
  std::string region = "us-east-1";
  std::string availability_zone = "us-east-1a";
  std::string account_id = "123456789012";
  std::string image_id = "ami-0123456789abcdef0";
  std::string instance_type = "t3.micro";
  std::string private_ip = "10.0.0.10";
  std::string architecture = "x86_64";
  // Instance tags, served when tags_enabled (e.g. {"carlos:group": "web"}).
  std::map<std::string, std::string> tags;
  bool tags_enabled = true;
  // The instance role; empty: no role (the credentials paths answer 404).
  std::string role = "carlos-box";
  std::string access_key_id = "AKIAEMULATEDIMDS0001";
  std::string secret_access_key = "emulated/secret/access/key/000000000000";
  std::string session_token = "emulated-session-token";
  // Served credentials expire this long after they are served.
  Seconds credentials_lifetime{6 * 3600};
  // Faults: the first fail_first requests (any path, the token's included;
  // counted from the start, or from the last ImdsEmulator::Update) answer
  // 500; the next hang_first answer only after hang_delay.
  int fail_first = 0;
  int hang_first = 0;
  Milliseconds hang_delay{10'000};
  // Paths (exact, e.g. "/latest/meta-data/instance-id") answering 404.
  std::set<std::string> not_found;
  // Accept requests without a token (IMDSv1 "optional"); off: v2 required.
  bool allow_imdsv1 = false;
};

struct ImdsEmulatorOptions {
  // Listen host (loopback unless you mean otherwise) and the first port:
  // box i listens on base_port + i; base_port 0 gives each box any free
  // port (see ImdsEmulator::port).
  std::string host = "127.0.0.1";
  int base_port = 0;
  std::vector<EmulatedBox> boxes;
  // The signer's certificate and RSA private key, PEM: the document's
  // rsa2048 signature is made with them.
  std::string cert_pem;
  std::string key_pem;
  // Token expiry and the documents' times come from it; must outlive the
  // emulator.
  Clock* clock = nullptr;
};

class ImdsEmulator {
 public:
  // Signs every box's identity document and starts one listener per box.
  // Errors: kInvalidArgument for no boxes, no clock, or a certificate/key
  // that does not parse or match; the listener's error (address in use,
  // permission) naming the box.
  static StatusOr<std::unique_ptr<ImdsEmulator>> Start(ImdsEmulatorOptions options);
  ~ImdsEmulator();

  size_t boxes() const;
  // Box i's port and endpoint ("http://127.0.0.1:<port>"), for
  // CARLOS_IMDS_ENDPOINT.
  int port(size_t box) const;
  std::string endpoint(size_t box) const;
  // Box i's identity document, as served.
  std::string document(size_t box) const;
  // Requests box i has received (including refused ones).
  int requests(size_t box) const;

  // Changes box i while serving (a test flips tags, faults, a tag value).
  // `change` runs under the box's lock; the document is not re-signed;
  // the fault counts start again from the next request.
  void Update(size_t box, const std::function<void(EmulatedBox&)>& change);

  // Stops every listener. Idempotent.
  void Shutdown();

 private:
  struct Box;
  ImdsEmulator() = default;
  std::vector<std::unique_ptr<Box>> boxes_;
  std::string host_;
};

// The identity document as AWS formats it (pretty JSON, " : "), for
// `box` launched at `pending`.
std::string InstanceIdentityDocumentJson(const EmulatedBox& box, SystemTime pending);

}  // namespace carlos::dev
