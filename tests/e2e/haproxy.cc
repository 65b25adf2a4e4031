#include "haproxy.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/files.h"
#include "base/strings.h"
#include "dev/region_env.h"
#include "dev/region_process.h"

namespace carlos::e2e {

bool ServerView::checked() const {
  // A check in progress is shown with a "* " prefix; the status it shows
  // is the last completed check's.
  std::string s = check_status;
  if (s.rfind("* ", 0) == 0) s = s.substr(2);
  return !s.empty() && s != "INI";
}

StatusOr<std::string> StatsCommand(const std::string& path, const std::string& command) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unavailable("socket: " + std::string(strerror(errno)));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    close(fd);
    return InvalidArgument("stats socket path too long: " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    close(fd);
    return Unavailable("connect " + path + ": " + strerror(err));
  }
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string cmd = command + "\n";
  if (write(fd, cmd.data(), cmd.size()) != static_cast<ssize_t>(cmd.size())) {
    close(fd);
    return Unavailable("write to " + path + " failed");
  }
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

StatusOr<std::map<std::string, ServerView>> ParseShowStat(const std::string& csv,
                                                          const std::string& backend) {
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> header;
  std::map<std::string, ServerView> out;
  int px = -1, sv = -1, st = -1, ck = -1;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) {
      header = Split(line.substr(2), ',');
      for (size_t i = 0; i < header.size(); ++i) {
        if (header[i] == "pxname") px = static_cast<int>(i);
        if (header[i] == "svname") sv = static_cast<int>(i);
        if (header[i] == "status") st = static_cast<int>(i);
        if (header[i] == "check_status") ck = static_cast<int>(i);
      }
      continue;
    }
    if (line.empty() || px < 0) continue;
    std::vector<std::string> f = Split(line, ',');
    int need = std::max({px, sv, st, ck});
    if (static_cast<int>(f.size()) <= need) continue;
    if (f[static_cast<size_t>(px)] != backend) continue;
    const std::string& name = f[static_cast<size_t>(sv)];
    if (name == "BACKEND" || name == "FRONTEND") continue;
    out[name] = ServerView{f[static_cast<size_t>(st)], f[static_cast<size_t>(ck)]};
  }
  if (px < 0 || sv < 0 || st < 0 || ck < 0) {
    return Corrupt("show stat: no header with pxname, svname, status and check_status: " +
                   csv.substr(0, 200));
  }
  return out;
}

StatusOr<Haproxy> Haproxy::Start(const std::string& dir, int frontend_port,
                                 const std::vector<Backend>& servers) {
  std::string socket = dir + "/haproxy.sock";
  std::string cfg =
      "global\n"
      "  stats socket " +
      socket +
      " mode 600 level admin\n"
      "defaults\n"
      "  mode http\n"
      "  timeout connect 1s\n"
      "  timeout client 5s\n"
      "  timeout server 5s\n"
      "  timeout check 500ms\n"
      "frontend region_in\n"
      "  bind 127.0.0.1:" +
      std::to_string(frontend_port) +
      "\n"
      "  default_backend region\n"
      "backend region\n"
      "  option httpchk GET /_carlos/lb\n"
      "  http-check expect status 200\n"
      "  default-server inter 200ms fastinter 200ms downinter 200ms fall 1 rise 1\n";
  for (const auto& s : servers) {
    cfg += "  server " + s.name + " 127.0.0.1:" + std::to_string(s.port) + " check\n";
  }
  CARLOS_RETURN_IF_ERROR(WriteFileAtomic(dir + "/haproxy.cfg", cfg, 0644));
  std::string bin = "/usr/sbin/haproxy";
  if (access(bin.c_str(), X_OK) != 0) {
    return NotFound("HAProxy is not installed at /usr/sbin/haproxy: run scripts/deps.sh");
  }
  dev::ProcessSpec spec;
  spec.argv = {bin, "-db", "-f", dir + "/haproxy.cfg"};
  spec.env = dev::ProcessEnviron();
  spec.log_path = dir + "/haproxy.log";
  CARLOS_ASSIGN_OR_RETURN(pid_t pid, dev::SpawnProcess(spec));
  Haproxy h(pid, socket);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto e = dev::TryReap(pid)) {
      h.pid_ = 0;
      std::ifstream log(dir + "/haproxy.log");
      std::stringstream ss;
      ss << log.rdbuf();
      return Unavailable("haproxy ended (" + e->Describe() + "): " + ss.str());
    }
    auto st = StatsCommand(socket, "show stat");
    if (st.ok() && ParseShowStat(*st, "region").ok()) return h;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Unavailable("haproxy's stats socket " + socket + " did not answer within 10s");
}

Haproxy::Haproxy(Haproxy&& o) noexcept : pid_(o.pid_), socket_(std::move(o.socket_)) { o.pid_ = 0; }

Haproxy::~Haproxy() {
  if (pid_ > 0) dev::StopProcesses({pid_}, std::chrono::milliseconds(3000));
}

StatusOr<std::map<std::string, ServerView>> Haproxy::Servers() const {
  CARLOS_ASSIGN_OR_RETURN(std::string csv, StatsCommand(socket_, "show stat"));
  return ParseShowStat(csv, "region");
}

}  // namespace carlos::e2e
