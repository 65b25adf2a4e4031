// OpenStore: the environment's choice of backend (DESIGN.md, "Switches and
// settings").
#include <fmt/format.h>

#include "store/aws_credentials.h"
#include "store/dir_store.h"
#include "store/s3_store.h"
#include "store/store.h"

namespace carlos {

S3StoreOptions S3OptionsFromEnv(const Getenv& getenv) {
  S3StoreOptions o;
  o.bucket = EnvOr(getenv, "CARLOS_DEPLOYMENT_BUCKET", "");
  o.endpoint = EnvOr(getenv, "CARLOS_S3_ENDPOINT", "");
  o.region = EnvOr(getenv, "AWS_REGION", EnvOr(getenv, "AWS_DEFAULT_REGION", "us-east-1"));
  o.credentials = DefaultCredentials(getenv);
  return o;
}

StatusOr<std::unique_ptr<Store>> OpenStore(const Getenv& getenv) {
  return OpenStore(getenv, StoreOpenOptions{});
}

StatusOr<std::unique_ptr<Store>> OpenStore(const Getenv& getenv, const StoreOpenOptions& options) {
  if (options.deadline && options.deadline->count() <= 0) {
    return InvalidArgument("the store's timeout must be more than 0");
  }
  std::string bucket = EnvOr(getenv, "CARLOS_DEPLOYMENT_BUCKET", "");
  std::string dir = EnvOr(getenv, "CARLOS_DEPLOYMENT_DIR", "");
  if (!bucket.empty() && !dir.empty()) {
    return InvalidArgument(
        "both CARLOS_DEPLOYMENT_BUCKET and CARLOS_DEPLOYMENT_DIR are set; set only one (the "
        "bucket for S3, the directory for the embedded store)");
  }
  if (bucket.empty() && dir.empty()) {
    return InvalidArgument(
        "no deployment store: set CARLOS_DEPLOYMENT_DIR (a directory) or "
        "CARLOS_DEPLOYMENT_BUCKET (an S3 bucket)");
  }
  if (!dir.empty()) {
    auto s = DirStore::Open(dir);
    if (!s.ok()) return s.status().Annotate("CARLOS_DEPLOYMENT_DIR");
    return std::unique_ptr<Store>(std::move(s).value());
  }
  S3StoreOptions s3 = S3OptionsFromEnv(getenv);
  if (options.deadline) s3.deadline = *options.deadline;
  s3.on_retry = options.on_retry;
  auto s = S3Store::Open(std::move(s3));
  if (!s.ok()) return s.status();
  return std::unique_ptr<Store>(std::move(s).value());
}

}  // namespace carlos

namespace carlos {

StatusOr<std::optional<Object>> Store::GetIfExists(std::string_view key) {
  StatusOr<Object> obj = Get(key);
  if (obj.ok()) return std::optional<Object>(std::move(obj).value());
  if (obj.status().code() == Code::kNotFound) return std::optional<Object>();
  return obj.status();
}

StatusOr<Revalidated> Store::GetIfNoneMatch(std::string_view key, std::string_view version) {
  CARLOS_ASSIGN_OR_RETURN(Object obj, Get(key));
  Revalidated r;
  if (!version.empty() && obj.version == version) {
    r.not_modified = true;
  } else {
    r.object = std::move(obj);
  }
  return r;
}

}  // namespace carlos
