// An IMDSv2 client: the EC2 instance metadata service at
// http://169.254.169.254 (AWS EC2 User Guide, "Use the Instance Metadata
// Service to access instance metadata" and "Use IMDSv2").
//
// Every read carries a session token, got by `PUT /latest/api/token` with
// the header X-aws-ec2-metadata-token-ttl-seconds and sent as
// X-aws-ec2-metadata-token. The token is cached, renewed before it expires
// (by the injected clock), and fetched again once after a 401 (IMDS
// restarted, or the token was revoked). There is no IMDSv1 fallback (reads
// without a token) unless Options::allow_imdsv1 says so: IMDSv1 is what
// SSRF attacks use, and AWS recommends requiring v2.
//
// The endpoint comes from CARLOS_IMDS_ENDPOINT (DESIGN.md); its value "off"
// says the box is not on EC2, and every read then fails at once with
// kUnavailable saying so.
//
// Errors (the Status code says which; the message names the path, what
// IMDS did and, where one exists, what to do):
//   kDeadlineExceeded  IMDS did not answer within the timeouts (off EC2, or
//                      in a container beyond the instance's hop limit).
//   kUnavailable       IMDS refused the connection, answered 5xx, or is off
//                      by setting (see off()); transient ones are worth
//                      retrying.
//   kNotFound          IMDS answered 404: the path (a tag, a role) is not
//                      there.
//   kPreconditionFailed The instance's metadata options do not allow the
//                      read: instance tags are not enabled in metadata
//                      (the tags path answers 404), or IMDS refused the
//                      token request (403: IMDS disabled).
//   kDenied            IMDS answered 401 again with a freshly fetched token.
//   kCorrupt           An answer is malformed or larger than max_answer_bytes.
//
// Thread-safety: an ImdsClient may be used from any number of threads at
// once; the token and the role credentials are cached under a mutex, and
// concurrent callers needing a new token wait for one fetch.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/env.h"
#include "base/status.h"

namespace carlos::imds {

// AWS's instance metadata endpoint (IPv4 link-local).
inline constexpr std::string_view kDefaultEndpoint = "http://169.254.169.254";

struct ImdsOptions {
  // Base URL, no trailing slash: "http://169.254.169.254", or an
  // emulator's "http://127.0.0.1:8169". Empty means off (not on EC2).
  std::string endpoint = std::string(kDefaultEndpoint);
  // IMDS is link-local: it answers in milliseconds or not at all. Short
  // timeouts are what makes "not on EC2" cheap to find out.
  Milliseconds connect_timeout{1000};
  Milliseconds request_timeout{2000};
  // The session token's lifetime asked for (IMDS allows 1 s to 6 h).
  Seconds token_ttl{21600};
  // A token is renewed this long before its expiry, so that no read is
  // sent with a token about to lapse on the way.
  Seconds token_renew_before{60};
  // Read without a token when IMDS refuses to issue one (403/404/405 on
  // the token PUT). Off by default: IMDSv2 only.
  bool allow_imdsv1 = false;
  // Larger answers are refused (kCorrupt); IMDS's are a few KiB at most.
  size_t max_answer_bytes = 1 << 20;
  // Where the firmware's and the hypervisor's marks are read to tell whether
  // this machine is on EC2 (imds/ec2_platform.h): "/sys", or a test's
  // directory. Never sent anywhere.
  std::string sysfs_root = "/sys";
};

// Options from the environment: CARLOS_IMDS_ENDPOINT (default
// kDefaultEndpoint; "off" gives an empty endpoint, i.e. off; a trailing '/'
// is dropped) and CARLOS_SYSFS_ROOT (default "/sys"; tests point it at a
// directory of DMI files). Other fields keep their defaults.
ImdsOptions ImdsOptionsFromEnv(const Getenv& getenv);

// The instance role's temporary credentials
// (/latest/meta-data/iam/security-credentials/<role>).
struct RoleCredentials {
  std::string role;
  std::string access_key_id;
  std::string secret_access_key;
  std::string token;
  SystemTime expiration;
};

class ImdsClient {
 public:
  // `clock` must outlive the client (RealClock() in production).
  ImdsClient(ImdsOptions options, Clock* clock);
  ~ImdsClient();
  ImdsClient(const ImdsClient&) = delete;
  ImdsClient& operator=(const ImdsClient&) = delete;

