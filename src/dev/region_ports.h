// Before a region starts: every 127.0.0.1 port it will listen on must be
// free. A previous run's processes (a region killed with SIGKILL leaves its
// agents running) would otherwise answer the new region's health checks as
// if they were its own boxes. docs/region.md, "Ports".
//
// Thread-safety: plain functions; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace carlos::dev {

// A process listening on a TCP port.
struct PortHolder {
  int pid = 0;          // 0 when the socket's owner cannot be seen (another user's).
  std::string command;  // Its command line, arguments joined by spaces ("" when unseen).
};

// Who listens on TCP `port` (any local address, IPv4 or IPv6), from
// /proc/net/tcp{,6} (the listening socket's inode) and /proc/<pid>/fd (the
// process holding it): nullopt when nothing listens.
std::optional<PortHolder> FindPortHolder(int port);

// OK when no port of `ports` (each with what it is for: "box-1's health
// check") has a listener; otherwise kPreconditionFailed naming the first
// one held, what holds it and what to do: "127.0.0.1:8401 (box-1's health
// check) is held by pid 1234 (carlos agent -http 127.0.0.1:8401): a process
// of a previous run? stop it (kill 1234), or use another --base-port".
Status CheckPortsFree(const std::vector<std::pair<int, std::string>>& ports);

}  // namespace carlos::dev
