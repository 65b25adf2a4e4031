#include "guard/local_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/files.h"
#include "identity/store_keys.h"

namespace carlos::guard {

namespace {

// Why a file or directory with `st` cannot be trusted as root's, or "".
std::string Untrusted(const struct stat& st, uid_t owner_uid) {
  if (st.st_uid != owner_uid) {
    return fmt::format("it is owned by uid {}, not uid {}", st.st_uid, owner_uid);
  }
  if ((st.st_mode & 022) != 0) {
    return fmt::format("group or others may write it (mode {:04o})", st.st_mode & 07777);
  }
  return "";
}

// Reads a guard file without following a symbolic link and checks its
// owner and mode on the open descriptor (no window between check and read).
// Sets *refused (and returns "") for a file present but untrusted;
// kNotFound when absent.
StatusOr<std::string> ReadTrusted(const std::string& path, uid_t owner_uid, std::string* refused) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) {
      *refused = fmt::format("{} is a symbolic link", path);
      return std::string();
    }
    return ErrnoStatus(errno, "open", path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus(err, "stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    *refused = fmt::format("{} is not a regular file", path);
    return std::string();
  }
  if (std::string why = Untrusted(st, owner_uid); !why.empty()) {
    ::close(fd);
    *refused = fmt::format("{} is not root's: {}", path, why);
    return std::string();
  }
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return ErrnoStatus(err, "read", path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    // One byte past the limit is enough for the parser to refuse it as
    // oversized; reading further would only cost memory.
    if (out.size() > identity::kMaxDocumentBytes) break;
  }
  ::close(fd);
  return out;
}

}  // namespace

bool LocalGuard::armed_now() const {
  return guard.has_value() && armed.has_value() && armed->doc.guard_digest == guard->digest;
}

std::string LocalGuard::why_not_armed() const {
  if (armed_now()) return "";
  if (!guard.has_value()) {
    if (!guard_refused.empty()) return "guard.json is refused: " + guard_refused;
    return "the guard is not installed";
  }
  if (!armed.has_value()) {
    if (!armed_refused.empty()) return "armed.json is refused: " + armed_refused;
    return "armed.json is absent";
  }
  return fmt::format("armed.json names another guard ({})", armed->doc.guard_digest);
}

StatusOr<LocalGuard> ReadLocalGuard(const std::string& data_dir, uid_t owner_uid) {
  LocalGuard out;
  std::string dir = identity::GuardDir(data_dir);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return out;
    return ErrnoStatus(errno, "stat", dir);
  }
  if (!S_ISDIR(st.st_mode)) {
    out.guard_refused = fmt::format("{} is not a directory", dir);
    return out;
  }
  if (std::string why = Untrusted(st, owner_uid); !why.empty()) {
    out.guard_refused = fmt::format("{} is not root's: {}", dir, why);
    return out;
  }

  std::string refused;
  auto guard_bytes = ReadTrusted(identity::GuardFilePath(data_dir), owner_uid, &refused);
  if (!guard_bytes.ok() && guard_bytes.status().code() != Code::kNotFound) {
    return guard_bytes.status();
  }
  if (!refused.empty()) {
    out.guard_refused = refused;
  } else if (guard_bytes.ok()) {
    auto parsed = identity::ParseGuardFile(*guard_bytes);
    if (parsed.ok()) {
      out.guard = std::move(parsed).value();
    } else {
      out.guard_refused = parsed.status().message();
    }
  }

  refused.clear();
  auto armed_bytes = ReadTrusted(identity::ArmedFilePath(data_dir), owner_uid, &refused);
  if (!armed_bytes.ok() && armed_bytes.status().code() != Code::kNotFound) {
    return armed_bytes.status();
  }
  if (!refused.empty()) {
    out.armed_refused = refused;
  } else if (armed_bytes.ok()) {
    auto parsed = identity::ParseArmedFile(*armed_bytes);
    if (parsed.ok()) {
      out.armed = std::move(parsed).value();
    } else {
      out.armed_refused = parsed.status().message();
    }
  }
  return out;
}

Status PrepareGuardDir(const std::string& data_dir, uid_t owner_uid) {
  struct stat st {};
  if (::stat(data_dir.c_str(), &st) != 0) {
    return ErrnoStatus(errno, "stat the data dir", data_dir);
  }
  std::string dir = identity::GuardDir(data_dir);
  if (::mkdir(dir.c_str(), 0755) == 0) {
    // mkdir applies the umask; the guard directory's mode is part of its
    // trust, so it is set exactly.
    if (::chmod(dir.c_str(), 0755) != 0) return ErrnoStatus(errno, "chmod", dir);
    return SyncDir(data_dir);
  }
  if (errno != EEXIST) return ErrnoStatus(errno, "mkdir", dir);
  if (::lstat(dir.c_str(), &st) != 0) return ErrnoStatus(errno, "stat", dir);
  if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
    return PreconditionFailed(
        fmt::format("{} is not a directory root made ({}): remove it and run again", dir,
                    S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory"));
  }
  if (std::string why = Untrusted(st, owner_uid); !why.empty()) {
    return PreconditionFailed(fmt::format(
        "{} cannot hold root's guard: {}; remove it (rm -r {}) and run again", dir, why, dir));
  }
  return OkStatus();
}

GuardDirLock& GuardDirLock::operator=(GuardDirLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

GuardDirLock::~GuardDirLock() {
  if (fd_ >= 0) ::close(fd_);  // Closing the descriptor releases the flock.
}

StatusOr<GuardDirLock> LockGuardDir(const std::string& data_dir) {
  std::string dir = identity::GuardDir(data_dir);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open", dir);
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    return ErrnoStatus(err, "lock", dir);
  }
  return GuardDirLock(fd);
}

Status RemoveStaleTemporaries(const std::string& data_dir) {
  std::string dir = identity::GuardDir(data_dir);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return ErrnoStatus(errno, "open", dir);
  bool removed = false;
  Status result;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name.rfind(".tmp-", 0) != 0) continue;
    std::string path = dir + "/" + std::string(name);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      result = ErrnoStatus(errno, "remove", path);
      break;
    }
    removed = true;
  }
  ::closedir(d);
  if (!result.ok()) return result;
  return removed ? SyncDir(dir) : OkStatus();
}

}  // namespace carlos::guard