  // True when the endpoint is off (CARLOS_IMDS_ENDPOINT=off): not on EC2
  // by setting. No request is ever sent then.
  bool off() const { return options_.endpoint.empty(); }
  const ImdsOptions& options() const { return options_; }

  // OK when IMDS answers at all (its token request got any HTTP answer, or
  // a valid token is cached); otherwise why not: kUnavailable when off or
  // refused, kDeadlineExceeded when it did not answer in time. This is how
  // "not on EC2" is told apart from "IMDS answered with an error".
  Status Reachable();

  // GETs `path` (absolute, e.g. "/latest/meta-data/instance-id") with the
  // session token and returns the body. Errors as in the file comment; a
  // 404 is kNotFound naming the path.
  StatusOr<std::string> Get(std::string_view path);

  // The instance identity document, verbatim
  // (/latest/dynamic/instance-identity/document).
  StatusOr<std::string> IdentityDocument();
  // Its RSA-2048 signature: base64 DER PKCS #7 signed-data with the
  // document embedded, as IMDS serves it
  // (/latest/dynamic/instance-identity/rsa2048).
  StatusOr<std::string> IdentityRsa2048();
  // /latest/meta-data/instance-id, e.g. "i-0123456789abcdef0".
  StatusOr<std::string> InstanceId();
  // /latest/meta-data/placement/region, e.g. "eu-west-1".
  StatusOr<std::string> Region();

  // The instance's tag keys (/latest/meta-data/tags/instance/, one per
  // line). kPreconditionFailed when instance tags are not enabled in the
  // instance's metadata options (the listing answers 404), saying how to
  // enable them.
  StatusOr<std::vector<std::string>> TagKeys();
  // The value of tag `key` (/latest/meta-data/tags/instance/<key>).
  // kNotFound "the instance has no tag <key>" when the tag is missing;
  // kPreconditionFailed when tags are not enabled in metadata (told apart
  // from a missing tag by the listing also answering 404).
  StatusOr<std::string> Tag(std::string_view key);

  // The instance role's credentials: the role from
  // /latest/meta-data/iam/security-credentials/ (the first line), then its
  // keys. Cached; fetched again once less than `refresh_before` remains
  // before their Expiration (AWS makes new ones available at least 5
  // minutes before expiry). When a refresh fails but the cached keys have
  // not expired yet, they are returned (one IMDS hiccup does not stop S3).
  // kNotFound when the instance has no role; kCorrupt when the JSON lacks
  // AccessKeyId, SecretAccessKey, Token or an RFC 3339 Expiration, or its
  // Code is not "Success".
  StatusOr<RoleCredentials> RoleCredentialsNow(Seconds refresh_before = Seconds(300));

  // Told each HTTP exchange with IMDS (the agent's metrics): its method
  // ("PUT" for a token, "GET"), the HTTP status it answered (0 when the
  // exchange failed), the transport error (OK when IMDS answered), and how
  // long it took in seconds. Called on the requesting thread; it must be
  // thread-safe. Set it before the client is used.
  using Observer = std::function<void(std::string_view method, long http_status,
                                      const Status& transport, double seconds)>;
  void SetObserver(Observer observer) { observer_ = std::move(observer); }

 private:
  struct Answer {
    long status = 0;
    std::string body;
  };
  // One HTTP exchange, told to the observer; transport errors (timeout,
  // refused) as Status.
  StatusOr<Answer> Exchange(std::string_view method, std::string_view path,
                            const std::vector<std::string>& headers);
  StatusOr<Answer> ExchangeOnce(std::string_view method, std::string_view path,
                                const std::vector<std::string>& headers);
  // The current token, fetching or renewing it; "" when IMDSv1 is allowed
  // and IMDS will not issue tokens.
  StatusOr<std::string> Token(bool force_new);
  Status TransportError(std::string_view what, int curl_code, const std::string& curl_message);

  ImdsOptions options_;
  Observer observer_;
  Clock* clock_;
  std::mutex token_mu_;  // Held while a token is fetched: one fetch at a time.
  std::string token_;
  SystemTime token_expiry_{};
  bool v1_ = false;              // IMDS refused tokens and allow_imdsv1 is on.
  bool token_answered_ = false;  // The last token request got an HTTP answer.
  std::mutex creds_mu_;
  std::optional<RoleCredentials> creds_;
};

// Percent-encodes a tag key for an IMDS path (spaces and other characters
// outside [A-Za-z0-9-._~:@+=,] become %XX).
std::string EscapeTagKey(std::string_view key);

}  // namespace carlos::imds
