#include "store/aws_credentials.h"

#include <mutex>

#include "base/strings.h"

namespace carlos {

namespace {

std::mutex& FallbackMu() {
  static std::mutex mu;
  return mu;
}

CredentialsProvider& Fallback() {
  static CredentialsProvider fallback;
  return fallback;
}

constexpr const char* kNoCredentials =
    "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN "
    "for temporary keys), or run on EC2 with an instance role";

bool HasEnvKeys(const Getenv& getenv) {
  return !TrimSpace(getenv("AWS_ACCESS_KEY_ID")).empty() ||
         !TrimSpace(getenv("AWS_SECRET_ACCESS_KEY")).empty();
}

}  // namespace

CredentialsProvider EnvCredentials(Getenv getenv) {
  return [getenv = std::move(getenv)]() -> StatusOr<AwsCredentials> {
    AwsCredentials c;
    c.access_key_id = TrimSpace(getenv("AWS_ACCESS_KEY_ID"));
    c.secret_access_key = TrimSpace(getenv("AWS_SECRET_ACCESS_KEY"));
    c.session_token = TrimSpace(getenv("AWS_SESSION_TOKEN"));
    if (c.access_key_id.empty() && c.secret_access_key.empty()) {
      return InvalidArgument(kNoCredentials);
    }
    if (c.access_key_id.empty()) {
      return InvalidArgument("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not; set both");
    }
    if (c.secret_access_key.empty()) {
      return InvalidArgument("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; set both");
    }
    return c;
  };
}

void SetDefaultCredentialsFallback(CredentialsProvider fallback) {
  std::lock_guard<std::mutex> lock(FallbackMu());
  Fallback() = std::move(fallback);
}

CredentialsProvider DefaultCredentials(Getenv getenv) {
  CredentialsProvider env = EnvCredentials(getenv);
  return [getenv = std::move(getenv), env = std::move(env)]() -> StatusOr<AwsCredentials> {
    if (HasEnvKeys(getenv)) return env();
    CredentialsProvider fallback;
    {
      std::lock_guard<std::mutex> lock(FallbackMu());
      fallback = Fallback();
    }
    if (fallback) return fallback();
    return InvalidArgument(kNoCredentials);
  };
}

}  // namespace carlos
