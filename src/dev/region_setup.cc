#include "dev/region_setup.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/files.h"
#include "base/strings.h"
#include "identity/keys.h"
#include "store/aws_credentials.h"
#include "store/s3_store.h"

namespace carlos::dev {

Status MakeRegionDirs(const RegionLayout& layout, bool dir_store) {
  for (const std::string& d :
       {layout.dir, layout.boxes_dir(), layout.logs_dir(), layout.run_dir(), layout.imds_dir()}) {
    CARLOS_RETURN_IF_ERROR(MakeDirs(d, 0755));
  }
  if (dir_store) CARLOS_RETURN_IF_ERROR(MakeDirs(layout.deployment_dir(), 0755));
  return OkStatus();
}

StatusOr<RegionLock> RegionLock::Acquire(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return PreconditionFailed("another carlos dev region is running on this directory (" + path +
                                " is locked); stop it first, or use another --dir");
    }
    return ErrnoStatus(err, "flock", path);
  }
  return RegionLock(fd);
}

RegionLock::~RegionLock() {
  if (fd_ >= 0) close(fd_);  // Closing releases the flock.
}

Status EnsureBucket(const std::string& bucket, const Getenv& getenv) {
  S3StoreOptions o = S3OptionsFromEnv(getenv);
  o.bucket = bucket;
  auto store = S3Store::Open(std::move(o));
  if (!store.ok()) return store.status();
  return (*store)->CreateBucket().Annotate("making the bucket " + bucket);
}

StatusOr<std::string> EnsureEnrollmentKey(const RegionLayout& layout, bool* created) {
  *created = false;
  auto key = identity::LoadPrivateKeyFile(layout.enrollment_key());
  if (!key.ok() && key.status().code() == Code::kNotFound) {
    auto fresh = identity::PrivateKey::Generate();
    if (!fresh.ok()) return fresh.status();
    Status w = identity::WriteNewPrivateKeyFile(layout.enrollment_key(), *fresh);
    if (w.ok()) {
      *created = true;
    } else if (w.code() != Code::kPreconditionFailed) {
      return w;
    }
    // Created by us, or by a racing writer: load what is there.
    key = identity::LoadPrivateKeyFile(layout.enrollment_key());
  }
  if (!key.ok()) return key.status().Annotate("the enrollment key " + layout.enrollment_key());
  std::string pub = key->public_key().ToString();
  CARLOS_RETURN_IF_ERROR(WriteFileAtomic(layout.enrollment_pub(), pub + "\n", 0644));
  return pub;
}

Status EnsureBoxDir(const RegionLayout& layout, const std::string& box) {
  CARLOS_RETURN_IF_ERROR(MakeDirs(layout.data_dir(box), 0700));
  std::string id;
  unsigned char raw[16];
  if (RAND_bytes(raw, sizeof raw) != 1) return Internal("RAND_bytes failed");
  id = HexEncode(std::string_view(reinterpret_cast<const char*>(raw), sizeof raw)) + "\n";
  Status st = CreateFileExclusive(layout.machine_id(box), id, 0644);
  if (st.code() == Code::kPreconditionFailed) return OkStatus();  // Kept from an earlier run.
  return st;
}

Status WriteRegionEnv(const RegionLayout& layout,
                      const std::map<std::string, std::string>& settings) {
  std::string text =
      "# carlos dev region: the settings for running carlos commands by hand against this\n"
      "# region, e.g.:  set -a; . " +
      layout.env_file() +
      "; set +a; carlos boxes list\n"
      "# (an S3 deployment's credentials come from your own AWS_* environment).\n";
  for (const auto& [name, value] : settings) {
    if (value.find_first_of(" \t\n'\"$`\\") != std::string::npos) {
      return InvalidArgument("region.env: the value of " + name +
                             " has a character that would need quoting: " + value);
    }
    text += name + "=" + value + "\n";
  }
  return WriteFileAtomic(layout.env_file(), text, 0644);
}

}  // namespace carlos::dev
