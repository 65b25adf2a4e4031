// AWS credentials for the S3 backend, through a provider so that the
// instance role (imds/role_credentials.h) plugs in without the store
// knowing where keys come from.
//
// The order follows the AWS SDKs' default chain, shortened: the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN),
// then the process-wide fallback (on EC2: the instance role's temporary
// keys from IMDS), then an error naming the variables to set.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/env.h"
#include "base/status.h"

namespace carlos {

// One set of credentials. `session_token` is empty for long-term keys; when
// set, requests carry it as x-amz-security-token (AWS SigV4 documentation,
// "Using temporary security credentials"). `expiration` is when temporary
// keys stop working (none for long-term keys); providers that cache must
// refresh before it.
struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::optional<SystemTime> expiration;
};

// Returns the credentials to sign the next request with. Called once per
// request (so a caching provider can refresh expiring keys); must be
// thread-safe. Errors: whatever the source reports (kInvalidArgument for
// missing or half-set variables, kUnavailable for an IMDS that does not
// answer, kDenied for one that refuses).
using CredentialsProvider = std::function<StatusOr<AwsCredentials>()>;

// Credentials from the environment only: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (both or neither), AWS_SESSION_TOKEN optional.
// Errors: kInvalidArgument when neither key is set, or only one of them,
// naming the variable(s) to set.
CredentialsProvider EnvCredentials(Getenv getenv);

// Sets the process-wide fallback that DefaultCredentials uses when the
// environment has no keys (the IMDS helper installs the instance role
// here at start-up). An empty function removes it. Thread-safe.
void SetDefaultCredentialsFallback(CredentialsProvider fallback);

// The default chain: the environment's keys when AWS_ACCESS_KEY_ID or
// AWS_SECRET_ACCESS_KEY is set (a half-set pair is an error, never silently
// skipped), else the fallback set by SetDefaultCredentialsFallback at the
// time of the call, else kInvalidArgument "no AWS credentials: set
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY ...". Thread-safe.
CredentialsProvider DefaultCredentials(Getenv getenv);

}  // namespace carlos
