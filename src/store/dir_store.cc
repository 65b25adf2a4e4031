#include "store/dir_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "base/files.h"
#include "base/strings.h"

namespace carlos {

namespace {

constexpr mode_t kObjectMode = 0644;
constexpr mode_t kDirMode = 0755;
constexpr std::string_view kLockDir = ".locks";
constexpr std::string_view kTempPrefix = ".tmp-";

// True when `key` names a path the backend keeps for itself.
bool Reserved(std::string_view key) {
  if (key == kLockDir || key.starts_with(std::string(kLockDir) + "/")) return true;
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) end = key.size();
    if (key.substr(start, end - start).starts_with(kTempPrefix)) return true;
    start = end + 1;
  }
  return false;
}

// Checks what the file system adds to ValidateKey: each segment is a file
// name, at most NAME_MAX (255) bytes.
Status CheckDirKey(std::string_view key) {
  CARLOS_RETURN_IF_ERROR(ValidateKey(key));
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) end = key.size();
    if (end - start > 255) {
      return InvalidArgument(fmt::format(
          "key {:?} has a segment of {} bytes; the directory store allows at most 255 (a file "
          "name)",
          key, end - start));
    }
    start = end + 1;
  }
  return OkStatus();
}

// Holds an exclusive flock(2) on a lock file until destroyed.
class KeyLock {
 public:
  KeyLock() = default;
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;
  ~KeyLock() {
    if (fd_ >= 0) ::close(fd_);  // Closing releases the flock.
  }

  Status Acquire(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return ErrnoStatus(errno, "open lock file", path);
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) return ErrnoStatus(errno, "lock", path);
    }
    return OkStatus();
  }

 private:
  int fd_ = -1;
};

// Creates the parent directories of `rel` (a key) under `root`. A parent that
// exists as an object is the layout clash dir_store.h describes.
Status MakeParents(const std::string& root, std::string_view rel) {
  size_t pos = 0;
  for (;;) {
    size_t slash = rel.find('/', pos);
    if (slash == std::string_view::npos) return OkStatus();
    std::string dir = root + "/" + std::string(rel.substr(0, slash));
    if (::mkdir(dir.c_str(), kDirMode) != 0) {
      int err = errno;
      struct stat st {};
      if (err == ENOTDIR ||
          (err == EEXIST && ::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))) {
        return PreconditionFailed(
            fmt::format("key {:?} cannot be stored: {:?} is an object, and the directory backend "
                        "cannot hold an object and keys under it",
                        rel, rel.substr(0, slash)));
      }
      if (err != EEXIST) return ErrnoStatus(err, "mkdir", dir);
    } else {
      // A new directory's entry must be durable before an object in it is
      // reported written.
      CARLOS_RETURN_IF_ERROR(SyncDir(dir.substr(0, dir.rfind('/'))));
    }
    pos = slash + 1;
  }
}

// Reads the object at `path`: kNotFound when it is absent or is a directory.
// `st`, when given, gets the file's lstat from before the read.
StatusOr<std::string> ReadObject(const std::string& path, std::string_view key,
                                 struct stat* st_out = nullptr) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return NotFound(fmt::format("key {:?} not found", key));
    return ErrnoStatus(errno, "stat", path);
  }
  if (!S_ISREG(st.st_mode)) return NotFound(fmt::format("key {:?} not found", key));
  auto data = ReadFileLimited(path, kMaxObjectBytes);
  if (!data.ok() && data.status().code() == Code::kNotFound) {
    return NotFound(fmt::format("key {:?} not found", key));
  }
  if (st_out != nullptr) *st_out = st;
  return data;
}

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec &&
         a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

std::chrono::system_clock::time_point TimeOf(const struct timespec& ts) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec)));
}

