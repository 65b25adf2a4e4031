// The metrics listener: GET /metrics answers a Registry's text exposition
// (format 0.0.4) on a listener of its own, never the health check's
// (docs/operator.md, "Metrics": bind it where only the fleet's Prometheus
// reaches).
//
// Thread-safety: the server answers on its own thread; the registry is
// safe from many threads.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "metrics/registry.h"
#include "net/http_server.h"

namespace carlos::metrics {

// The answer to one request: GET or HEAD /metrics is 200 with the
// registry's text and Content-Type kContentType; another path is 404;
// another method 405 with Allow: GET, HEAD.
net::HttpResponse Answer(const Registry& registry, const net::HttpRequest& request);

// Listens on `address` ("127.0.0.1:9464", ":9464"; net::SplitListenAddress)
// and answers with Answer. `registry` must outlive the server. Errors: the
// address does not parse or cannot be bound (InvalidArgument /
// Unavailable, as net::HttpServer::Start).
StatusOr<std::unique_ptr<net::HttpServer>> Serve(const std::string& address,
                                                 const Registry* registry);

}  // namespace carlos::metrics
