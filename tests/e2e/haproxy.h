// HAProxy (Debian's, scripts/deps.sh) as the end-to-end test's load
// balancer: one backend server per box, health-checking GET /_carlos/lb as
// a real deployment's load balancer would, and HAProxy's own view of each
// server read from its stats socket (`show stat`, CSV; HAProxy management
// guide, "9.3. Unix Socket commands" and "9.1. CSV format").
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace carlos::e2e {

// One server as `show stat` reports it.
struct ServerView {
  std::string status;        // "UP", "DOWN", "UP 1/2", "DOWN 1/2", "MAINT", "no check".
  std::string check_status;  // "INI" before the first check, "L7OK", "L7STS", "L4CON"...
  // True once a check has completed (check_status is no longer INI), so
  // `status` is HAProxy's verdict rather than its initial state.
  bool checked() const;
  bool up() const { return checked() && status == "UP"; }
  bool down() const { return checked() && status == "DOWN"; }
};

struct Backend {
  std::string name;  // Server name: the box label.
  int port;          // 127.0.0.1:<port> is its -http address.
};

class Haproxy {
 public:
  // Writes DIR/haproxy.cfg (a frontend on 127.0.0.1:frontend_port, backend
  // "region" with `servers`, checks every 200 ms, fall 1, rise 1) and starts
  // `haproxy -db -f DIR/haproxy.cfg` in its own process group, output to
  // DIR/haproxy.log; waits (up to 10 s) until its stats socket answers.
  // Errors: haproxy missing, the config refused (the log's tail is in the
  // message), or no stats socket in time.
  static StatusOr<Haproxy> Start(const std::string& dir, int frontend_port,
                                 const std::vector<Backend>& servers);
  Haproxy(Haproxy&& o) noexcept;
  Haproxy& operator=(Haproxy&&) = delete;
  // Stops it (SIGTERM, then SIGKILL after 3 s).
  ~Haproxy();

  // HAProxy's view of each server of backend "region", by server name.
  // Errors: the socket did not answer, or the CSV has no status column.
  StatusOr<std::map<std::string, ServerView>> Servers() const;

  const std::string& socket_path() const { return socket_; }

 private:
  Haproxy(pid_t pid, std::string socket) : pid_(pid), socket_(std::move(socket)) {}
  pid_t pid_ = 0;
  std::string socket_;
};

// Sends `command` to the stats socket at `path` and returns the whole
// answer. Errors: kUnavailable when the socket cannot be reached.
StatusOr<std::string> StatsCommand(const std::string& path, const std::string& command);

// Parses `show stat` CSV into servers of backend `backend`. Errors:
// kCorrupt when the header lacks pxname, svname, status or check_status.
StatusOr<std::map<std::string, ServerView>> ParseShowStat(const std::string& csv,
                                                          const std::string& backend);

}  // namespace carlos::e2e