// Reads `path` with the lstat of the version read: a file replaced during
// the read is read again (a few times), so that the timestamps are the
// bytes' own.
StatusOr<std::string> ReadObjectStat(const std::string& path, std::string_view key,
                                     struct stat* st) {
  for (int attempt = 0;; ++attempt) {
    CARLOS_ASSIGN_OR_RETURN(std::string data, ReadObject(path, key, st));
    struct stat after {};
    if (attempt >= 3 || (::lstat(path.c_str(), &after) == 0 && SameFile(*st, after))) return data;
  }
}

// Adds to `out` every object key under directory `dir` (whose key prefix is
// `rel`, "" or ending in '/') that starts with `prefix` and sorts after
// `token`.
Status Walk(const std::string& dir, const std::string& rel, std::string_view prefix,
            std::string_view token, std::vector<std::string>* out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return OkStatus();
    return ErrnoStatus(errno, "open directory", dir);
  }
  Status result;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == ".." || name.starts_with(kTempPrefix)) continue;
    if (rel.empty() && name == kLockDir) continue;
    std::string key = rel + std::string(name);
    // Prune subtrees that cannot hold a key with the prefix.
    size_t common = std::min(key.size(), prefix.size());
    if (key.compare(0, common, prefix.substr(0, common)) != 0) continue;
    std::string path = dir + "/" + std::string(name);
    bool is_dir = e->d_type == DT_DIR;
    bool is_reg = e->d_type == DT_REG;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0) continue;  // Deleted meanwhile.
      is_dir = S_ISDIR(st.st_mode);
      is_reg = S_ISREG(st.st_mode);
    }
    if (is_dir) {
      result = Walk(path, key + "/", prefix, token, out);
      if (!result.ok()) break;
    } else if (is_reg && key.starts_with(prefix) && key > token) {
      out->push_back(std::move(key));
    }
  }
  ::closedir(d);
  return result;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(md), len));
}

StatusOr<std::unique_ptr<DirStore>> DirStore::Open(const std::string& root) {
  if (root.empty()) return InvalidArgument("the store directory is empty");
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  struct stat st {};
  if (::stat(r.c_str(), &st) != 0) {
    return InvalidArgument(fmt::format("store directory {}: {} (create it first)", r,
                                       ErrnoStatus(errno, "stat", r).message()));
  }
  if (!S_ISDIR(st.st_mode)) {
    return InvalidArgument(fmt::format("store directory {} is not a directory", r));
  }
  return std::unique_ptr<DirStore>(new DirStore(r));
}

std::string DirStore::Describe() const { return "dir " + root_; }

Status DirStore::WriteError(const Status& st, std::string_view key) const {
  if (st.code() == Code::kDenied) {
    // Under the packaged units' ProtectSystem=strict (systemd.exec(5)) every
    // path but ReadWritePaths= is read-only: the line names the drop-in
    // (docs/operator.md, "A directory store").
    return Denied(fmt::format(
        "directory store {} is not writable (read-only file system or no permission): {}; "
        "under systemd's ProtectSystem=strict add a drop-in with ReadWritePaths={} "
        "(systemctl edit carlos-edge.service), and give the directory to the carlos user",
        root_, st.message(), root_));
  }
  if (st.code() == Code::kPreconditionFailed || st.code() == Code::kInvalidArgument) return st;
  return st.Annotate(fmt::format("write key {:?} in {}", key, root_));
}

