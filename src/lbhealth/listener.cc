#include "lbhealth/listener.h"

namespace carlos::lbhealth {

namespace {

net::HttpResponse Answer(const net::HttpRequest& req, const Health& health) {
  net::HttpResponse resp;
  // The server answers HEAD with GET's headers and length and no body.
  std::string_view method = req.method == "HEAD" ? std::string_view("GET") : req.method;
  // The path, not the target as sent: an absolute-form target
  // ("http://box/_carlos/lb") is the health check too.
  std::optional<Response> r = Serve({method, req.path}, health);
  if (!r) {
    resp.status = 404;
    resp.headers = {{"Content-Type", "text/plain; charset=utf-8"},
                    {"X-Content-Type-Options", "nosniff"}};
    resp.body = "404 page not found\n";
    return resp;
  }
  resp.status = r->status_code;
  resp.headers = std::move(r->headers);
  resp.body = std::move(r->body);
  return resp;
}

}  // namespace

StatusOr<std::unique_ptr<net::HttpServer>> StartListener(const std::string& address,
                                                         Milliseconds header_timeout,
                                                         const Health* health,
                                                         std::function<void(int)> answered) {
  net::HttpServer::Options options;
  options.address = address;
  options.header_timeout = header_timeout;
  // The health check takes no body: a small cap keeps a slow or hostile
  // client from holding memory.
  options.max_body_bytes = 4096;
  return net::HttpServer::Start(
      options, [health, answered = std::move(answered)](const net::HttpRequest& req) {
        net::HttpResponse resp = Answer(req, *health);
        if (answered) answered(resp.status);
        return resp;
      });
}

}  // namespace carlos::lbhealth
