// The health check's listener: the load balancer's only way in on a
// joining box, and beside the edge on a hosting one (the seed's
// productionJoining serve: http.Server{Addr: -http, ReadHeaderTimeout: 10s}).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "lbhealth/health.h"
#include "net/http_server.h"

namespace carlos::lbhealth {

// Starts answering on `address` (Go style: ":80", "127.0.0.1:0"): the
// health check (Serve) from `health`, 404 "404 page not found" for every
// other path, as Go's http.NotFound. A connection that has not sent its
// request header within `header_timeout` is closed (DESIGN.md: 10 s).
// `answered`, when set, is told each answer's status code on the server's
// thread (the agent's metrics count them; it must be cheap and
// thread-safe). `health` must outlive the server. Errors: as net::HttpServer::Start (a bad
// address, the address in use, a privileged port).
StatusOr<std::unique_ptr<net::HttpServer>> StartListener(const std::string& address,
                                                         Milliseconds header_timeout,
                                                         const Health* health,
                                                         std::function<void(int)> answered = {});

}  // namespace carlos::lbhealth
