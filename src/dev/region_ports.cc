#include "dev/region_ports.h"

#include <dirent.h>
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace carlos::dev {

namespace {

// The inodes of sockets listening on `port` in /proc/net/<file> (proc(5):
// local_address is ADDR:PORT in hex, st 0A is TCP_LISTEN).
std::vector<std::string> ListeningInodes(const std::string& file, int port) {
  std::vector<std::string> inodes;
  std::ifstream in("/proc/net/" + file);
  std::string line;
  std::getline(in, line);  // The header.
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string sl, local, remote, st, queues, tr, retr, uid, timeout, inode;
    if (!(fields >> sl >> local >> remote >> st >> queues >> tr >> retr >> uid >> timeout >>
          inode)) {
      continue;
    }
    size_t colon = local.rfind(':');
    if (colon == std::string::npos || st != "0A") continue;
    if (std::stoi(local.substr(colon + 1), nullptr, 16) == port) inodes.push_back(inode);
  }
  return inodes;
}

std::string CommandLine(int pid) {
  std::ifstream in(fmt::format("/proc/{}/cmdline", pid));
  std::string raw((std::istreambuf_iterator<char>(in)), {});
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

// The pid with an open descriptor on socket `inode`, or 0.
int SocketOwner(const std::string& inode) {
  const std::string want = "socket:[" + inode + "]";
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  int found = 0;
  while (dirent* p = ::readdir(proc)) {
    int pid = std::atoi(p->d_name);
    if (pid <= 0) continue;
    std::string fd_dir = fmt::format("/proc/{}/fd", pid);
    DIR* fds = ::opendir(fd_dir.c_str());
    if (!fds) continue;  // Another user's process.
    while (dirent* f = ::readdir(fds)) {
      char target[64];
      std::string link = fd_dir + "/" + f->d_name;
      ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
      if (n > 0 && std::string(target, static_cast<size_t>(n)) == want) {
        found = pid;
        break;
      }
    }
    ::closedir(fds);
    if (found) break;
  }
  ::closedir(proc);
  return found;
}

}  // namespace

std::optional<PortHolder> FindPortHolder(int port) {
  for (const char* file : {"tcp", "tcp6"}) {
    for (const std::string& inode : ListeningInodes(file, port)) {
      PortHolder h;
      h.pid = SocketOwner(inode);
      if (h.pid > 0) h.command = CommandLine(h.pid);
      return h;
    }
  }
  return std::nullopt;
}

Status CheckPortsFree(const std::vector<std::pair<int, std::string>>& ports) {
  for (const auto& [port, what] : ports) {
    std::optional<PortHolder> h = FindPortHolder(port);
    if (!h) continue;
    if (h->pid == 0) {
      return PreconditionFailed(fmt::format(
          "127.0.0.1:{} ({}) is held by a process of another user: stop it, or use another "
          "--base-port",
          port, what));
    }
    return PreconditionFailed(fmt::format(
        "127.0.0.1:{} ({}) is held by pid {} ({}): a process of a previous run? stop it (kill "
        "{}), or use another --base-port",
        port, what, h->pid, h->command, h->pid));
  }
  return OkStatus();
}

}  // namespace carlos::dev
