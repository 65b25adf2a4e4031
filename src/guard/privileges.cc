#include "guard/privileges.h"

#include <fmt/format.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace carlos::guard {

namespace {

Status Failed(std::string_view what, const std::string& user) {
  return Denied(fmt::format("cannot drop to user {}: {}: {}", user, what, std::strerror(errno)));
}

}  // namespace

Status DropToUser(const std::string& user) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  int rc = ::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found);
  if (rc != 0 || found == nullptr) {
    return NotFound(
        fmt::format("the service user {} does not exist; install the package's sysusers.d file "
                    "(systemd-sysusers) or set CARLOS_SERVICE_USER",
                    user));
  }
  const uid_t uid = pw.pw_uid;
  const gid_t gid = pw.pw_gid;
  if (uid == 0) {
    return InvalidArgument(
        fmt::format("the service user {} is root (uid 0); the agent never runs as root", user));
  }
  // Groups first, then the gid, then the uid: once the uid is dropped the
  // process may change neither.
  if (::initgroups(pw.pw_name, gid) != 0) return Failed("initgroups", user);
  if (::setresgid(gid, gid, gid) != 0) return Failed("setresgid", user);
  if (::setresuid(uid, uid, uid) != 0) return Failed("setresuid", user);

  uid_t ru, eu, su;
  gid_t rg, eg, sg;
  if (::getresuid(&ru, &eu, &su) != 0 || ::getresgid(&rg, &eg, &sg) != 0) {
    return Failed("getresuid", user);
  }
  if (ru != uid || eu != uid || su != uid || rg != gid || eg != gid || sg != gid) {
    return Denied(fmt::format("cannot drop to user {}: the ids did not all change", user));
  }
  if (::setuid(0) == 0 || ::seteuid(0) == 0) {
    return Denied(fmt::format("cannot drop to user {}: root could be regained", user));
  }
  if (gid != 0 && (::setgid(0) == 0 || ::setegid(0) == 0)) {
    return Denied(fmt::format("cannot drop to user {}: group root could be regained", user));
  }
  ::setenv("HOME", pw.pw_dir, 1);
  ::setenv("USER", pw.pw_name, 1);
  ::setenv("LOGNAME", pw.pw_name, 1);
  return OkStatus();
}

}  // namespace carlos::guard
