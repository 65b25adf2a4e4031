#include "base/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace carlos {

Status ErrnoStatus(int err, std::string_view what, std::string_view path) {
  std::string msg = fmt::format("{} {}: {}", what, path, std::strerror(err));
  switch (err) {
    case ENOENT:
      return NotFound(msg);
    case EACCES:
    case EPERM:
    case EROFS:
      return Denied(msg);
    case ENOSPC:
    case EDQUOT:
      return Unavailable(msg + " (disk full)");
    case EEXIST:
      return PreconditionFailed(msg);
    default:
      return Unavailable(msg);
  }
}

StatusOr<std::string> ReadFileLimited(const std::string& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  std::string out;
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return ErrnoStatus(err, "read", path);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      return Corrupt(fmt::format("{} is larger than {} bytes", path, max_bytes));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

namespace {

std::string DirOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string TempName(const std::string& path) {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(getpid()));
  return fmt::format("{}/.tmp-{}-{:016x}", DirOf(path), getpid(), rng());
}

// Writes `data` to a new temporary file beside `path`, fsynced, with `mode`;
// returns its name.
StatusOr<std::string> WriteTemp(const std::string& path, std::string_view data, mode_t mode) {
  std::string tmp = TempName(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  // Errors name `path`, the file the caller asked for, never the
  // temporary name it does not know.
  if (fd < 0) return ErrnoStatus(errno, "create", path);
  auto fail = [&](int err, std::string_view what) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return ErrnoStatus(err, what, path);
  };
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno, "write");
    }
    off += static_cast<size_t>(n);
  }
  // open() applies the umask; the caller's mode is what the protocol needs.
  if (::fchmod(fd, mode) != 0) return fail(errno, "chmod");
  if (::fsync(fd) != 0) return fail(errno, "fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus(err, "close", path);
  }
  return tmp;
}

}  // namespace

Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open directory", dir);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL) return ErrnoStatus(err, "fsync directory", dir);
  return OkStatus();
}

Status WriteFileAtomic(const std::string& path, std::string_view data, mode_t mode) {
  CARLOS_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data, mode));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus(err, "rename into", path);
  }
  return SyncDir(DirOf(path));
}

Status CreateFileExclusive(const std::string& path, std::string_view data, mode_t mode) {
  CARLOS_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data, mode));
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) {
    if (err == EEXIST) return PreconditionFailed(fmt::format("{} already exists", path));
    return ErrnoStatus(err, "link into", path);
  }
  return SyncDir(DirOf(path));
}

Status MakeDirs(const std::string& path, mode_t mode) {
  if (path.empty()) return InvalidArgument("empty directory path");
  std::string cur;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    cur = path.substr(0, next);
    pos = next + 1;
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) return ErrnoStatus(errno, "mkdir", cur);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(errno, "stat", path);
  if (!S_ISDIR(st.st_mode)) return InvalidArgument(fmt::format("{} is not a directory", path));
  return OkStatus();
}

}  // namespace carlos
