// The S3 backend of the deployment store (DESIGN.md, "The deployment
// store"): CARLOS_DEPLOYMENT_BUCKET on AWS S3 or an S3-compatible server
// (CARLOS_S3_ENDPOINT: Ceph RGW, MinIO). Requests are signed with SigV4 by
// libcurl (CURLOPT_AWS_SIGV4); the version tag is the object's ETag without
// quotes.
//
// Conditions (Amazon S3 User Guide, "Conditional requests"): create-only
// sends If-None-Match: *, compare-and-swap sends If-Match with the tag
// unquoted (Ceph RGW 16 answers 412 to a quoted ETag even when it matches;
// AWS accepts both; docs/store.md has what was measured). 412 is
// kPreconditionFailed, and so is 404 NoSuchKey to an If-Match (AWS's answer
// when the key has no current version; Amazon S3 User Guide, "How to
// prevent object overwrites with conditional writes"); 409
// ConditionalRequestConflict is retried, as AWS documents (Amazon S3 API
// Reference, PutObject: "On a 409 failure you should retry the upload").
// 501 NotImplemented (a server without conditional writes) is
// kInvalidArgument, not retried. A 403 to a GET names the missing
// s3:ListBucket permission, with which AWS answers a missing key (Amazon S3
// API Reference, GetObject). A ListObjectsV2 page with more keys than asked
// for, or that continues with the token it was asked for, is kCorrupt
// (store.h, ListAll, bounds the whole listing). A compare-and-swap tag that is not an S3 ETag (32
// hex digits,
// "-N" for multipart uploads) is kPreconditionFailed without a request:
// Ceph RGW 16 compares only a prefix of If-Match, so "<current tag>junk"
// would otherwise overwrite.
//
// Transient failures (connection refused or reset, timeouts, 5xx, 429,
// SlowDown, RequestTimeout) are retried with full-jitter exponential backoff
// until the options' deadline; then the call returns kUnavailable with the
// last error. Failures that no retry can mend fail at once, told by
// libcurl's CURLcode and S3's error Code, never by a message: a host name
// that does not resolve (CURLE_COULDNT_RESOLVE_HOST: kUnavailable), a TLS
// handshake the server answered with something that is not TLS
// (CURLE_SSL_CONNECT_ERROR with no socket error: an https:// endpoint on a
// plain-HTTP port; kInvalidArgument), credentials the server does not know
// or whose signature does not match (403 InvalidAccessKeyId,
// SignatureDoesNotMatch: kDenied), missing credentials (the provider's
// kInvalidArgument, kDenied). A conditional write whose answer is lost (a 5xx, a timeout or
// a reset after the request was sent) has an unknown outcome: Put reads the
// key back and compares it with what it sent (the same bytes: the write
// landed and Put returns its tag; other bytes: kPreconditionFailed for
// create-only, and for compare-and-swap another try while the tag still
// matches), and returns kUnknownOutcome only when that read fails too.
//
// Thread-safety: safe for concurrent use from many threads (each request
// takes its own curl handle from a pool, so connections are reused).
#pragma once

#include <curl/curl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "store/aws_credentials.h"
#include "store/store.h"

namespace carlos {

struct S3StoreOptions {
  // The bucket: 3 to 63 bytes of [a-z0-9.-], starting and ending with a
  // letter or digit (Amazon S3 bucket naming rules).
  std::string bucket;
  // "" for AWS (virtual-hosted URLs, https://<bucket>.s3.<region>.amazonaws.com/<key>);
  // otherwise the base URL of an S3-compatible server, "http://host:port"
  // or "https://host:port", addressed path-style (<endpoint>/<bucket>/<key>).
  std::string endpoint;
  // The SigV4 signing region.
  std::string region = "us-east-1";
  // Where each request's keys come from; must be set.
  CredentialsProvider credentials;
  // The most time one store call spends, retries and backoff included.
  Milliseconds deadline{20000};
  // One attempt's limits: establishing the connection, and the whole
  // request (both are cut short by what is left of `deadline`).
  Milliseconds connect_timeout{3000};
  Milliseconds request_timeout{10000};
  // Backoff between attempts: a uniformly random wait in
  // [0, min(backoff_max, backoff_initial * 2^attempt)] ("full jitter", AWS
  // Architecture Blog, "Exponential Backoff And Jitter").
  Milliseconds backoff_initial{100};
  Milliseconds backoff_max{2000};
  // Told of each failed attempt that will be tried again, and of the end
  // of a call that was retried (store.h RetryNote); may be empty.
  RetryObserver on_retry;
  // Measures the deadline and waits between attempts; nullptr means
  // RealClock(). Not owned; must outlive the store.
  Clock* clock = nullptr;
};

class S3Store : public Store {
 public:
  // Checks `options` and returns the store; sends nothing. Errors:
  // kInvalidArgument naming the bad bucket name, endpoint, region, or
  // missing credentials provider.
  static StatusOr<std::unique_ptr<S3Store>> Open(S3StoreOptions options);
  ~S3Store() override;