Status DirStore::CheckRootPresent() const {
  struct stat st {};
  if (::stat(root_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Unavailable(fmt::format(
        "directory store {} is gone (not a directory any more): check CARLOS_DEPLOYMENT_DIR and "
        "its volume",
        root_));
  }
  return OkStatus();
}

StatusOr<Object> DirStore::Get(std::string_view key) {
  CARLOS_RETURN_IF_ERROR(CheckDirKey(key));
  if (Reserved(key)) return NotFound(fmt::format("{}: key {:?} not found", Describe(), key));
  std::string path = root_ + "/" + std::string(key);
  struct stat st {};
  auto data = ReadObjectStat(path, key, &st);
  if (!data.ok()) {
    // A vanished store directory (an unmounted volume, a deleted deployment)
    // must not read as "every key absent": a box would take that for
    // "unrecorded" and an enroller for "nothing to do".
    if (data.status().code() == Code::kNotFound) CARLOS_RETURN_IF_ERROR(CheckRootPresent());
    return data.status().Annotate(Describe());
  }
  Object obj;
  obj.version = Sha256Hex(*data);
  obj.data = std::move(data).value();
  obj.age = std::max(Milliseconds(0), std::chrono::duration_cast<Milliseconds>(
                                          std::chrono::system_clock::now() - TimeOf(st.st_mtim)));
  return obj;
}

StatusOr<std::string> DirStore::Put(std::string_view key, std::string_view data,
                                    const PutOptions& options) {
  CARLOS_RETURN_IF_ERROR(CheckDirKey(key));
  if (Reserved(key)) {
    return InvalidArgument(fmt::format(
        "key {:?} is reserved by the directory store (segments starting with {:?}, top-level {:?})",
        key, kTempPrefix, kLockDir));
  }
  if (data.size() > kMaxObjectBytes) {
    return InvalidArgument(fmt::format("object for key {:?} is {} bytes; at most {} are allowed",
                                       key, data.size(), kMaxObjectBytes));
  }
  std::string want;
  if (options.condition == PutCondition::kIfMatch) {
    want = TrimSpace(options.if_match);
    // Accept the tag with the quotes an S3 ETag header carries.
    if (want.size() >= 2 && want.front() == '"' && want.back() == '"') {
      want = want.substr(1, want.size() - 2);
    }
    if (want.empty()) return InvalidArgument("a compare-and-swap put needs a version tag");
  }
  std::string path = root_ + "/" + std::string(key);
  std::string lock_dir = root_ + "/" + std::string(kLockDir);
  if (::mkdir(lock_dir.c_str(), kDirMode) != 0 && errno != EEXIST) {
    return WriteError(ErrnoStatus(errno, "mkdir", lock_dir), key);
  }
  KeyLock lock;
  CARLOS_RETURN_IF_ERROR(WriteError(lock.Acquire(lock_dir + "/" + Sha256Hex(key)), key));
  CARLOS_RETURN_IF_ERROR(WriteError(MakeParents(root_, key), key));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return PreconditionFailed(fmt::format(
        "key {:?} cannot be stored: keys exist under it, and the directory backend cannot hold an "
        "object and keys under it",
        key));
  }
  switch (options.condition) {
    case PutCondition::kCreateOnly: {
      Status s = CreateFileExclusive(path, data, kObjectMode);
      if (s.code() == Code::kPreconditionFailed) {
        return PreconditionFailed(fmt::format("key {:?} already exists in {}", key, Describe()));
      }
      CARLOS_RETURN_IF_ERROR(WriteError(s, key));
      break;
    }
    case PutCondition::kIfMatch: {
      auto cur = ReadObject(path, key);
      if (!cur.ok()) {
        if (cur.status().code() == Code::kNotFound) {
          return PreconditionFailed(
              fmt::format("key {:?} does not exist in {}, so version {} does not match", key,
                          Describe(), want));
        }
        return cur.status().Annotate(Describe());
      }
      std::string have = Sha256Hex(*cur);
      if (have != want) {
        return PreconditionFailed(
            fmt::format("key {:?} in {} is at version {}, not {}", key, Describe(), have, want));
      }
      CARLOS_RETURN_IF_ERROR(WriteError(WriteFileAtomic(path, data, kObjectMode), key));
      break;
    }
    case PutCondition::kNone:
      CARLOS_RETURN_IF_ERROR(WriteError(WriteFileAtomic(path, data, kObjectMode), key));
      break;
  }
  return Sha256Hex(data);
}

