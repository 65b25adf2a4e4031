#include "imds/role_credentials.h"

namespace carlos::imds {

namespace {

StatusOr<AwsCredentials> Convert(ImdsClient& client) {
  auto rc = client.RoleCredentialsNow();
  if (!rc.ok()) return rc.status().Annotate("the instance role's credentials from IMDS");
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
