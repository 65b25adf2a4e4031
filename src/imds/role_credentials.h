// The instance role's credentials as the S3 backend's credentials provider
// (store/aws_credentials.h): on EC2 without AWS_* keys in the environment,
// the deployment bucket is reached with the instance role's temporary keys,
// as the AWS SDKs' default chain does (DESIGN.md: "the usual AWS_*
// credentials and region, or the instance role from IMDS").
#pragma once

#include <memory>

#include "imds/client.h"
#include "store/aws_credentials.h"

namespace carlos::imds {

// A provider reading ImdsClient::RoleCredentialsNow: cached, refreshed 5
// minutes before they expire, the cached keys kept through an IMDS hiccup
// while they are valid. `client` must outlive the provider. Errors, each
// prefixed "the instance role's credentials from IMDS": kDenied for no role
// (IMDS 404) or IMDS disabled (403 to the token request): credentials that
// cannot be had, never the store's kNotFound or kPreconditionFailed (the
// exit statuses of `carlos store` tell those apart); kInvalidArgument "no
// AWS credentials were found: ..." (naming the variables and IMDS) when IMDS
// has never answered this client (ImdsClient::Reachable: not on EC2), which
// no retry mends; the client's kUnavailable for IMDS failing after it
// answered once, kDeadlineExceeded for it not answering then, kCorrupt for
// a bad answer. Thread-safe.
CredentialsProvider ImdsRoleCredentials(ImdsClient& client);

// The same, owning a shared client.
CredentialsProvider ImdsRoleCredentials(std::shared_ptr<ImdsClient> client);

// Installs ImdsRoleCredentials(client) as the process-wide fallback
// (SetDefaultCredentialsFallback) unless the client is off
// (CARLOS_IMDS_ENDPOINT=off), in which case nothing is installed and the
// store's "no AWS credentials" error stands. Returns whether it installed.
bool InstallImdsRoleCredentialsFallback(std::shared_ptr<ImdsClient> client);

}  // namespace carlos::imds
