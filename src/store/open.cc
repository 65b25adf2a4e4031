// OpenStore: the environment's choice of backend (DESIGN.md, "Switches and
// settings").
#include <fmt/format.h>

#include "store/aws_credentials.h"
#include "store/dir_store.h"
#include "store/s3_store.h"
#include "store/store.h"

namespace carlos {

StatusOr<std::unique_ptr<Store>> OpenStore(const Getenv& getenv) {
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
  S3StoreOptions o;
  o.bucket = bucket;
  o.endpoint = EnvOr(getenv, "CARLOS_S3_ENDPOINT", "");
  // AWS CLI and SDK order: AWS_REGION, then AWS_DEFAULT_REGION.
  o.region = EnvOr(getenv, "AWS_REGION", EnvOr(getenv, "AWS_DEFAULT_REGION", "us-east-1"));
  o.credentials = DefaultCredentials(getenv);
  auto s = S3Store::Open(std::move(o));
  if (!s.ok()) return s.status();
  return std::unique_ptr<Store>(std::move(s).value());
}

}  // namespace carlos
