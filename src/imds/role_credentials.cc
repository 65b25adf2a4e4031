#include "imds/role_credentials.h"

#include <fmt/format.h>

namespace carlos::imds {

namespace {

StatusOr<AwsCredentials> Convert(ImdsClient& client) {
  auto rc = client.RoleCredentialsNow();
  if (!rc.ok()) {
    // No IMDS at all (it never answered: not on EC2) is not an IMDS to
    // enable or to wait for, but no credentials anywhere: say where they
    // were looked for, and fail at once.
    if (Status reachable = client.Reachable(); !reachable.ok()) {
      return InvalidArgument(fmt::format(
          "no AWS credentials were found: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not "
          "set, and no instance metadata service answered at {} for an instance role ({}). Off "
          "EC2, set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for "
          "temporary keys) in the environment (on a box, /etc/carlos/host.env) and "
          "CARLOS_IMDS_ENDPOINT=off; on EC2, give the instance a role",
          client.options().endpoint, reachable.message()));
    }
    Status st = rc.status().Annotate("the instance role's credentials from IMDS");
    // To the store these are credentials, not a key or a condition: no
    // role (404) or IMDS disabled (403) is a credentials refusal, so that a
    // caller's "not found" or "precondition failed" stays the store's own.
    if (st.code() == Code::kNotFound || st.code() == Code::kPreconditionFailed) {
      return Denied(st.message());
    }
    return st;
  }
  AwsCredentials c;
  c.access_key_id = rc->access_key_id;
  c.secret_access_key = rc->secret_access_key;
  c.session_token = rc->token;
  c.expiration = rc->expiration;
  return c;
}

}  // namespace

CredentialsProvider ImdsRoleCredentials(ImdsClient& client) {
  return [&client]() { return Convert(client); };
}

CredentialsProvider ImdsRoleCredentials(std::shared_ptr<ImdsClient> client) {
  return [client = std::move(client)]() { return Convert(*client); };
}

bool InstallImdsRoleCredentialsFallback(std::shared_ptr<ImdsClient> client) {
  if (!client || client->off()) return false;
  SetDefaultCredentialsFallback(ImdsRoleCredentials(std::move(client)));
  return true;
}

}  // namespace carlos::imds
