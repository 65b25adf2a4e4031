#include "protocol/local_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/files.h"
#include "identity/refusal.h"
#include "identity/store_keys.h"

namespace carlos::protocol {

std::string WhyUntrusted(const struct stat& st, uid_t owner_uid) {
  if (st.st_uid != owner_uid) {
    return fmt::format("it is owned by uid {}, not uid {}", st.st_uid, owner_uid);
  }
  if ((st.st_mode & 022) != 0) {
    return fmt::format("group or others may write it (mode {:04o})", st.st_mode & 07777);
  }
  return "";
}

namespace {

// "<reason>: <detail>" of a parser's refusal (the file is named by the
// caller), or the message of any other error.
std::string RefusalPhrase(const Status& st) {
  const identity::RefusalInfo* info = identity::RefusalInfoOf(st);
  if (info == nullptr) return st.message();
  return fmt::format("{}: {}", identity::RefusalName(info->reason), info->detail);
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
  if (std::string why = WhyUntrusted(st, owner_uid); !why.empty()) {
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
  return guard.has_value() && armed.has_value() &&
         identity::CheckArmedFor(armed->doc, guard->digest).ok();
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

identity::GuardFacts LocalGuard::Facts() const {
  identity::GuardFacts f;
  f.installed = installed();
  f.armed = armed_now();
  if (guard) {
    f.guard_digest = guard->digest;
    f.record_digest = guard->doc.record_digest;
    f.invitation_digest = guard->doc.invitation_digest;
  }
  if (!f.armed) f.why_not_armed = why_not_armed();
  if (f.why_not_armed && f.why_not_armed->size() > kMaxWhyNotArmedBytes) {
    f.why_not_armed->resize(kMaxWhyNotArmedBytes);
  }
  return f;
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
  if (std::string why = WhyUntrusted(st, owner_uid); !why.empty()) {
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
      out.guard_refused = RefusalPhrase(parsed.status());
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
      out.armed_refused = RefusalPhrase(parsed.status());
    }
  }
  return out;
}

}  // namespace carlos::protocol
