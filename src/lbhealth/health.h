// The load balancer's health check (DESIGN.md, "Health check (lbhealth)"):
// the box's hosting state and the one answer the load balancer polls,
// `GET`/`HEAD /_carlos/lb` on the agent's -http address.
//
// The state is a flag and a line of text. The agent's loops set them
// (joining: not hosting, the stage; hosting: hosting; draining: not hosting,
// "draining"); the HTTP server's threads read them on every request, so both
// are lock-free atomics and a request never waits on a loop.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace carlos::lbhealth {

// The health check's path (the seed's lbhealth package).
inline constexpr std::string_view kPath = "/_carlos/lb";

// Health is whether this box takes traffic, and why not when it does not.
// Thread-safe: any thread may set or read at any time.
class Health {
 public:
  // A new state: not hosting, stage "joining" (the seed's joining sets
  // hosting false from the first moment; a box starts out taking no traffic).
  Health();

  // Hosting (200) or not (503).
  void SetHosting(bool hosting);
  bool hosting() const;

  // The text a 503 answers with, e.g. "joining: invited" or "draining". It
  // is one line; any CR or LF in it is replaced with a space.
  void SetStage(std::string_view stage);
  std::string stage() const;

 private:
  std::atomic<bool> hosting_{false};
  std::atomic<std::shared_ptr<const std::string>> stage_;
};

// The process's state, which the agent's loops and its health listener
// share (the seed's lbhealth.Default). Never null.
Health& Default();

// One request as far as the health check looks at it.
struct Request {
  std::string_view method;  // "GET", "HEAD", ...
  std::string_view target;  // The request target: "/_carlos/lb" or "/_carlos/lb?x=1".
};

// The answer to write back.
struct Response {
  int status_code = 0;  // 200, 503 or 405.
  // Headers in order: always Content-Type text/plain and Cache-Control
  // no-store (a cached answer would hide a box leaving hosting); Allow on a
  // 405.
  std::vector<std::pair<std::string, std::string>> headers;
  // The body: "hosting\n", "<stage>\n" or "method not allowed\n". Empty for
  // HEAD, whose Content-Length is still that of the GET body
  // (content_length).
  std::string body;
  size_t content_length = 0;
};

// Answers `request` from `health`: for the path kPath (any query string),
// GET or HEAD -> 200 "hosting" while hosting, else 503 with the stage;
// another method -> 405 with Allow: GET, HEAD. For any other path it returns
// nullopt: the request is not the health check's, and the caller answers it
// (404 on a joining box). Pure apart from reading `health`; thread-safe.
std::optional<Response> Serve(const Request& request, const Health& health);

}  // namespace carlos::lbhealth
