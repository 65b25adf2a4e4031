#include "metrics/server.h"

namespace carlos::metrics {

net::HttpResponse Answer(const Registry& registry, const net::HttpRequest& request) {
  net::HttpResponse r;
  if (request.path != "/metrics") {
    r.status = 404;
    r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    r.body = "not found: the metrics are at /metrics\n";
    return r;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    r.status = 405;
    r.headers.emplace_back("Allow", "GET, HEAD");
    r.body = "method not allowed: use GET /metrics\n";
    return r;
  }
  r.headers.emplace_back("Content-Type", kContentType);
  r.body = registry.Render();
  return r;
}

StatusOr<std::unique_ptr<net::HttpServer>> Serve(const std::string& address,
                                                 const Registry* registry) {
  net::HttpServer::Options options;
  options.address = address;
  return net::HttpServer::Start(
      options, [registry](const net::HttpRequest& request) { return Answer(*registry, request); });
}

}  // namespace carlos::metrics