  StatusOr<Object> Get(std::string_view key) override;
  // If-None-Match: "<etag>" (a tag that is not an ETag is not sent: a plain
  // GET); 304 Not Modified is not_modified (store.h).
  StatusOr<Revalidated> GetIfNoneMatch(std::string_view key, std::string_view version) override;
  StatusOr<std::string> Put(std::string_view key, std::string_view data,
                            const PutOptions& options) override;
  // Fills ListPage::versions from each <Contents>' ETag (unquoted).
  StatusOr<ListPage> List(std::string_view prefix, std::string_view token, int max_keys) override;
  // List, refusing (kCorrupt) a page where a key has no ETag.
  StatusOr<ListPage> ListVersions(std::string_view prefix, std::string_view token,
                                  int max_keys) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override;

  // Creates the bucket (for tests, benchmarks and the local region). OK when
  // it already exists and is ours (409 BucketAlreadyOwnedByYou); errors:
  // kPreconditionFailed when another account owns the name; others as the
  // store's.
  Status CreateBucket();

  struct Request;
  struct Response;

 private:
  explicit S3Store(S3StoreOptions options);

  // One HTTP exchange, no retry.
  Response Perform(const Request& req, const AwsCredentials& creds, Milliseconds timeout);
  // Sends `req`, retrying transient failures within `deadline`. A
  // transient failure that may have changed the object (`req` is a
  // conditional write and the request may have reached the server) is
  // returned, marked ambiguous, for the caller to resolve.
  Response Execute(const Request& req, SystemTime deadline);
  // The Get used by Put's read-back, within `deadline`.
  StatusOr<Object> GetWithin(std::string_view key, SystemTime deadline);
  // A GET within `deadline`, conditional when `if_none_match` is an ETag.
  StatusOr<Revalidated> Fetch(std::string_view key, SystemTime deadline,
                              std::string_view if_none_match);
  // Sleeps the backoff for attempt `attempt`, unless that would pass
  // `deadline` (then returns false at once); tells on_retry first, naming
  // `req` and `cause`.
  bool Backoff(int attempt, SystemTime deadline, const Request& req, const std::string& cause);
  // Execute's loop; `*retried` says whether it backed off at least once.
  Response ExecuteLoop(const Request& req, SystemTime deadline, bool* retried,
                       std::string* last_cause);

  // The URL for `key` ("" for the bucket itself), without a query.
  std::string Url(std::string_view key) const;

  CURL* TakeHandle();
  void ReturnHandle(CURL* h);

  S3StoreOptions opts_;
  Clock* clock_;
  std::mutex mu_;
  std::vector<CURL*> idle_;
};

// AWS's UriEncode (SigV4 documentation, "Create a canonical request"):
// every byte but A-Z a-z 0-9 - _ . ~ as %XX with upper-case hex; '/' too
// unless `keep_slash`.
std::string UriEncode(std::string_view s, bool keep_slash);

// The S3 backend's settings from the environment: CARLOS_DEPLOYMENT_BUCKET
// (`bucket`, which may be empty here), CARLOS_S3_ENDPOINT, the region from
// AWS_REGION, then AWS_DEFAULT_REGION, then "us-east-1" (the AWS CLI's and
// SDKs' order: docs.aws.amazon.com/cli/latest/userguide/cli-configure-envvars.html),
// and the default credentials chain (store/aws_credentials.h). No errors:
// S3Store::Open checks what it is given.
S3StoreOptions S3OptionsFromEnv(const Getenv& getenv);

}  // namespace carlos
