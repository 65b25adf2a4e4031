#include "guard/guard_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/files.h"
#include "identity/store_keys.h"
#include "protocol/local_guard.h"

namespace carlos::guard {

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
  if (std::string why = protocol::WhyUntrusted(st, owner_uid); !why.empty()) {
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