StatusOr<ListPage> DirStore::List(std::string_view prefix, std::string_view token, int max_keys) {
  CARLOS_RETURN_IF_ERROR(ValidatePrefix(prefix));
  if (max_keys < 1 || max_keys > 1000) {
    return InvalidArgument(fmt::format("max_keys is {}; it must be 1 to 1000", max_keys));
  }
  // Start at the deepest directory the prefix names whole.
  size_t slash = prefix.rfind('/');
  std::string rel = slash == std::string_view::npos ? "" : std::string(prefix.substr(0, slash + 1));
  std::string dir = rel.empty() ? root_ : root_ + "/" + rel.substr(0, rel.size() - 1);
  CARLOS_RETURN_IF_ERROR(CheckRootPresent());
  std::vector<std::string> keys;
  Status s = Walk(dir, rel, prefix, token, &keys);
  if (!s.ok()) return s.Annotate("list " + Describe());
  ListPage page;
  size_t n = static_cast<size_t>(max_keys);
  if (keys.size() > n) {
    std::partial_sort(keys.begin(), keys.begin() + static_cast<ptrdiff_t>(n), keys.end());
    keys.resize(n);
    page.next_token = keys.back();
  } else {
    std::sort(keys.begin(), keys.end());
  }
  page.keys = std::move(keys);
  return page;
}

DirStore::FileId DirStore::IdOf(const struct stat& st) {
  return FileId{static_cast<uint64_t>(st.st_dev),
                static_cast<uint64_t>(st.st_ino),
                static_cast<int64_t>(st.st_size),
                st.st_mtim.tv_sec,
                st.st_mtim.tv_nsec,
                st.st_ctim.tv_sec,
                st.st_ctim.tv_nsec};
}

StatusOr<ListPage> DirStore::ListVersions(std::string_view prefix, std::string_view token,
                                          int max_keys) {
  CARLOS_ASSIGN_OR_RETURN(ListPage page, List(prefix, token, max_keys));
  ListPage out;
  out.next_token = std::move(page.next_token);
  out.keys.reserve(page.keys.size());
  out.versions.reserve(page.keys.size());
  for (std::string& key : page.keys) {
    std::string path = root_ + "/" + key;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // Gone meanwhile.
    std::string tag;
    {
      MutexLock lock(&mu_);
      auto it = tags_.find(key);
      if (it != tags_.end() && it->second.id == IdOf(st)) tag = it->second.tag;
    }
    if (tag.empty()) {
      struct stat read_st {};
      StatusOr<std::string> data = ReadObjectStat(path, key, &read_st);
      if (!data.ok()) {
        if (data.status().code() == Code::kNotFound) continue;
        return data.status().Annotate(Describe());
      }
      tag = Sha256Hex(*data);
      // Whole-second timestamps (both fractions zero) cannot tell writes
      // within a second apart.
      bool coarse = read_st.st_mtim.tv_nsec == 0 && read_st.st_ctim.tv_nsec == 0;
      auto settled = coarse ? Milliseconds(2'000) : Milliseconds(50);
      MutexLock lock(&mu_);
      if (std::chrono::system_clock::now() - TimeOf(read_st.st_ctim) > settled) {
        tags_[key] = HashedFile{IdOf(read_st), tag};
      } else {
        tags_.erase(key);
      }
    }
    out.keys.push_back(std::move(key));
    out.versions.push_back(std::move(tag));
  }
  return out;
}

Status DirStore::Delete(std::string_view key) {
  CARLOS_RETURN_IF_ERROR(CheckDirKey(key));
  if (Reserved(key)) return OkStatus();  // Never an object, so already absent.
  std::string path = root_ + "/" + std::string(key);
  std::string lock_dir = root_ + "/" + std::string(kLockDir);
  if (::mkdir(lock_dir.c_str(), kDirMode) != 0 && errno != EEXIST) {
    return WriteError(ErrnoStatus(errno, "mkdir", lock_dir), key);
  }
  KeyLock lock;
  CARLOS_RETURN_IF_ERROR(WriteError(lock.Acquire(lock_dir + "/" + Sha256Hex(key)), key));
  if (::unlink(path.c_str()) != 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR || err == EISDIR) return OkStatus();
    return WriteError(ErrnoStatus(err, "unlink", path), key);
  }
  std::string parent = path.substr(0, path.rfind('/'));
  return WriteError(SyncDir(parent), key);
}

}  // namespace carlos
