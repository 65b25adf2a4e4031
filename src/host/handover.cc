#include "host/handover.h"

#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/files.h"

namespace carlos::host {

bool StartedByGuardExec(const Getenv& getenv) { return getenv(kStartedByGuardExec) == "1"; }

Status ExecThroughGuardExec() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (raw.empty()) return Unavailable("the hand-over: /proc/self/cmdline could not be read");
  std::vector<std::string> args = {"carlos", "system", "guard-exec", "--"};
  for (size_t start = 0; start < raw.size();) {
    size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    args.push_back(raw.substr(start, end - start));
    start = end + 1;
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  // Nothing of this process's (sockets, the store's connections, inotify)
  // goes on into the next one.
  ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  ::execv("/proc/self/exe", argv.data());
  return ErrnoStatus(errno, "the hand-over: exec", "/proc/self/exe");
}

}  // namespace carlos::host
